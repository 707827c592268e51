/* test_dispatch.c - the dispatch module on its own, with real threads.

   Only properties that hold in every interleaving are asserted here; what
   depends on the order of claims (locality, who steals what) is checked
   exactly by test_interleave.c, which scripts the order.

   For each schedule, thread counts 1..64 (more threads than cores
   included; plus 0 to 2 guests, participants whose block is dealt empty,
   on some launches) and work-group counts 0, 1, T-1, T, T+1, primes and
   up to 10^6, with random per-group costs and random thread start
   delays, some with the threads on two NUMA nodes, and with preemption
   injected between the protocol's steps (the yield hook, WGD_YIELD in
   wg_dispatch.c):
     - every work-group is handed out exactly once and every launch
       finishes exactly once (one wgd_finish returns true);
     - the claimed ranges never overlap and the counters add up;
     - exactly one wgd_claim call is flagged last;
     - on half the launches with guests, guest 0 waits until every
       work-group but its own is reported (wgd_all_but_finished, as the
       waiting application thread does, S3 of the driver); its
       wgd_finish is then the one that returns true.
   Static schedule only:
     - the same with claims sized by the real clock against small budgets
       (so that ranges grow, shrink and are given back), threads running
       each range a work-group at a time, asking wgd_hungry before each
       after the first and giving the rest back, and claiming again when
       a claim says to wait; on some of those launches a guest first
       claims alone (wgd_claim_alone) before the others start, and gives
       part of its last range back, as an application thread does before
       it publishes a launch it ran alone; on half of them every thread's
       claims start from a random cost per work-group, as carried from an
       earlier launch (wgd_set_group_cost), so that first claims are of
       up to an eighth of a block;
     - a launch whose thread L starts only after the launch has finished
       was finished by the others, who took L's block over whole;
     - launches in units of several work-groups (a cap on units, and
       past 2^32 work-groups) are covered exactly once, checked by tiling
       the claimed ranges (claimed without running them); with the
       default cap past 2^32, grain 2 and the mapping at both ends;
     - a guest takes over the last thread's block first and goes down,
       or from the block wgd_launch_set_guest_first names; a thread goes
       up from its own.
   Printed, not asserted: the fraction of a balanced launch that ran on
   its home threads with real threads started together (a benchmark
   figure: a descheduled thread lowers it, as it should).

   Usage: test_dispatch [sanitizer]
     sanitizer: fewer sizes

   Copyright (c) 2026 pocl-steal developers.  MIT licence, as PoCL.  */

#define _GNU_SOURCE

#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../check.h"
#include "wg_dispatch.h"

enum cost_kind
{
  COST_NONE,
  COST_FLAT,
  COST_RANDOM
};

enum delay_kind
{
  DELAY_NONE,
  DELAY_RANDOM
};

typedef struct
{
  wgd_schedule schedule;
  unsigned threads;
  uint64_t groups;
  enum cost_kind cost;
  enum delay_kind delay;
  unsigned seed;
  unsigned flat_ns; /* cost of a work-group with COST_FLAT; 0: 200 ns */
  int two_nodes;    /* threads split over two NUMA nodes */
  unsigned guests;  /* participants beyond the threads (blocks empty) */
  uint64_t budget;  /* static: claims sized by the real clock against this
                       budget (ns), with the hunger latch; 0: claims of one */
} run_config;

typedef struct
{
  const run_config *cfg;
  wgd_launch *launch;
  _Atomic unsigned char *seen;
  _Atomic unsigned finishers;
  _Atomic unsigned started;
  _Atomic int go;
} shared_run;

typedef struct
{
  shared_run *s;
  unsigned tid;
  wgd_thread_stats stats;
  uint64_t ran;
  uint64_t ran_home;
  unsigned lasts; /* claims flagged as taking the last work-groups */
  uint64_t waits; /* claims that said to wait */
  uint64_t alone; /* work-groups it ran alone, before the others started */
} thread_arg;

