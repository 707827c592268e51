/* pthread_stats.h - counters of the work-group dispatch, printed when the
   device is released if POCL_PTHREAD_STATS=1.  Each worker owns one
   pts_worker_stats and is the only one writing it; they are summed after
   the workers have been joined.  Independent of PoCL.

   Copyright (c) 2026 pocl-steal developers.  MIT licence, as PoCL.  */

#ifndef POCL_STEAL_PTHREAD_STATS_H
#define POCL_STEAL_PTHREAD_STATS_H

#include <stdint.h>
#include <stdio.h>

#include "wg_dispatch.h"

#define PTS_NUM_SCHEDULES 2

typedef struct
{
  uint64_t launches;        /* kernel launches prepared by this thread */
  uint64_t joins;           /* times this thread joined a launch */
  uint64_t fruitless_joins; /* ... and found no work-group left */
  wgd_thread_stats dispatch;
} pts_sched_stats;

typedef struct
{
  alignas (WGD_CACHELINE) pts_sched_stats per_schedule[PTS_NUM_SCHEDULES];
} pts_worker_stats;

/* Adds one worker's counters to total (one entry per schedule).  */
void pts_add (pts_sched_stats total[PTS_NUM_SCHEDULES],
              const pts_worker_stats *worker);

/* Prints the summed counters, one line per schedule that had launches.  */
void pts_print (FILE *out, unsigned num_threads,
                const pts_sched_stats total[PTS_NUM_SCHEDULES]);

#endif /* POCL_STEAL_PTHREAD_STATS_H */
