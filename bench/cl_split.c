/* cl_split.c - one range split over every device of the platform, as a
   program that uses several machines through PoCL-R does it: each device
   gets a contiguous part in proportion to its compute units, all parts are
   enqueued, then all are waited for.  Run with POCL_DEVICES=cpu for one
   local device, or POCL_DEVICES="remote remote" for two servers.

   saxpy N REPS   y = a x + y over N floats (work-groups of 64), each
                  device's part in buffers of its own, first touched by a
                  kernel on that device; the result is checked.
   uneven G BASE REPS
                  G work-groups of one work-item, work-group g looping
                  bench_cost ("linear") times, so the last part of the
                  range is the dearest: a split by compute units leaves
                  the device with the first part idle first.  The results
                  are checked against the host's.
   Prints the median time of a pass in milliseconds (median_ms=), and the
   devices with their compute units.

   Copyright (c) 2026 pocl-steal developers.  MIT licence, as PoCL.  */

#include "../tests/opencl/cltest.h"

#include "bench_util.h"

#define MAX_DEV 8

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
      "  size_t i = get_global_id (0) - get_global_offset (0);\n"
      "  y[i] = a * x[i] + y[i];\n"
      "}\n"
      "__kernel void uneven (__global uint *out, ulong G, uint base)\n"
      "{\n"
      "  ulong g = get_global_id (0);\n"
      "  uint n = (uint)(2.0 * base * (double)(g + 1) / (double)G);\n"
      "  uint v = (uint)g;\n"
      "  for (uint i = 0; i < n; ++i)\n"
      "    v = v * 1664525u + 1013904223u;\n"
      "  out[g - get_global_offset (0)] = v;\n"
      "}\n";

static cl_uint ndev;
static cl_device_id devs[MAX_DEV];
static cl_command_queue qs[MAX_DEV];
static size_t first[MAX_DEV + 1]; /* device d: [first[d], first[d + 1]) */

/* Splits n items over the devices by compute units, in multiples of
   `grain`.  */
static void
split (size_t n, size_t grain)
{
  cl_uint cus[MAX_DEV], total = 0;
  for (cl_uint d = 0; d < ndev; ++d)
    total += cus[d] = cltest_compute_units (devs[d]);
  size_t blocks = n / grain, acc = 0;
  first[0] = 0;
  for (cl_uint d = 0; d < ndev; ++d)
    {
      acc += cus[d];
      first[d + 1] = (d + 1 == ndev ? blocks : blocks * acc / total) * grain;
      printf ("device %u: %u compute units, items %zu-%zu\n", d, cus[d],
              first[d], first[d + 1]);
    }
}

static double
pass (cl_kernel *k, size_t local)
{
  double t0 = bench_now_us ();
  for (cl_uint d = 0; d < ndev; ++d)
    {
      size_t off = first[d], n = first[d + 1] - first[d];
      if (n)
        CL_OK (clEnqueueNDRangeKernel (qs[d], k[d], 1, &off, &n, &local, 0,
                                       NULL, NULL));
      CL_OK (clFlush (qs[d]));
    }
  for (cl_uint d = 0; d < ndev; ++d)
    CL_OK (clFinish (qs[d]));
  return (bench_now_us () - t0) / 1e3;
}

