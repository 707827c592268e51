/* test_interleave.c - the dispatch module driven from one thread through
   scripted interleavings of claims, so that locality, takeovers and steals
   have exact expected values, whatever the machine is doing.

   Each simulated thread is only a thread index: the dispatcher keeps no
   per-thread state outside the launch, so claims of "thread 3" can be
   made by any OS thread, in any order the script says.  Preemption inside
   a claim is scripted with the yield hook (WGD_YIELD in wg_dispatch.c,
   built with WGD_TEST_HOOKS): at a named step of one thread's claim, the
   hook makes other threads' claims, then the first claim goes on.

   Every scenario also checks the invariants that hold in any order: every
   work-group handed out exactly once, exactly one claim flagged last, the
   unclaimed count 0 at the end.

   The scenarios, with exact expectations: round-robin claims over 1 to 64
   threads (every work-group on its home thread, no steal); one thread
   late (exactly one takeover, everything else at home); one thread doing
   all (T - 1 takeovers, nearest neighbour first); stealing off; and,
   through the yield hook, other threads' claims between a claim's steps:
   a steal or a takeover between the owner's load and its CAS, a second
   thief while the first holds what it stole, the lag of the unclaimed
   count, a guided CAS race.  Guests (participants beyond the device's
   threads, whose block is dealt empty, for a waiting application
   thread): one takes a launch of one work-group over and makes the last
   claim, takes the last thread's block over first, its refilled word is
   stolen back from like any other, and it counts as local on every
   node.  Claims made alone, before a launch is
   published: all but a unit of a word, and what goes back before
   publishing.  A cost per work-group learnt in one launch and carried to
   the next: what is learnt, and the first claims it sizes, a takeover's
   included.

   Copyright (c) 2026 pocl-steal developers.  MIT licence, as PoCL.  */

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "wg_dispatch.h"

#define MAX_T 64

/* One scripted launch and what its claims did.  */
typedef struct
{
  wgd_launch *l;
  unsigned T;
  unsigned P; /* participants: the T threads, then the guests */
  uint64_t G;
  unsigned char *seen; /* times each work-group was handed out */
  wgd_thread_stats st[MAX_T];
  unsigned lasts;
  uint64_t handed;
} script;

/* A launch of G work-groups over T threads and `guests` guests
   (participants T to T + guests - 1).  */
static void
script_open_guests (script *s, wgd_schedule sched, unsigned T, unsigned guests,
                    uint64_t G)
{
  memset (s, 0, sizeof (*s));
  size_t bytes = wgd_launch_size_guests (T, guests);
  bytes = (bytes + WGD_CACHELINE - 1) / WGD_CACHELINE * WGD_CACHELINE;
  s->l = aligned_alloc (WGD_CACHELINE, bytes);
  s->seen = calloc (G ? G : 1, 1);
  if (s->l == NULL || s->seen == NULL)
    {
      perror ("alloc");
      exit (2);
    }
  wgd_launch_init (s->l, sched, G, T, T);
  if (guests > 0)
    wgd_launch_set_guests (s->l, guests);
  s->T = T;
  s->P = T + guests;
  s->G = G;
}

static void
script_open (script *s, wgd_schedule sched, unsigned T, uint64_t G)
{
  script_open_guests (s, sched, T, 0, G);
}

/* Thread tid claims once; returns false if it found nothing.  */
static bool
claim (script *s, unsigned tid, wgd_range *r)
{
  wgd_range tmp;
  if (r == NULL)
    r = &tmp;
  bool found = wgd_claim (s->l, tid, r, &s->st[tid]);
  /* `last` is set on every return, a false one included (wgd_range).  */
  s->lasts += r->last;
  if (!found)
    return false;
  for (uint64_t g = r->begin; g < r->end; ++g)
    s->seen[g]++;
  s->handed += r->end - r->begin;
  return true;
}

static uint64_t
sum (const script *s, size_t field_offset)
{
  uint64_t t = 0;
  for (unsigned i = 0; i < s->P; ++i)
    t += *(const uint64_t *)((const char *)&s->st[i] + field_offset);
  return t;
}

#define SUM(s, field) sum ((s), offsetof (wgd_thread_stats, field))

/* The invariants of any order; then frees the launch.  */
static void
script_close (script *s, const char *name)
{
  uint64_t bad = 0;
  for (uint64_t g = 0; g < s->G; ++g)
    bad += s->seen[g] != 1;
  CHECK (bad == 0, "%s: %" PRIu64 " work-groups not handed out exactly once",
         name, bad);
  CHECK (s->handed == s->G, "%s: handed out %" PRIu64 " of %" PRIu64, name,
         s->handed, s->G);
  CHECK (s->lasts == (s->G > 0), "%s: %u claims flagged last", name, s->lasts);
  CHECK (wgd_unclaimed (s->l) == 0, "%s: unclaimed %" PRIu64 " at the end",
         name, wgd_unclaimed (s->l));
  CHECK (SUM (s, groups) == s->G, "%s: statistics count %" PRIu64 " groups",
         name, SUM (s, groups));
  free (s->seen);
  free (s->l);
}

/* Thread tid claims until its own block is empty (and no further).  */
static void
drain_own (script *s, unsigned tid)
{
  for (uint64_t n = 0; wgd_thread_has_work (s->l, tid); ++n)
    if (!claim (s, tid, NULL) || n > s->G)
      {
        CHECK (0, "thread %u has work but cannot drain it", tid);
        return;
      }
}

/* Round after round, threads claim in the order given, until a whole
   round finds nothing.  */
static void
run_rounds (script *s, const unsigned *order, unsigned n)
{
  /* Every successful claim hands out at least one work-group, so more
     rounds than work-groups mean a broken dispatcher; stop rather than
     hang.  */
  bool any = true;
  for (uint64_t round = 0; any; ++round)
    {
      if (round > s->G)
        {
          CHECK (0, "more than %" PRIu64 " rounds of claims", s->G);
          return;
        }
      any = false;
      for (unsigned i = 0; i < n; ++i)
        any |= claim (s, order[i], NULL);
    }
}

/* Thread tid claims until it finds nothing (stealing included).  */
static void
drain (script *s, unsigned tid)
{
  unsigned order[1] = { tid };
  run_rounds (s, order, 1);
}

/* Round-robin in thread order, every thread from the start: every block
   runs on its own thread.  Blocks differ by at most one unit and the
   bigger ones come first; a block of n + 1 units needs at most one claim
   more than one of n, which its thread makes earlier in the same round,
   so no thread ever finds its block empty while another has work.
   Exact: home fraction 1, no takeover, no steal.  */
