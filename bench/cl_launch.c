/* cl_launch.c - the cost of a stream of small kernel launches.

   A trivial kernel (each work-item stores one value) with G work-groups of
   L work-items is launched N times in a row, each launch waited for with
   clFinish (or, with --no-sync, only the last); that is one batch.  The
   time per launch of each of B batches is measured and the median, the
   quartiles and the minimum over the batches are printed, in
   microseconds.  With --work W, each work-item first runs W rounds of a
   dependent multiply-add, so that a work-group costs more (rule S1 of
   driver/pthread_share.h is measured with it).  --waiter says which thread
   enqueues and waits: the main thread, a coroutine of makecontext on a
   64 KiB stack of its own (as Julia's tasks and C++ coroutines run), or a
   thread created with a 256 KiB stack (musl's default is 128 KiB).
   --raw also prints every batch's time per launch, in the order run;
   --ready prints "ready" once warmed up, for a caller that runs it as a
   load beside another measurement; then SIGTERM ends it after the launch
   under way, printing how many launches it made since "ready" and in
   how many microseconds (co_launches=N co_us=T), so that the caller
   knows how much load it was.  --pace-us P starts each launch P
   microseconds after the previous one started (sleeping in between, or
   at once when the previous one took longer): a load that offers the
   same launches per second whatever the driver.

   Usage: cl_launch [--groups G] [--local L] [--launches N] [--batches B]
                    [--no-sync] [--work W] [--waiter main|coroutine|thread]
                    [--raw] [--ready] [--pace-us P]
   Defaults: G 64, L 64, N 100, B 30, W 0, main.

   Copyright (c) 2026 pocl-steal developers.  MIT licence, as PoCL.  */

#define _GNU_SOURCE

#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "../tests/opencl/cltest.h"

static const char *source
    = "__kernel void touch (__global uint *out)\n"
      "{\n"
      "  out[get_global_id (0)] = 1u;\n"
      "}\n"
      "__kernel void busy (__global uint *out, uint work)\n"
      "{\n"
      "  uint v = get_global_id (0);\n"
      "  for (uint i = 0; i < work; ++i)\n"
      "    v = v * 1664525u + 1013904223u;\n"
      "  out[get_global_id (0)] = v;\n"
      "}\n";

