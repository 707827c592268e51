/* stack_limit.c - prints the work-group size limit PoCL gives a kernel
   whose private array stays on the stack (built with -cl-opt-disable, so
   its allocas are kept and PoCL's estimate of its stack use is what it
   uses), then launches it at that size and checks the result.  In a PoCL
   built with HOST_CPU_ENABLE_STACK_SIZE_CHECK the limit follows from the
   stack our workers get (the device's work_group_stack_size), which
   check_stack_limit.sh compares under several stack limits (ulimit -s).
   The kernel has 64 KiB of private data per work-item.

   Copyright (c) 2026 pocl-steal developers.  MIT licence, as PoCL.  */

#include "cltest.h"

/* 64 KiB of private data per work-item: 8 MiB of stack holds fewer than
   128 work-items, less than the device's limit.  */
static const char *src
    = "#define N 16384\n"
      "kernel void deep (global int *out, int k)\n"
      "{\n"
      "  volatile int buf[N];\n"
      "  for (int i = 0; i < N; ++i)\n"
      "    buf[i] = i ^ k;\n"
      "  out[get_global_id (0)] = buf[(get_global_id (0) * 7 + k) % N];\n"
      "}\n";

int
main (void)
{
  cltest_env e;
  cltest_open (&e, src, "-cl-opt-disable");
  cl_kernel k = cltest_kernel (&e, "deep");
  size_t limit = 0;
  CL_OK (clGetKernelWorkGroupInfo (k, e.dev, CL_KERNEL_WORK_GROUP_SIZE,
                                   sizeof (limit), &limit, NULL));
  size_t device_max = 0;
  CL_OK (clGetDeviceInfo (e.dev, CL_DEVICE_MAX_WORK_GROUP_SIZE,
                          sizeof (device_max), &device_max, NULL));
  printf ("work-group limit %zu of %zu\n", limit, device_max);

  /* One work-group of the largest size: runs on a worker's stack.  */
  int kval = 5;
  cl_mem out
      = cltest_buffer (&e, CL_MEM_WRITE_ONLY, limit * sizeof (int), NULL);
  CL_OK (clSetKernelArg (k, 0, sizeof (out), &out));
  CL_OK (clSetKernelArg (k, 1, sizeof (kval), &kval));
  CL_OK (
      clEnqueueNDRangeKernel (e.q, k, 1, NULL, &limit, &limit, 0, NULL, NULL));
  int *res = malloc (limit * sizeof (int));
  CL_OK (clEnqueueReadBuffer (e.q, out, CL_TRUE, 0, limit * sizeof (int), res,
                              0, NULL, NULL));
  for (size_t g = 0; g < limit; ++g)
    {
      int idx = (int)((g * 7 + kval) % 16384);
      CHECK (res[g] == (idx ^ kval), "out[%zu] = %d, want %d", g, res[g],
             idx ^ kval);
    }
  free (res);
  CL_OK (clReleaseMemObject (out));
  CL_OK (clReleaseKernel (k));
  cltest_close (&e);
  return cltest_finish ("stack_limit");
}
