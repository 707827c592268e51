/* cl_uneven.c - uneven work through OpenCL: G work-groups of one
   work-item, group g looping bench_cost() times (the same arithmetic as
   c_uneven.c), launched and waited for REPS times.  Prints the median time
   of a launch, in milliseconds.

   Usage: cl_uneven PROFILE G BASE THREADS [REPS]
   (THREADS only shapes the "period" profile; the device's thread count
   comes from POCL_CPU_MAX_CU_COUNT)

   Copyright (c) 2026 pocl-steal developers.  MIT licence, as PoCL.  */

#include "../tests/opencl/cltest.h"

#include "bench_util.h"

static const char *source
    = "__kernel void uneven (__global float *out, uint profile, ulong G,\n"
      "                      uint T, uint base)\n"
      "{\n"
      "  ulong g = get_group_id (0);\n"
      "  uint n;\n"
      "  if (profile == 0) n = (uint)(2.0 * base * (double)(g + 1) / "
      "(double)G);\n"
      "  else if (profile == 1) n = (g >= 2 * G / 5 && g < 3 * G / 5) ? 16 * "
      "base : base;\n"
      "  else if (profile == 2) n = (g % T == 0) ? 4 * base : base;\n"
      "  else n = base;\n"
      "  float acc = (float)g;\n"
      "  for (uint i = 0; i < n; ++i)\n"
      "    acc = acc * 0.999f + 1.0f;\n"
      "  out[g] = acc;\n"
      "}\n";

int
main (int argc, char **argv)
{
  if (argc < 5)
    {
      fprintf (stderr, "usage: %s PROFILE G BASE THREADS [REPS]\n", argv[0]);
      return 2;
    }
  const char *profile = argv[1];
  cl_uint prof = profile[0] == 'l'   ? 0
                 : profile[0] == 'b' ? 1
                 : profile[0] == 'p' ? 2
                                     : 3;
  cl_ulong G = strtoull (argv[2], NULL, 10);
  cl_uint base = (cl_uint)strtoul (argv[3], NULL, 10);
  cl_uint T = (cl_uint)atoi (argv[4]);
  int reps = argc > 5 ? atoi (argv[5]) : 7;
  if (G == 0 || T == 0 || reps < 1)
    return 2;

  cltest_env e;
  cltest_open (&e, source, NULL);
  cl_kernel k = cltest_kernel (&e, "uneven");
  cl_mem out
      = cltest_buffer (&e, CL_MEM_WRITE_ONLY, G * sizeof (cl_float), NULL);
  CL_OK (clSetKernelArg (k, 0, sizeof (out), &out));
  CL_OK (clSetKernelArg (k, 1, sizeof (prof), &prof));
  CL_OK (clSetKernelArg (k, 2, sizeof (G), &G));
  CL_OK (clSetKernelArg (k, 3, sizeof (T), &T));
  CL_OK (clSetKernelArg (k, 4, sizeof (base), &base));
  size_t global = G, local = 1;
  double *t = malloc ((reps + 1) * sizeof (double));
  for (int i = 0; i <= reps; ++i) /* the first is a warm-up */
    {
      double t0 = bench_now_us ();
      CL_OK (clEnqueueNDRangeKernel (e.q, k, 1, NULL, &global, &local, 0, NULL,
                                     NULL));
      CL_OK (clFinish (e.q));
      t[i] = (bench_now_us () - t0) / 1000;
    }
  printf ("profile=%s groups=%llu median_ms=%.3f\n", profile,
          (unsigned long long)G, bench_median (t + 1, reps));
  free (t);
  CL_OK (clReleaseMemObject (out));
  CL_OK (clReleaseKernel (k));
  cltest_close (&e);
  return 0;
}
