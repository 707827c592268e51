/* test_share.c - rule S1 (driver/pthread_share.h): when an application
   thread shares a launch it runs alone, with scripted work-group costs and
   a scripted clock.

   sim() drives pt_share as pthread_kernel.c's participate() does: ranges
   of `claim` work-groups are claimed, each run in parts of at most
   pt_share_allowance, with a look after each part when one is due.

   Checked: a launch is shared only when its rest is worth a wake-up
   (costs more than the threshold); for equal costs c, never more than
   max (2 T, 2 PT_SHARE_MIN_PART_NS) + 2 c late, and a launch kept alone
   cost at most that; the default's figures on the bench's kernel (64 and
   1024 trivial work-groups are never shared, though each look costs as
   much as a work-group); rising costs, a slow first work-group (cold
   caches: under a microsecond it decides nothing), a range of half the
   launch; a clock going backwards or far ahead.  Rule S2: a cost known
   from the previous launch shares at once exactly when the launch would
   take longer than twice the threshold at that cost; unknown costs and single
   work-groups are left to S1.

   Copyright (c) 2026 pocl-steal developers.  MIT licence, as PoCL.  */

#include <stdint.h>
#include <stdio.h>

#include "../check.h"
#include "pthread_share.h"

#define MAXG 4096

typedef struct
{
  uint64_t published_after; /* work-groups run alone; n if never */
  uint64_t alone_ns;        /* time spent alone before publishing */
  unsigned looks;
  bool published;
  bool bad_allowance; /* an allowance of 0, or above what was available */
} outcome;

/* Runs n work-groups of cost[i] ns (all `each` if cost is NULL) from time
   `start`, claimed `claim` at a time, under threshold_ns.  */
static outcome
sim (uint64_t n, const uint64_t *cost, uint64_t each, uint64_t claim,
     uint64_t threshold_ns, uint64_t start)
{
  outcome o = { n, 0, 0, false, false };
  pt_share s;
  uint64_t now = start, done = 0, next = 0;
  pt_share_start (&s, threshold_ns, now);
  while (next < n)
    {
      uint64_t begin = next, end = next + claim < n ? next + claim : n;
      next = end;
      bool claimed_last = next == n;
      while (begin < end)
        {
          uint64_t part = pt_share_allowance (&s, done, end - begin);
          if (part == 0 || part > end - begin)
            {
              o.bad_allowance = true;
              return o;
            }
          for (uint64_t i = begin; i < begin + part; ++i)
            now += cost ? cost[i] : each;
          begin += part;
          done += part;
          if (!claimed_last && pt_share_look_due (&s, done))
            {
              o.looks++;
              if (pt_share_look (&s, done, n, now))
                {
                  o.published = true;
                  o.published_after = done;
                  o.alone_ns = now - start;
                  return o;
                }
            }
        }
    }
  o.alone_ns = now - start;
  return o;
}

static unsigned
log2_ceil (uint64_t n)
{
  unsigned l = 0;
  while ((1ull << l) < n)
    ++l;
  return l;
}

/* S1's bound for equal costs c under threshold T (pthread_share.h).  */
static uint64_t
late_bound (uint64_t T, uint64_t c)
{
  uint64_t m = PT_SHARE_MIN_PART_NS;
  return 2 * (T > m ? T : m) + 2 * c;
}

/* Equal costs: what pthread_share.h promises, for many sizes, costs,
   claims and thresholds.  */
