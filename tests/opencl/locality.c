/* locality.c - does a work-group run on the same thread as in the previous
   launch of the same size?

   The kernel records, per work-group, the address of a __local variable.
   PoCL's CPU drivers (ours and stock) give each worker thread its own
   local-memory buffer for the life of the device, so the address tells
   which thread ran the group, without any hook in the driver.  Balanced
   launches (equal work per group, a few groups per thread) are repeated;
   the figure is the fraction of groups whose thread is the one of the
   previous launch.

   Usage: locality [MIN_FRACTION]
     prints the figure; with MIN_FRACTION, fails if the best of three rounds
     of launches stays below it.

   Copyright (c) 2026 pocl-steal developers.  MIT licence, as PoCL.  */

#include "cltest.h"

static const char *source
    = "__kernel void where (__global ulong *owner, __global float *sink,\n"
      "                     uint spins)\n"
      "{\n"
      "  __local int marker;\n"
      "  float acc = get_global_id (0);\n"
      "  for (uint i = 0; i < spins; ++i)\n"
      "    acc = acc * 0.999f + 1.0f;\n"
      "  sink[get_global_id (0)] = acc;\n"
      "  if (get_local_id (0) == 0)\n"
      "    owner[get_group_id (0)] = (ulong)&marker;\n"
      "}\n";

enum
{
  LAUNCHES = 8,
  ROUNDS = 3
};

int
main (int argc, char **argv)
{
  double min_fraction = argc > 1 ? atof (argv[1]) : -1;
  cl_device_id dev = cltest_cpu_device (NULL);
  cl_uint cus = 0;
  CL_OK (clGetDeviceInfo (dev, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof (cus),
                          &cus, NULL));
  cl_int err;
  cl_context ctx = clCreateContext (NULL, 1, &dev, NULL, NULL, &err);
  CL_OK (err);
  cl_command_queue q
      = clCreateCommandQueueWithProperties (ctx, dev, NULL, &err);
  CL_OK (err);
  cl_program prog = cltest_build (ctx, dev, source, NULL);
  cl_kernel k = clCreateKernel (prog, "where", &err);
  CL_OK (err);

  /* 128 work-groups per thread, so that the guided schedule's chunks
     (64 for two threads) are dealt in more than one round, and about 10 ms
     of work per thread and launch: long against the time a woken thread
     takes to start (up to a millisecond in a VM), so that a late start
     does not hand its block to a neighbour.  */
  const size_t groups = 128 * (size_t)cus, local = 4, global = groups * local;
  const cl_uint spins = 50000;
  cl_mem owner = clCreateBuffer (ctx, CL_MEM_WRITE_ONLY,
                                 groups * sizeof (cl_ulong), NULL, &err);
  CL_OK (err);
  cl_mem sink = clCreateBuffer (ctx, CL_MEM_WRITE_ONLY,
                                global * sizeof (cl_float), NULL, &err);
  CL_OK (err);
  CL_OK (clSetKernelArg (k, 0, sizeof (owner), &owner));
  CL_OK (clSetKernelArg (k, 1, sizeof (sink), &sink));
  CL_OK (clSetKernelArg (k, 2, sizeof (spins), &spins));

  cl_ulong *prev = malloc (groups * sizeof (cl_ulong));
  cl_ulong *cur = malloc (groups * sizeof (cl_ulong));
  double best = 0;
  for (int round = 0; round < ROUNDS; ++round)
    {
      size_t same = 0, compared = 0;
      for (int l = 0; l < LAUNCHES; ++l)
        {
          CL_OK (clEnqueueNDRangeKernel (q, k, 1, NULL, &global, &local, 0,
                                         NULL, NULL));
          CL_OK (clEnqueueReadBuffer (q, owner, CL_TRUE, 0,
                                      groups * sizeof (cl_ulong), cur, 0,
                                      NULL, NULL));
          if (l > 0)
            for (size_t g = 0; g < groups; ++g)
              {
                same += cur[g] == prev[g];
                ++compared;
              }
          cl_ulong *t = prev;
          prev = cur;
          cur = t;
        }
      double f = (double)same / (double)compared;
      printf ("round %d: %zu work-groups over %u threads, %d launches: "
              "%.3f on the same thread as in the previous launch\n",
              round, groups, cus, LAUNCHES, f);
      if (f > best)
        best = f;
    }
  printf ("locality: %.3f (best of %d rounds)\n", best, ROUNDS);
  if (min_fraction >= 0)
    EXPECT (best >= min_fraction, "locality %.3f is below %.3f", best,
            min_fraction);

  free (prev);
  free (cur);
  CL_OK (clReleaseMemObject (owner));
  CL_OK (clReleaseMemObject (sink));
  CL_OK (clReleaseKernel (k));
  CL_OK (clReleaseProgram (prog));
  CL_OK (clReleaseCommandQueue (q));
  CL_OK (clReleaseContext (ctx));
  return cltest_finish ("locality");
}