static void
round_robin (void)
{
  static const unsigned Ts[] = { 1, 2, 3, 4, 7, 16, 64 };
  static const uint64_t Gs[] = { 1, 5, 63, 64, 65, 1000, 4096, 100003 };
  unsigned order[MAX_T];
  unsigned cases = 0;
  for (unsigned ti = 0; ti < sizeof (Ts) / sizeof (Ts[0]); ++ti)
    for (unsigned gi = 0; gi < sizeof (Gs) / sizeof (Gs[0]); ++gi)
      {
        unsigned T = Ts[ti];
        uint64_t G = Gs[gi];
        script s;
        script_open (&s, WGD_SCHED_STATIC, T, G);
        for (unsigned t = 0; t < T; ++t)
          order[t] = t;
        run_rounds (&s, order, T);
        CHECK (SUM (&s, home_groups) == G && SUM (&s, steals) == 0
                   && SUM (&s, takeovers) == 0,
               "round-robin T=%u G=%" PRIu64 ": home %" PRIu64 ", %" PRIu64
               " steals, %" PRIu64 " takeovers",
               T, G, SUM (&s, home_groups), SUM (&s, steals),
               SUM (&s, takeovers));
        char name[64];
        snprintf (name, sizeof (name), "round-robin T=%u G=%" PRIu64, T, G);
        script_close (&s, name);
        ++cases;
      }
  printf ("round-robin: %u launches, every work-group on its home thread\n",
          cases);
}

/* Thread L claims only once the others have found nothing.  The others
   run their blocks round-robin, all empty in the same round; the first to
   look further takes L's block over whole (the only unstarted one), and
   from then on only halves are stolen.  Exact: one takeover, the home
   work-groups are everything but L's block, L finds nothing.  */
static void
one_late (void)
{
  static const unsigned Ts[] = { 2, 3, 4, 8, 16 };
  for (unsigned ti = 0; ti < sizeof (Ts) / sizeof (Ts[0]); ++ti)
    for (uint64_t G = 40; G <= 4000; G *= 10)
      {
        unsigned T = Ts[ti];
        unsigned L = T / 2;
        script s;
        script_open (&s, WGD_SCHED_STATIC, T, G);
        unsigned order[MAX_T], n = 0;
        for (unsigned t = 0; t < T; ++t)
          if (t != L)
            order[n++] = t;
        run_rounds (&s, order, n);
        uint64_t late_block = G / T + (L < G % T);
        bool late_found = claim (&s, L, NULL);
        CHECK (!late_found, "late T=%u G=%" PRIu64 ": L found work", T, G);
        CHECK (
            SUM (&s, takeovers) == 1 && SUM (&s, home_groups) == G - late_block
                && s.st[L].groups == 0,
            "late T=%u G=%" PRIu64 ": %" PRIu64 " takeovers, home %" PRIu64
            " (want 1 and %" PRIu64 ")",
            T, G, SUM (&s, takeovers), SUM (&s, home_groups), G - late_block);
        if (T == 4 && G == 400)
          printf ("one late thread, T=4 G=400: %" PRIu64 " takeover, %" PRIu64
                  " half-steals, home %" PRIu64 "\n",
                  SUM (&s, takeovers), SUM (&s, steals),
                  SUM (&s, home_groups));
        script_close (&s, "one late");
      }
}

/* Only thread 0 ever claims (the others never get the CPU): it runs its
   own block, then takes over the others' blocks whole, nearest neighbour
   first, each at its front.  Exact: T - 1 takeovers, no steal, the first
   range after its own block is the first work-group of block 1.  */
static void
one_does_all (void)
{
  for (unsigned T = 2; T <= 16; T *= 2)
    {
      const uint64_t B = 100, G = B * T;
      script s;
      script_open (&s, WGD_SCHED_STATIC, T, G);
      wgd_range r;
      uint64_t own = 0;
      while (claim (&s, 0, &r) && r.end <= B)
        own += r.end - r.begin;
      CHECK (own == B && r.begin == B && r.end == B + 1,
             "T=%u: after its block (%" PRIu64
             " groups) thread 0 went on with [%" PRIu64 ", %" PRIu64 ")",
             T, own, r.begin, r.end);
      drain (&s, 0);
      CHECK (SUM (&s, takeovers) == T - 1 && SUM (&s, steals) == 0
                 && SUM (&s, home_groups) == B,
             "T=%u, one thread: %" PRIu64 " takeovers, %" PRIu64
             " steals, home %" PRIu64,
             T, SUM (&s, takeovers), SUM (&s, steals), SUM (&s, home_groups));
      for (unsigned t = 1; t < T; ++t)
        CHECK (!claim (&s, t, NULL), "T=%u: thread %u found work", T, t);
      script_close (&s, "one does all");
    }
  printf ("one thread does all: T - 1 takeovers, no steals\n");
}

/* Stealing off: each thread runs exactly its own block and nothing else,
   in any order.  */
static void
no_stealing (void)
{
  const unsigned T = 4;
  const uint64_t G = 103;
  script s;
  script_open (&s, WGD_SCHED_STATIC, T, G);
  wgd_launch_set_stealing (s.l, false);
  /* Thread 2 first, to the end; then 0; then 3 and 1 alternating.  */
  drain_own (&s, 2);
  CHECK (!claim (&s, 2, NULL), "no stealing: thread 2 went on");
  CHECK (s.st[2].groups == G / T + (2 < G % T) && !wgd_thread_has_work (s.l, 2)
             && wgd_thread_has_work (s.l, 0),
         "no stealing: thread 2 ran %" PRIu64, s.st[2].groups);
  drain (&s, 0);
  unsigned order[] = { 3, 1 };
  run_rounds (&s, order, 2);
  CHECK (SUM (&s, home_groups) == G && SUM (&s, steals) == 0
             && SUM (&s, takeovers) == 0,
         "no stealing: home %" PRIu64 ", %" PRIu64 " steals, %" PRIu64
         " takeovers",
         SUM (&s, home_groups), SUM (&s, steals), SUM (&s, takeovers));
  for (unsigned t = 0; t < T; ++t)
    CHECK (!wgd_thread_has_work (s.l, t), "thread %u still has work", t);
  script_close (&s, "no stealing");
  printf ("stealing off: every block on its own thread\n");
  fflush (stdout);
}

/* The scripted hook: at the first time thread `who` reaches `at`, thread
   `then` claims once (recording into the same script).  */
static struct
{
  script *s;
  unsigned who, then;
  wgd_yield_point at;
  bool fired;
  bool then_found;
  wgd_range then_range;
  uint64_t unclaimed_seen;
} hook;

