/* pthread_stats.c - sums and prints the dispatch counters.

   Copyright (c) 2026 pocl-steal developers.  MIT licence, as PoCL.  */

#include "pthread_stats.h"

#include <inttypes.h>

void
pts_add (pts_sched_stats total[PTS_NUM_SCHEDULES],
         const pts_worker_stats *worker)
{
  for (unsigned s = 0; s < PTS_NUM_SCHEDULES; ++s)
    {
      const pts_sched_stats *a = &worker->per_schedule[s];
      pts_sched_stats *t = &total[s];
      t->launches += a->launches;
      t->joins += a->joins;
      t->fruitless_joins += a->fruitless_joins;
      t->dispatch.claims += a->dispatch.claims;
      t->dispatch.groups += a->dispatch.groups;
      t->dispatch.home_groups += a->dispatch.home_groups;
      t->dispatch.takeovers += a->dispatch.takeovers;
      t->dispatch.steals += a->dispatch.steals;
      t->dispatch.remote += a->dispatch.remote;
    }
}

void
pts_print (FILE *out, unsigned num_threads,
           const pts_sched_stats total[PTS_NUM_SCHEDULES])
{
  fprintf (out,
           "pocl: pthread stats, %u threads: schedule launches work-groups "
           "home-thread takeovers half-steals cross-node joins "
           "fruitless-joins\n",
           num_threads);
  for (unsigned s = 0; s < PTS_NUM_SCHEDULES; ++s)
    {
      const pts_sched_stats *t = &total[s];
      if (t->launches == 0 && t->joins == 0)
        continue;
      fprintf (
          out,
          "pocl: pthread stats: %s %" PRIu64 " %" PRIu64 " %" PRIu64
          " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n",
          wgd_schedule_name ((wgd_schedule)s), t->launches, t->dispatch.groups,
          t->dispatch.home_groups, t->dispatch.takeovers, t->dispatch.steals,
          t->dispatch.remote, t->joins, t->fruitless_joins);
    }
  fflush (out);
}
