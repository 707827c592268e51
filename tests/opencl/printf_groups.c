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
  cltest_env e;
  cltest_open (&e, source, NULL);
  cl_kernel k = cltest_kernel (&e, "hello");
  size_t local = 4, global = groups * local;
  CL_OK (clEnqueueNDRangeKernel (e.q, k, 1, NULL, &global, &local, 0, NULL,
                                 NULL));
  CL_OK (clFinish (e.q));
  fflush (stdout);
  CL_OK (clReleaseKernel (k));
  cltest_close (&e);
  return 0;
}
