/* hello.c - the smoke test `make` runs: finds the CPU device through the ICD
   loader, prints what it is, runs a small kernel and checks its result.

   Copyright (c) 2026 pocl-steal developers.  MIT licence, as PoCL.  */

#include "cltest.h"

static const char *source
    = "__kernel void axpy (float a, __global const float *x,\n"
      "                    __global float *y)\n"
      "{\n"
      "  size_t i = get_global_id (0);\n"
      "  y[i] = a * x[i] + y[i];\n"
      "}\n";

int
main (void)
{
  cl_platform_id platform;
  cl_device_id dev = cltest_cpu_device (&platform);
  char pname[256] = "", pversion[256] = "", dname[256] = "";
  CL_OK (clGetPlatformInfo (platform, CL_PLATFORM_NAME, sizeof (pname), pname,
                            NULL));
  CL_OK (clGetPlatformInfo (platform, CL_PLATFORM_VERSION, sizeof (pversion),
                            pversion, NULL));
  CL_OK (clGetDeviceInfo (dev, CL_DEVICE_NAME, sizeof (dname), dname, NULL));
  cl_uint cus = cltest_compute_units (dev);
  printf ("platform: %s (%s)\ndevice:   %s, %u compute units\n", pname,
          pversion, dname, cus);

  cl_int err;
  cl_context ctx = clCreateContext (NULL, 1, &dev, NULL, NULL, &err);
  CL_OK (err);
  cl_command_queue q
      = clCreateCommandQueueWithProperties (ctx, dev, NULL, &err);
  CL_OK (err);
  cl_program prog = cltest_build (ctx, dev, source, NULL);
  cl_kernel k = clCreateKernel (prog, "axpy", &err);
  CL_OK (err);

  enum
  {
    N = 1 << 16
  };
  static float x[N], y[N];
  for (int i = 0; i < N; ++i)
    {
      x[i] = (float)i;
      y[i] = 1.0f;
    }
  cl_mem dx = clCreateBuffer (ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                              sizeof (x), x, &err);
  CL_OK (err);
  cl_mem dy = clCreateBuffer (ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                              sizeof (y), y, &err);
  CL_OK (err);
  float a = 2.0f;
  size_t global = N, local = 64;
  CL_OK (clSetKernelArg (k, 0, sizeof (a), &a));
  CL_OK (clSetKernelArg (k, 1, sizeof (dx), &dx));
  CL_OK (clSetKernelArg (k, 2, sizeof (dy), &dy));
  CL_OK (
      clEnqueueNDRangeKernel (q, k, 1, NULL, &global, &local, 0, NULL, NULL));
  CL_OK (
      clEnqueueReadBuffer (q, dy, CL_TRUE, 0, sizeof (y), y, 0, NULL, NULL));
  int bad = 0;
  for (int i = 0; i < N; ++i)
    bad += y[i] != 2.0f * (float)i + 1.0f;
  CHECK (bad == 0, "axpy: %d of %d results wrong", bad, N);
  printf ("axpy over %d elements in %zu work-groups: %s\n", N, global / local,
          bad ? "WRONG" : "correct");

  CL_OK (clReleaseMemObject (dx));
  CL_OK (clReleaseMemObject (dy));
  CL_OK (clReleaseKernel (k));
  CL_OK (clReleaseProgram (prog));
  CL_OK (clReleaseCommandQueue (q));
  CL_OK (clReleaseContext (ctx));
  return cltest_finish ("hello");
}