static double
now_us (void)
{
  struct timespec t;
  clock_gettime (CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static int
by_value (const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* What the waiting thread measures.  */
typedef struct
{
  cltest_env *e;
  cl_kernel k;
  size_t global, local;
  int launches, batches, sync_each;
  int ready;          /* print "ready" once warmed up */
  int pace_us;        /* start launches this far apart; 0: back to back */
  double *per_launch; /* batches of them */
} job;

/* Set by SIGTERM once "ready" is printed: the load ends.  */
static volatile sig_atomic_t stop_requested;

static void
on_term (int sig)
{
  (void)sig;
  stop_requested = 1;
}

static void
run_job (job *j)
{
  /* Warm up: compile and touch everything once.  */
  for (int i = 0; i < 3; ++i)
    CL_OK (clEnqueueNDRangeKernel (j->e->q, j->k, 1, NULL, &j->global,
                                   &j->local, 0, NULL, NULL));
  CL_OK (clFinish (j->e->q));
  double ready_at = 0;
  long long made = 0;
  if (j->ready)
    {
      struct sigaction sa;
      memset (&sa, 0, sizeof (sa));
      sa.sa_handler = on_term;
      sa.sa_flags = SA_RESTART;
      sigaction (SIGTERM, &sa, NULL);
      ready_at = now_us ();
      printf ("ready\n");
      fflush (stdout);
    }
  struct timespec next;
  clock_gettime (CLOCK_MONOTONIC, &next);
  for (int b = 0; b < j->batches; ++b)
    {
      double t0 = now_us ();
      for (int i = 0; i < j->launches; ++i)
        {
          if (j->pace_us > 0)
            {
              /* The next start; a launch that overran starts at once.  */
              next.tv_nsec += (long)j->pace_us * 1000;
              while (next.tv_nsec >= 1000000000L)
                {
                  next.tv_nsec -= 1000000000L;
                  next.tv_sec++;
                }
              clock_nanosleep (CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
            }
          CL_OK (clEnqueueNDRangeKernel (j->e->q, j->k, 1, NULL, &j->global,
                                         &j->local, 0, NULL, NULL));
          if (j->sync_each)
            CL_OK (clFinish (j->e->q));
          ++made;
          if (stop_requested)
            {
              CL_OK (clFinish (j->e->q));
              printf ("co_launches=%lld co_us=%.0f\n", made,
                      now_us () - ready_at);
              fflush (stdout);
              _exit (0);
            }
        }
      CL_OK (clFinish (j->e->q));
      j->per_launch[b] = (now_us () - t0) / j->launches;
    }
}

static void *
run_job_thread (void *arg)
{
  run_job (arg);
  return NULL;
}

/* The coroutine: makecontext passes ints, so the job comes through a
   static.  */
static job *coroutine_job;
static ucontext_t main_context, coroutine_context;

static void
run_job_coroutine (void)
{
  run_job (coroutine_job);
}

#define COROUTINE_STACK (64u << 10)
#define THREAD_STACK (256u << 10)

/* The value at fraction q of the sorted v[0..n).  */
static double
quantile (const double *v, int n, double q)
{
  double at = q * (n - 1);
  int lo = (int)at;
  int hi = lo + 1 < n ? lo + 1 : lo;
  return v[lo] + (at - lo) * (v[hi] - v[lo]);
}

int
main (int argc, char **argv)
{
  size_t groups = 64, local = 64;
  int launches = 100, batches = 30, sync_each = 1;
  cl_uint work = 0;
  const char *waiter = "main";
  int raw = 0, ready = 0, pace_us = 0;
  for (int i = 1; i < argc; ++i)
    {
      if (!strcmp (argv[i], "--groups") && i + 1 < argc)
        groups = strtoul (argv[++i], NULL, 10);
      else if (!strcmp (argv[i], "--local") && i + 1 < argc)
        local = strtoul (argv[++i], NULL, 10);
      else if (!strcmp (argv[i], "--launches") && i + 1 < argc)
        launches = atoi (argv[++i]);
      else if (!strcmp (argv[i], "--batches") && i + 1 < argc)
        batches = atoi (argv[++i]);
      else if (!strcmp (argv[i], "--no-sync"))
        sync_each = 0;
      else if (!strcmp (argv[i], "--work") && i + 1 < argc)
        work = (cl_uint)strtoul (argv[++i], NULL, 10);
      else if (!strcmp (argv[i], "--waiter") && i + 1 < argc)
        waiter = argv[++i];
      else if (!strcmp (argv[i], "--raw"))
        raw = 1;
      else if (!strcmp (argv[i], "--ready"))
        ready = 1;
      else if (!strcmp (argv[i], "--pace-us") && i + 1 < argc)
        pace_us = atoi (argv[++i]);
      else
        {
          fprintf (stderr,
                   "usage: %s [--groups G] [--local L] [--launches N] "
                   "[--batches B] [--no-sync] [--work W] "
                   "[--waiter main|coroutine|thread] [--raw] [--ready] "
                   "[--pace-us P]\n",
                   argv[0]);
          return 2;
        }
    }
  if (groups == 0 || local == 0 || launches <= 0 || batches <= 0
      || pace_us < 0)
    {
      fprintf (stderr, "groups, local, launches and batches must be > 0, "
                       "--pace-us >= 0\n");
      return 2;
    }
  if (strcmp (waiter, "main") && strcmp (waiter, "coroutine")
      && strcmp (waiter, "thread"))
    {
      fprintf (stderr,
               "--waiter: '%s' is none of main, coroutine and thread\n",
               waiter);
      return 2;
    }

  cltest_env e;
  cltest_open (&e, source, NULL);
  cl_kernel k = cltest_kernel (&e, work > 0 ? "busy" : "touch");
  size_t global = groups * local;
  cl_mem out
      = cltest_buffer (&e, CL_MEM_WRITE_ONLY, global * sizeof (cl_uint), NULL);
  CL_OK (clSetKernelArg (k, 0, sizeof (out), &out));
  if (work > 0)
    CL_OK (clSetKernelArg (k, 1, sizeof (work), &work));

  job j = { .e = &e,
            .k = k,
            .global = global,
            .local = local,
            .launches = launches,
            .batches = batches,
            .sync_each = sync_each,
            .ready = ready,
            .pace_us = pace_us,
            .per_launch = malloc (batches * sizeof (double)) };
  if (!strcmp (waiter, "thread"))
    {
      pthread_attr_t a;
      pthread_t t;
      pthread_attr_init (&a);
      pthread_attr_setstacksize (&a, THREAD_STACK);
      if (pthread_create (&t, &a, run_job_thread, &j) != 0)
        {
          fprintf (stderr, "cannot create a thread of %u KiB of stack\n",
                   THREAD_STACK >> 10);
          return 1;
        }
      pthread_join (t, NULL);
      pthread_attr_destroy (&a);
    }
  else if (!strcmp (waiter, "coroutine"))
    {
      void *stack = malloc (COROUTINE_STACK);
      getcontext (&coroutine_context);
      coroutine_context.uc_stack.ss_sp = stack;
      coroutine_context.uc_stack.ss_size = COROUTINE_STACK;
      coroutine_context.uc_link = &main_context;
      coroutine_job = &j;
      makecontext (&coroutine_context, run_job_coroutine, 0);
      swapcontext (&main_context, &coroutine_context);
      free (stack);
    }
  else
    run_job (&j);

  double *v = j.per_launch;
  if (raw)
    {
      /* Every batch, in the order run, for a caller that pools rounds.  */
      printf ("batches_us=");
      for (int b = 0; b < batches; ++b)
        printf ("%s%.2f", b ? "," : "", v[b]);
      printf ("\n");
    }
  qsort (v, batches, sizeof (double), by_value);
  printf ("groups=%zu local=%zu launches=%d batches=%d sync=%s work=%u "
          "waiter=%s median_us=%.2f q1_us=%.2f q3_us=%.2f min_us=%.2f\n",
          groups, local, launches, batches, sync_each ? "each" : "end", work,
          waiter, quantile (v, batches, 0.5), quantile (v, batches, 0.25),
          quantile (v, batches, 0.75), v[0]);
  free (v);
  CL_OK (clReleaseMemObject (out));
  CL_OK (clReleaseKernel (k));
  cltest_close (&e);
  return 0;
}
