/* host_run.c - an application thread waiting in clFinish runs a small
   launch itself when no worker can (pthread_host.h).

   Usage: host_run expect-host|expect-wait|expect-domain|expect-ooo|
                   expect-stack|expect-coroutine|expect-big|expect-big-wait
   Every worker is first made busy: a launch of one work-group per thread
   (local size 1) whose work-groups count themselves in and then wait for
   a flag the program sets at the end.  A worker stuck in one of them can
   take nothing else, so once all of them are in, what follows is
   deterministic:
     - clFinish on a second queue with a launch of one work-group, a
       marker and a barrier returns only if this thread runs that launch
       and completes the marker and the barrier itself (expect-host: with
       POCL_PTHREAD_HOST_GROUPS at its default), or only after the flag
       is set and the workers are free again (expect-wait: with
       POCL_PTHREAD_HOST_GROUPS=0, and from a thread whose stack, 256 KiB,
       is too small for a kernel, where the host must not run it; a watchdog
       sets it after 3 s);
     - the kernel run on this thread divides by zero (no trap: kernels are
       compiled with the division sanitizer) and adds two numbers whose sum
       rounds up to nearest but down towards minus infinity, while this
       thread's own rounding mode is downward and its MXCSR has
       flush-to-zero set: the sum is the round-to-nearest one, and
       afterwards the thread's rounding and MXCSR are what they were;
     - two application threads at once, each with its own queue, both run
       their launches;
     - expect-domain: thread 1's queue is on a sub-device made by NUMA
       affinity domain (the first node's), whose work-groups must keep to
       the domain's CPUs: it waits until the program frees the workers,
       which it does once thread 2 (root device) has run its own launch
       and returned.  On a machine of one node, where no such sub-device
       can be made (CL_DEVICE_PARTITION_FAILED), it reports itself
       skipped (exit 77); the emulated NUMA guest runs it;
     - expect-ooo: thread 1's queue is out of order, and it enqueues,
       after its launch of one work-group, launches of 4 and 16
       work-groups that count each work-item's runs; it waits for the
       last with clWaitForEvents, then for the rest with clFinish: it runs
       all three launches itself, and every work-item ran exactly once;
     - expect-stack: thread 1's stack (256 KiB) is too small for its
       kernel, which has 1 MiB of private data, with
       POCL_PTHREAD_HOST_GROUPS at its default.  It first waits for a lone
       marker, which it completes itself (a marker needs no stack), then
       for its launch, which it runs itself on the driver's stack
       (pthread_stack.h; run on its own stack, the kernel would overflow
       it and crash): both threads return early, as in expect-host;
     - expect-coroutine: the same kernel, from thread 1 running on a
       makecontext coroutine with a 64 KiB stack, whose stack pointer is
       outside the thread's own stack: it runs its launch itself too.
       Where the driver has no stack switch (an architecture other than
       x86-64 and AArch64), both modes expect the old behaviour instead:
       thread 1 leaves its launch to the workers and waits until the
       program frees them, once thread 2 ran its own launch and returned
       (and, expect-stack, thread 1 is past its marker);
     - expect-big: thread 1's launch has 1024 work-groups, with
       POCL_PTHREAD_HOST_GROUPS unset: on a device whose threads are all
       on one NUMA node it runs all of them itself, and both threads
       return early, as in expect-host; on several nodes, where big
       launches are left to the workers, it reports itself skipped;
     - expect-big-wait: the same launch with POCL_PTHREAD_HOST_GROUPS=64
       set, which applies on every machine: thread 1 waits until the
       program frees the workers, once thread 2 ran its own launch.
   Which thread ran how many work-groups is the `host` field of
   POCL_PTHREAD_STATS; check_host_run.sh checks it.

   Nothing depends on how fast threads run: "early" means returned before
   the workers were freed, and only a failure waits for the minute-long
   guards (the workers getting busy, the watchdog of expect-host,
   expect-ooo and expect-domain).  expect-wait's 3 s only bound how long
   the threads are watched not returning.

   Copyright (c) 2026 pocl-steal developers.  MIT licence, as PoCL.  */

#define _GNU_SOURCE

#include <fenv.h>
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>
#include <xmmintrin.h>

#include "busy_workers.h"
#include "cltest.h"

