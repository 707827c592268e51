/* pthread_stats.c - sums and prints the dispatch counters.

   Copyright (c) 2026 pocl-steal developers.  MIT licence, as PoCL.  */

#include "pthread_stats.h"

#include <inttypes.h>

void
pts_add (pts_sched_stats total[WGD_NUM_SCHEDULES],
         const pts_worker_stats *worker)
{
  for (unsigned s = 0; s < WGD_NUM_SCHEDULES; ++s)
    {
      const pts_sched_stats *a = &worker->per_schedule[s];
      pts_sched_stats *t = &total[s];
      t->launches += a->launches;
      t->joins += a->joins;
      t->fruitless_joins += a->fruitless_joins;
      t->host_groups += a->host_groups;
      t->dispatch.claims += a->dispatch.claims;
      t->dispatch.groups += a->dispatch.groups;
      t->dispatch.home_groups += a->dispatch.home_groups;
      t->dispatch.takeovers += a->dispatch.takeovers;
      t->dispatch.steals += a->dispatch.steals;
      t->dispatch.remote += a->dispatch.remote;
      t->dispatch.gave_back += a->dispatch.gave_back;
      t->dispatch.hungry += a->dispatch.hungry;
    }
}

void
pts_mark_host (pts_worker_stats *st)
{
  for (unsigned s = 0; s < WGD_NUM_SCHEDULES; ++s)
    st->per_schedule[s].host_groups = st->per_schedule[s].dispatch.groups;
}

void
pts_print (FILE *out, unsigned num_threads,
           const pts_sched_stats total[WGD_NUM_SCHEDULES])
{
  for (unsigned s = 0; s < WGD_NUM_SCHEDULES; ++s)
    {
      const pts_sched_stats *t = &total[s];
      if (t->launches == 0 && t->joins == 0)
        continue;
      fprintf (out,
               "pocl: pthread stats: schedule=%s launches=%" PRIu64
               " work-groups=%" PRIu64 " home=%" PRIu64 " takeovers=%" PRIu64
               " steals=%" PRIu64 " cross-node=%" PRIu64 " claims=%" PRIu64
               " gave-back=%" PRIu64 " hungry=%" PRIu64 " joins=%" PRIu64
               " fruitless-joins=%" PRIu64 " host=%" PRIu64 " threads=%u\n",
               wgd_schedule_name ((wgd_schedule)s), t->launches,
               t->dispatch.groups, t->dispatch.home_groups,
               t->dispatch.takeovers, t->dispatch.steals, t->dispatch.remote,
               t->dispatch.claims, t->dispatch.gave_back, t->dispatch.hungry,
               t->joins, t->fruitless_joins, t->host_groups, num_threads);
    }
  fflush (out);
}
