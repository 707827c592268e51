/* subdevices.c - sub-devices running kernels at the same time as each
   other and as their parent device.

   The device is split equally in two and by counts {1, rest}; each
   sub-device and the parent get a queue, and rounds of exactly-once
   kernels are enqueued on all queues before any is waited for.  Every
   work-item must run exactly once in every launch, and each sub-device must
   report the compute units asked for.

   Copyright (c) 2026 pocl-steal developers.  MIT licence, as PoCL.  */

#include "count_kernel.h"

static void
run_concurrently (cl_device_id parent, cl_device_id *subs, cl_uint nsubs,
                  const char *what)
{
  cl_int err;
  cl_device_id devs[9];
  devs[0] = parent;
  for (cl_uint i = 0; i < nsubs; ++i)
    devs[1 + i] = subs[i];
  cl_uint ndev = nsubs + 1;
  cl_context ctx = clCreateContext (NULL, ndev, devs, NULL, NULL, &err);
  CL_OK (err);
  cl_program prog
      = cltest_build_for (ctx, ndev, devs, count_source, COUNT_OPTIONS);

  cl_command_queue q[9];
  count_job jobs[9];
  static const size_t sizes[] = { 1, 63, 4096, 100003 };
  for (cl_uint d = 0; d < ndev; ++d)
    {
      q[d] = clCreateCommandQueueWithProperties (ctx, devs[d], NULL, &err);
      CL_OK (err);
    }
  size_t bad = 0, launches = 0;
  for (int round = 0; round < 8; ++round)
    {
      for (cl_uint d = 0; d < ndev; ++d)
        {
          count_job_init (&jobs[d], ctx, prog,
                          sizes[(round + d) % 4] * (1 + d % 2));
          count_job_enqueue (&jobs[d], q[d], (round % 2) ? 0 : 1);
        }
      for (cl_uint d = 0; d < ndev; ++d)
        {
          CL_OK (clFinish (q[d]));
          bad += count_job_wrong (&jobs[d]);
          count_job_release (&jobs[d]);
          ++launches;
        }
    }
  CHECK (bad == 0, "%s: %zu work-items not run exactly once", what, bad);
  printf ("%s: %zu launches on %u devices at once: %s\n", what, launches, ndev,
          bad ? "WRONG" : "each work-item exactly once");
  for (cl_uint d = 0; d < ndev; ++d)
    CL_OK (clReleaseCommandQueue (q[d]));
  CL_OK (clReleaseProgram (prog));
  CL_OK (clReleaseContext (ctx));
}

int
main (void)
{
  cl_device_id dev = cltest_cpu_device (NULL);
  cl_uint cus = cltest_compute_units (dev);
  if (cus < 2)
    {
      fprintf (stderr,
               "need at least 2 compute units (set "
               "POCL_CPU_MAX_CU_COUNT), have %u\n",
               cus);
      return 1;
    }

  cl_device_id subs[8];
  cl_uint n = 2;
  cltest_split_in_two (dev, cus, subs);
  for (cl_uint i = 0; i < n; ++i)
    {
      cl_uint c = cltest_compute_units (subs[i]);
      CHECK (c == cus / 2, "sub-device %u has %u compute units", i, c);
    }
  run_concurrently (dev, subs, n, "equally");
  for (cl_uint i = 0; i < n; ++i)
    CL_OK (clReleaseDevice (subs[i]));

  cl_device_partition_property counts[]
      = { CL_DEVICE_PARTITION_BY_COUNTS, 1, cus - 1,
          CL_DEVICE_PARTITION_BY_COUNTS_LIST_END, 0 };
  CL_OK (clCreateSubDevices (dev, counts, 8, subs, &n));
  CHECK (n == 2, "by counts {1, %u}: got %u sub-devices", cus - 1, n);
  run_concurrently (dev, subs, n, "by counts");
  for (cl_uint i = 0; i < n; ++i)
    CL_OK (clReleaseDevice (subs[i]));

  return cltest_finish ("subdevices");
}
