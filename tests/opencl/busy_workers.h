/* busy_workers.h - makes every worker of the device busy, so that what an
   application thread waiting in clFinish does next is deterministic: no
   worker can take a command or join a launch until the program frees
   them (host_run.c, host_share.c).

   A launch of one work-group per compute unit (local size 1) of the
   kernel `busy` (BUSY_WORKERS_SOURCE): each work-group counts itself in
   and waits for a flag.  Both live in host memory the kernels use
   directly (CL_MEM_USE_HOST_PTR), so the program sees and sets them
   without commands, which would be the busy workers'.

   Copyright (c) 2026 pocl-steal developers.  MIT licence, as PoCL.  */

#ifndef POCL_STEAL_BUSY_WORKERS_H
#define POCL_STEAL_BUSY_WORKERS_H

#include <stdatomic.h>
#include <unistd.h>

#include "cltest.h"

#define BUSY_WORKERS_SOURCE                                                   \
  "__kernel void busy (__global volatile int *flag,\n"                        \
  "                    __global volatile int *in)\n"                          \
  "{\n"                                                                       \
  "  atomic_inc (in);\n"                                                      \
  "  while (atomic_add (flag, 0) == 0)\n"                                     \
  "    ;\n"                                                                   \
  "}\n"

static _Alignas (64) volatile int busy_flag[16];
static _Alignas (64) volatile int busy_in[16];
/* Set when the workers are let go (free_workers), before the flag.  */
static atomic_int freed;

typedef struct
{
  cl_kernel kernel;
  cl_mem flag, in;
} busy_workers;

static void
free_workers (void)
{
  atomic_store (&freed, 1);
  /* Atomic: the watchdog and the program may both free them.  */
  __atomic_store_n (&busy_flag[0], 1, __ATOMIC_SEQ_CST);
}

/* Frees the workers after *arg hundredths of a second unless they are
   free by then: a guard against a hang (only a failure waits for it), or
   how long threads are watched not returning.  */
static void *
watchdog (void *arg)
{
  int ticks = *(int *)arg;
  for (int i = 0; i < ticks && !atomic_load (&freed); ++i)
    usleep (10000);
  free_workers ();
  return NULL;
}

/* Enqueues the busy launch on e's queue (its program has
   BUSY_WORKERS_SOURCE) and waits until all `cus` workers are in it; a
   minute is a guard, not a measure.  */
static void
busy_workers_start (busy_workers *b, cltest_env *e, cl_uint cus)
{
  b->kernel = cltest_kernel (e, "busy");
  b->flag = cltest_buffer (e, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR,
                           sizeof (busy_flag), (void *)busy_flag);
  b->in = cltest_buffer (e, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR,
                         sizeof (busy_in), (void *)busy_in);
  CL_OK (clSetKernelArg (b->kernel, 0, sizeof (b->flag), &b->flag));
  CL_OK (clSetKernelArg (b->kernel, 1, sizeof (b->in), &b->in));
  size_t g = cus, one = 1;
  CL_OK (clEnqueueNDRangeKernel (e->q, b->kernel, 1, NULL, &g, &one, 0, NULL,
                                 NULL));
  CL_OK (clFlush (e->q));
  for (int i = 0; i < 60000 && busy_in[0] < (int)cus; ++i)
    usleep (1000);
  CHECK (busy_in[0] == (int)cus, "only %d of %u workers got busy", busy_in[0],
         cus);
}

/* After free_workers and a clFinish of e's queue.  */
static void
busy_workers_release (busy_workers *b)
{
  CL_OK (clReleaseMemObject (b->flag));
  CL_OK (clReleaseMemObject (b->in));
  CL_OK (clReleaseKernel (b->kernel));
}

#endif /* POCL_STEAL_BUSY_WORKERS_H */