static void
scripted_hook (wgd_launch *l, wgd_yield_point point, unsigned tid)
{
  (void)l;
  if (hook.fired || point != hook.at || tid != hook.who)
    return;
  hook.fired = true;
  hook.then_found = claim (hook.s, hook.then, &hook.then_range);
  hook.unclaimed_seen = wgd_unclaimed (hook.s->l);
}

static void
arm (script *s, unsigned who, wgd_yield_point at, unsigned then)
{
  hook.s = s;
  hook.who = who;
  hook.at = at;
  hook.then = then;
  hook.fired = false;
  hook.then_found = false;
  wgd_yield_hook = scripted_hook;
}

static void
disarm (void)
{
  wgd_yield_hook = NULL;
}

/* A thief between the owner's load and its CAS: the owner's CAS fails and
   it claims again from what the thief left.  T = 2, G = 16 (blocks of 8):
   thread 0 claims [0, 1) to [3, 4); thread 1 runs its block [8, 16).
   Thread 0 then reads [4, 8), and before its CAS thread 1 steals the back
   half [6, 8), runs [6, 7) and keeps [7, 8).  Thread 0 then claims [4, 5)
   and [5, 6); thread 1 claims [7, 8), the last (its flush takes the count
   to 0).  */
static void
steal_before_owner_cas (void)
{
  script s;
  script_open (&s, WGD_SCHED_STATIC, 2, 16);
  wgd_range r;
  for (uint64_t g = 0; g < 4; ++g)
    CHECK (claim (&s, 0, &r) && r.begin == g && r.end == g + 1,
           "thread 0's claim %" PRIu64 " is [%" PRIu64 ", %" PRIu64 ")", g,
           r.begin, r.end);
  drain_own (&s, 1);
  arm (&s, 0, WGD_AFTER_LOAD_OWN, 1);
  bool found = claim (&s, 0, &r);
  disarm ();
  CHECK (hook.fired && hook.then_found && hook.then_range.begin == 6
             && hook.then_range.end == 7 && s.st[1].steals == 1
             && s.st[1].takeovers == 0,
         "thief's range [%" PRIu64 ", %" PRIu64 "), %" PRIu64
         " steals; want [6, 7) by a steal",
         hook.then_range.begin, hook.then_range.end, s.st[1].steals);
  CHECK (found && r.begin == 4 && r.end == 5,
         "owner's claim after the failed CAS is [%" PRIu64 ", %" PRIu64
         "), want [4, 5)",
         r.begin, r.end);
  CHECK (claim (&s, 0, &r) && r.begin == 5 && r.end == 6 && !r.last,
         "owner's next claim [%" PRIu64 ", %" PRIu64 "), want [5, 6)", r.begin,
         r.end);
  CHECK (claim (&s, 1, &r) && r.begin == 7 && r.end == 8 && r.last,
         "thief's kept part [%" PRIu64 ", %" PRIu64 ") last=%d, want [7, 8) "
         "last",
         r.begin, r.end, r.last);
  CHECK (!claim (&s, 0, NULL) && !claim (&s, 1, NULL), "work left over");
  CHECK (SUM (&s, home_groups) == 14, "home %" PRIu64 ", want 14",
         SUM (&s, home_groups));
  script_close (&s, "steal before the owner's CAS");
}

/* A thief takes the larger half of an odd remainder, runs its first
   work-group and keeps the rest, which stays stealable; and the last call
   of a launch may find nothing.  T = 2, G = 10 (blocks of 5): thread 0
   claims [0, 1) and [1, 2), leaving [2, 5); thread 1 runs [5, 10), then
   steals [3, 5) and runs [3, 4).  Thread 0 claims [2, 3), finds its block
   empty and steals [4, 5) back from thread 1.  Thread 1 then finds its
   word empty: its flush of [3, 4) takes the count to 0, so that call,
   which hands out nothing, is the last (W6).  */
static void
odd_steal (void)
{
  script s;
  script_open (&s, WGD_SCHED_STATIC, 2, 10);
  wgd_range r;
  CHECK (claim (&s, 0, &r) && r.begin == 0 && r.end == 1 && claim (&s, 0, &r)
             && r.begin == 1 && r.end == 2,
         "thread 0's second claim [%" PRIu64 ", %" PRIu64 ")", r.begin, r.end);
  drain_own (&s, 1);
  CHECK (claim (&s, 1, &r) && r.begin == 3 && r.end == 4
             && s.st[1].steals == 1,
         "thief ran [%" PRIu64 ", %" PRIu64 "), want [3, 4) by a steal",
         r.begin, r.end);
  CHECK (claim (&s, 0, &r) && r.begin == 2 && r.end == 3,
         "owner's claim [%" PRIu64 ", %" PRIu64 "), want [2, 3)", r.begin,
         r.end);
  CHECK (claim (&s, 0, &r) && r.begin == 4 && r.end == 5 && s.st[0].steals == 1
             && !r.last,
         "owner stole back [%" PRIu64 ", %" PRIu64 "), want [4, 5)", r.begin,
         r.end);
  CHECK (wgd_unclaimed (s.l) == 1,
         "unclaimed %" PRIu64 ", want 1 (thread 1's [3, 4), pending)",
         wgd_unclaimed (s.l));
  CHECK (!claim (&s, 1, &r) && r.last && wgd_unclaimed (s.l) == 0,
         "thread 1's empty-handed call: last=%d, unclaimed %" PRIu64
         " (want last, 0)",
         r.last, wgd_unclaimed (s.l));
  CHECK (!claim (&s, 0, NULL), "work left over");
  script_close (&s, "odd steal");
}

/* A takeover between the owner's first load and its CAS: the owner finds
   its block gone and takes over the next unstarted one.  T = 3, G = 30
   (blocks of 10): thread 2 runs its block; thread 0 reads its unstarted
   block, and before its CAS thread 2 takes it over whole (block 0 is its
   nearest neighbour) and runs [0, 1).  Thread 0 then takes over block 1
   and runs [10, 11).  */
static void
takeover_before_owner_cas (void)
{
  script s;
  script_open (&s, WGD_SCHED_STATIC, 3, 30);
  drain_own (&s, 2);
  arm (&s, 0, WGD_AFTER_LOAD_OWN, 2);
  wgd_range r;
  bool found = claim (&s, 0, &r);
  disarm ();
  CHECK (hook.then_found && hook.then_range.begin == 0
             && hook.then_range.end == 1 && s.st[2].takeovers == 1,
         "thread 2 took [%" PRIu64 ", %" PRIu64 ") (%" PRIu64
         " takeovers), want [0, 1) by a takeover",
         hook.then_range.begin, hook.then_range.end, s.st[2].takeovers);
  CHECK (found && r.begin == 10 && r.end == 11 && s.st[0].takeovers == 1,
         "thread 0 went on with [%" PRIu64 ", %" PRIu64 "), want [10, 11)",
         r.begin, r.end);
  CHECK (!wgd_thread_has_work (s.l, 1), "thread 1's block was not taken");
  unsigned order[] = { 0, 1, 2 };
  run_rounds (&s, order, 3);
  CHECK (SUM (&s, takeovers) == 2, "%" PRIu64 " takeovers, want 2",
         SUM (&s, takeovers));
  script_close (&s, "takeover before the owner's CAS");
}