/* Whether the driver runs an application thread's work-groups on a stack
   of its own (driver/pthread_stack.h: PT_STACK_SWITCH).  */
#if defined(__x86_64__) || defined(__aarch64__)
#define DRIVER_STACK 1
#else
#define DRIVER_STACK 0
#endif

static const char *source = BUSY_WORKERS_SOURCE
    "__kernel void small (__global float *out, float a, float b, int d)\n"
    "{\n"
    "  int q = 7 / d;\n"
    "  out[0] = a + b;\n"
    "  out[1] = (float)q;\n"
    "}\n"
    /* As small, with 1 MiB of private data written through: more than a
       256 KiB thread stack or a 64 KiB coroutine stack holds.  */
    "__kernel void deep (__global float *out, float a, float b, int d)\n"
    "{\n"
    "  volatile int buf[262144];\n"
    "  for (int i = 0; i < 262144; i += 1024)\n"
    "    buf[i] = i + d;\n"
    "  int q = 7 / d;\n"
    "  out[0] = a + b;\n"
    "  out[1] = (float)q + (float)buf[d * 1024];\n"
    "}\n"
    "__kernel void count (__global int *hits)\n"
    "{\n"
    "  atomic_inc (&hits[get_global_id (0)]);\n"
    "}\n";

/* expect-ooo: the counted launches' sizes (local size 1), one after the
   other in the hits buffer.  */
#define OOO_FIRST 4
#define OOO_SECOND 16

typedef struct
{
  cltest_env *e;
  cl_kernel small;
  cl_kernel count;        /* expect-ooo, else NULL: an out-of-order queue */
  int ran_nearest;        /* the sum was rounded to nearest */
  int env_kept;           /* rounding mode and MXCSR unchanged afterwards */
  int returned_early;     /* clFinish returned before the workers were freed */
  int marker_first;       /* expect-stack: a lone marker waited for first */
  int on_coroutine;       /* expect-coroutine: run on a 64 KiB coroutine */
  int marker_early;       /* ... and that wait returned before they were */
  atomic_int marker_done; /* ... and that wait has returned */
  int hits_once;          /* expect-ooo: every counted work-item ran once */
  size_t groups;          /* the launch's work-groups, of one work-item */
  cl_command_queue q;
  cl_mem out;  /* read once the workers are free: reads are theirs */
  cl_mem hits; /* expect-ooo: over `hits` */
} small_run;

/* expect-ooo: the counters, host memory the kernels use directly (no
   fill or read: those commands would be the busy workers').  */
static _Alignas (64) volatile int hits[OOO_FIRST + OOO_SECOND];

/* expect-ooo: the counted launches, after the small one, on s's
   out-of-order queue; waits for the second with clWaitForEvents.  */
static void
run_counted (small_run *s)
{
  cl_int err;
  s->hits = clCreateBuffer (s->e->ctx, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR,
                            sizeof (hits), (void *)hits, &err);
  CL_OK (err);
  CL_OK (clSetKernelArg (s->count, 0, sizeof (s->hits), &s->hits));
  size_t off = 0, g = OOO_FIRST, one = 1;
  cl_event second;
  CL_OK (clEnqueueNDRangeKernel (s->q, s->count, 1, &off, &g, &one, 0, NULL,
                                 NULL));
  off = OOO_FIRST;
  g = OOO_SECOND;
  CL_OK (clEnqueueNDRangeKernel (s->q, s->count, 1, &off, &g, &one, 0, NULL,
                                 &second));
  CL_OK (clFlush (s->q));
  CL_OK (clWaitForEvents (1, &second));
  CL_OK (clReleaseEvent (second));
}

/* One launch of `small` on a queue of its own, waited for with clFinish
   under downward rounding and flush-to-zero.  */
