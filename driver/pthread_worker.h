/* pthread_worker.h - the worker threads of the pthread device: one set per
   process, serving the device and all its sub-devices.

   Each worker loops: wait for work from the pool's queues (pt_pool_wait),
   run it (a kernel launch through pthread_kernel.h, any other command
   through PoCL's pocl_exec_command), and go back.  This file owns the
   threads themselves: their creation with an 8 MiB stack, their names,
   their pinning with POCL_AFFINITY=1 (pthread_placement.h) or, without
   it, to the CPUs of an affinity domain whose sub-device they serve,
   PoCL's SIGFPE registration, and each one's local memory, printf buffer
   and counters.

   Layering: pthread_device calls this; this calls pthread_kernel and
   pthread_pool.

   Copyright (c) 2026 pocl-steal developers.  MIT licence, as PoCL.  */

#ifndef POCL_STEAL_PTHREAD_WORKER_H
#define POCL_STEAL_PTHREAD_WORKER_H

#include <pthread.h>
#include <stdalign.h>

#include "pocl_cl.h"

#include "pthread_config.h"
#include "pthread_kernel.h"
#include "pthread_placement.h"
#include "pthread_pool.h"
#include "pthread_stats.h"

#ifdef __GNUC__
#pragma GCC visibility push(hidden)
#endif

typedef struct pt_workers pt_workers;

/* One worker.  Written by its own thread only, once started.  */
typedef struct
{
  alignas (WGD_CACHELINE) pthread_t thread;
  pt_workers *set;
  pt_runner runner; /* index, local memory, printf buffer, counters */
  /* Without POCL_AFFINITY: the affinity domains (OpenCL's bits, which
     are pt_domain's) this worker has bound itself to, for sub-devices made
     along them; it runs on the CPUs its place shares all of them with.  */
  unsigned bound_domains;
} pt_worker;

struct pt_workers
{
  pt_pool pool;      /* the queues */
  pt_kernel_env env; /* what launches are made with */
  pts_config config;
  /* The largest launch, in work-groups, of which application threads
     run work-groups (pthread_host.h): POCL_PTHREAD_HOST_GROUPS, or where
     it is unset and the threads are all on one NUMA node, UINT64_MAX
     (pt_workers_start).  0: none.  */
  uint64_t host_groups;
  unsigned num_threads;
  size_t stack_size; /* of each worker */
  pt_worker *workers;
  /* The allowed CPUs with their topology, and the CPU and NUMA node the
     placement of pthread_placement.h gives each worker, with or without
     POCL_AFFINITY: what the workers pin themselves to, what the affinity
     domains of a device's threads are made of (pt_workers_domains) and
     what a domain's threads bind to.  All NULL where the CPUs cannot be
     read.  */
  pt_cpu *machine;
  unsigned machine_cpus;
  int *domain_cpu_of;
  int *node_of;
  /* With POCL_AFFINITY=1 and a placement: domain_cpu_of, the CPU each
     worker pins itself to; else NULL.  */
  int *cpu_of;
  /* The counters of application threads that ran work-groups
     (pthread_host.h), added by pt_workers_add_host_stats: their runners
     are theirs and outlive no call.  */
  pthread_mutex_t host_stats_lock;
  pts_worker_stats host_stats;
  /* The pool's watch thread (P9 of pthread_pool.c), if it started.  */
  pthread_t watch;
  bool watch_started;
};

/* Starts num_threads = dev->max_compute_units workers.  */
cl_int pt_workers_start (pt_workers *s, cl_device_id dev,
                         const pts_config *cfg);

/* The affinity domains known on this machine: a bit mask of
   (1 << pt_domain), 0 where the CPUs cannot be read.  */
unsigned pt_workers_domains_known (const pt_workers *s);

/* The domains of kind d among the workers [first, first + count), as
   runs start[i] (counted from first) and size[i], i < *num (room for count
   entries): false if they cannot be split so (pt_split_by_domain), and
   if they lie within one such domain, which is no split either
   (pt_splitting_domains).  */
bool pt_workers_domains (const pt_workers *s, unsigned first, unsigned count,
                         pt_domain d, cl_uint *start, cl_uint *size,
                         cl_uint *num);

/* Adds the counters of an application thread's runner to the workers'
   (as host work-groups, pts_mark_host) and zeroes them; any thread.  */
void pt_workers_add_host_stats (pt_workers *s, pts_worker_stats *st);

/* Stops and joins the workers, and adds their statistics, and those of
   application threads, to totals (if not NULL) before freeing them.
   Commands still queued are not run.  */
void pt_workers_stop (pt_workers *s,
                      pts_sched_stats totals[WGD_NUM_SCHEDULES]);

/* Adds the running workers' statistics, and those of application
   threads, to totals once every worker is
   idle (pt_pool_when_idle, waiting up to wait_ms), leaving them running;
   false if some were still busy.  */
bool pt_workers_stats_if_idle (pt_workers *s,
                               pts_sched_stats totals[WGD_NUM_SCHEDULES],
                               unsigned wait_ms);

#ifdef __GNUC__
#pragma GCC visibility pop
#endif

#endif /* POCL_STEAL_PTHREAD_WORKER_H */
