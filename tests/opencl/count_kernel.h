/* count_kernel.h - the exactly-once kernel and its check, for tests that
   run many launches at once.

   Copyright (c) 2026 pocl-steal developers.  MIT licence, as PoCL.  */

#ifndef POCL_STEAL_COUNT_KERNEL_H
#define POCL_STEAL_COUNT_KERNEL_H

#include "cltest.h"

static const char count_source[]
    = "__kernel void count (__global volatile uint *hits)\n"
      "{\n"
      "  atomic_inc (&hits[get_global_id (0) - get_global_offset (0)]);\n"
      "}\n";

#define COUNT_OPTIONS NULL

/* A buffer of n counters and a kernel counting into it.  */
typedef struct
{
  cl_kernel kernel;
  cl_mem hits;
  size_t n;
  cl_uint *host;
} count_job;

static inline void
count_job_init (count_job *j, cl_context ctx, cl_program prog, size_t n)
{
  cl_int err;
  j->n = n;
  j->kernel = clCreateKernel (prog, "count", &err);
  CL_OK (err);
  j->hits = clCreateBuffer (ctx, CL_MEM_READ_WRITE, n * sizeof (cl_uint), NULL,
                            &err);
  CL_OK (err);
  j->host = malloc (n * sizeof (cl_uint));
  CL_OK (clSetKernelArg (j->kernel, 0, sizeof (j->hits), &j->hits));
}

/* Enqueues: zero the counters, count with local size `local`, read back.
   Non-blocking; wait with clFinish (q).  */
static inline void
count_job_enqueue (count_job *j, cl_command_queue q, size_t local)
{
  cl_uint zero = 0;
  CL_OK (clEnqueueFillBuffer (q, j->hits, &zero, sizeof (zero), 0,
                              j->n * sizeof (cl_uint), 0, NULL, NULL));
  /* PoCL has no non-uniform work-groups: n must be a multiple of local. */
  CL_OK (clEnqueueNDRangeKernel (q, j->kernel, 1, NULL, &j->n,
                                 local ? &local : NULL, 0, NULL, NULL));
  CL_OK (clEnqueueReadBuffer (q, j->hits, CL_FALSE, 0, j->n * sizeof (cl_uint),
                              j->host, 0, NULL, NULL));
}

/* Work-items that did not run exactly once.  */
static inline size_t
count_job_wrong (const count_job *j)
{
  size_t bad = 0;
  for (size_t i = 0; i < j->n; ++i)
    bad += j->host[i] != 1;
  return bad;
}

static inline void
count_job_release (count_job *j)
{
  CL_OK (clReleaseKernel (j->kernel));
  CL_OK (clReleaseMemObject (j->hits));
  free (j->host);
}

#endif /* POCL_STEAL_COUNT_KERNEL_H */
