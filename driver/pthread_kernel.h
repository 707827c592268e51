/* pthread_kernel.h - NDRange kernel launches on the pthread device.

   Copyright (c) 2026 pocl-steal developers.  MIT licence, as PoCL.  */

#ifndef POCL_STEAL_PTHREAD_KERNEL_H
#define POCL_STEAL_PTHREAD_KERNEL_H

#include <stdatomic.h>

#include "common_utils.h"

#include "pthread_pool.h"
#include "wg_dispatch.h"

#ifdef __GNUC__
#pragma GCC visibility push(hidden)
#endif

struct pt_launch
{
  /* PoCL's per-launch record: the kernel, its arguments as set up once for
     all threads, the context (pocl_context) and the work-group function.
     Only the fields PoCL's argument helpers use are filled in.  */
  kernel_run_command krc;

  pt_launch *prev, *next; /* in pt_pool.launches, under the pool lock */

  /* One reference for being in the pool's list, one per worker inside the
     launch; the last one frees it.  */
  _Atomic unsigned refs;
  /* Non-zero if a work-group reported failure (PoCL's execution_failed). */
  _Atomic unsigned execution_failed;

  uint64_t seq; /* numbers launches in push order; under the pool lock */
  unsigned first_thread; /* the (sub)device's threads in the pool */
  unsigned num_threads;
  wgd_launch *dispatch; /* in the same allocation, after this struct */
};

/* Runs the NDRange command cmd, taken from the queue by worker w: builds or
   finds the kernel's binary, then publishes a launch and joins it.  Commands
   with no work-groups, built-in kernels and failures complete at once.  */
void pt_kernel_run_command (pt_pool *p, pt_worker *w, _cl_command_node *cmd);

/* Worker w, holding a reference to l, runs work-groups of l until none are
   left to claim, then drops its reference.  The worker that finishes the
   last work-group completes the command's event.  Returns false if w
   found nothing to claim (a fruitless join).  */
bool pt_launch_participate (pt_pool *p, pt_worker *w, pt_launch *l);

#ifdef __GNUC__
#pragma GCC visibility pop
#endif

#endif /* POCL_STEAL_PTHREAD_KERNEL_H */