/* W5's lag: what a thread handed out stays counted until its word is
   empty and it flushes.  T = 2, G = 4 (blocks of 2): thread 1 runs [2, 4)
   and flushes 2; thread 0 claims [0, 1), then its last claim [1, 2) is
   interrupted between the CAS that emptied its word and its flush.  Then
   thread 1 finds every word empty while unclaimed is 2, and gives up; the
   late flush is the one flagged last (W6).  */
static void
unclaimed_lag (void)
{
  script s;
  script_open (&s, WGD_SCHED_STATIC, 2, 4);
  drain_own (&s, 1);
  CHECK (wgd_unclaimed (s.l) == 2,
         "after thread 1's block: unclaimed %" PRIu64 ", want 2",
         wgd_unclaimed (s.l));
  claim (&s, 0, NULL);
  arm (&s, 0, WGD_AFTER_REMOVE, 1);
  wgd_range r;
  bool found = claim (&s, 0, &r);
  disarm ();
  CHECK (found && r.begin == 1 && r.end == 2 && r.last,
         "thread 0's last claim [%" PRIu64 ", %" PRIu64 ") last=%d", r.begin,
         r.end, r.last);
  CHECK (hook.fired && !hook.then_found && hook.unclaimed_seen == 2,
         "thread 1 during the lag: found=%d, unclaimed %" PRIu64
         " (want nothing found, 2 unclaimed)",
         hook.then_found, hook.unclaimed_seen);
  script_close (&s, "unclaimed lag");
}

/* A second thief while the first holds what it stole (between its CAS and
   its refill, W1): the second sees the first's word empty and steals from
   the victim's remainder instead.  T = 3, G = 24 (blocks of 8): threads 1
   and 2 run their blocks; thread 0 claims [0, 1).  Thread 1 steals the
   back half [4, 8) of [1, 8), and before it refills its word ([5, 8))
   thread 2 steals from [1, 4): the back half [2, 4), and runs [2, 3).
   Round-robin then: thread 0 runs [1, 2); thread 1 [5, 6); thread 2 [3,
   4); thread 0 steals [7, 8) from thread 1's [6, 8); thread 1 runs
   [6, 7).  */
static void
second_thief_during_refill (void)
{
  script s;
  script_open (&s, WGD_SCHED_STATIC, 3, 24);
  drain_own (&s, 1);
  drain_own (&s, 2);
  wgd_range r;
  CHECK (claim (&s, 0, &r) && r.begin == 0 && r.end == 1,
         "thread 0's first claim [%" PRIu64 ", %" PRIu64 ")", r.begin, r.end);
  arm (&s, 1, WGD_AFTER_STEAL, 2);
  bool found = claim (&s, 1, &r);
  disarm ();
  CHECK (found && r.begin == 4 && r.end == 5,
         "first thief ran [%" PRIu64 ", %" PRIu64 "), want [4, 5)", r.begin,
         r.end);
  CHECK (hook.then_found && hook.then_range.begin == 2
             && hook.then_range.end == 3,
         "second thief ran [%" PRIu64 ", %" PRIu64 "), want [2, 3)",
         hook.then_range.begin, hook.then_range.end);
  unsigned order[] = { 0, 1, 2 };
  run_rounds (&s, order, 3);
  CHECK (SUM (&s, steals) == 3 && SUM (&s, takeovers) == 0
             && s.st[0].steals == 1,
         "%" PRIu64 " steals (%" PRIu64 " by thread 0), %" PRIu64
         " takeovers; want 3 (1) and 0",
         SUM (&s, steals), s.st[0].steals, SUM (&s, takeovers));
  script_close (&s, "second thief during a refill");
}

/* Guided: a claim between another's load and CAS; the CAS fails and the
   chunk is recomputed from what is left.  n = 2, G = 10: chunk
   min (64, ceil (10 / 2), 10) = 5.  Thread 0 reads 10; thread 1 claims
   [0, 5); thread 0 then claims min (64, ceil (5 / 2), 5) = 3: [5, 8).  */
static void
guided_race (void)
{
  script s;
  script_open (&s, WGD_SCHED_GUIDED, 2, 10);
  arm (&s, 0, WGD_AFTER_LOAD_GUIDED, 1);
  wgd_range r;
  bool found = claim (&s, 0, &r);
  disarm ();
  CHECK (hook.then_found && hook.then_range.begin == 0
             && hook.then_range.end == 5,
         "guided: thread 1 claimed [%" PRIu64 ", %" PRIu64 "), want [0, 5)",
         hook.then_range.begin, hook.then_range.end);
  CHECK (found && r.begin == 5 && r.end == 8,
         "guided: thread 0 claimed [%" PRIu64 ", %" PRIu64 "), want [5, 8)",
         r.begin, r.end);
  CHECK (wgd_thread_has_work (s.l, 0) && wgd_thread_has_work (s.l, 1),
         "guided: work left but no thread has any");
  unsigned order[] = { 0, 1 };
  run_rounds (&s, order, 2);
  CHECK (!wgd_thread_has_work (s.l, 0), "guided: drained launch has work");
  script_close (&s, "guided race");
}

/* Which threads have work (wgd_thread_has_work), as the pool asks it: the
   threads whose blocks are not empty; with fewer work-groups than threads
   only the first ones.  */
static void
has_work (void)
{
  script s;
  script_open (&s, WGD_SCHED_STATIC, 8, 3);
  for (unsigned t = 0; t < 8; ++t)
    CHECK (wgd_thread_has_work (s.l, t) == (t < 3),
           "static, 3 groups over 8: thread %u has_work=%d", t,
           wgd_thread_has_work (s.l, t));
  drain (&s, 7);
  for (unsigned t = 0; t < 8; ++t)
    CHECK (!wgd_thread_has_work (s.l, t), "drained: thread %u has work", t);
  script_close (&s, "has_work static");

  script_open (&s, WGD_SCHED_GUIDED, 8, 3);
  for (unsigned t = 0; t < 8; ++t)
    CHECK (wgd_thread_has_work (s.l, t) == (t < 3),
           "guided, 3 groups over 8: thread %u has_work=%d", t,
           wgd_thread_has_work (s.l, t));
  drain (&s, 0);
  script_close (&s, "has_work guided");
}

