/* host_signals.c - signals the application handles arrive while its
   thread runs work-groups on the driver's stack (pthread_stack.h, K4),
   and none is lost.

   Usage: host_signals plain|altstack
   A POSIX timer sends SIGALRM to the main thread every 40 us; the
   handler counts its runs in host memory that the kernel reads
   (CL_MEM_USE_HOST_PTR), adds up the timer's overruns, and notes on
   which stack it ran: the thread's own, the alternate one, or another
   (the driver's).  The main thread launches one work-group 200 times,
   each waited for with clFinish, so that it runs each itself (host runs
   at their default; check_host_run.sh checks the `host` field: 200
   work-groups).  The kernel waits until the handler has run twice more
   than when it started, so every launch is interrupted at least twice
   while it runs on the driver's stack: nothing here depends on timing.
   Checks:
     - every launch's result is right (it saw its two signals);
     - handler runs plus overruns equal the timer's expirations between
       arming and disarming, give or take 2 at each end: no signal lost;
     - plain: at least 400 handler runs on a stack that is neither the
       thread's own nor an alternate one (the driver's);
       altstack (sigaltstack, SA_ONSTACK): every run on the alternate
       stack.
   Why: an application's profiler, timer or runtime (Julia's, say) sends
   its threads signals at any time, and a thread that waits in clFinish
   now runs kernels on another stack than its own.

   Copyright (c) 2026 pocl-steal developers.  MIT licence, as PoCL.  */

#define _GNU_SOURCE

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "busy_workers.h"
#include "cltest.h"

#define LAUNCHES 200
#define INTERVAL_NS 40000

static const char *source = BUSY_WORKERS_SOURCE
    "__kernel void wait_ticks (__global volatile int *ticks,\n"
    "                          __global int *out, int i)\n"
    "{\n"
    "  int start = atomic_add (ticks, 0);\n"
    "  while (atomic_add (ticks, 0) < start + 2)\n"
    "    ;\n"
    "  out[i] = start + 1;\n"
    "}\n";

static _Alignas (64) volatile int ticks[16];
static timer_t timer;
static _Atomic long overruns, on_own, on_alt, on_other;
static uintptr_t own_lo, own_hi;

/* Whether sp lies in the thread's alternate stack as it is now: LLVM,
   which PoCL loads, puts in a bigger one of its own when the program's
   is small, so the one the program made may not be the one in use.  */
static int
on_alt_stack (uintptr_t sp)
{
  stack_t cur;
  if (sigaltstack (NULL, &cur) != 0 || (cur.ss_flags & SS_DISABLE))
    return 0;
  uintptr_t lo = (uintptr_t)cur.ss_sp;
  return sp >= lo && sp < lo + cur.ss_size;
}

static void
handler (int sig)
{
  (void)sig;
  uintptr_t sp = (uintptr_t)__builtin_frame_address (0);
  if (sp >= own_lo && sp < own_hi)
    atomic_fetch_add (&on_own, 1);
  else if (on_alt_stack (sp))
    atomic_fetch_add (&on_alt, 1);
  else
    atomic_fetch_add (&on_other, 1);
  int o = timer_getoverrun (timer);
  if (o > 0)
    atomic_fetch_add (&overruns, o);
  __atomic_fetch_add (&ticks[0], 1, __ATOMIC_SEQ_CST);
}

