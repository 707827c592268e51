/* pthread_share.h - when an application thread that runs a small launch
   itself (pthread_host.h) shares it with the workers, and how it ends
   one it shared.

   Sharing a launch costs a wake-up: publishing it and kicking or waking
   a worker, which then has to notice, join and claim.  On the machines we
   measured that is 1-3 us, as long as a whole launch of 64 trivial
   work-groups takes on one thread.  So the thread keeps a launch to itself
   while the rest of it looks cheaper than that, and shares it as soon as
   the rest looks dearer:

   S1  While the launch is unpublished, the thread that prepared it runs
       work-groups alone and looks at the clock after 1, 2, 4, 8, ...
       work-groups.  At each look it publishes the launch (and wakes
       helpers) if  part_ns * rest > threshold * part,  i.e. if the
       work-groups not yet run, at the cost of the `part` work-groups run
       since the previous look (part_ns), would take longer than the
       threshold.  The latest part, not the average since the start: a
       launch whose work-groups get dearer (a triangular loop) is shared
       as soon as they do.  One exception: a part shorter than
       PT_SHARE_MIN_PART_NS, unless it took longer than the threshold,
       decides nothing and runs on into the next part (measured from the
       same start).  A look costs tens of nanoseconds (a clock read is
       26 ns on a kvm-clock VM), as much as a few trivial work-groups, and
       judged from parts of one and two of them, a launch of 1024 trivial
       work-groups, 4.5 us alone, looked like tens of microseconds and was
       shared at nearly every launch, which then took twice as long.
       A threshold of 0 publishes
       at once, before any work-group runs (pt_share_at_once).  The
       threshold is POCL_PTHREAD_HOST_SHARE_US (pthread_config.h says
       why its default is what it is).

   S2  When the thread ran the same kernel before (under static), the cost
       per work-group its claims measured then (wgd_group_cost) decides
       before any work-group runs: the launch is published at once if that
       cost times its work-groups exceeds twice the threshold; else S1
       applies as if nothing were known (between once and twice the
       threshold S1's looks decide, as a carried cost is rougher than
       theirs).  S1's first deciding look comes a microsecond
       (PT_SHARE_MIN_PART_NS) or more into the launch, and the workers join
       a few microseconds after the publish, so a launch that S1 would
       share anyway shares earlier: launches of 4096 trivial work-groups at
       2 threads, alone for 1.2 us before their look, took 0.89 [0.88-0.91]
       of their time.  A stale cost only moves the publish: one from dearer
       work-groups shares a launch that S1 would have kept (one wake-up
       more), one from cheaper ones leaves the launch to S1's looks.
   S3  The thread that waits for a launch and ran a share of it, once it
       finds nothing left to claim, waits for the others' last
       work-groups (wgd_all_but_finished), up to PT_FINISH_WAIT_NS and
       within B2, B7 and B8 of pthread_spin.h, so that its own
       wgd_finish is the one that completes the launch.  The thread that
       completes a launch writes the lines the application's next call
       reads (the event, the command queue, the pool's lock and list),
       and when that was a worker, every step of the next clEnqueue and
       of the completion after it cost 3 to 10 times as much as on lines
       the thread held: 2.3-3.8 us from a completion to the next
       launch's start against 0.9 us.  The thread would wait for the
       completion anyway (spinning, B3), so the wait costs it no time;
       nobody waits for the waiter, as it holds no range.  Only guest 0
       (the thread that prepared the launch, or the first to join it)
       waits, so that two application threads never wait for each other.
       With 2 threads, launches of 4096 trivial work-groups took 0.89
       [0.84-0.94] of their time.  The wait looks between pauses
       (pt_hunger_wait): it ends 0.14 us after the last worker's report
       where a look every 16 pauses ended it 0.44 us after (medians of
       900 launches of 1024 work-groups, 2 threads).
   What S1 gives:
   - A launch that is trivial on the whole never wakes anybody: the
     thread that waits for it runs it, and nobody else is disturbed.
   - For work-groups of equal cost c, helpers start at most twice the
     threshold, or twice PT_SHARE_MIN_PART_NS, and two work-groups late
     (max (2 T, 2 M) + 2 c), and a launch never shared took at most that
     in all: the looks double, so the part run since the last look that
     decided is no longer than what ran before it, and that look found
     the rest (which holds the part) worth at most the threshold; before
     the first look that decides, all that ran took less than M.
     Work-groups dearer than those before them can add the cost of one
     part (at most as many work-groups as had run); no rule that decides
     between work-groups without knowing their costs does better.
     tests/dispatch/test_share.c checks these bounds.
   - Only a launch nobody else can see is deferred: once published, a
     launch is shared as before.

   Independent of PoCL and of the clock: the caller passes the time, so
   the rule is unit-tested with scripted times (tests/dispatch/
   test_share.c).

   Copyright (c) 2026 pocl-steal developers.  MIT licence, as PoCL.  */

#ifndef POCL_STEAL_PTHREAD_SHARE_H
#define POCL_STEAL_PTHREAD_SHARE_H

#include <stdbool.h>
#include <stdint.h>

/* The shortest part a look of S1 decides on: well above a look's own
   cost (a clock read and the loop, tens of nanoseconds), well below the
   threshold's default.  */
#define PT_SHARE_MIN_PART_NS 1000u

/* One launch's state under S1, kept by the thread that prepared it.  */
typedef struct
{
  uint64_t threshold_ns;
  /* The start of the part a look measures: the previous look that
     decided, or the start; and the work-groups run then (0: the
     start).  */
  uint64_t last_ns;
  uint64_t last_done;
  uint64_t next_look; /* work-groups run when it looks next */
} pt_share;

/* Whether a launch is published before any work-group runs.  */
static inline bool
pt_share_at_once (uint64_t threshold_ns)
{
  return threshold_ns == 0;
}

/* S2: whether a launch of num_groups work-groups, each known to cost
   group_cost nanoseconds times 2^cost_shift (0: unknown), is published
   before any of them runs: when they take longer than twice
   threshold_ns in all.  */
bool pt_share_known_cost (uint64_t threshold_ns, uint64_t group_cost,
                          unsigned cost_shift, uint64_t num_groups);

/* Starts S1 for a launch whose thread begins running work-groups at
   now_ns.  */
void pt_share_start (pt_share *s, uint64_t threshold_ns, uint64_t now_ns);

/* How many of `available` claimed work-groups the thread, having run
   `done` of the launch so far, may run before it must look
   (pt_share_look): at least 1 when available > 0.  */
uint64_t pt_share_allowance (const pt_share *s, uint64_t done,
                             uint64_t available);

/* Whether the thread must look now, having run `done` work-groups.  */
bool pt_share_look_due (const pt_share *s, uint64_t done);

/* The look of S1, after `done` of num_groups work-groups ran, at now_ns:
   true if the launch is to be published now.  Otherwise starts the next
   part, up to the next look at twice `done`.  */
bool pt_share_look (pt_share *s, uint64_t done, uint64_t num_groups,
                    uint64_t now_ns);

#endif /* POCL_STEAL_PTHREAD_SHARE_H */