/* A guest (an application thread waiting for the launch) arrives first
   at a launch of one work-group: it takes the only block over whole and
   its claim is the last; the threads then find nothing.  */
static void
guest_takes_small_launch (void)
{
  script s;
  script_open_guests (&s, WGD_SCHED_STATIC, 2, 1, 1);
  wgd_range r;
  bool got = claim (&s, 2, &r);
  CHECK (got && r.begin == 0 && r.end == 1 && r.last,
         "guest, 1 group: got %d [%" PRIu64 ", %" PRIu64 ") last %d", got,
         r.begin, r.end, r.last);
  CHECK (s.st[2].takeovers == 1 && s.st[2].home_groups == 0,
         "guest, 1 group: %" PRIu64 " takeovers, %" PRIu64 " at home",
         s.st[2].takeovers, s.st[2].home_groups);
  CHECK (!wgd_thread_has_work (s.l, 2), "a guest has work of its own");
  CHECK (!claim (&s, 0, NULL) && !claim (&s, 1, NULL),
         "guest, 1 group: a thread found work after the guest took it");
  script_close (&s, "guest, 1 group");
  printf ("a guest first at a launch of one work-group: takes it over, its "
          "claim is the last\n");
}

/* A guest takes over an unstarted block and keeps the rest in its word;
   the block's owner, finding its word emptied, steals the back half back
   from the guest.  T = 2, G = 8: blocks [0, 4) and [4, 8).  */
static void
steal_back_from_guest (void)
{
  script s;
  script_open_guests (&s, WGD_SCHED_STATIC, 2, 1, 8);
  wgd_range r;
  claim (&s, 0, &r); /* thread 0 starts its block: [1, 4) left */
  /* The guest looks at the last thread's block first, block 1
     (unstarted): takes it over, runs 4, keeps [5, 8).  */
  CHECK (claim (&s, 2, &r) && r.begin == 4 && s.st[2].takeovers == 1,
         "guest: first range [%" PRIu64 ", %" PRIu64 "), %" PRIu64
         " takeovers; want 4 and 1",
         r.begin, r.end, s.st[2].takeovers);
  /* Thread 1's word is empty: it steals the back half of the fullest word,
     the guest's [5, 8) (block 0's [1, 4) is as full but comes later from
     thread 1): runs 6, keeps [7, 8).  */
  CHECK (claim (&s, 1, &r) && r.begin == 6 && s.st[1].steals == 1,
         "thread 1 after the guest: [%" PRIu64 ", %" PRIu64 "), %" PRIu64
         " steals; want 6 and 1",
         r.begin, r.end, s.st[1].steals);
  unsigned order[3] = { 0, 1, 2 };
  run_rounds (&s, order, 3);
  script_close (&s, "steal back from a guest");
  printf ("a guest's refilled word is stolen back from like any other\n");
}

/* Guests have no node: a thief looks at their words on its first pass,
   before blocks of other nodes.  T = 4 on nodes 0 0 1 1, G = 8: blocks
   [0, 2) [2, 4) [4, 6) [6, 8); the guest takes block 3 over (the last
   thread's first) and keeps [7, 8); threads 0 and 1 run their own blocks;
   thread 0 then steals the guest's unit, not node 1's block 2, and the
   steal is not remote.  */
static void
guest_is_local (void)
{
  static const int nodes[4] = { 0, 0, 1, 1 };
  script s;
  script_open_guests (&s, WGD_SCHED_STATIC, 4, 1, 8);
  wgd_launch_set_nodes (s.l, nodes);
  wgd_range r;
  CHECK (claim (&s, 4, &r) && r.begin == 6 && s.st[4].takeovers == 1,
         "guest on 2 nodes: first range at %" PRIu64 ", want 6", r.begin);
  drain_own (&s, 0);
  drain_own (&s, 1);
  CHECK (claim (&s, 0, &r) && r.begin == 7 && s.st[0].steals == 1
             && s.st[0].remote == 0,
         "thread 0 on node 0: [%" PRIu64 ", %" PRIu64 "), %" PRIu64
         " steals, %" PRIu64 " remote; want 7, 1, 0",
         r.begin, r.end, s.st[0].steals, s.st[0].remote);
  unsigned order[5] = { 0, 1, 2, 3, 4 };
  run_rounds (&s, order, 5);
  script_close (&s, "guest on 2 nodes");
  printf ("a guest's word is local to every node\n");
}

/* SIZED CLAIMS AND THE HUNGER LATCH (W8 of wg_dispatch.c).  The launch's
   clock is scripted: each thread's time is what the test says.  */
static uint64_t script_now[MAX_T];

static unsigned script_reads[MAX_T];

static uint64_t
scripted_clock (void *arg, unsigned tid)
{
  (void)arg;
  script_reads[tid]++;
  return script_now[tid];
}

/* Thread tid gives the rest of r back from work-group `next` on, and the
   script forgets what came back.  */
static void
give_back (script *s, unsigned tid, wgd_range *r, uint64_t next)
{
  uint64_t old_end = r->end;
  wgd_give_back (s->l, tid, r, next, &s->st[tid]);
  for (uint64_t g = r->end; g < old_end; ++g)
    s->seen[g]--;
  s->handed -= old_end - r->end;
}

static uint64_t
word_of (const script *s, unsigned t, uint32_t *b, uint32_t *e)
{
  uint64_t w = atomic_load (&s->l->blocks[t].word);
  *b = (uint32_t)(w >> 32);
  *e = (uint32_t)w;
  return w;
}

/* Claims double untimed up to WGD_UNTIMED_UNITS (16), then while ranges
   take less than half the budget; they stay while ranges take half to all
   of it, halve at once (as far as needed) when one takes more, never take
   more than half the word, and are of one unit without a clock; the
   clock is not read in the tail of a word.  T = 1, G = 1000, budget
   100.  */
