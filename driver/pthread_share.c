/* pthread_share.c - rule S1 (pthread_share.h): when an application thread
   shares the launch it runs.

   Copyright (c) 2026 pocl-steal developers.  MIT licence, as PoCL.  */

#include "pthread_share.h"

void
pt_share_start (pt_share *s, uint64_t threshold_ns, uint64_t now_ns)
{
  s->threshold_ns = threshold_ns;
  s->last_ns = now_ns;
  s->last_done = 0;
  s->next_look = 1; /* the first look comes after one work-group */
}

uint64_t
pt_share_allowance (const pt_share *s, uint64_t done, uint64_t available)
{
  uint64_t until_look = s->next_look > done ? s->next_look - done : 1;
  return available < until_look ? available : until_look;
}

bool
pt_share_known_cost (uint64_t threshold_ns, uint64_t group_cost,
                     unsigned cost_shift, uint64_t num_groups)
{
  if (group_cost == 0 || num_groups < 2)
    return false;
  /* In double, as in pt_share_look: the product may exceed 64 bits.
     Twice the threshold: a cost carried over is one claim's measure,
     taken in a launch that may have been shared (the tail of a shared
     launch is dearer per work-group), so a launch near the threshold is
     left to S1's looks (2 threads, 1024 trivial work-groups, about 4 us:
     shared on the carried cost alone it took 1.14 [1.07-1.25] times as
     long).  */
  return (double)group_cost * (double)num_groups
         > 2.0 * (double)threshold_ns * (double)(UINT64_C (1) << cost_shift);
}

bool
pt_share_look_due (const pt_share *s, uint64_t done)
{
  return done >= s->next_look;
}

bool
pt_share_look (pt_share *s, uint64_t done, uint64_t num_groups,
               uint64_t now_ns)
{
  if (done >= num_groups)
    return false; /* nothing left to share */
  uint64_t part = done > s->last_done ? done - s->last_done : 1;
  uint64_t part_ns = now_ns > s->last_ns ? now_ns - s->last_ns : 0;
  uint64_t rest = num_groups - done;
  /* S1's exception: a part shorter than the clock can tell apart from
     the looks' own cost decides nothing, unless it took longer than the
     threshold by itself.  */
  bool decides = part_ns > s->threshold_ns || part_ns >= PT_SHARE_MIN_PART_NS;
  if (decides)
    {
      /* In double: part_ns * rest may exceed 64 bits after a long
         preemption, and the comparison needs no exactness.  */
      if ((double)part_ns * (double)rest
          > (double)s->threshold_ns * (double)part)
        return true;
      /* Between this look and the next the thread runs `done` more
         work-groups: at this part's cost, within the rest's, which this
         look found to be at most the threshold.  */
    }
  /* A part too short to decide runs on into the next one, which is
     measured from the same start.  */
  if (decides)
    {
      s->last_ns = now_ns;
      s->last_done = done;
    }
  s->next_look = done > 0 ? 2 * done : 1;
  return false;
}
