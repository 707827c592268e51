/* pthread_stats.h - counters of the work-group dispatch, printed when the
   device is released if POCL_PTHREAD_STATS=1.  Each worker owns one
   pts_worker_stats and is the only one writing it; they are summed after
   the workers have been joined.  Independent of PoCL.

   Output (stderr): one line per schedule that had launches or joins, no
   header line, every field KEY=VALUE, separated by one blank, in this
   order (parsers should look fields up by key, not by position):

     pocl: pthread stats: schedule=static launches=1 work-groups=1024
       home=1020 takeovers=0 steals=2 cross-node=0 joins=3
       fruitless-joins=0 host=0 threads=4

   (one line, wrapped here).  schedule: the schedule's name; launches:
   kernel launches; work-groups: work-groups run; home: those run by their
   home thread (the thread whose static block holds them); takeovers: whole
   blocks taken from threads that had not started; steals: back halves
   stolen from started blocks; cross-node: takeovers and steals across NUMA
   nodes; joins: times a thread joined a launch; fruitless-joins: joins
   that found no work-group left; host: work-groups run by application
   threads waiting for them (pthread_host.h), counted in work-groups and in
   takeovers and steals too; threads: threads of the pool.

   Copyright (c) 2026 pocl-steal developers.  MIT licence, as PoCL.  */

#ifndef POCL_STEAL_PTHREAD_STATS_H
#define POCL_STEAL_PTHREAD_STATS_H

#include <stdint.h>
#include <stdio.h>

#include "wg_dispatch.h"

typedef struct
{
  uint64_t launches;        /* kernel launches prepared by this thread */
  uint64_t joins;           /* times this thread joined a launch */
  uint64_t fruitless_joins; /* ... and found no work-group left */
  uint64_t host_groups;     /* work-groups run by application threads */
  wgd_thread_stats dispatch;
} pts_sched_stats;

typedef struct
{
  alignas (WGD_CACHELINE) pts_sched_stats per_schedule[WGD_NUM_SCHEDULES];
} pts_worker_stats;

/* Adds one worker's counters to total (one entry per schedule).  */
void pts_add (pts_sched_stats total[WGD_NUM_SCHEDULES],
              const pts_worker_stats *worker);

/* Marks the work-groups an application thread ran (counted in its
   dispatch.groups) as host_groups too, before they are added.  */
void pts_mark_host (pts_worker_stats *st);

/* Prints the summed counters, one KEY=VALUE line per schedule that had
   launches or joins (format above).  */
void pts_print (FILE *out, unsigned num_threads,
                const pts_sched_stats total[WGD_NUM_SCHEDULES]);

#endif /* POCL_STEAL_PTHREAD_STATS_H */