static uint64_t
now_ns (void)
{
  struct timespec t;
  clock_gettime (CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

int
main (int argc, char **argv)
{
  if (argc != 2 || (strcmp (argv[1], "plain") && strcmp (argv[1], "altstack")))
    {
      fprintf (stderr, "usage: %s plain|altstack\n", argv[0]);
      return 2;
    }
  int alt = strcmp (argv[1], "altstack") == 0;

  pthread_attr_t a;
  void *addr;
  size_t size;
  if (pthread_getattr_np (pthread_self (), &a) == 0)
    {
      if (pthread_attr_getstack (&a, &addr, &size) == 0)
        {
          own_lo = (uintptr_t)addr;
          own_hi = own_lo + size;
        }
      pthread_attr_destroy (&a);
    }
  stack_t ss = { 0 };
  if (alt)
    {
      ss.ss_size = 1 << 18;
      ss.ss_sp = malloc (ss.ss_size);
      if (ss.ss_sp == NULL || sigaltstack (&ss, NULL) != 0)
        {
          fprintf (stderr, "FAIL: sigaltstack\n");
          return 1;
        }
    }

  cltest_env e;
  cltest_open (&e, source, NULL);
  busy_workers busy;
  busy_workers_start (&busy, &e, cltest_compute_units (e.dev));
  int guard_ticks = 6000; /* a minute: a failure's guard */
  pthread_t dog;
  pthread_create (&dog, NULL, watchdog, &guard_ticks);
  cl_int qerr;
  cl_command_queue q
      = clCreateCommandQueueWithProperties (e.ctx, e.dev, NULL, &qerr);
  CL_OK (qerr);
  cl_kernel k = cltest_kernel (&e, "wait_ticks");
  cl_mem tick_buf = cltest_buffer (&e, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR,
                                   sizeof (ticks), (void *)ticks);
  static int outs[LAUNCHES];
  cl_mem out_buf = cltest_buffer (&e, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR,
                                  sizeof (outs), outs);
  CL_OK (clSetKernelArg (k, 0, sizeof (tick_buf), &tick_buf));
  CL_OK (clSetKernelArg (k, 1, sizeof (out_buf), &out_buf));

  struct sigaction sa = { 0 };
  sa.sa_handler = handler;
  sa.sa_flags = SA_RESTART | (alt ? SA_ONSTACK : 0);
  sigemptyset (&sa.sa_mask);
  sigaction (SIGALRM, &sa, NULL);
  struct sigevent sev = { 0 };
  sev.sigev_notify = SIGEV_THREAD_ID;
  sev.sigev_signo = SIGALRM;
  sev._sigev_un._tid = (pid_t)syscall (SYS_gettid);
  if (timer_create (CLOCK_MONOTONIC, &sev, &timer) != 0)
    {
      fprintf (stderr, "FAIL: timer_create\n");
      return 1;
    }
  struct itimerspec its = { { 0, INTERVAL_NS }, { 0, INTERVAL_NS } };
  uint64_t t0 = now_ns ();
  timer_settime (timer, 0, &its, NULL);

  for (int i = 0; i < LAUNCHES; ++i)
    {
      CL_OK (clSetKernelArg (k, 2, sizeof (i), &i));
      size_t one = 1;
      CL_OK (
          clEnqueueNDRangeKernel (q, k, 1, NULL, &one, &one, 0, NULL, NULL));
      CL_OK (clFinish (q));
    }

  struct itimerspec off = { { 0, 0 }, { 0, 0 } };
  timer_settime (timer, 0, &off, NULL);
  uint64_t t1 = now_ns ();
  /* A signal still pending when the timer stopped is delivered by now:
     SIGALRM is not blocked.  */
  timer_delete (timer);
  signal (SIGALRM, SIG_IGN);

  int early = !atomic_load (&freed);
  free_workers ();
  pthread_join (dog, NULL);
  CL_OK (clFinish (e.q));
  busy_workers_release (&busy);
  CL_OK (clReleaseCommandQueue (q));
  long runs = atomic_load (&on_own) + atomic_load (&on_alt)
              + atomic_load (&on_other);
  long expirations = (long)((t1 - t0) / INTERVAL_NS);
  long seen = runs + atomic_load (&overruns);
  int results_ok = 1;
  for (int i = 0; i < LAUNCHES; ++i)
    if (outs[i] <= 0)
      results_ok = 0;
  printf ("%s: %ld handler runs (%ld on the thread's stack, %ld on the "
          "alternate, %ld on another), %ld overruns, %ld expirations\n",
          argv[1], runs, atomic_load (&on_own), atomic_load (&on_alt),
          atomic_load (&on_other), atomic_load (&overruns), expirations);
  CHECK (early, "the launches took the guard's minute: a worker was "
                "needed for them");
  CHECK (results_ok, "a launch did not write its result");
  CHECK (seen >= expirations - 2 && seen <= expirations + 2,
         "signals lost: %ld runs and overruns for %ld expirations", seen,
         expirations);
  if (alt)
    CHECK (atomic_load (&on_alt) == runs,
           "%ld of %ld handler runs not on the alternate stack",
           runs - atomic_load (&on_alt), runs);
  else
    CHECK (atomic_load (&on_other) >= 2 * LAUNCHES,
           "%ld handler runs on another stack than the thread's own, want at "
           "least %d (two in each launch, run on the driver's stack)",
           atomic_load (&on_other), 2 * LAUNCHES);
  CL_OK (clReleaseMemObject (out_buf));
  CL_OK (clReleaseMemObject (tick_buf));
  CL_OK (clReleaseKernel (k));
  cltest_close (&e);
  if (alt)
    {
      ss.ss_flags = SS_DISABLE;
      sigaltstack (&ss, NULL);
    }
  return cltest_finish ("host_signals");
}