/* The launch's clock for sized claims: the real one.  */
static uint64_t
real_clock (void *arg, unsigned tid)
{
  (void)arg;
  (void)tid;
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint32_t
xorshift (uint32_t *state)
{
  uint32_t x = *state;
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  return *state = x ? x : 1;
}

static void
spin_ns (unsigned ns)
{
  struct timespec t0, t;
  clock_gettime (CLOCK_MONOTONIC, &t0);
  do
    clock_gettime (CLOCK_MONOTONIC, &t);
  while ((uint64_t)(t.tv_sec - t0.tv_sec) * 1000000000u
             + (uint64_t)(t.tv_nsec - t0.tv_nsec)
         < ns);
}

/* Injected preemption: at a protocol step, now and then, give the CPU
   away, so that other threads run between this thread's load and its CAS,
   or its removal and its accounting.  At most YIELDS_PER_LAUNCH per thread
   and launch: static without a clock claims one work-group at a time, and
   on a busy machine every sched_yield may cost a whole time slice, so a
   launch of a million work-groups would otherwise take minutes.  */
#define YIELDS_PER_LAUNCH 400
/* At most this many guests in a launch of the matrix.  */
#define MAX_GUESTS 2
static _Thread_local uint32_t yield_rng;
static _Thread_local unsigned yields_left;

static void
random_yield (wgd_launch *l, wgd_yield_point point, unsigned tid)
{
  (void)l;
  (void)point;
  if (yield_rng == 0)
    yield_rng = tid * 2654435761u + 1;
  if (yields_left > 0 && xorshift (&yield_rng) % 8 == 0)
    {
      yields_left--;
      sched_yield ();
    }
}

/* Launches whose guest 0 waited to finish last (S3 of the driver).  */
static _Atomic unsigned guest_waits;

/* First claims of more than one work-group made with a carried cost.  */
static _Atomic unsigned carried_first_claims;

static void *
worker (void *p)
{
  thread_arg *a = p;
  shared_run *s = a->s;
  const run_config *cfg = s->cfg;
  uint32_t rng = cfg->seed * 7919u + a->tid * 104729u + 1;

  yields_left = YIELDS_PER_LAUNCH;
  atomic_fetch_add (&s->started, 1);
  /* Yield while waiting: with more threads than cores, spinning would
     starve the threads not yet started.  */
  while (!atomic_load (&s->go))
    sched_yield ();
  if (cfg->delay == DELAY_RANDOM)
    usleep (xorshift (&rng) % 300);

  wgd_range r;
  uint64_t done = a->alone;
  /* A cost carried from an earlier launch: 1/256 ns to 400 ns per
     work-group, on launches of odd seeds.  */
  bool carried = cfg->budget > 0 && cfg->seed % 2 == 1;
  if (carried)
    wgd_set_group_cost (s->launch, a->tid, 1 + xorshift (&rng) % (400 << 8));
  bool first = true;
  for (;;)
    {
      bool more = wgd_claim (s->launch, a->tid, &r, &a->stats);
      if (more && first && carried && r.end - r.begin > 1)
        atomic_fetch_add (&carried_first_claims, 1);
      first = first && !more;
      /* `last` is set on every return, a false one included.  */
      a->lasts += r.last;
      if (!more && r.wait)
        {
          /* Others hold ranges and were asked for them back: look again,
             leaving the CPU to them (more threads than cores).  */
          a->waits++;
          sched_yield ();
          continue;
        }
      if (!more)
        break;
      CHECK (r.begin < r.end && r.end <= cfg->groups,
             "bad range [%" PRIu64 ", %" PRIu64 ") of %" PRIu64, r.begin,
             r.end, cfg->groups);
      for (uint64_t g = r.begin; g < r.end && g < cfg->groups; ++g)
        {
          if (g > r.begin && wgd_hungry (s->launch))
            {
              wgd_give_back (s->launch, a->tid, &r, g, &a->stats);
              CHECK (r.end >= g, "give-back cut the range below %" PRIu64, g);
              if (g >= r.end)
                break;
            }
          atomic_fetch_add_explicit (&s->seen[g], 1, memory_order_relaxed);
          if (cfg->schedule == WGD_SCHED_STATIC
              && wgd_home_thread (s->launch, g) == a->tid)
            a->ran_home++;
          if (cfg->cost == COST_FLAT)
            spin_ns (cfg->flat_ns ? cfg->flat_ns : 200);
          else if (cfg->cost == COST_RANDOM)
            spin_ns (xorshift (&rng) % 2000);
        }
      done += r.end - r.begin;
    }
  a->ran = done;
  /* S3 of the driver, on half the launches (seed / 2 even): guest 0 waits
     until everything but its own work-groups is reported, and its report must
     then be the one that finishes the launch.  Only guest 0 waits, so
     nobody waits for a waiter.  */
  if (done > 0 && cfg->seed / 2 % 2 == 0 && a->tid == cfg->threads)
    {
      atomic_fetch_add (&guest_waits, 1);
      while (!wgd_all_but_finished (s->launch, done))
        sched_yield ();
      bool last = wgd_finish (s->launch, done);
      CHECK (last,
             "guest 0 waited for all but its %" PRIu64
             " work-groups, and its wgd_finish was not the last",
             done);
      if (last)
        atomic_fetch_add (&s->finishers, 1);
      return NULL;
    }
  if (done > 0 && wgd_finish (s->launch, done))
    atomic_fetch_add (&s->finishers, 1);
  return NULL;
}

/* What an application thread does before it publishes a launch it ran
   alone (wgd_claim_alone; S1 of the driver): participant a->tid, a guest,
   claims alone one to three times before the other threads start, runs
   all of each range but part of the last, and gives the rest of that one
   back.  */
static unsigned alone_launches;

static void
alone_prelude (shared_run *s, thread_arg *a, unsigned seed)
{
  alone_launches++;
  uint32_t rng = seed * 2246822519u + 1;
  unsigned claims = 1 + xorshift (&rng) % 3;
  for (unsigned c = 0; c < claims; ++c)
    {
      wgd_range r;
      bool more = wgd_claim_alone (s->launch, a->tid, &r, &a->stats);
      a->lasts += r.last;
      if (!more)
        return;
      uint64_t stop = r.end;
      if (c + 1 == claims && r.end - r.begin > 1)
        stop = r.begin + 1 + xorshift (&rng) % (r.end - r.begin - 1);
      for (uint64_t g = r.begin; g < stop; ++g)
        atomic_fetch_add_explicit (&s->seen[g], 1, memory_order_relaxed);
      a->alone += stop - r.begin;
      if (stop < r.end)
        {
          wgd_give_back (s->launch, a->tid, &r, stop, &a->stats);
          CHECK (r.end == stop,
                 "alone: gave back to %" PRIu64 ", want %" PRIu64, r.end,
                 stop);
        }
    }
}

static wgd_launch *
new_launch (unsigned threads, unsigned guests)
{
  size_t bytes = wgd_launch_size_guests (threads, guests);
  bytes = (bytes + WGD_CACHELINE - 1) / WGD_CACHELINE * WGD_CACHELINE;
  wgd_launch *l = aligned_alloc (WGD_CACHELINE, bytes);
  if (l == NULL)
    {
      perror ("aligned_alloc");
      exit (2);
    }
  return l;
}

/* Over every launch with sized claims: ranges given back and claims that
   said to wait (printed: how often real threads took those paths).  */
static uint64_t sized_gave_back, sized_waits, sized_claims, sized_groups;

/* Runs one launch; returns the fraction of groups run on their home
   thread.  */
static double
run_one (const run_config *cfg)
{
  shared_run s;
  memset (&s, 0, sizeof (s));
  s.cfg = cfg;
  s.launch = new_launch (cfg->threads, cfg->guests);
  wgd_launch_init (s.launch, cfg->schedule, cfg->groups, cfg->threads,
                   cfg->threads);
  if (cfg->guests > 0)
    wgd_launch_set_guests (s.launch, cfg->guests);
  if (cfg->budget > 0)
    wgd_launch_set_clock (s.launch, real_clock, NULL, cfg->budget);
  /* Threads, then guests: each claims as participant tid.  */
  const unsigned np = cfg->threads + cfg->guests;
  int nodes[64];
  for (unsigned t = 0; t < cfg->threads; ++t)
    nodes[t] = t < (cfg->threads + 1) / 2 ? 0 : 1;
  if (cfg->two_nodes)
    wgd_launch_set_nodes (s.launch, nodes);
  s.seen = calloc (cfg->groups ? cfg->groups : 1, 1);

  pthread_t th[64 + MAX_GUESTS];
  thread_arg args[64 + MAX_GUESTS];
  memset (args, 0, sizeof (args));
  for (unsigned t = 0; t < np; ++t)
    {
      args[t].s = &s;
      args[t].tid = t;
    }
  if (cfg->guests > 0 && cfg->budget > 0 && cfg->seed % 3 != 0)
    alone_prelude (&s, &args[cfg->threads], cfg->seed);
  for (unsigned t = 0; t < np; ++t)
    {
      if (pthread_create (&th[t], NULL, worker, &args[t]) != 0)
        {
          perror ("pthread_create");
          exit (2);
        }
    }
  while (atomic_load (&s.started) < np)
    sched_yield ();
  atomic_store (&s.go, 1);
  for (unsigned t = 0; t < np; ++t)
    pthread_join (th[t], NULL);

  uint64_t bad = 0, first_bad = 0, total = 0, home = 0, stat_groups = 0;
  unsigned lasts = 0;
  for (uint64_t g = 0; g < cfg->groups; ++g)
    if (s.seen[g] != 1 && bad++ == 0)
      first_bad = g;
  for (unsigned t = 0; t < np; ++t)
    {
      total += args[t].ran;
      home += args[t].ran_home;
      stat_groups += args[t].stats.groups;
      lasts += args[t].lasts;
      if (cfg->budget > 0)
        {
          sized_gave_back += args[t].stats.gave_back;
          sized_waits += args[t].waits;
          sized_claims += args[t].stats.claims;
          sized_groups += args[t].stats.groups;
        }
    }
  CHECK (lasts == (cfg->groups > 0 ? 1u : 0u),
         "%s T=%u G=%" PRIu64 ": %u calls flagged last",
         wgd_schedule_name (cfg->schedule), cfg->threads, cfg->groups, lasts);
  CHECK (bad == 0,
         "%s T=%u G=%" PRIu64 ": %" PRIu64
         " groups not run exactly once (first: %" PRIu64 " ran %u times)",
         wgd_schedule_name (cfg->schedule), cfg->threads, cfg->groups, bad,
         first_bad, bad ? (unsigned)s.seen[first_bad] : 0);
  CHECK (total == cfg->groups && stat_groups == cfg->groups,
         "%s T=%u G=%" PRIu64 ": ran %" PRIu64 ", stats say %" PRIu64,
         wgd_schedule_name (cfg->schedule), cfg->threads, cfg->groups, total,
         stat_groups);
  CHECK (s.finishers == (cfg->groups > 0 ? 1u : 0u),
         "%s T=%u G=%" PRIu64 ": %u finishers",
         wgd_schedule_name (cfg->schedule), cfg->threads, cfg->groups,
         s.finishers);
  CHECK (wgd_unclaimed (s.launch) == 0, "unclaimed count not 0 at the end");
  free (s.seen);
  free (s.launch);
  return cfg->groups ? (double)home / (double)cfg->groups : 1.0;
}

static void
exactly_once_matrix (int quick)
{
  static const unsigned threads_full[] = { 1, 2, 3, 4, 7, 8, 16, 33, 64 };
  static const unsigned threads_quick[] = { 1, 2, 5, 16, 64 };
  static const uint64_t primes[] = { 2, 3, 13, 101, 1009, 65537 };
  const unsigned *threads = quick ? threads_quick : threads_full;
  unsigned nthreads = quick ? 5 : 9;
  unsigned runs = 0;

  for (int sc = 0; sc < WGD_NUM_SCHEDULES; ++sc)
    for (unsigned ti = 0; ti < nthreads; ++ti)
      {
        unsigned T = threads[ti];
        uint64_t sizes[16];
        unsigned n = 0;
        sizes[n++] = 0;
        sizes[n++] = 1;
        if (T > 1)
          sizes[n++] = T - 1;
        sizes[n++] = T;
        sizes[n++] = T + 1;
        for (unsigned p = 0; p < 6; ++p)
          if (!quick || p % 2 == 0)
            sizes[n++] = primes[p];
        sizes[n++] = quick ? 100000 : 1000000;
        for (unsigned i = 0; i < n; ++i)
          {
            uint64_t G = sizes[i];
            /* Guests (0 to MAX_GUESTS) on every other launch.  */
            run_config cfg = { (wgd_schedule)sc,
                               T,
                               G,
                               G <= 2000 ? COST_RANDOM : COST_NONE,
                               (i % 2) ? DELAY_RANDOM : DELAY_NONE,
                               i * 31 + T,
                               0,
                               (int)(i % 3 == 1),
                               (i + T) % 2 ? (i + T) % (MAX_GUESTS + 1) : 0,
                               0 };
            run_one (&cfg);
            ++runs;
            /* Static again with sized claims: budgets of 0.5 and 5 us,
               so that ranges grow past one and are given back.  */
            if (sc == WGD_SCHED_STATIC)
              {
                cfg.budget = i % 2 ? 500 : 5000;
                run_one (&cfg);
                ++runs;
              }
          }
      }
  printf ("exactly-once: %u launches checked; with sized claims, %" PRIu64
          " claims handed out %" PRIu64 " groups, %" PRIu64
          " ranges were given back, %" PRIu64
          " claims said to wait; %u launches began with claims made "
          "alone; %u first claims of more than one work-group came from a "
          "carried cost; in %u launches guest 0 waited to finish last\n",
          runs, sized_claims, sized_groups, sized_gave_back, sized_waits,
          alone_launches, atomic_load (&carried_first_claims),
          atomic_load (&guest_waits));
  CHECK (atomic_load (&guest_waits) > 0,
         "no launch had guest 0 wait to finish last");
  CHECK (alone_launches > 0, "no launch began with claims made alone");
  CHECK (atomic_load (&carried_first_claims) > 0,
         "no first claim was sized from a carried cost");
}

/* Balanced, no delays, threads <= cores: the fraction of work-groups run
   on their home thread, printed.  A thread that is descheduled loses part
   of its block to stealing, as it should, so the figure depends on what
   else the machine runs; test_interleave.c checks the exact values for
   scripted orders (round-robin: all at home).  No yields injected.  */
static void
static_locality (void)
{
  long cores = sysconf (_SC_NPROCESSORS_ONLN);
  unsigned T = cores >= 4 ? 4 : (cores >= 2 ? 2 : 1);
  void (*saved) (wgd_launch *, wgd_yield_point, unsigned) = wgd_yield_hook;
  wgd_yield_hook = NULL;
  run_config cfg = { WGD_SCHED_STATIC,
                     T,
                     20000ull * T,
                     COST_FLAT,
                     DELAY_NONE,
                     17u,
                     5000,
                     0,
                     0,
                     0 };
  double f = run_one (&cfg);
  wgd_yield_hook = saved;
  printf ("static locality, %u threads, balanced: %.4f on home thread "
          "(printed, not asserted)\n",
          T, f);
}

typedef struct
{
  wgd_launch *launch;
  unsigned tid;
  _Atomic int *finished;
  wgd_thread_stats stats;
  uint64_t ran;
  _Atomic unsigned *finishers;
} late_arg;

static void *
late_worker (void *p)
{
  late_arg *a = p;
  wgd_range r;
  uint64_t done = 0;
  while (wgd_claim (a->launch, a->tid, &r, &a->stats))
    done += r.end - r.begin;
  a->ran = done;
  if (done > 0 && wgd_finish (a->launch, done))
    {
      atomic_fetch_add (a->finishers, 1);
      atomic_store (a->finished, 1);
    }
  return NULL;
}

/* Thread L starts only once the others have finished the launch: they
   must have taken its block over whole, and L must find nothing.  */
static void
static_late_thread (void)
{
  const unsigned T = 8, L = 5;
  const uint64_t G = 8000;
  wgd_launch *l = new_launch (T, 0);
  wgd_launch_init (l, WGD_SCHED_STATIC, G, T, T);
  _Atomic int finished = 0;
  _Atomic unsigned finishers = 0;
  pthread_t th[8];
  late_arg args[8];
  memset (args, 0, sizeof (args));
  for (unsigned t = 0; t < T; ++t)
    {
      args[t] = (late_arg){ l, t, &finished, { 0 }, 0, &finishers };
      if (t != L)
        pthread_create (&th[t], NULL, late_worker, &args[t]);
    }
  for (unsigned t = 0; t < T; ++t)
    if (t != L)
      pthread_join (th[t], NULL);
  CHECK (atomic_load (&finished) == 1, "the launch did not finish without L");
  late_worker (&args[L]);
  uint64_t takeovers = 0, total = 0;
  for (unsigned t = 0; t < T; ++t)
    {
      takeovers += args[t].stats.takeovers;
      total += args[t].ran;
    }
  printf ("late thread: %" PRIu64 " takeovers, late thread ran %" PRIu64
          " groups\n",
          takeovers, args[L].ran);
  CHECK (args[L].ran == 0, "the late thread still found %" PRIu64 " groups",
         args[L].ran);
  CHECK (takeovers >= 1, "nobody took the late thread's block over");
  CHECK (total == G && finishers == 1,
         "ran %" PRIu64 " of %" PRIu64 " groups, %u finishers", total, G,
         finishers);
  free (l);
}

typedef struct
{
  wgd_launch *launch;
  unsigned tid;
  wgd_range *ranges;
  unsigned count;
  unsigned cap;
} tile_arg;

static void *
tile_worker (void *p)
{
  tile_arg *a = p;
  wgd_range r;
  while (wgd_claim (a->launch, a->tid, &r, NULL))
    {
      if (a->count == a->cap)
        {
          a->cap = a->cap ? 2 * a->cap : 64;
          a->ranges = realloc (a->ranges, a->cap * sizeof (wgd_range));
        }
      a->ranges[a->count++] = r;
    }
  return NULL;
}

static int
by_begin (const void *x, const void *y)
{
  const wgd_range *a = x, *b = y;
  return a->begin < b->begin ? -1 : a->begin > b->begin;
}

/* Claims (without running anything) a launch of G groups in units capped
   at max_units, and checks that the claimed ranges tile [0, G).  */
static void
tiling (uint64_t G, unsigned T, uint32_t max_units)
{
  wgd_launch *l = new_launch (T, 0);
  wgd_launch_init_units (l, WGD_SCHED_STATIC, G, T, T, max_units);
  pthread_t th[64];
  tile_arg args[64];
  memset (args, 0, sizeof (args));
  for (unsigned t = 0; t < T; ++t)
    {
      args[t].launch = l;
      args[t].tid = t;
      pthread_create (&th[t], NULL, tile_worker, &args[t]);
    }
  unsigned n = 0;
  for (unsigned t = 0; t < T; ++t)
    {
      pthread_join (th[t], NULL);
      n += args[t].count;
    }
  wgd_range *all = malloc ((n ? n : 1) * sizeof (wgd_range));
  unsigned k = 0;
  for (unsigned t = 0; t < T; ++t)
    {
      if (args[t].count > 0)
        memcpy (all + k, args[t].ranges, args[t].count * sizeof (wgd_range));
      k += args[t].count;
      free (args[t].ranges);
    }
  qsort (all, n, sizeof (wgd_range), by_begin);
  uint64_t next = 0;
  int ok = 1;
  for (unsigned i = 0; i < n && ok; ++i)
    {
      if (all[i].begin != next || all[i].end <= all[i].begin)
        ok = 0;
      next = all[i].end;
    }
  CHECK (ok && next == G,
         "G=%" PRIu64 " T=%u units<=%u: claimed ranges do not tile [0, G)", G,
         T, max_units);
  printf ("tiling: G=%" PRIu64 " (grain %" PRIu64 ") over %u threads: %u "
          "ranges\n",
          G, l->grain, T, n);
  free (all);
  free (l);
}

static void
guided_chunk_rule (void)
{
  /* n = 4: 1000 groups are <= 256 n^2 = 4096, so limit = 32 n = 128;
     ceil (1000 / 4) = 250, so the first chunk is 128.  */
  wgd_launch *l = new_launch (4, 0);
  wgd_launch_init (l, WGD_SCHED_GUIDED, 1000, 4, 4);
  wgd_range r;
  CHECK (wgd_claim (l, 0, &r, NULL) && r.begin == 0 && r.end == 128,
         "guided first chunk [%" PRIu64 ", %" PRIu64 "), want [0, 128)",
         r.begin, r.end);
  free (l);
  /* n = 2, 5000 groups > 256 n^2 = 1024: limit 512, ceil (5000 / 2) =
     2500: chunk 512.  Then 4488 left, chunk 512 again.  */
  l = new_launch (2, 0);
  wgd_launch_init (l, WGD_SCHED_GUIDED, 5000, 2, 2);
  CHECK (wgd_claim (l, 0, &r, NULL) && r.end - r.begin == 512,
         "guided chunk %" PRIu64 ", want 512", r.end - r.begin);
  free (l);
  /* n = 8, 5 groups: ceil (5 / 8) = 1 per claim.  */
  l = new_launch (8, 0);
  wgd_launch_init (l, WGD_SCHED_GUIDED, 5, 8, 8);
  CHECK (wgd_claim (l, 3, &r, NULL) && r.begin == 0 && r.end == 1,
         "guided small chunk [%" PRIu64 ", %" PRIu64 ")", r.begin, r.end);
  free (l);
}

static void
static_split (void)
{
  /* 10 groups over 4 threads: blocks 3, 3, 2, 2.  */
  wgd_launch *l = new_launch (4, 0);
  wgd_launch_init (l, WGD_SCHED_STATIC, 10, 4, 4);
  static const unsigned home[10] = { 0, 0, 0, 1, 1, 1, 2, 2, 3, 3 };
  for (unsigned g = 0; g < 10; ++g)
    CHECK (wgd_home_thread (l, g) == home[g], "home of %u is %u, want %u", g,
           wgd_home_thread (l, g), home[g]);
  wgd_range r;
  /* Thread 1 claims its 3 one at a time, from the front.  */
  CHECK (wgd_claim (l, 1, &r, NULL) && r.begin == 3 && r.end == 4,
         "first claim of thread 1 is [%" PRIu64 ", %" PRIu64 ")", r.begin,
         r.end);
  CHECK (wgd_claim (l, 1, &r, NULL) && r.begin == 4 && r.end == 5,
         "second claim of thread 1 is [%" PRIu64 ", %" PRIu64 ")", r.begin,
         r.end);
  free (l);
}

/* Node preference, claimed step by step from one thread: 4 threads on 2
   nodes ({0, 1} and {2, 3}), blocks of 100.  Thread 1 has started, 2 and 3
   have not.  When thread 0 runs out it must steal from thread 1 on its own
   node, not take over the unstarted blocks of the other node; without node
   information it takes over thread 2's block whole.  */
static void
node_preference (void)
{
  static const int nodes[4] = { 0, 0, 1, 1 };
  for (int with_nodes = 1; with_nodes >= 0; --with_nodes)
    {
      wgd_launch *l = new_launch (4, 0);
      wgd_launch_init (l, WGD_SCHED_STATIC, 400, 4, 4);
      if (with_nodes)
        wgd_launch_set_nodes (l, nodes);
      wgd_thread_stats st;
      memset (&st, 0, sizeof (st));
      wgd_range r;
      CHECK (wgd_claim (l, 1, &r, NULL) && r.begin == 100 && r.end == 101,
             "thread 1's first claim is [%" PRIu64 ", %" PRIu64 ")", r.begin,
             r.end);
      do
        CHECK (wgd_claim (l, 0, &r, &st), "thread 0 found nothing");
      while (r.end <= 100);
      if (with_nodes)
        CHECK (r.begin >= 101 && r.end <= 200 && st.steals == 1
                   && st.takeovers == 0 && st.remote == 0,
               "with nodes, thread 0 took [%" PRIu64 ", %" PRIu64 ") (%" PRIu64
               " steals, %" PRIu64 " takeovers, %" PRIu64
               " remote), want a steal from thread 1",
               r.begin, r.end, st.steals, st.takeovers, st.remote);
      else
        CHECK (r.begin == 200 && st.takeovers == 1,
               "without nodes, thread 0 took [%" PRIu64 ", %" PRIu64
               "), want thread 2's block",
               r.begin, r.end);
      printf ("node preference %s: thread 0 went on with [%" PRIu64
              ", %" PRIu64 ")\n",
              with_nodes ? "on" : "off", r.begin, r.end);
      free (l);
    }
}

/* The order in which a guest takes over unstarted blocks: 4 threads that
   never claim, one guest, blocks of 100.  It takes the last thread's
   block first and goes down (the pool wakes threads from the first up),
   or from the block wgd_launch_set_guest_first names; a thread takes its
   neighbours' blocks upwards.  Each takeover hands out the block's first
   unit (claims of one: no clock) and keeps the rest in the guest's word,
   which it drains before it looks further.  */
static void
guest_order (void)
{
  static const unsigned want[3][4]
      = { { 3, 2, 1, 0 }, { 1, 0, 3, 2 }, { 1, 2, 3, 0 } };
  for (unsigned c = 0; c < 3; ++c)
    {
      wgd_launch *l = new_launch (4, 1);
      wgd_launch_init (l, WGD_SCHED_STATIC, 400, 4, 4);
      wgd_launch_set_guests (l, 1);
      if (c == 1)
        wgd_launch_set_guest_first (l, 1);
      /* c == 2: thread 1, not a guest: its own block, then upwards.  */
      const unsigned tid = c == 2 ? 1 : 4;
      unsigned order[5], n = 0;
      wgd_range r;
      wgd_thread_stats st;
      memset (&st, 0, sizeof (st));
      while (wgd_claim (l, tid, &r, &st))
        if (r.begin % 100 == 0 && n < 5)
          order[n++] = (unsigned)(r.begin / 100);
      CHECK (n == 4 && order[0] == want[c][0] && order[1] == want[c][1]
                 && order[2] == want[c][2] && order[3] == want[c][3]
                 && st.takeovers == (c == 2 ? 3u : 4u),
             "%s took blocks %u %u %u %u (%u), %" PRIu64
             " takeovers; want %u %u %u %u",
             c == 0   ? "a guest"
             : c == 1 ? "a guest from block 1"
                      : "thread 1",
             n > 0 ? order[0] : 99, n > 1 ? order[1] : 99,
             n > 2 ? order[2] : 99, n > 3 ? order[3] : 99, n, st.takeovers,
             want[c][0], want[c][1], want[c][2], want[c][3]);
      free (l);
    }
}

/* Past 2^32 work-groups with the default cap on units: grain 2.  Draining
   it would take 2^31 claims, so only the mapping at its ends is checked
   here; tiling() past 2^32 with a coarser grain checks the whole.  */
static void
huge_default_grain (void)
{
  const uint64_t G = (1ull << 32) + 12345;
  const unsigned T = 16;
  wgd_launch *l = new_launch (T, 0);
  wgd_launch_init (l, WGD_SCHED_STATIC, G, T, T);
  CHECK (l->grain == 2 && l->num_units == G / 2 + 1,
         "G=2^32+12345: grain %" PRIu64 ", %u units (want 2, %" PRIu64 ")",
         l->grain, l->num_units, G / 2 + 1);
  CHECK (wgd_home_thread (l, 0) == 0 && wgd_home_thread (l, G - 1) == T - 1,
         "G=2^32+12345: homes of the first and last work-groups %u, %u",
         wgd_home_thread (l, 0), wgd_home_thread (l, G - 1));
  wgd_range r;
  CHECK (wgd_claim (l, T - 1, &r, NULL) && r.end == r.begin + 2
             && wgd_home_thread (l, r.begin) == T - 1
             && wgd_home_thread (l, r.begin - 1) == T - 2,
         "G=2^32+12345: thread %u's first claim [%" PRIu64 ", %" PRIu64 ")",
         T - 1, r.begin, r.end);
  free (l);
}

int
main (int argc, char **argv)
{
  int quick = argc > 1 && strcmp (argv[1], "sanitizer") == 0;
  wgd_yield_hook = random_yield;
  static_split ();
  guided_chunk_rule ();
  node_preference ();
  guest_order ();
  exactly_once_matrix (quick);
  static_locality ();
  static_late_thread ();
  tiling (1000003, 7, 1000);                 /* grain > 1, small */
  tiling ((1ull << 32) + 12345, 16, 100000); /* past 2^32, grain 42950 */
  huge_default_grain ();
  return check_finish ("dispatch");
}