static void *
run_small (void *arg)
{
  small_run *s = arg;
  cl_int err;
  cl_queue_properties ooo[]
      = { CL_QUEUE_PROPERTIES, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, 0 };
  cl_command_queue q = clCreateCommandQueueWithProperties (
      s->e->ctx, s->e->dev, s->count != NULL ? ooo : NULL, &err);
  CL_OK (err);
  cl_mem out = clCreateBuffer (s->e->ctx, CL_MEM_READ_WRITE,
                               2 * sizeof (float), NULL, &err);
  CL_OK (err);
  /* 1 + 0.75 ulp: nearest rounds up to 1 + 2^-23, downward gives 1.  */
  float a = 1.0f, b = 0x1.8p-24f;
  int d = 0;
  CL_OK (clSetKernelArg (s->small, 0, sizeof (out), &out));
  CL_OK (clSetKernelArg (s->small, 1, sizeof (a), &a));
  CL_OK (clSetKernelArg (s->small, 2, sizeof (b), &b));
  CL_OK (clSetKernelArg (s->small, 3, sizeof (d), &d));
  size_t one = 1, groups = s->groups > 0 ? s->groups : 1;
  if (s->marker_first)
    {
      CL_OK (clEnqueueMarkerWithWaitList (q, 0, NULL, NULL));
      CL_OK (clFinish (q));
      s->marker_early = !atomic_load (&freed);
      atomic_store (&s->marker_done, 1);
    }
  fesetround (FE_DOWNWARD);
  unsigned csr = _mm_getcsr () | 0x8040; /* FTZ | DAZ */
  _mm_setcsr (csr);
  CL_OK (clEnqueueNDRangeKernel (q, s->small, 1, NULL, &groups, &one, 0, NULL,
                                 NULL));
  s->q = q;
  if (s->count != NULL)
    run_counted (s);
  /* A marker and a barrier last: a thread that returns early completed
     them too.  */
  CL_OK (clEnqueueMarkerWithWaitList (q, 0, NULL, NULL));
  CL_OK (clEnqueueBarrierWithWaitList (q, 0, NULL, NULL));
  CL_OK (clFinish (q));
  s->returned_early = !atomic_load (&freed);
  s->env_kept = fegetround () == FE_DOWNWARD && _mm_getcsr () == csr;
  fesetround (FE_TONEAREST);
  _mm_setcsr (csr & ~0x8040u);
  s->out = out;
  return NULL;
}

/* expect-coroutine: thread 1 runs run_small on a coroutine with a small
   stack, and comes back when it returns.  */
static ucontext_t co_return, co_ctx;
static small_run *co_run;

static void
co_entry (void)
{
  run_small (co_run);
}

static void *
run_small_thread (void *arg)
{
  small_run *s = arg;
  if (!s->on_coroutine)
    return run_small (s);
  size_t size = 64 << 10;
  void *stack = malloc (size);
  if (stack == NULL || getcontext (&co_ctx) != 0)
    {
      fprintf (stderr, "FAIL: cannot make a coroutine\n");
      exit (1);
    }
  co_ctx.uc_stack.ss_sp = stack;
  co_ctx.uc_stack.ss_size = size;
  co_ctx.uc_link = &co_return;
  co_run = s;
  makecontext (&co_ctx, co_entry, 0);
  if (swapcontext (&co_return, &co_ctx) != 0)
    {
      fprintf (stderr, "FAIL: swapcontext\n");
      exit (1);
    }
  free (stack);
  return NULL;
}

/* The result of s's launch, read once the workers are free.  */
static void
read_small (small_run *s)
{
  float res[2] = { 0, 0 };
  CL_OK (clEnqueueReadBuffer (s->q, s->out, CL_TRUE, 0, sizeof (res), res, 0,
                              NULL, NULL));
  s->ran_nearest = res[0] == 1.0f + 0x1p-23f;
  if (s->hits != NULL)
    {
      s->hits_once = 1;
      for (size_t i = 0; i < OOO_FIRST + OOO_SECOND; ++i)
        if (hits[i] != 1)
          {
            fprintf (stderr,
                     "work-item %zu of the counted launches ran %d "
                     "times\n",
                     i, hits[i]);
            s->hits_once = 0;
          }
      CL_OK (clReleaseMemObject (s->hits));
    }
  CL_OK (clReleaseMemObject (s->out));
  CL_OK (clReleaseCommandQueue (s->q));
}

