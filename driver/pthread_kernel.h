/* pthread_kernel.h - NDRange kernel launches on the pthread device: from
   the command to a published launch, and each worker's part in it.

   A launch is prepared by the worker that took its command from the pool
   (pt_kernel_run_command), published in the pool's list and joined by the
   device's other workers as the pool hands it to them
   (pt_launch_participate).  Work-groups are claimed from the dispatcher
   (wg_dispatch.h); the worker that finishes the last one completes the
   command's event.

   Layering: this file calls the pool's queues (pthread_pool.h) and the
   dispatcher; the worker threads (pthread_worker.h) call it.

   Copyright (c) 2026 pocl-steal developers.  MIT licence, as PoCL.  */

#ifndef POCL_STEAL_PTHREAD_KERNEL_H
#define POCL_STEAL_PTHREAD_KERNEL_H

#include <stdbool.h>
#include <stddef.h>

#include "pocl_cl.h"
#include "pocl_workgroup_func.h"

#include "pthread_pool.h"
#include "pthread_stats.h"
#include "wg_dispatch.h"

#ifdef __GNUC__
#pragma GCC visibility push(hidden)
#endif

/* What every launch of the device is made with: set when the workers
   start, read-only afterwards.  */
typedef struct
{
  pt_pool *pool;
  wgd_schedule schedule; /* POCL_PTHREAD_SCHEDULE */
  bool steal;            /* POCL_PTHREAD_STEAL */
  /* POCL_PTHREAD_HOST_SHARE_US, in ns: rule S1 (pthread_share.h) for the
     launches application threads run.  */
  uint64_t host_share_ns;
  /* The NUMA node of each pool thread, or NULL: one node.  */
  const int *node_of;
  size_t local_mem_size;     /* of each runner's local_mem */
  size_t printf_buffer_size; /* of each runner's printf_buffer */
} pt_kernel_env;

/* What one worker runs work-groups with; owned by that worker.  */
typedef struct
{
  unsigned index; /* in the pool */
  /* Per-thread local memory and printf buffer, as in-tree PoCL has.  */
  void *local_mem;
  void *printf_buffer;
  pts_worker_stats stats; /* written by this worker only */
  /* What one work-group of the kernel whose work-group function is
     `cost_of` cost this runner in its last launch of it under static
     (wgd_group_cost): its next launch of that kernel starts its claims
     from it, not from one work-group.  The key is only compared.  */
  pocl_workgroup_func cost_of;
  uint64_t group_cost;
} pt_runner;

/* The affinity domains (OpenCL's NUMA to L1 bits) along which dev, or a
   device it was made from, was partitioned by
   CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN; 0 for a root device and for
   sub-devices made only equally or by counts.  Each of its threads lies
   in one domain of every such kind, since its range was cut along them.
   Launches carry it to their participants (pt_pool_launch.domains).  */
unsigned pt_device_domains (cl_device_id dev);

/* Application threads that may run work-groups of one launch at once, as
   guests of its dispatcher (wg_dispatch.h).  */
#define PT_KERNEL_GUESTS 2

/* The budget of a static claim (wgd_launch_set_clock): a thread's claims
   of its own work-groups double while a range takes less than half of it
   and shrink when one takes more.  Long enough that a claim and a read of
   the clock (some 40 ns) cost well under 1% of a range, short enough that
   what a thread holds privately when it is descheduled is small.  */
#define PT_CLAIM_BUDGET_NS 20000u

/* How long a participant whose claim says to wait (wgd_range.wait: others
   hold ranges and were asked for their rest) claims again before leaving
   the launch; it leaves at once when the clock shows it lost its CPU
   (B2 of pthread_spin.h), or when the busy workers outnumber the CPUs
   (B7).  A holder gives back before its next
   work-group, so this covers work-groups up to this long; the launch's
   bound (D1 of wg_dispatch.c) assumes waiters stay.  */
#define PT_HUNGER_WAIT_NS 50000u

/* How long the application thread that ran a share of a launch waits
   for the other participants' last work-groups so that it completes the
   launch itself (S3 of pthread_share.h), at most: a budget, what a
   range claimed under static takes at most once its size is learnt, so
   what the others still run when nothing is left to claim (a takeover's
   first range, or a range that met dearer work-groups, may run longer:
   then the others complete the launch, as they would without S3).  */
#define PT_FINISH_WAIT_NS PT_CLAIM_BUDGET_NS

/* Runs the NDRange command cmd, taken from the pool by runner r: builds or
   finds the kernel's binary, then publishes a launch and joins it.
   Commands with no work-groups, built-in kernels and failures complete at
   once.  */
void pt_kernel_run_command (const pt_kernel_env *env, pt_runner *r,
                            _cl_command_node *cmd);

/* Runner r, holding a reference to launch l (from pt_pool_wait), runs
   work-groups of l until none are left to claim, then drops its
   reference.  The runner that finishes the last work-group completes the
   command's event.  Returns false if r found nothing to claim (a
   fruitless join).  */
bool pt_launch_participate (const pt_kernel_env *env, pt_runner *r,
                            pt_pool_launch *l);

/* An application thread waiting for cmd (pthread_host.h), with runner r,
   runs it as guest 0 of its launch: claims first, before the launch is
   published, so that a launch its first claim empties is never published
   and wakes nobody.  Then it runs work-groups alone while the rest looks
   cheaper than a wake-up (rule S1, pthread_share.h), publishes the launch
   and wakes workers as a joiner would once it does not, and runs
   work-groups until none are left to claim.  graced: the worker (pool
   index) taken for cmd with a grace (P6 of pthread_pool.c), which joins
   the launch once it is published, or UINT_MAX.  Its block is
   left to it: the thread takes over the block below it first
   (wgd_launch_set_guest_first), the highest one when none is known, so
   that from one launch to the next the same blocks go to the same
   threads.  */
void pt_kernel_host_run (const pt_kernel_env *env, pt_runner *r,
                         _cl_command_node *cmd, unsigned graced);

/* An application thread holding a reference to published launch l
   (pt_pool_join_launch_if) joins it as a free guest and runs work-groups
   until none are left; false if no guest was free or it found nothing.
   Drops the reference either way.  */
bool pt_launch_host_join (const pt_kernel_env *env, pt_runner *r,
                          pt_pool_launch *l);

#ifdef __GNUC__
#pragma GCC visibility pop
#endif

#endif /* POCL_STEAL_PTHREAD_KERNEL_H */
