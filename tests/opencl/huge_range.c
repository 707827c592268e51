/* huge_range.c - one launch with more than 2^32 work-groups.

   Usage: cl_huge_range [EXTRA_GROUPS]   (default 4096)

   2^32 + EXTRA_GROUPS work-groups of one work-item each, in one dimension,
   so the work-group count does not fit the 32-bit halves of the
   dispatcher's packed claims (wg_dispatch.h: it then claims in grains).
   Each work-item adds one to counter (global id mod 1021): each counter
   must come out at the number of ids with its residue, which a lost or
   repeated range of work-groups would break.  (A prime modulus, so that
   threads working at distant parts of the range do not hit the same
   counter in lockstep.)

   Copyright (c) 2026 pocl-steal developers.  MIT licence, as PoCL.  */

#include <inttypes.h>
#include <stdint.h>

#include "cltest.h"

#define NCOUNTERS 1021
#define STR(x) #x
#define XSTR(x) STR (x)

static const char *huge_source
    = "__kernel void tally (__global volatile uint *hits)\n"
      "{\n"
      "  atomic_inc (&hits[get_global_id (0) % NCOUNTERS]);\n"
      "}\n";

int
main (int argc, char **argv)
{
  const uint64_t extra = argc > 1 ? strtoull (argv[1], NULL, 10) : 4096;
  const uint64_t groups = (UINT64_C (1) << 32) + extra;
  cltest_env e;
  cltest_open (&e, huge_source, "-DNCOUNTERS=" XSTR (NCOUNTERS));
  cl_kernel k = cltest_kernel (&e, "tally");
  cl_uint hits[NCOUNTERS] = { 0 };
  cl_mem buf = cltest_buffer (&e, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                              sizeof (hits), hits);
  CL_OK (clSetKernelArg (k, 0, sizeof (buf), &buf));
  size_t global = (size_t)groups, local = 1;
  CL_OK (clEnqueueNDRangeKernel (e.q, k, 1, NULL, &global, &local, 0, NULL,
                                 NULL));
  CL_OK (clEnqueueReadBuffer (e.q, buf, CL_TRUE, 0, sizeof (hits), hits, 0,
                              NULL, NULL));
  size_t wrong = 0;
  for (uint64_t r = 0; r < NCOUNTERS; ++r)
    {
      /* The ids below `groups` that are r modulo NCOUNTERS.  */
      const uint64_t want = (groups - r + NCOUNTERS - 1) / NCOUNTERS;
      wrong += hits[r] != want;
    }
  printf ("%" PRIu64 " work-groups (2^32 + %" PRIu64 "): counter 0 = %u; "
          "%zu of %d counters wrong\n",
          groups, extra, hits[0], wrong, NCOUNTERS);
  CHECK (wrong == 0, "%zu of %d counters wrong", wrong, NCOUNTERS);
  CL_OK (clReleaseMemObject (buf));
  CL_OK (clReleaseKernel (k));
  cltest_close (&e);
  return cltest_finish ("cl_huge_range");
}