static void
sizing (void)
{
  script s;
  script_open (&s, WGD_SCHED_STATIC, 1, 1000);
  wgd_launch_set_clock (s.l, scripted_clock, NULL, 100);
  /* took: time since the previous claim; want: its size.  */
  static const struct
  {
    uint64_t took, want;
  } steps[] = {
    { 500, 1 },  /* the first claim of a launch: untimed, */
    { 500, 2 },  /* and so are the next ones, whatever they take, */
    { 500, 4 },  /* */
    { 500, 8 },  /* */
    { 500, 16 }, /* up to 16, whose claim reads the clock */
    { 10, 32 },  /* < budget / 2: doubles */
    { 49, 64 },  /* still < 50 */
    { 50, 64 },  /* from 50 to 100: stays */
    { 100, 64 }, /* */
    { 101, 32 }, /* > 100: halved once, to 50.5 per range, > 50: */
    { 0, 64 },   /* ... (that was 32: 101 / 2 = 50 fits) then doubles */
    { 400, 8 },  /* 400 -> 200, 100, 50: 64 -> 8 */
    { 500, 16 }, /* below 16: untimed again */
    { 10, 32 },  /* */
  };
  script_now[0] = 1000;
  wgd_range r;
  for (unsigned i = 0; i < sizeof (steps) / sizeof (steps[0]); ++i)
    {
      script_now[0] += steps[i].took;
      CHECK (claim (&s, 0, &r) && r.end - r.begin == steps[i].want,
             "sizing step %u (took %" PRIu64 "): %" PRIu64
             " work-groups, want %" PRIu64,
             i, steps[i].took, r.end - r.begin, steps[i].want);
    }
  /* The half rule, as the claims grow on and the word drains.  */
  uint64_t most = 0;
  for (int i = 0; i < 12; ++i)
    {
      uint32_t b, e;
      word_of (&s, 0, &b, &e);
      claim (&s, 0, &r);
      uint64_t got = r.end - r.begin;
      most = got > most ? got : most;
      CHECK (got <= (e - b > 1 ? (e - b) / 2 : 1),
             "claim of %" PRIu64 " from a word of %u: more than half", got,
             e - b);
    }
  CHECK (most > 64, "claims grew to %" PRIu64 " at most, want more than 64",
         most);
  drain (&s, 0);
  script_close (&s, "sizing");

  /* The tail of a word, where the half rule caps every claim below what
     the clock could make it, reads no clock: T = 1, G = 64, ranges that
     take nothing.  1, 2, 4, 8 untimed; 16 starts timing (len 49); then
     16 (len 33: capped at 16 anyway), 8 (len 17), and 4, 2, 1, 1 (k
     below 16, or capped below 16: untimed).  One read in all.  */
  script_open (&s, WGD_SCHED_STATIC, 1, 64);
  wgd_launch_set_clock (s.l, scripted_clock, NULL, 100);
  script_reads[0] = 0;
  static const uint64_t tail[] = { 1, 2, 4, 8, 16, 16, 8, 4, 2, 1, 1, 1 };
  for (unsigned i = 0; i < sizeof (tail) / sizeof (tail[0]); ++i)
    CHECK (claim (&s, 0, &r) && r.end - r.begin == tail[i],
           "tail step %u: %" PRIu64 " work-groups, want %" PRIu64, i,
           r.end - r.begin, tail[i]);
  CHECK (script_reads[0] == 1, "%u clock reads in the tail, want 1",
         script_reads[0]);
  drain (&s, 0);
  script_close (&s, "the tail");

  /* No clock: one unit per claim, however fast.  */
  script_open (&s, WGD_SCHED_STATIC, 1, 100);
  for (int i = 0; i < 10; ++i)
    CHECK (claim (&s, 0, &r) && r.end - r.begin == 1,
           "no clock: a claim of %" PRIu64, r.end - r.begin);
  drain (&s, 0);
  script_close (&s, "no clock");
  printf ("claims are sized by time, at most half the word\n");
}

/* T = 2, G = 64 (blocks of 32), a clock that never moves: claims double.
   Thread 0 claims [0, 1), [1, 3), [3, 7), [7, 15) and holds the last
   range, having run [7, 8).  Thread 1 runs its block and steals thread
   0's word [15, 32) away, then finds nothing while thread 0 holds: it
   sets the latch and is told to wait.  Thread 0 sees the latch and gives
   [8, 15) back into its empty word; from then on every claim is of one
   unit, and thread 1 steals what came back.  */
static void
hunger_latch (void)
{
  script s;
  script_open (&s, WGD_SCHED_STATIC, 2, 64);
  wgd_launch_set_clock (s.l, scripted_clock, NULL, 100);
  script_now[0] = script_now[1] = 5;
  wgd_range r, held;
  static const uint64_t front[] = { 0, 1, 3, 7, 15 };
  for (int i = 0; i < 4; ++i)
    CHECK (claim (&s, 0, &held) && held.begin == front[i]
               && held.end == front[i + 1],
           "thread 0's claim %d is [%" PRIu64 ", %" PRIu64 ")", i, held.begin,
           held.end);
  CHECK (!wgd_hungry (s.l), "latch set too early");
  /* Thread 1: own block, then everything of thread 0's word.  */
  unsigned rounds = 0;
  while (claim (&s, 1, &r) && ++rounds < 64)
    ;
  CHECK (!r.last && r.wait && wgd_hungry (s.l) && s.st[1].hungry == 1,
         "thread 1 found nothing: wait %d, latch %d, hungry %" PRIu64
         " (want 1, 1, 1)",
         r.wait, wgd_hungry (s.l), s.st[1].hungry);
  uint32_t b, e;
  word_of (&s, 0, &b, &e);
  CHECK (b >= e, "thread 0's word [%u, %u) not empty", b, e);
  give_back (&s, 0, &held, 8);
  word_of (&s, 0, &b, &e);
  CHECK (held.end == 8 && b == 8 && e == 15 && s.st[0].gave_back == 1,
         "gave back: range ends at %" PRIu64 ", word [%u, %u); want 8, "
         "[8, 15)",
         held.end, b, e);
  CHECK (claim (&s, 1, &r) && r.end - r.begin == 1 && r.begin == 11,
         "thread 1 after the give-back: [%" PRIu64 ", %" PRIu64
         "), want [11, 12)",
         r.begin, r.end);
  CHECK (claim (&s, 0, &r) && r.begin == 8 && r.end == 9,
         "thread 0 after its give-back: [%" PRIu64 ", %" PRIu64
         "), want [8, 9)",
         r.begin, r.end);
  unsigned order[] = { 0, 1 };
  run_rounds (&s, order, 2);
  CHECK (SUM (&s, gave_back) == 1, "%" PRIu64 " give-backs",
         SUM (&s, gave_back));
  script_close (&s, "hunger latch");
  printf ("the hunger latch makes a holder give its rest back\n");
}

/* A give-back racing a steal: thread 0 holds [7, 15) with [15, 32) in its
   word; between its load of the word and its CAS, thread 1 (block run)
   steals the back half [23, 32) (sized: it keeps [24, 32) or more in its
   word).  The give-back's CAS fails, and it retries on what is left:
   thread 0's word becomes [8, 23).  */
