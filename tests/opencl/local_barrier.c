/* local_barrier.c - local memory and barriers: each work-group sums its
   inputs with a tree reduction in local memory (one buffer passed as a
   __local argument, one declared in the kernel) and barriers between the
   steps.  Any mix-up of local memory between threads or work-groups, or a
   barrier that does not hold, gives wrong sums.

   Copyright (c) 2026 pocl-steal developers.  MIT licence, as PoCL.  */

#include "cltest.h"

static const char *source
    = "#define WG 64\n"
      "__kernel void reduce (__global const uint *in, __global ulong *sums,\n"
      "                      __local uint *scratch)\n"
      "{\n"
      "  __local ulong partial[WG];\n"
      "  size_t l = get_local_id (0);\n"
      "  scratch[l] = in[get_global_id (0)];\n"
      "  barrier (CLK_LOCAL_MEM_FENCE);\n"
      "  partial[l] = (ulong)scratch[l] * 3u;\n"
      "  barrier (CLK_LOCAL_MEM_FENCE);\n"
      "  for (size_t s = WG / 2; s > 0; s >>= 1)\n"
      "    {\n"
      "      if (l < s)\n"
      "        partial[l] += partial[l + s];\n"
      "      barrier (CLK_LOCAL_MEM_FENCE);\n"
      "    }\n"
      "  if (l == 0)\n"
      "    sums[get_group_id (0)] = partial[0] + scratch[WG - 1];\n"
      "}\n";

int
main (void)
{
  cltest_env e;
  cltest_open (&e, source, NULL);
  cl_kernel k = cltest_kernel (&e, "reduce");

  const size_t wg = 64;
  static const size_t group_counts[] = { 1, 3, 1000, 4099 };
  for (size_t c = 0; c < sizeof (group_counts) / sizeof (group_counts[0]); ++c)
    {
      size_t groups = group_counts[c], n = groups * wg;
      cl_uint *in = malloc (n * sizeof (cl_uint));
      for (size_t i = 0; i < n; ++i)
        in[i] = (cl_uint)(i * 2654435761u >> 7);
      cl_mem din = cltest_buffer (&e, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                  n * sizeof (cl_uint), in);
      cl_mem dsums = cltest_buffer (&e, CL_MEM_WRITE_ONLY,
                                    groups * sizeof (cl_ulong), NULL);
      CL_OK (clSetKernelArg (k, 0, sizeof (din), &din));
      CL_OK (clSetKernelArg (k, 1, sizeof (dsums), &dsums));
      CL_OK (clSetKernelArg (k, 2, wg * sizeof (cl_uint), NULL));
      cl_ulong *sums = malloc (groups * sizeof (cl_ulong));
      size_t bad = 0;
      for (int rep = 0; rep < 3; ++rep)
        {
          CL_OK (clEnqueueNDRangeKernel (e.q, k, 1, NULL, &n, &wg, 0, NULL,
                                         NULL));
          CL_OK (clEnqueueReadBuffer (e.q, dsums, CL_TRUE, 0,
                                      groups * sizeof (cl_ulong), sums, 0,
                                      NULL, NULL));
          for (size_t g = 0; g < groups; ++g)
            {
              cl_ulong want = in[g * wg + wg - 1];
              for (size_t i = 0; i < wg; ++i)
                want += (cl_ulong)in[g * wg + i] * 3u;
              if (sums[g] != want)
                ++bad;
            }
        }
      CHECK (bad == 0, "%zu groups: %zu wrong group sums", groups, bad);
      printf ("%5zu work-groups of %zu: %s\n", groups, wg,
              bad ? "WRONG sums" : "sums right");
      free (in);
      free (sums);
      CL_OK (clReleaseMemObject (din));
      CL_OK (clReleaseMemObject (dsums));
    }
  CL_OK (clReleaseKernel (k));
  cltest_close (&e);
  return cltest_finish ("local_barrier");
}
