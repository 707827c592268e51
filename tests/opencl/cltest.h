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

#include "../check.h"

/* A call that must succeed: on an error, report it and exit.  */
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
/* CL_DEVICE_MAX_COMPUTE_UNITS of dev.  */
static inline cl_uint
cltest_compute_units (cl_device_id dev)
{
  cl_uint cus = 0;
  CL_OK (clGetDeviceInfo (dev, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof (cus), &cus,
                          NULL));
  return cus;
}

/* Splits dev equally into two sub-devices of cus / 2 compute units each
   (cus: dev's compute units, at least 2).  */
static inline void
cltest_split_in_two (cl_device_id dev, cl_uint cus, cl_device_id subs[2])
{
  cl_uint n = 0;
  cl_device_partition_property equally[]
      = { CL_DEVICE_PARTITION_EQUALLY, cus / 2, 0 };
  CL_OK (clCreateSubDevices (dev, equally, 2, subs, &n));
  if (n != 2)
    {
      fprintf (stderr, "equally by %u: got %u sub-devices\n", cus / 2, n);
      exit (1);
    }
}

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

/* The usual start of a test or benchmark: the CPU device, a context and an
   in-order queue on it, and a program built from src.  */
typedef struct
{
  cl_device_id dev;
  cl_context ctx;
  cl_command_queue q;
  cl_program prog;
} cltest_env;

static inline void
cltest_open (cltest_env *e, const char *src, const char *options)
{
  cl_int err;
  e->dev = cltest_cpu_device (NULL);
  e->ctx = clCreateContext (NULL, 1, &e->dev, NULL, NULL, &err);
  CL_OK (err);
  e->q = clCreateCommandQueueWithProperties (e->ctx, e->dev, NULL, &err);
  CL_OK (err);
  e->prog = cltest_build (e->ctx, e->dev, src, options);
}

static inline cl_kernel
cltest_kernel (cltest_env *e, const char *name)
{
  cl_int err;
  cl_kernel k = clCreateKernel (e->prog, name, &err);
  CL_OK (err);
  return k;
}

static inline cl_mem
cltest_buffer (cltest_env *e, cl_mem_flags flags, size_t bytes, void *host)
{
  cl_int err;
  cl_mem m = clCreateBuffer (e->ctx, flags, bytes, host, &err);
  CL_OK (err);
  return m;
}

static inline void
cltest_close (cltest_env *e)
{
  CL_OK (clReleaseProgram (e->prog));
  CL_OK (clReleaseCommandQueue (e->q));
  CL_OK (clReleaseContext (e->ctx));
}

static inline int
cltest_finish (const char *name)
{
  return check_finish (name);
}

#endif /* POCL_STEAL_CLTEST_H */
