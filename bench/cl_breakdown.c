/* cl_breakdown.c - where the time of one small kernel launch goes.

   A trivial kernel of G work-groups of L work-items is launched N times,
   each launch waited for with clFinish, on a queue with profiling on.
   Every launch is cut at these points, all on one clock:
     t0       the host calls clEnqueueNDRangeKernel
     QUEUED   PoCL has made the command (CL_PROFILING_COMMAND_QUEUED)
     SUBMIT   PoCL hands it to the driver (..._SUBMIT)
     START    the driver says it runs (..._START: a worker took it)
     first    the first work-group begins (the kernel reads the TSC)
     last     the last work-group ends
     END      the driver completes the event (..._END)
     t2       clFinish returns to the host
   and the medians of the steps between them are printed:
     api       t0 -> QUEUED     the API call and the command's set-up (PoCL)
     submit    QUEUED -> SUBMIT  the queue's dependency handling (PoCL)
     handoff   SUBMIT -> START  the driver gives the command to a worker
     setup     START -> first   the launch's set-up in the driver
     groups    first -> last    the work-groups, on however many threads
     complete  last -> END      the driver notices the launch is done
     wake      END -> t2        the event's completion reaches the host
   plus enqueue = the time clEnqueueNDRangeKernel itself took and total =
   t0 -> t2.  PoCL's profiling clock is CLOCK_MONOTONIC_RAW; the kernel's
   TSC readings are put on it by a line fitted from host readings of both
   clocks.  With --marker, a marker (clEnqueueMarkerWithWaitList) instead
   of the kernel: PoCL's own floor for a command waited for, where there
   is no first or last.

   Prints one line: "what=kernel|marker groups= local= launches= api_us=
   submit_us= handoff_us= setup_us= groups_us= complete_us= wake_us=
   enqueue_us= total_us=" (setup, groups and complete "na" for a marker or
   where the TSC cannot be read).

   Usage: cl_breakdown [--groups G] [--local L] [--launches N] [--marker]
   Defaults: G 1, L 64, N 2000.

   Copyright (c) 2026 pocl-steal developers.  MIT licence, as PoCL.  */

#define _POSIX_C_SOURCE 200809L

#include <stdint.h>
#include <time.h>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define HAVE_TSC 1
#else
#define HAVE_TSC 0
#endif

#include "../tests/opencl/cltest.h"
#include "bench_util.h"

/* Each work-group's first work-item stamps its start, its last one its
   end (PoCL runs a work-group's items in order on one thread).  */
static const char *source
    = "__kernel void touch (__global uint *out, __global ulong *stamps,\n"
      "                     uint slot)\n"
      "{\n"
      "  size_t g = get_group_id (0);\n"
      "  if (get_local_id (0) == 0)\n"
      "    stamps[slot + 2 * g] = __builtin_readcyclecounter ();\n"
      "  out[get_global_id (0)] = 1u;\n"
      "  if (get_local_id (0) == get_local_size (0) - 1)\n"
      "    stamps[slot + 2 * g + 1] = __builtin_readcyclecounter ();\n"
      "}\n";

