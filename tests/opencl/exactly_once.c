/* exactly_once.c - every work-item of a launch runs exactly once.

   Kernels over 1D, 2D and 3D ranges, with global offsets, a single
   work-group, many small work-groups, and a local size left to PoCL.  Each
   work-item adds one to a counter at its own (offset-corrected) global
   linear index; after each launch every counter must be 1.

   PoCL 7.1 has no non-uniform work-groups (its CPU devices report
   CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT false and reject such ranges
   with CL_INVALID_WORK_GROUP_SIZE, which is checked here too), so shapes
   with a "ragged" last group are written the way portable code does it:
   the range is padded to whole groups and the kernel guards the extra
   work-items.  The padded work-items count too, so every work-item of every
   group is still checked.

   Copyright (c) 2026 pocl-steal developers.  MIT licence, as PoCL.  */

#include "cltest.h"

static const char *source
    = "__kernel void count (__global volatile uint *hits, ulong gx, ulong "
      "gy,\n"
      "                     ulong nx, ulong ny, ulong nz,\n"
      "                     __global volatile uint *inside)\n"
      "{\n"
      "  size_t x = get_global_id (0) - get_global_offset (0);\n"
      "  size_t y = get_global_id (1) - get_global_offset (1);\n"
      "  size_t z = get_global_id (2) - get_global_offset (2);\n"
      "  atomic_inc (&hits[(z * gy + y) * gx + x]);\n"
      "  // the guard of a padded range: only the logical range works\n"
      "  if (x < nx && y < ny && z < nz)\n"
      "    atomic_inc (inside);\n"
      "}\n";

typedef struct
{
  const char *name;
  cl_uint dims;
  size_t logical[3]; /* the range the application wants */
  size_t local[3];   /* all 0: NULL local size */
  size_t offset[3];
} shape;

static const shape shapes[] = {
  { "1D uniform", 1, { 4096 }, { 64 }, { 0 } },
  { "1D offset, ragged last group", 1, { 1000 }, { 64 }, { 7 } },
  { "1D one group", 1, { 16 }, { 16 }, { 0 } },
  { "1D one work-item", 1, { 1 }, { 1 }, { 0 } },
  { "1D 65536 small groups", 1, { 1 << 20 }, { 16 }, { 0 } },
  { "1D prime size, local size by PoCL", 1, { 12347 }, { 0 }, { 3 } },
  { "2D offset, ragged", 2, { 37, 29 }, { 8, 4 }, { 3, 5 } },
  { "2D uniform", 2, { 256, 64 }, { 16, 8 }, { 0, 0 } },
  { "2D local size by PoCL", 2, { 97, 31 }, { 0, 0 }, { 0, 0 } },
  { "3D offset, ragged", 3, { 11, 7, 5 }, { 4, 2, 3 }, { 1, 2, 3 } },
  { "3D uniform", 3, { 32, 16, 8 }, { 4, 4, 2 }, { 0, 0, 0 } },
  { "3D prime sizes, ragged", 3, { 13, 17, 19 }, { 2, 3, 5 }, { 100, 0, 1 } },
};

/* PoCL 7.1 rejects a range that is not a multiple of the local size.  */
static void
check_non_uniform_rejected (cl_device_id dev, cl_command_queue q, cl_kernel k)
{
  cl_bool non_uniform = CL_TRUE;
  CL_OK (clGetDeviceInfo (dev, CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT,
                          sizeof (non_uniform), &non_uniform, NULL));
  size_t global = 100, local = 64;
  cl_int err
      = clEnqueueNDRangeKernel (q, k, 1, NULL, &global, &local, 0, NULL, NULL);
  CHECK (!non_uniform && err == CL_INVALID_WORK_GROUP_SIZE,
         "non-uniform work-groups: device says %d, enqueue returned %d",
         (int)non_uniform, err);
  printf ("non-uniform work-groups: not supported, rejected with "
          "CL_INVALID_WORK_GROUP_SIZE as PoCL 7.1 does\n");
}

int
main (void)
{
  cltest_env e;
  cltest_open (&e, source, NULL);
  cl_kernel k = cltest_kernel (&e, "count");

  cl_mem inside
      = cltest_buffer (&e, CL_MEM_READ_WRITE, sizeof (cl_uint), NULL);
  for (size_t s = 0; s < sizeof (shapes) / sizeof (shapes[0]); ++s)
    {
      const shape *sh = &shapes[s];
      size_t global[3] = { 1, 1, 1 }, logical[3] = { 1, 1, 1 };
      for (cl_uint d = 0; d < sh->dims; ++d)
        {
          size_t l = sh->local[0] ? sh->local[d] : 1;
          logical[d] = sh->logical[d];
          global[d] = (logical[d] + l - 1) / l * l; /* padded */
        }
      size_t n = global[0] * global[1] * global[2];
      size_t n_logical = logical[0] * logical[1] * logical[2];
      cl_mem hits
          = cltest_buffer (&e, CL_MEM_READ_WRITE, n * sizeof (cl_uint), NULL);
      cl_ulong args[5]
          = { global[0], global[1], logical[0], logical[1], logical[2] };
      CL_OK (clSetKernelArg (k, 0, sizeof (hits), &hits));
      for (int a = 0; a < 5; ++a)
        CL_OK (clSetKernelArg (k, 1 + a, sizeof (cl_ulong), &args[a]));
      CL_OK (clSetKernelArg (k, 6, sizeof (inside), &inside));
      cl_uint *out = malloc (n * sizeof (cl_uint));
      size_t bad = 0, first_bad = 0;
      cl_uint in_count = 0;
      for (int rep = 0; rep < 3; ++rep)
        {
          cl_uint zero = 0;
          CL_OK (clEnqueueFillBuffer (e.q, hits, &zero, sizeof (zero), 0,
                                      n * sizeof (cl_uint), 0, NULL, NULL));
          CL_OK (clEnqueueFillBuffer (e.q, inside, &zero, sizeof (zero), 0,
                                      sizeof (zero), 0, NULL, NULL));
          CL_OK (clEnqueueNDRangeKernel (e.q, k, sh->dims, sh->offset, global,
                                         sh->local[0] ? sh->local : NULL, 0,
                                         NULL, NULL));
          CL_OK (clEnqueueReadBuffer (e.q, hits, CL_TRUE, 0,
                                      n * sizeof (cl_uint), out, 0, NULL,
                                      NULL));
          CL_OK (clEnqueueReadBuffer (e.q, inside, CL_TRUE, 0,
                                      sizeof (in_count), &in_count, 0, NULL,
                                      NULL));
          for (size_t i = 0; i < n; ++i)
            if (out[i] != 1 && bad++ == 0)
              first_bad = i;
          CHECK (bad == 0,
                 "%s, launch %d: %zu of %zu work-items did not run exactly "
                 "once (first: index %zu ran %u times)",
                 sh->name, rep, bad, n, first_bad, out[first_bad]);
          CHECK (in_count == n_logical,
                 "%s, launch %d: %u work-items inside the logical range, "
                 "want %zu",
                 sh->name, rep, in_count, n_logical);
        }
      printf ("%-36s %8zu work-items (%zu padded) x 3 launches: %s\n",
              sh->name, n_logical, n, bad ? "WRONG" : "each exactly once");
      free (out);
      CL_OK (clReleaseMemObject (hits));
    }
  check_non_uniform_rejected (e.dev, e.q, k);
  CL_OK (clReleaseMemObject (inside));

  CL_OK (clReleaseKernel (k));
  cltest_close (&e);
  return cltest_finish ("exactly_once");
}
