/* cl_saxpy.c - first-touch bandwidth through OpenCL: two arrays of N floats
   are initialised by a kernel (so their pages are first touched by the
   threads that run it), then y = a x + y runs REPS times over them.
   Prints the median bandwidth in GB/s (3 x 4 bytes per element per pass).
   Run it with POCL_AFFINITY=1: with the static schedule, the same
   work-groups, and so the same pages, go to the same pinned threads in
   every launch.

   Usage: cl_saxpy N [REPS]

   Copyright (c) 2026 pocl-steal developers.  MIT licence, as PoCL.  */

#include "../tests/opencl/cltest.h"

#include "bench_util.h"

static const char *source
    = "__kernel void init (__global float *x, __global float *y)\n"
      "{\n"
      "  size_t i = get_global_id (0);\n"
      "  x[i] = 1.0f;\n"
      "  y[i] = 2.0f;\n"
      "}\n"
      "__kernel void saxpy (float a, __global const float *x,\n"
      "                     __global float *y)\n"
      "{\n"
      "  size_t i = get_global_id (0);\n"
      "  y[i] = a * x[i] + y[i];\n"
      "}\n";

int
main (int argc, char **argv)
{
  if (argc < 2)
    {
      fprintf (stderr, "usage: %s N [REPS]\n", argv[0]);
      return 2;
    }
  size_t n = strtoull (argv[1], NULL, 10);
  int reps = argc > 2 ? atoi (argv[2]) : 10;
  size_t local = 256;
  n = (n + local - 1) / local * local;
  if (n == 0 || reps < 1)
    return 2;
  cltest_env e;
  cltest_open (&e, source, NULL);
  cl_kernel init = cltest_kernel (&e, "init");
  cl_kernel saxpy = cltest_kernel (&e, "saxpy");
  cl_mem x = cltest_buffer (&e, CL_MEM_READ_WRITE, n * sizeof (float), NULL);
  cl_mem y = cltest_buffer (&e, CL_MEM_READ_WRITE, n * sizeof (float), NULL);
  CL_OK (clSetKernelArg (init, 0, sizeof (x), &x));
  CL_OK (clSetKernelArg (init, 1, sizeof (y), &y));
  float a = 0.5f;
  CL_OK (clSetKernelArg (saxpy, 0, sizeof (a), &a));
  CL_OK (clSetKernelArg (saxpy, 1, sizeof (x), &x));
  CL_OK (clSetKernelArg (saxpy, 2, sizeof (y), &y));
  CL_OK (
      clEnqueueNDRangeKernel (e.q, init, 1, NULL, &n, &local, 0, NULL, NULL));
  CL_OK (clFinish (e.q));
  double *gbs = malloc ((reps + 1) * sizeof (double));
  for (int r = 0; r <= reps; ++r)
    {
      double t0 = bench_now_us ();
      CL_OK (clEnqueueNDRangeKernel (e.q, saxpy, 1, NULL, &n, &local, 0, NULL,
                                     NULL));
      CL_OK (clFinish (e.q));
      gbs[r] = 3.0 * n * sizeof (float) / ((bench_now_us () - t0) * 1e3);
    }
  printf ("n=%zu reps=%d median_gbs=%.2f\n", n, reps,
          bench_median (gbs + 1, reps));
  free (gbs);
  CL_OK (clReleaseMemObject (x));
  CL_OK (clReleaseMemObject (y));
  CL_OK (clReleaseKernel (init));
  CL_OK (clReleaseKernel (saxpy));
  cltest_close (&e);
  return 0;
}
