/* cltest.h - small helpers shared by the OpenCL integration tests.  They
   run through the ICD loader, on whatever OCL_ICD_VENDORS names (the
   tests' CMake points it at one of the two PoCL prefixes).

   Copyright (c) 2026 pocl-steal developers.  MIT licence, as PoCL.  */

#ifndef POCL_STEAL_CLTEST_H
#define POCL_STEAL_CLTEST_H

#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cltest_failures;

#define CL_OK(call)                                                           \
  do                                                                          \
    {                                                                         \
      cl_int _err = (call);                                                   \
      if (_err != CL_SUCCESS)                                                 \
        {                                                                     \
          fprintf (stderr, "%s:%d: %s failed: %d\n", __FILE__, __LINE__,      \
                   #call, _err);                                              \
          exit (1);                                                           \
        }                                                                     \
    }                                                                         \
  while (0)

#define EXPECT(cond, ...)                                                     \
  do                                                                          \
    {                                                                         \
      if (!(cond))                                                            \
        {                                                                     \
          fprintf (stderr, "FAIL %s:%d: ", __FILE__, __LINE__);               \
          fprintf (stderr, __VA_ARGS__);                                      \
          fputc ('\n', stderr);                                               \
          ++cltest_failures;                                                  \
        }                                                                     \
    }                                                                         \
  while (0)

/* The first CPU device of the first platform that has one.  */
static inline cl_device_id
cltest_cpu_device (cl_platform_id *platform_out)
{
  cl_uint np = 0;
  cl_platform_id platforms[8];
  CL_OK (clGetPlatformIDs (8, platforms, &np));
  for (cl_uint i = 0; i < np && i < 8; ++i)
    {
      cl_device_id dev;
      cl_uint nd = 0;
      if (clGetDeviceIDs (platforms[i], CL_DEVICE_TYPE_CPU, 1, &dev, &nd)
              == CL_SUCCESS
          && nd > 0)
        {
          if (platform_out)
            *platform_out = platforms[i];
          return dev;
        }
    }
  fprintf (stderr, "no OpenCL CPU device found (OCL_ICD_VENDORS=%s)\n",
           getenv ("OCL_ICD_VENDORS") ? getenv ("OCL_ICD_VENDORS") : "");
  exit (1);
}

/* Builds src for the n devices devs of ctx; exits with the log if it
   fails.  */
static inline cl_program
cltest_build_for (cl_context ctx, cl_uint n, const cl_device_id *devs,
                  const char *src, const char *options)
{
  cl_int err;
  cl_program p = clCreateProgramWithSource (ctx, 1, &src, NULL, &err);
  CL_OK (err);
  err = clBuildProgram (p, n, devs, options, NULL, NULL);
  if (err != CL_SUCCESS)
    {
      char log[16384];
      clGetProgramBuildInfo (p, devs[0], CL_PROGRAM_BUILD_LOG, sizeof (log),
                             log, NULL);
      fprintf (stderr, "build failed (%d):\n%s\n", err, log);
      exit (1);
    }
  return p;
}

static inline cl_program
cltest_build (cl_context ctx, cl_device_id dev, const char *src,
              const char *options)
{
  return cltest_build_for (ctx, 1, &dev, src, options);
}

static inline int
cltest_finish (const char *name)
{
  if (cltest_failures)
    {
      fprintf (stderr, "%s: %d check(s) failed\n", name, cltest_failures);
      return 1;
    }
  printf ("%s: all checks passed\n", name);
  return 0;
}

#endif /* POCL_STEAL_CLTEST_H */