static void
give_back_races_steal (void)
{
  script s;
  script_open (&s, WGD_SCHED_STATIC, 2, 64);
  wgd_launch_set_clock (s.l, scripted_clock, NULL, 100);
  script_now[0] = script_now[1] = 5;
  wgd_range held;
  for (int i = 0; i < 4; ++i)
    claim (&s, 0, &held);
  drain_own (&s, 1);
  arm (&s, 0, WGD_AFTER_LOAD_GIVE, 1);
  give_back (&s, 0, &held, 8);
  disarm ();
  uint32_t b, e;
  word_of (&s, 0, &b, &e);
  CHECK (hook.fired && hook.then_found && hook.then_range.begin == 23
             && s.st[1].steals == 1,
         "thief's range [%" PRIu64 ", %" PRIu64 "), want it from 23",
         hook.then_range.begin, hook.then_range.end);
  CHECK (held.end == 8 && b == 8 && e == 23,
         "after the race: range ends at %" PRIu64
         ", word [%u, %u); want 8, [8, 23)",
         held.end, b, e);
  unsigned order[] = { 1, 0 };
  run_rounds (&s, order, 2);
  script_close (&s, "give-back races a steal");
  printf ("a give-back racing a steal retries on what is left\n");
}

/* A give-back into a word emptied meanwhile, racing a takeover: T = 3 on
   nodes {0, 1, 1}, G = 96 (blocks of 32).  Thread 2 runs its block, takes
   its node-mate's block 1 over and claims on until it holds a range of
   several units.  Thread 1 steals thread 2's word empty and runs what it
   stole.  Between thread 2's load of its (empty) word and its store of
   the give-back, thread 1, with nothing left on its node, takes block 0
   over.  The store refills thread 2's word, and everything runs once.  */
static void
give_back_races_takeover (void)
{
  static const int nodes[3] = { 0, 1, 1 };
  script s;
  script_open (&s, WGD_SCHED_STATIC, 3, 96);
  wgd_launch_set_nodes (s.l, nodes);
  wgd_launch_set_clock (s.l, scripted_clock, NULL, 100);
  for (int t = 0; t < 3; ++t)
    script_now[t] = 5;
  wgd_range r, held;
  drain_own (&s, 2);
  CHECK (claim (&s, 2, &held) && held.begin == 32 && s.st[2].takeovers == 1,
         "thread 2's takeover at %" PRIu64 ", want 32", held.begin);
  while (held.end - held.begin < 4)
    claim (&s, 2, &held);
  uint32_t b, e;
  unsigned n = 0;
  while (word_of (&s, 2, &b, &e), b < e && ++n < 96)
    CHECK (claim (&s, 1, &r), "thread 1 cannot steal from thread 2");
  drain_own (&s, 1);
  CHECK (s.st[1].takeovers == 0, "thread 1 took a block over too early");
  uint64_t mid = held.begin + 1, old_end = held.end;
  arm (&s, 2, WGD_AFTER_LOAD_GIVE, 1);
  give_back (&s, 2, &held, mid);
  disarm ();
  CHECK (hook.fired && hook.then_found && hook.then_range.begin == 0
             && s.st[1].takeovers == 1 && s.st[1].remote == 1,
         "thread 1 during the give-back: [%" PRIu64 ", %" PRIu64 "), %" PRIu64
         " takeovers; want block 0 taken over",
         hook.then_range.begin, hook.then_range.end, s.st[1].takeovers);
  word_of (&s, 2, &b, &e);
  CHECK (held.end == mid && b == mid && e == old_end,
         "give-back into an empty word: range ends at %" PRIu64
         ", word [%u, %u), want [%" PRIu64 ", %" PRIu64 ")",
         held.end, b, e, mid, old_end);
  unsigned order[] = { 1, 2, 0 };
  run_rounds (&s, order, 3);
  script_close (&s, "give-back into an emptied word");
  printf ("a give-back refills an emptied word while a block is taken "
          "over\n");
}

/* Thread tid claims once alone (wgd_claim_alone), as claim () does.  */
static bool
claim_alone (script *s, unsigned tid, wgd_range *r)
{
  bool found = wgd_claim_alone (s->l, tid, r, &s->st[tid]);
  s->lasts += r->last;
  if (!found)
    return false;
  for (uint64_t g = r->begin; g < r->end; ++g)
    s->seen[g]++;
  s->handed += r->end - r->begin;
  return true;
}

/* Claims made alone (W8 of wg_dispatch.c): an application thread, guest
   2 of T = 2, G = 64 (blocks of 32), runs the launch before publishing
   it.  Its first claim takes block 1 over (the last thread's first) and
   keeps only the block's last unit in its word; the next takes that
   unit, the next block 0 over, and so on: 4 claims for the launch, where
   claims sized from one and capped at half take 16.  In a second launch
   it publishes after running 4 of the first range: it gives [36, 63)
   back first, so that its word holds [36, 64), its next claim is of one
   unit, and the threads that join find the rest.  */
static void
alone_claims (void)
{
  script s;
  script_open_guests (&s, WGD_SCHED_STATIC, 2, 1, 64);
  wgd_launch_set_clock (s.l, scripted_clock, NULL, 100);
  script_now[0] = script_now[1] = script_now[2] = 5;
  static const uint64_t ranges[][2]
      = { { 32, 63 }, { 63, 64 }, { 0, 31 }, { 31, 32 } };
  wgd_range r;
  for (int i = 0; i < 4; ++i)
    CHECK (claim_alone (&s, 2, &r) && r.begin == ranges[i][0]
               && r.end == ranges[i][1] && r.last == (i == 3),
           "alone claim %d: [%" PRIu64 ", %" PRIu64
           "), last %d; want [%" PRIu64 ", %" PRIu64 ")",
           i, r.begin, r.end, r.last, ranges[i][0], ranges[i][1]);
  CHECK (!claim_alone (&s, 2, &r) && !r.last && !r.wait,
         "a claim after the last found work");
  CHECK (s.st[2].claims == 4 && s.st[2].takeovers == 2,
         "alone: %" PRIu64 " claims, %" PRIu64 " takeovers; want 4 and 2",
         s.st[2].claims, s.st[2].takeovers);
  script_close (&s, "alone, unpublished");

  script_open_guests (&s, WGD_SCHED_STATIC, 2, 1, 64);
  wgd_launch_set_clock (s.l, scripted_clock, NULL, 100);
  wgd_range held;
  CHECK (claim_alone (&s, 2, &held) && held.begin == 32 && held.end == 63,
         "alone claim: [%" PRIu64 ", %" PRIu64 "), want [32, 63)", held.begin,
         held.end);
  give_back (&s, 2, &held, 36);
  uint32_t b, e;
  word_of (&s, 2, &b, &e);
  CHECK (held.end == 36 && b == 36 && e == 64 && s.st[2].gave_back == 1
             && atomic_load (&s.l->blocks[2].holding) == 0,
         "before publishing: range ends at %" PRIu64 ", word [%u, %u); want "
         "36, [36, 64), nothing held",
         held.end, b, e);
  CHECK (claim (&s, 2, &r) && r.begin == 36 && r.end == 37,
         "the first claim after publishing: [%" PRIu64 ", %" PRIu64
         "), want [36, 37)",
         r.begin, r.end);
  CHECK (claim (&s, 0, &r) && r.begin == 0,
         "thread 0 after the publish: [%" PRIu64 ", %" PRIu64
         "), want its own block",
         r.begin, r.end);
  CHECK (claim (&s, 1, &r) && s.st[1].steals == 1 && r.end - r.begin == 1,
         "thread 1, its block taken over: [%" PRIu64 ", %" PRIu64 "), %" PRIu64
         " steals; want a steal, of which it runs one unit",
         r.begin, r.end, s.st[1].steals);
  unsigned order[] = { 0, 1, 2 };
  run_rounds (&s, order, 3);
  script_close (&s, "alone, then published");
  printf ("claims made alone take all but a unit, and go back before "
          "publishing\n");
}