int
main (int argc, char **argv)
{
  int is_saxpy = argc == 4 && !strcmp (argv[1], "saxpy");
  int is_uneven = argc == 5 && !strcmp (argv[1], "uneven");
  if (!is_saxpy && !is_uneven)
    {
      fprintf (stderr, "usage: %s saxpy N REPS | uneven G BASE REPS\n",
               argv[0]);
      return 2;
    }
  size_t n = strtoull (argv[2], NULL, 0);
  uint32_t base = is_uneven ? (uint32_t)atoi (argv[3]) : 0;
  int reps = atoi (argv[argc - 1]);
  if (reps < 1 || reps > 1000 || n == 0)
    return 2;

  cl_platform_id ps[8];
  cl_uint np = 0;
  CL_OK (clGetPlatformIDs (8, ps, &np));
  for (cl_uint i = 0; i < np && i < 8 && !ndev; ++i)
    if (clGetDeviceIDs (ps[i], CL_DEVICE_TYPE_ALL, MAX_DEV, devs, &ndev)
        != CL_SUCCESS)
      ndev = 0;
  if (!ndev)
    {
      fprintf (stderr, "no OpenCL device\n");
      return 1;
    }
  cl_int err;
  cl_context ctx = clCreateContext (NULL, ndev, devs, NULL, NULL, &err);
  CL_OK (err);
  cl_program prog = cltest_build_for (ctx, ndev, devs, source, NULL);
  size_t local = is_saxpy ? 64 : 1;
  split (n, local);

  cl_kernel k[MAX_DEV];
  cl_mem x[MAX_DEV], y[MAX_DEV];
  float a = 0.5f;
  for (cl_uint d = 0; d < ndev; ++d)
    {
      size_t part = first[d + 1] - first[d];
      size_t bytes = (part ? part : 1) * 4;
      qs[d] = clCreateCommandQueueWithProperties (ctx, devs[d], NULL, &err);
      CL_OK (err);
      x[d] = clCreateBuffer (ctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
      CL_OK (err);
      y[d] = clCreateBuffer (ctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
      CL_OK (err);
      k[d] = clCreateKernel (prog, is_saxpy ? "saxpy" : "uneven", &err);
      CL_OK (err);
      if (is_saxpy)
        {
          cl_kernel init = clCreateKernel (prog, "init", &err);
          CL_OK (err);
          CL_OK (clSetKernelArg (init, 0, sizeof (cl_mem), &x[d]));
          CL_OK (clSetKernelArg (init, 1, sizeof (cl_mem), &y[d]));
          if (part)
            CL_OK (clEnqueueNDRangeKernel (qs[d], init, 1, NULL, &part, &local,
                                           0, NULL, NULL));
          CL_OK (clFinish (qs[d]));
          CL_OK (clReleaseKernel (init));
          CL_OK (clSetKernelArg (k[d], 0, sizeof a, &a));
          CL_OK (clSetKernelArg (k[d], 1, sizeof (cl_mem), &x[d]));
          CL_OK (clSetKernelArg (k[d], 2, sizeof (cl_mem), &y[d]));
        }
      else
        {
          cl_ulong G = n;
          CL_OK (clSetKernelArg (k[d], 0, sizeof (cl_mem), &y[d]));
          CL_OK (clSetKernelArg (k[d], 1, sizeof G, &G));
          CL_OK (clSetKernelArg (k[d], 2, sizeof base, &base));
        }
    }

  pass (k, local); /* warm-up: compiled code loaded on every device */
  double *t = malloc (reps * sizeof (double));
  for (int r = 0; r < reps; ++r)
    t[r] = pass (k, local);

  /* Check: saxpy ran 1 + reps times over y = 2, x = 1.  */
  size_t bad = 0;
  for (cl_uint d = 0; d < ndev; ++d)
    {
      size_t part = first[d + 1] - first[d];
      if (!part)
        continue;
      void *host = malloc (part * 4);
      CL_OK (clEnqueueReadBuffer (qs[d], y[d], CL_TRUE, 0, part * 4, host, 0,
                                  NULL, NULL));
      for (size_t i = 0; i < part; ++i)
        if (is_saxpy)
          {
            float want = 2.0f;
            for (int r = 0; r < reps + 1; ++r)
              want = a * 1.0f + want;
            bad += ((float *)host)[i] != want;
          }
        else
          {
            size_t g = first[d] + i;
            uint32_t v = (uint32_t)g;
            uint32_t m = (uint32_t)(2.0 * base * (double)(g + 1) / (double)n);
            for (uint32_t j = 0; j < m; ++j)
              v = v * 1664525u + 1013904223u;
            bad += ((uint32_t *)host)[i] != v;
          }
      free (host);
    }
  if (bad)
    {
      fprintf (stderr, "%zu wrong results\n", bad);
      return 1;
    }
  printf ("devices=%u median_ms=%.3f\n", ndev, bench_median (t, reps));
  for (cl_uint d = 0; d < ndev; ++d)
    {
      CL_OK (clReleaseKernel (k[d]));
      CL_OK (clReleaseMemObject (x[d]));
      CL_OK (clReleaseMemObject (y[d]));
      CL_OK (clReleaseCommandQueue (qs[d]));
    }
  free (t);
  CL_OK (clReleaseProgram (prog));
  CL_OK (clReleaseContext (ctx));
  return 0;
}