int
main (int argc, char **argv)
{
  if (argc != 2
      || (strcmp (argv[1], "expect-host") && strcmp (argv[1], "expect-wait")
          && strcmp (argv[1], "expect-domain")
          && strcmp (argv[1], "expect-ooo") && strcmp (argv[1], "expect-stack")
          && strcmp (argv[1], "expect-coroutine")
          && strcmp (argv[1], "expect-big")
          && strcmp (argv[1], "expect-big-wait")))
    {
      fprintf (stderr,
               "usage: %s "
               "expect-host|expect-wait|expect-domain|expect-ooo|"
               "expect-stack|expect-coroutine|expect-big|expect-big-wait\n",
               argv[0]);
      return 2;
    }
  int expect_ooo = strcmp (argv[1], "expect-ooo") == 0;
  int expect_domain = strcmp (argv[1], "expect-domain") == 0;
  int expect_stack = strcmp (argv[1], "expect-stack") == 0;
  int expect_coroutine = strcmp (argv[1], "expect-coroutine") == 0;
  int expect_wait = strcmp (argv[1], "expect-wait") == 0;
  int expect_big = strcmp (argv[1], "expect-big") == 0;
  int expect_big_wait = strcmp (argv[1], "expect-big-wait") == 0;
  /* Thread 1 runs a kernel its own stack cannot hold.  */
  int deep = expect_stack || expect_coroutine;
  int expect_host = expect_ooo || expect_big
                    || strcmp (argv[1], "expect-host") == 0
                    || (deep && DRIVER_STACK);
  /* Thread 1 waits for the workers, thread 2 runs its launch.  */
  int one_waits = expect_domain || expect_big_wait || (deep && !DRIVER_STACK);
  cltest_env e;
  cltest_open (&e, source, NULL);
  cl_uint cus = cltest_compute_units (e.dev);
  if (expect_big)
    {
      /* Several NUMA nodes: no sub-device by NUMA domain fails to be
         made.  Asked before any worker is made busy.  */
      cl_device_partition_property by_node[]
          = { CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN,
              CL_DEVICE_AFFINITY_DOMAIN_NUMA, 0 };
      cl_uint n = 0;
      if (clCreateSubDevices (e.dev, by_node, 0, NULL, &n) == CL_SUCCESS
          && n >= 2)
        {
          printf ("skipped: the device spans %u NUMA nodes, where launches "
                  "above 64 work-groups are left to the workers\n",
                  n);
          cltest_close (&e);
          return 77;
        }
    }
  cl_kernel small1 = cltest_kernel (&e, deep ? "deep" : "small");
  cl_kernel small2 = cltest_kernel (&e, "small");
  cl_kernel count = expect_ooo ? cltest_kernel (&e, "count") : NULL;
  /* Every worker busy.  */
  busy_workers busy;
  busy_workers_start (&busy, &e, cus);
  pthread_t dog;
  int ticks = expect_host || one_waits ? 6000 : 300;
  /* expect-domain: thread 1 on a NUMA sub-device, in a context of its
     own.  */
  cltest_env sub = e;
  cl_kernel small_sub = NULL;
  if (expect_domain)
    {
      cl_device_partition_property by_node[]
          = { CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN,
              CL_DEVICE_AFFINITY_DOMAIN_NUMA, 0 };
      cl_uint n = 0;
      cl_int err = clCreateSubDevices (e.dev, by_node, 0, NULL, &n);
      if (err == CL_DEVICE_PARTITION_FAILED)
        {
          /* One NUMA node: no sub-device by NUMA domain can be made here
             (the emulated NUMA guest runs this case).  */
          printf ("skipped: the device lies within one NUMA node, so no "
                  "sub-device by NUMA domain can be made\n");
          free_workers ();
          CL_OK (clFinish (e.q));
          busy_workers_release (&busy);
          return 77;
        }
      /* The first node's sub-device.  */
      cl_device_id nodes[64];
      CL_OK (err);
      CHECK (n >= 2 && n <= 64, "%u sub-devices by NUMA domain", n);
      CL_OK (clCreateSubDevices (e.dev, by_node, n, nodes, NULL));
      sub.dev = nodes[0];
      for (cl_uint k = 1; k < n; ++k)
        CL_OK (clReleaseDevice (nodes[k]));
      sub.ctx = clCreateContext (NULL, 1, &sub.dev, NULL, NULL, &err);
      CL_OK (err);
      sub.prog = cltest_build (sub.ctx, sub.dev, source, NULL);
      small_sub = cltest_kernel (&sub, "small");
    }
  pthread_create (&dog, NULL, watchdog, &ticks);

  /* Two application threads at once; one of them with a stack too small
     for a kernel when expecting a wait.  */
  small_run s1 = { .e = expect_domain ? &sub : &e,
                   .small = expect_domain ? small_sub : small1,
                   .count = count,
                   .marker_first = expect_stack,
                   .on_coroutine = expect_coroutine,
                   .groups = expect_big || expect_big_wait ? 1024 : 1 },
            s2 = { .e = &e, .small = small2 };
  pthread_attr_t attr;
  pthread_attr_init (&attr);
  if (expect_wait || deep)
    pthread_attr_setstacksize (&attr, 256 << 10);
  pthread_t t1, t2;
  pthread_create (&t1, &attr, run_small_thread, &s1);
  pthread_create (&t2, NULL, run_small, &s2);
  if (one_waits)
    {
      /* Thread 1 cannot return before the workers are free.  */
      pthread_join (t2, NULL);
      /* expect-stack: nor be let past its marker by their freeing, which
         would hide a marker left to them; only a failure waits for the
         watchdog here.  */
      while (expect_stack && !atomic_load (&s1.marker_done)
             && !atomic_load (&freed))
        usleep (1000);
      free_workers ();
    }
  pthread_join (t1, NULL);
  if (!one_waits)
    pthread_join (t2, NULL);
  pthread_attr_destroy (&attr);
  free_workers ();
  CL_OK (clFinish (e.q));
  pthread_join (dog, NULL);
  read_small (&s1);
  read_small (&s2);

  printf ("workers busy: %u; thread 1: %searly %d nearest %d env kept "
          "%d%s; thread 2: early %d nearest %d env kept %d\n",
          cus,
          !expect_stack     ? ""
          : s1.marker_early ? "marker early 1, "
                            : "marker early 0, ",
          s1.returned_early, s1.ran_nearest, s1.env_kept,
          !expect_ooo    ? ""
          : s1.hits_once ? " counted once 1"
                         : " counted once 0",
          s2.returned_early, s2.ran_nearest, s2.env_kept);
  CHECK (s1.ran_nearest && s2.ran_nearest,
         "a kernel ran with the application's rounding mode");
  CHECK (s1.env_kept && s2.env_kept,
         "an application thread's rounding mode or MXCSR changed");
  if (expect_ooo)
    CHECK (s1.hits_once, "a work-item of the out-of-order queue's launches "
                         "did not run exactly once");
  if (expect_stack)
    CHECK (s1.marker_early, "a thread with a small stack did not complete "
                            "its marker itself");
  if (expect_host)
    CHECK (s1.returned_early && s2.returned_early,
           "clFinish waited for the workers: the application threads did "
           "not run their launches (thread 1 %d, thread 2 %d)",
           s1.returned_early, s2.returned_early);
  else if (deep)
    CHECK (!s1.returned_early && s2.returned_early,
           "with no stack switch, a thread on a small stack ran its launch "
           "(%d), or a thread with a big one did not run its launch (%d)",
           s1.returned_early, !s2.returned_early);
  else if (expect_domain)
    CHECK (!s1.returned_early && s2.returned_early,
           "a launch of a NUMA sub-device ran on the waiting thread (%d), or "
           "one of the root device did not (%d)",
           s1.returned_early, !s2.returned_early);
  else if (expect_big_wait)
    CHECK (!s1.returned_early && s2.returned_early,
           "a launch above POCL_PTHREAD_HOST_GROUPS ran on the waiting "
           "thread (%d), or a small one did not (%d)",
           s1.returned_early, !s2.returned_early);
  else
    CHECK (!s1.returned_early,
           "clFinish returned while every worker was busy: a thread ran a "
           "launch where it must not");
  busy_workers_release (&busy);
  CL_OK (clReleaseKernel (small1));
  CL_OK (clReleaseKernel (small2));
  if (count != NULL)
    CL_OK (clReleaseKernel (count));
  if (expect_domain)
    {
      CL_OK (clReleaseKernel (small_sub));
      CL_OK (clReleaseProgram (sub.prog));
      CL_OK (clReleaseContext (sub.ctx));
      CL_OK (clReleaseDevice (sub.dev));
    }
  cltest_close (&e);
  return cltest_finish ("host_run");
}