static void
check_equal_costs (void)
{
  static const uint64_t sizes[] = { 2, 3, 4, 7, 16, 33, 64, 100, 1024, 4096 };
  static const uint64_t costs[] = { 1, 10, 37, 45, 50, 100, 1000, 100000 };
  static const uint64_t claims[] = { 1, 5, 32, 4096 };
  static const uint64_t thresholds[] = { 1, 1000, 3000, 50000 };
  unsigned runs = 0;
  for (size_t a = 0; a < sizeof (sizes) / sizeof (sizes[0]); ++a)
    for (size_t b = 0; b < sizeof (costs) / sizeof (costs[0]); ++b)
      for (size_t c = 0; c < sizeof (claims) / sizeof (claims[0]); ++c)
        for (size_t t = 0; t < sizeof (thresholds) / sizeof (thresholds[0]);
             ++t)
          {
            uint64_t n = sizes[a], cost = costs[b], T = thresholds[t];
            outcome o = sim (n, NULL, cost, claims[c], T, 1000);
            ++runs;
            CHECK (!o.bad_allowance, "n %lu cost %lu claim %lu: allowance",
                   (unsigned long)n, (unsigned long)cost,
                   (unsigned long)claims[c]);
            /* A look per doubling at most.  */
            CHECK (o.looks <= log2_ceil (n) + 1, "n %lu cost %lu: %u looks",
                   (unsigned long)n, (unsigned long)cost, o.looks);
            if (o.published)
              {
                uint64_t rest = n - o.published_after;
                /* Worth it: the rest costs more than the threshold.  */
                CHECK (rest * cost > T,
                       "n %lu cost %lu T %lu: published after %lu with a "
                       "rest of only %lu ns",
                       (unsigned long)n, (unsigned long)cost, (unsigned long)T,
                       (unsigned long)o.published_after,
                       (unsigned long)(rest * cost));
                /* Not late: helpers wait at most max (2 T, 2 M) and two
                   work-groups.  */
                CHECK (o.alone_ns <= late_bound (T, cost),
                       "n %lu cost %lu T %lu: published after %lu ns alone",
                       (unsigned long)n, (unsigned long)cost, (unsigned long)T,
                       (unsigned long)o.alone_ns);
                /* The first look shares a launch whose first work-group
                   took longer than the threshold, and whose rest is
                   dearer than it.  */
                if (cost > T && (n - 1) * cost > T)
                  CHECK (o.published_after == 1,
                         "n %lu cost %lu T %lu: published after %lu, not 1",
                         (unsigned long)n, (unsigned long)cost,
                         (unsigned long)T, (unsigned long)o.published_after);
              }
            else if (claims[c] < n)
              /* Kept alone: the whole launch costs at most as much.  A
                 first claim of the whole launch leaves nothing to share:
                 the driver does not run S1 then.  */
              CHECK (n * cost <= late_bound (T, cost),
                     "n %lu cost %lu T %lu: never published, %lu ns alone",
                     (unsigned long)n, (unsigned long)cost, (unsigned long)T,
                     (unsigned long)(n * cost));
          }
  printf ("equal costs: %u runs\n", runs);
}

/* The figures of pthread_config.h's default on the bench's kernel.  */
static void
check_examples (void)
{
  /* 64 trivial work-groups (37 ns each, cl_launch on the 2-CPU VM): 2.4 us
     in all, below 3 us: never shared.  */
  outcome o = sim (64, NULL, 37, 1, 3000, 0);
  CHECK (!o.published && o.alone_ns == 64 * 37,
         "64 x 37 ns: published %d after %lu", o.published,
         (unsigned long)o.published_after);
  /* 1024 trivial work-groups of 4.4 ns, each look costing 30 ns more
     (a clock read on a kvm-clock VM): 4.5 us in all, under the default's
     5 us, never shared.  Deciding on the parts of 1 and 2 work-groups,
     whose looks cost 7 and 4 times a work-group, shared it at the look
     after 2 (the figures were measured: 4.5 us alone, 9.8 shared).  */
  uint64_t cost[MAXG];
  for (int i = 0; i < 1024; ++i)
    cost[i] = ((i + 1) & i) == 0 ? 34 : 4; /* a look after 1, 2, 4, ... */
  o = sim (1024, cost, 0, 1, 5000, 0);
  CHECK (!o.published, "1024 trivial work-groups: published after %lu",
         (unsigned long)o.published_after);
  /* 64 work-groups of 100 ns: 6.3 us left after the first; the parts
     reach 1 us at the look after 16 (15 work-groups since the first),
     which finds 4.8 us left: shared then.  */
  o = sim (64, NULL, 100, 1, 3000, 0);
  CHECK (o.published && o.published_after == 16,
         "64 x 100 ns: published %d after %lu", o.published,
         (unsigned long)o.published_after);
  /* A first work-group that is slow (cold caches), then fast ones:
     under 1 us, not shared; one of 5 us, dearer than the threshold
     itself, is shared at once.  */
  cost[0] = 800;
  for (int i = 1; i < 64; ++i)
    cost[i] = 10;
  o = sim (64, cost, 0, 1, 3000, 0);
  CHECK (!o.published, "slow first work-group: published after %lu",
         (unsigned long)o.published_after);
  cost[0] = 5000;
  o = sim (64, cost, 0, 1, 3000, 0);
  CHECK (o.published && o.published_after == 1,
         "first work-group dearer than the threshold: published %d after "
         "%lu",
         o.published, (unsigned long)o.published_after);
  /* Cheap work-groups, then dear ones from the 10th on: shared at the
     first look after the dear ones start.  */
  for (int i = 0; i < 64; ++i)
    cost[i] = i < 10 ? 10 : 2000;
  o = sim (64, cost, 0, 1, 3000, 0);
  CHECK (o.published && o.published_after == 16,
         "dear from the 10th: published %d after %lu", o.published,
         (unsigned long)o.published_after);
  /* Work-groups that get dearer, 10 ns more each (a triangular loop):
     the first part that decides is 0..15 (1.2 us), 75 ns a work-group,
     3.6 us for the 48 left: kept; the next, 16..31, costs 3.8 us, 235 a
     work-group, 7.5 us for the 32 left: shared at the look after 32.
     The average since the start (75 ns at 16, 155 at 32: 5 us) would
     have kept all 20 us of it alone.  */
  for (int i = 0; i < 64; ++i)
    cost[i] = 10u * (uint64_t)i;
  o = sim (64, cost, 0, 1, 5000, 0);
  CHECK (o.published && o.published_after == 32,
         "triangular: published %d after %lu", o.published,
         (unsigned long)o.published_after);
  /* Ranges of half the launch (guided's first chunk at 2 threads): still
     run in parts, looked at after 1, 2, 4, ...: as without them.  */
  o = sim (64, NULL, 100, 32, 3000, 0);
  CHECK (o.published && o.published_after == 16,
         "one range: published %d after %lu", o.published,
         (unsigned long)o.published_after);
  /* Nothing left to share after the last work-group.  */
  pt_share s;
  pt_share_start (&s, 3000, 0);
  CHECK (!pt_share_look (&s, 8, 8, 1000000),
         "a look with nothing left published");
}