static uint64_t
raw_ns (void)
{
  struct timespec t;
  clock_gettime (CLOCK_MONOTONIC_RAW, &t);
  return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static uint64_t
tsc (void)
{
#if HAVE_TSC
  return __rdtsc ();
#else
  return 0;
#endif
}

/* A reading of both clocks, taken close together.  */
typedef struct
{
  uint64_t ns, tsc;
} clock_pair;

static clock_pair
read_pair (void)
{
  uint64_t a = raw_ns ();
  uint64_t t = tsc ();
  uint64_t b = raw_ns ();
  return (clock_pair){ a + (b - a) / 2, t };
}

static cl_ulong
profile (cl_event ev, cl_profiling_info what)
{
  cl_ulong v = 0;
  CL_OK (clGetEventProfilingInfo (ev, what, sizeof (v), &v, NULL));
  return v;
}

enum
{
  API,
  SUBMIT,
  HANDOFF,
  SETUP,
  GROUPS,
  COMPLETE,
  WAKE,
  ENQUEUE,
  TOTAL,
  NUM_STEPS
};
static const char *const step_name[NUM_STEPS]
    = { "api",      "submit", "handoff", "setup", "groups",
        "complete", "wake",   "enqueue", "total" };

int
main (int argc, char **argv)
{
  size_t groups = 1, local = 64;
  int launches = 2000, marker = 0;
  for (int i = 1; i < argc; ++i)
    {
      if (!strcmp (argv[i], "--groups") && i + 1 < argc)
        groups = strtoul (argv[++i], NULL, 10);
      else if (!strcmp (argv[i], "--local") && i + 1 < argc)
        local = strtoul (argv[++i], NULL, 10);
      else if (!strcmp (argv[i], "--launches") && i + 1 < argc)
        launches = atoi (argv[++i]);
      else if (!strcmp (argv[i], "--marker"))
        marker = 1;
      else
        {
          fprintf (stderr,
                   "usage: %s [--groups G] [--local L] [--launches N] "
                   "[--marker]\n",
                   argv[0]);
          return 2;
        }
    }
  if (groups == 0 || local == 0 || launches <= 0)
    {
      fprintf (stderr, "groups, local and launches must be > 0\n");
      return 2;
    }

  cl_int err;
  cltest_env e;
  cltest_open (&e, source, NULL);
  cl_queue_properties props[]
      = { CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0 };
  cl_command_queue q
      = clCreateCommandQueueWithProperties (e.ctx, e.dev, props, &err);
  CL_OK (err);
  cl_kernel k = cltest_kernel (&e, "touch");
  size_t global = groups * local;
  size_t nstamps = (size_t)launches * groups * 2;
  cl_mem out
      = cltest_buffer (&e, CL_MEM_WRITE_ONLY, global * sizeof (cl_uint), NULL);
  cl_mem stamps = cltest_buffer (&e, CL_MEM_WRITE_ONLY,
                                 nstamps * sizeof (cl_ulong), NULL);
  CL_OK (clSetKernelArg (k, 0, sizeof (out), &out));
  CL_OK (clSetKernelArg (k, 1, sizeof (stamps), &stamps));

  /* Warm up: compile and touch everything once.  */
  cl_uint slot = 0;
  CL_OK (clSetKernelArg (k, 2, sizeof (slot), &slot));
  for (int i = 0; i < 3; ++i)
    CL_OK (clEnqueueNDRangeKernel (q, k, 1, NULL, &global, &local, 0, NULL,
                                   NULL));
  CL_OK (clFinish (q));

  cl_event *ev = malloc (launches * sizeof (cl_event));
  uint64_t *t0 = malloc (launches * sizeof (uint64_t));
  uint64_t *t1 = malloc (launches * sizeof (uint64_t));
  uint64_t *t2 = malloc (launches * sizeof (uint64_t));
  clock_pair before = read_pair ();
  for (int i = 0; i < launches; ++i)
    {
      slot = (cl_uint)(i * groups * 2);
      if (!marker)
        CL_OK (clSetKernelArg (k, 2, sizeof (slot), &slot));
      t0[i] = raw_ns ();
      if (marker)
        CL_OK (clEnqueueMarkerWithWaitList (q, 0, NULL, &ev[i]));
      else
        CL_OK (clEnqueueNDRangeKernel (q, k, 1, NULL, &global, &local, 0, NULL,
                                       &ev[i]));
      t1[i] = raw_ns ();
      CL_OK (clFinish (q));
      t2[i] = raw_ns ();
    }
  clock_pair after = read_pair ();

  /* TSC -> ns on the raw clock: the line through the two readings.  */
  int have_tsc = HAVE_TSC && !marker && after.tsc > before.tsc;
  double ns_per_tick = have_tsc ? (double)(after.ns - before.ns)
                                      / (double)(after.tsc - before.tsc)
                                : 0.0;
  cl_ulong *st = NULL;
  if (have_tsc)
    {
      st = malloc (nstamps * sizeof (cl_ulong));
      CL_OK (clEnqueueReadBuffer (q, stamps, CL_TRUE, 0,
                                  nstamps * sizeof (cl_ulong), st, 0, NULL,
                                  NULL));
    }

  double *steps[NUM_STEPS];
  for (int s = 0; s < NUM_STEPS; ++s)
    steps[s] = malloc (launches * sizeof (double));
  for (int i = 0; i < launches; ++i)
    {
      double queued = (double)profile (ev[i], CL_PROFILING_COMMAND_QUEUED);
      double submit = (double)profile (ev[i], CL_PROFILING_COMMAND_SUBMIT);
      double start = (double)profile (ev[i], CL_PROFILING_COMMAND_START);
      double end = (double)profile (ev[i], CL_PROFILING_COMMAND_END);
      CL_OK (clReleaseEvent (ev[i]));
      double first = start, last = end;
      if (have_tsc)
        {
          uint64_t lo = UINT64_MAX, hi = 0;
          for (size_t g = 0; g < groups; ++g)
            {
              uint64_t a = st[(size_t)i * groups * 2 + 2 * g];
              uint64_t b = st[(size_t)i * groups * 2 + 2 * g + 1];
              lo = a < lo ? a : lo;
              hi = b > hi ? b : hi;
            }
          first = (double)before.ns
                  + ((double)lo - (double)before.tsc) * ns_per_tick;
          last = (double)before.ns
                 + ((double)hi - (double)before.tsc) * ns_per_tick;
        }
      steps[API][i] = queued - (double)t0[i];
      steps[SUBMIT][i] = submit - queued;
      steps[HANDOFF][i] = start - submit;
      steps[SETUP][i] = first - start;
      steps[GROUPS][i] = last - first;
      steps[COMPLETE][i] = end - last;
      steps[WAKE][i] = (double)t2[i] - end;
      steps[ENQUEUE][i] = (double)(t1[i] - t0[i]);
      steps[TOTAL][i] = (double)(t2[i] - t0[i]);
    }

  printf ("what=%s groups=%zu local=%zu launches=%d",
          marker ? "marker" : "kernel", groups, local, launches);
  for (int s = 0; s < NUM_STEPS; ++s)
    {
      int na = (s == SETUP || s == GROUPS || s == COMPLETE) && !have_tsc;
      if (na)
        printf (" %s_us=na", step_name[s]);
      else
        printf (" %s_us=%.2f", step_name[s],
                bench_median (steps[s], launches) / 1e3);
      free (steps[s]);
    }
  printf ("\n");

  free (st);
  free (ev);
  free (t0);
  free (t1);
  free (t2);
  CL_OK (clReleaseMemObject (out));
  CL_OK (clReleaseMemObject (stamps));
  CL_OK (clReleaseKernel (k));
  CL_OK (clReleaseCommandQueue (q));
  cltest_close (&e);
  return 0;
}