/* A cost carried from an earlier launch (wgd_set_group_cost, W8): T = 1,
   budget 100, costs in 256ths of the clock's unit.  The first launch
   learns 2 per work-group from its first timed range (16 work-groups in
   32); the next launch's first claim is as many as fit half the budget
   (25), and grows from there; at most an eighth of the word; a cost too
   dear for one unit in half the budget, or none, starts at one; guided
   learns nothing.  */
static void
carried_cost (void)
{
  script s;
  script_open (&s, WGD_SCHED_STATIC, 1, 1000);
  wgd_launch_set_clock (s.l, scripted_clock, NULL, 100);
  CHECK (wgd_group_cost (s.l, 0) == 0, "a cost before any claim: %" PRIu64,
         wgd_group_cost (s.l, 0));
  script_now[0] = 1000;
  wgd_range r;
  for (int i = 0; i < 5; ++i) /* 1, 2, 4, 8, and 16 that reads the clock */
    claim (&s, 0, &r);
  script_now[0] += 32;
  CHECK (claim (&s, 0, &r) && r.end - r.begin == 32,
         "the claim after 16 in 32: %" PRIu64 " work-groups, want 32",
         r.end - r.begin);
  uint64_t cost = wgd_group_cost (s.l, 0);
  CHECK (cost == 2 << WGD_COST_SHIFT,
         "learnt %" PRIu64 " per work-group, want %d", cost,
         2 << WGD_COST_SHIFT);
  drain (&s, 0);
  script_close (&s, "learning a cost");

  script_open (&s, WGD_SCHED_STATIC, 1, 1000);
  wgd_launch_set_clock (s.l, scripted_clock, NULL, 100);
  wgd_set_group_cost (s.l, 0, cost);
  CHECK (claim (&s, 0, &r) && r.begin == 0 && r.end == 25,
         "first claim with a carried cost: [%" PRIu64 ", %" PRIu64
         "), want [0, 25)",
         r.begin, r.end);
  script_now[0] += 10;
  CHECK (claim (&s, 0, &r) && r.end - r.begin == 50,
         "the next, after 10: %" PRIu64 " work-groups, want 50",
         r.end - r.begin);
  drain (&s, 0);
  script_close (&s, "a carried cost");

  /* Blocks of 64: an eighth is 8, untimed, then doubling as usual.  */
  script_open (&s, WGD_SCHED_STATIC, 2, 128);
  wgd_launch_set_clock (s.l, scripted_clock, NULL, 100);
  wgd_set_group_cost (s.l, 0, cost);
  wgd_set_group_cost (s.l, 1, 1000 << WGD_COST_SHIFT);
  CHECK (claim (&s, 0, &r) && r.end - r.begin == 8,
         "first claim of a block of 64: %" PRIu64 ", want 8", r.end - r.begin);
  CHECK (claim (&s, 0, &r) && r.end - r.begin == 16,
         "its second: %" PRIu64 ", want 16", r.end - r.begin);
  CHECK (claim (&s, 1, &r) && r.end - r.begin == 1,
         "first claim at a cost above half the budget: %" PRIu64 ", want 1",
         r.end - r.begin);
  unsigned order[] = { 0, 1 };
  run_rounds (&s, order, 2);
  script_close (&s, "an eighth at most");

  /* A takeover with the cost known: thread 1 runs its block at 2 per
     work-group, its claims shrinking to one at the end of it, then takes
     thread 0's block over, whose first range is sized as a first claim
     (an eighth of 128), not from the one unit it claimed last.  */
  script_open (&s, WGD_SCHED_STATIC, 2, 256);
  wgd_launch_set_clock (s.l, scripted_clock, NULL, 100);
  wgd_set_group_cost (s.l, 1, cost);
  uint64_t last_own = 0;
  for (;;)
    {
      CHECK (claim (&s, 1, &r), "thread 1 found nothing");
      if (r.begin < 128)
        break;
      last_own = r.end - r.begin;
      script_now[1] += 2 * last_own;
    }
  CHECK (last_own == 1 && s.st[1].takeovers == 1 && r.begin == 0
             && r.end == 16,
         "takeover after a claim of %" PRIu64 ": [%" PRIu64 ", %" PRIu64
         "), %" PRIu64 " takeovers; want one, of [0, 16) after 1",
         last_own, r.begin, r.end, s.st[1].takeovers);
  run_rounds (&s, order, 2);
  script_close (&s, "a takeover sized by the cost");

  script_open (&s, WGD_SCHED_GUIDED, 2, 128);
  wgd_set_group_cost (s.l, 0, cost);
  claim (&s, 0, &r);
  CHECK (wgd_group_cost (s.l, 0) == 0, "guided learnt a cost: %" PRIu64,
         wgd_group_cost (s.l, 0));
  run_rounds (&s, order, 2);
  script_close (&s, "guided");
  printf ("a cost carried from an earlier launch sizes the first claim\n");
}

int
main (void)
{
  round_robin ();
  one_late ();
  one_does_all ();
  no_stealing ();
  steal_before_owner_cas ();
  odd_steal ();
  takeover_before_owner_cas ();
  unclaimed_lag ();
  second_thief_during_refill ();
  guided_race ();
  has_work ();
  guest_takes_small_launch ();
  steal_back_from_guest ();
  guest_is_local ();
  sizing ();
  hunger_latch ();
  give_back_races_steal ();
  give_back_races_takeover ();
  alone_claims ();
  carried_cost ();
  return check_finish ("interleave");
}