/* The clock: backwards, or far ahead (a long preemption).  */
static void
check_clock (void)
{
  pt_share s;
  pt_share_start (&s, 3000, 1000000);
  CHECK (!pt_share_look (&s, 1, 64, 5), "a clock gone backwards published");
  CHECK (s.next_look == 2, "after the first look: next at %lu, not 2",
         (unsigned long)s.next_look);
  CHECK (!pt_share_look_due (&s, 1) && pt_share_look_due (&s, 2),
         "look_due around 2");
  CHECK (pt_share_allowance (&s, 1, 100) == 1
             && pt_share_allowance (&s, 2, 100) == 1
             && pt_share_allowance (&s, 0, 1) == 1,
         "allowance around a look");
  pt_share_start (&s, 3000, 0);
  CHECK (pt_share_look (&s, 1, 1u << 20, UINT64_MAX),
         "an hour-long work-group did not publish");
  pt_share_start (&s, UINT64_MAX, 0);
  CHECK (!pt_share_look (&s, 1, 2, UINT64_MAX / 2),
         "an endless threshold published");
}

/* S2: a cost carried from the previous launch decides before anything
   runs.  Costs are in ns times 2^8, as wgd_group_cost gives them.  */
static void
check_known_cost (void)
{
  const unsigned shift = 8;
  /* 4096 work-groups of 3.5 ns: 14 us, over twice the default 5 us.  */
  CHECK (pt_share_known_cost (5000, 896, shift, 4096),
         "4096 groups of 3.5 ns were not shared at once");
  /* 1024 of them, 3.6 us, and 64: under 5 us, left to S1; and 2048,
     7.2 us, between once and twice the threshold: to S1 too.  */
  CHECK (!pt_share_known_cost (5000, 896, shift, 1024),
         "1024 groups of 3.5 ns were shared at once");
  CHECK (!pt_share_known_cost (5000, 896, shift, 64),
         "64 groups of 3.5 ns were shared at once");
  CHECK (!pt_share_known_cost (5000, 896, shift, 2048),
         "2048 groups of 3.5 ns were shared at once");
  /* The boundary: exactly twice the threshold is not more than it.  */
  CHECK (!pt_share_known_cost (5000, 5000u << shift, shift, 2)
             && !pt_share_known_cost (5000, 2500u << shift, shift, 4)
             && pt_share_known_cost (5000, (2500u << shift) + 1, shift, 4),
         "the boundary at twice the threshold");
  /* Unknown cost, or a single work-group (nothing to share): S1.  */
  CHECK (!pt_share_known_cost (5000, 0, shift, 1u << 30),
         "an unknown cost decided");
  CHECK (!pt_share_known_cost (5000, UINT64_MAX, shift, 1),
         "one work-group, however dear, was shared");
  /* No overflow: a dear cost times many work-groups.  */
  CHECK (pt_share_known_cost (5000, UINT64_MAX / 2, shift, UINT64_MAX / 2),
         "a product past 64 bits did not share");
  /* An endless threshold never shares.  */
  CHECK (!pt_share_known_cost (UINT64_MAX, 1u << 20, shift, 1u << 20),
         "an endless threshold shared");
}

int
main (void)
{
  CHECK (pt_share_at_once (0) && !pt_share_at_once (1),
         "pt_share_at_once: 0 only");
  check_equal_costs ();
  check_examples ();
  check_clock ();
  check_known_cost ();
  return check_finish ("test_share");
}
