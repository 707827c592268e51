/* cl_launch.c - the cost of a stream of small kernel launches.

   A trivial kernel (each work-item stores one value) with G work-groups of
   L work-items is launched N times in a row, each launch waited for with
   clFinish (or, with --no-sync, only the last); that is one batch.  The
   time per launch of each of B batches is measured and the median and the
   minimum over the batches are printed, in microseconds.  With --work W,
   each work-item first runs W rounds of a dependent multiply-add, so that
   a work-group costs more (rule S1 of driver/pthread_share.h is measured
   with it).

   Usage: cl_launch [--groups G] [--local L] [--launches N] [--batches B]
                    [--no-sync] [--work W]
   Defaults: G 64, L 64, N 100, B 30, W 0.

   Copyright (c) 2026 pocl-steal developers.  MIT licence, as PoCL.  */

#define _POSIX_C_SOURCE 200809L

#include <stdint.h>
#include <time.h>

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

int
main (int argc, char **argv)
{
  size_t groups = 64, local = 64;
  int launches = 100, batches = 30, sync_each = 1;
  cl_uint work = 0;
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
      else
        {
          fprintf (stderr,
                   "usage: %s [--groups G] [--local L] [--launches N] "
                   "[--batches B] [--no-sync] [--work W]\n",
                   argv[0]);
          return 2;
        }
    }
  if (groups == 0 || local == 0 || launches <= 0 || batches <= 0)
    {
      fprintf (stderr, "groups, local, launches and batches must be > 0\n");
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

  /* Warm up: compile and touch everything once.  */
  for (int i = 0; i < 3; ++i)
    CL_OK (clEnqueueNDRangeKernel (e.q, k, 1, NULL, &global, &local, 0, NULL,
                                   NULL));
  CL_OK (clFinish (e.q));

  double *per_launch = malloc (batches * sizeof (double));
  for (int b = 0; b < batches; ++b)
    {
      double t0 = now_us ();
      for (int i = 0; i < launches; ++i)
        {
          CL_OK (clEnqueueNDRangeKernel (e.q, k, 1, NULL, &global, &local, 0,
                                         NULL, NULL));
          if (sync_each)
            CL_OK (clFinish (e.q));
        }
      CL_OK (clFinish (e.q));
      per_launch[b] = (now_us () - t0) / launches;
    }
  qsort (per_launch, batches, sizeof (double), by_value);
  printf ("groups=%zu local=%zu launches=%d batches=%d sync=%s work=%u "
          "median_us=%.2f min_us=%.2f\n",
          groups, local, launches, batches, sync_each ? "each" : "end", work,
          batches % 2
              ? per_launch[batches / 2]
              : (per_launch[batches / 2 - 1] + per_launch[batches / 2]) / 2,
          per_launch[0]);
  free (per_launch);
  CL_OK (clReleaseMemObject (out));
  CL_OK (clReleaseKernel (k));
  cltest_close (&e);
  return 0;
}
