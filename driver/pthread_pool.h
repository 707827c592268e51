/* pthread_pool.h - the worker threads of the pthread device: one pool per
   process, shared by the device and all its sub-devices.

   Commands and kernel launches wait in two lists guarded by the pool lock.
   A worker takes a command only if it is one of the threads of the command's
   (sub)device; it joins a launch only if that launch still has unclaimed
   work-groups, read lock-free from the launch's dispatcher, so fully
   claimed launches cost a scan, not a join.  Claiming work-groups inside a
   launch takes no lock at all.  Idle workers sleep on a condition variable
   of their own; a command wakes one, a launch wakes helpers in a tree
   only while it has work-groups to share (pt_pool_wake_helpers).

   Copyright (c) 2026 pocl-steal developers.  MIT licence, as PoCL.  */

#ifndef POCL_STEAL_PTHREAD_POOL_H
#define POCL_STEAL_PTHREAD_POOL_H

#include <pthread.h>
#include <stdalign.h>
#include <stdbool.h>

#include "pocl_cl.h"

#include "pthread_config.h"
#include "pthread_stats.h"

#ifdef __GNUC__
#pragma GCC visibility push(hidden)
#endif

typedef struct pt_launch pt_launch;
typedef struct pt_pool pt_pool;

typedef struct
{
  alignas (WGD_CACHELINE) pthread_t thread;
  pt_pool *pool;
  unsigned index; /* in the pool: 0 .. num_threads - 1 */
  /* Signalled, under the pool lock, by whoever hands this worker work.  */
  pthread_cond_t wake;
  bool sleeping; /* under the pool lock */
  bool spinning; /* watching work_seq before sleeping; under the pool lock */
  /* The launch (by seq) this worker last joined in vain; it does not join
     it again.  Under the pool lock.  */
  uint64_t gave_up_seq;
  /* Per-thread local memory and printf buffer, as in-tree PoCL has.  */
  void *local_mem;
  void *printf_buffer;
  pts_worker_stats stats;
} pt_worker;

struct pt_pool
{
  alignas (WGD_CACHELINE) pthread_mutex_t lock;
  _cl_command_node *commands; /* ready commands, FIFO */
  pt_launch *launches;        /* launches with work-groups to claim */
  uint64_t launch_seq;        /* the last seq handed out */
  bool shutdown;

  /* Bumped by every push; idle workers watch it while they spin.  Alone
     on its line: spinners read it in a loop.  */
  alignas (WGD_CACHELINE) _Atomic uint64_t work_seq;

  alignas (WGD_CACHELINE) unsigned num_threads;
  uint64_t spin_ns;    /* POCL_PTHREAD_SPIN_US, in ns */
  bool oversubscribed; /* more threads than allowed CPUs: spinners yield */
  size_t local_mem_size;
  size_t printf_buffer_size;
  size_t stack_size; /* of each worker */
  pts_config config;
  pt_worker *workers;
  /* With POCL_AFFINITY=1: the CPU each worker pins itself to, and the NUMA
     node of each worker when it is known and there is more than one (else
     NULL: stealing need not care).  */
  int *cpu_of;
  int *node_of;
};

/* Starts num_threads = dev->max_compute_units workers.  */
cl_int pt_pool_start (pt_pool *p, cl_device_id dev, const pts_config *cfg);

/* Stops and joins the workers, and adds their statistics to totals (if not
   NULL) before freeing them.  Commands still queued are not run.  */
void pt_pool_stop (pt_pool *p, pts_sched_stats totals[PTS_NUM_SCHEDULES]);

/* The pool threads [*first, *first + *count) that serve dev.  */
void pt_pool_device_threads (const pt_pool *p, cl_device_id dev,
                             unsigned *first, unsigned *count);

/* Queues a ready command and wakes one of its device's idle workers.  */
void pt_pool_push_command (pt_pool *p, _cl_command_node *cmd);

/* Publishes a launch; the worker that prepared it then joins it.  */
void pt_pool_push_launch (pt_pool *p, pt_launch *l);

/* Wakes up to n (at most PT_WAKE_FAN_OUT) idle workers of l's device that
   have a block of l.  Every worker that joins l and finds work calls it
   while work-groups are left unclaimed, so helpers are woken in a tree,
   each wake-up off the critical path of the worker before, and the
   waking stops by itself when a launch is too small to share: a
   one-work-group launch wakes nobody.  */
#define PT_WAKE_FAN_OUT 2
void pt_pool_wake_helpers (pt_pool *p, pt_launch *l, unsigned n);

/* Removes a launch whose work-groups are all claimed from the list.  */
void pt_pool_unlink_launch (pt_pool *p, pt_launch *l);

#ifdef __GNUC__
#pragma GCC visibility pop
#endif

#endif /* POCL_STEAL_PTHREAD_POOL_H */
