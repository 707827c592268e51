/* printf_groups.c - printf from many work-groups at once.  Each work-group's
   first work-item prints one line naming its group; the CMake test runs
   this program and tests/opencl/check_printf.sh checks that every line
   appears exactly once and whole.

   Usage: printf_groups GROUPS

   Copyright (c) 2026 pocl-steal developers.  MIT licence, as PoCL.  */

#include "cltest.h"

static const char *source
    = "__kernel void hello (void)\n"
      "{\n"
      "  if (get_local_id (0) == 0)\n"
      "    printf (\"pocl-steal printf group %u of %u\\n\",\n"
      "            (uint)get_group_id (0), (uint)get_num_groups (0));\n"
      "}\n";

int
main (int argc, char **argv)
{
  size_t groups = argc > 1 ? strtoul (argv[1], NULL, 10) : 1000;
  cl_device_id dev = cltest_cpu_device (NULL);
  cl_int err;
  cl_context ctx = clCreateContext (NULL, 1, &dev, NULL, NULL, &err);
  CL_OK (err);
  cl_command_queue q
      = clCreateCommandQueueWithProperties (ctx, dev, NULL, &err);
  CL_OK (err);
  cl_program prog = cltest_build (ctx, dev, source, NULL);
  cl_kernel k = clCreateKernel (prog, "hello", &err);
  CL_OK (err);
  size_t local = 4, global = groups * local;
  CL_OK (clEnqueueNDRangeKernel (q, k, 1, NULL, &global, &local, 0, NULL,
                                 NULL));
  CL_OK (clFinish (q));
  fflush (stdout);
  CL_OK (clReleaseKernel (k));
  CL_OK (clReleaseProgram (prog));
  CL_OK (clReleaseCommandQueue (q));
  CL_OK (clReleaseContext (ctx));
  return 0;
}
