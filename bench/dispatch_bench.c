/* dispatch_bench.c - the dispatch module alone, without PoCL: how many
   claims per second, and what a launch costs, for the schemes a CPU
   thread pool can use to hand out work-groups:
     static   wg_dispatch.c's static blocks with stealing (ours);
     guided   wg_dispatch.c's guided rule, lock-free (ours);
     mutex    PoCL's previous dispenser: the guided rule under a mutex;
     atomic   one shared counter, one work-group per fetch-and-add.
   T threads (the caller included) run L launches of G empty work-groups,
   meeting at a barrier before each; per scheme the time per launch (the
   barrier included, the same for all), the time the calling thread spends
   claiming until nothing is left (the dispatch overhead of a launch), and
   the claims per second, medians over rounds in which the schemes take
   turns.

   Usage: dispatch_bench --threads T --groups G [--launches L]

   Copyright (c) 2026 pocl-steal developers.  MIT licence, as PoCL.  */

#define _GNU_SOURCE

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "bench_util.h"
#include "wg_dispatch.h"

typedef struct
{
  pthread_mutex_t lock;
  uint64_t remaining, dealt;
  unsigned n;
} mutex_dispenser;

static bool
mutex_claim (mutex_dispenser *d, uint64_t *b, uint64_t *e)
{
  pthread_mutex_lock (&d->lock);
  if (d->remaining == 0)
    {
      pthread_mutex_unlock (&d->lock);
      return false;
    }
  uint64_t limit
      = d->remaining <= 256ull * d->n * d->n ? 32ull * d->n : 256ull * d->n;
  uint64_t per = (d->remaining + d->n - 1) / d->n;
  uint64_t c = limit < per ? limit : per;
  if (c > d->remaining)
    c = d->remaining;
  *b = d->dealt;
  *e = d->dealt + c;
  d->dealt += c;
  d->remaining -= c;
  pthread_mutex_unlock (&d->lock);
  return true;
}

enum scheme
{
  S_STATIC,
  S_GUIDED,
  S_MUTEX,
  S_ATOMIC,
  S_COUNT
};
static const char *scheme_name[S_COUNT]
    = { "static", "guided", "mutex", "atomic" };

static unsigned T;
static uint64_t G;
static int L;
static enum scheme scheme;
static pthread_barrier_t start, done;
static wgd_launch *launch;
static mutex_dispenser md;
static _Atomic uint64_t counter;
static _Atomic uint64_t claims;
static _Atomic uint64_t steals; /* takeovers and half-steals (static) */
static volatile uint64_t sink;

static void
drain (unsigned tid)
{
  uint64_t mine = 0, sum = 0;
  wgd_range r;
  wgd_thread_stats st;
  memset (&st, 0, sizeof (st));
  uint64_t b, e;
  switch (scheme)
    {
    case S_STATIC:
    case S_GUIDED:
      while (wgd_claim (launch, tid, &r, &st))
        {
          mine++;
          sum += r.end - r.begin;
        }
      atomic_fetch_add_explicit (&steals, st.takeovers + st.steals,
                                 memory_order_relaxed);
      break;
    case S_MUTEX:
      while (mutex_claim (&md, &b, &e))
        {
          mine++;
          sum += e - b;
        }
      break;
    default:
      while (atomic_fetch_add_explicit (&counter, 1, memory_order_relaxed) < G)
        {
          mine++;
          sum++;
        }
      break;
    }
  sink = sum;
  atomic_fetch_add_explicit (&claims, mine, memory_order_relaxed);
}

/* Rounds of all schemes in turn (alternated, so that drifts of the
   machine hit every scheme alike); the first round warms up.  */
#define ROUNDS 6

static void *
worker (void *p)
{
  unsigned tid = (unsigned)(uintptr_t)p;
  for (int r = 0; r < ROUNDS; ++r)
    for (int s = 0; s < S_COUNT; ++s)
      for (int l = 0; l < L; ++l)
        {
          pthread_barrier_wait (&start);
          drain (tid);
          pthread_barrier_wait (&done);
        }
  return NULL;
}

static void
prepare (void)
{
  switch (scheme)
    {
    case S_STATIC:
    case S_GUIDED:
      wgd_launch_init (
          launch, scheme == S_STATIC ? WGD_SCHED_STATIC : WGD_SCHED_GUIDED, G,
          T, T);
      break;
    case S_MUTEX:
      md.remaining = G;
      md.dealt = 0;
      md.n = T;
      break;
    default:
      atomic_store (&counter, 0);
      break;
    }
}

int
main (int argc, char **argv)
{
  T = 2;
  G = 1024;
  L = 200;
  for (int i = 1; i < argc; ++i)
    {
      if (!strcmp (argv[i], "--threads") && i + 1 < argc)
        T = (unsigned)atoi (argv[++i]);
      else if (!strcmp (argv[i], "--groups") && i + 1 < argc)
        G = strtoull (argv[++i], NULL, 10);
      else if (!strcmp (argv[i], "--launches") && i + 1 < argc)
        L = atoi (argv[++i]);
      else
        {
          fprintf (stderr, "usage: %s --threads T --groups G [--launches L]\n",
                   argv[0]);
          return 2;
        }
    }
  if (T < 1 || T > 256 || G < 1 || L < 1)
    return 2;
  size_t bytes = (wgd_launch_size (T) + WGD_CACHELINE - 1) / WGD_CACHELINE
                 * WGD_CACHELINE;
  launch = aligned_alloc (WGD_CACHELINE, bytes);
  pthread_mutex_init (&md.lock, NULL);
  pthread_barrier_init (&start, NULL, T);
  pthread_barrier_init (&done, NULL, T);
  pthread_t th[256];
  for (unsigned t = 1; t < T; ++t)
    pthread_create (&th[t], NULL, worker, (void *)(uintptr_t)t);
  double per_launch[S_COUNT][ROUNDS], rate[S_COUNT][ROUNDS];
  double claiming[S_COUNT][ROUNDS];
  double claims_per_launch[S_COUNT], steals_per_launch[S_COUNT];
  for (int r = 0; r < ROUNDS; ++r)
    for (int s = 0; s < S_COUNT; ++s)
      {
        scheme = (enum scheme)s;
        atomic_store (&claims, 0);
        atomic_store (&steals, 0);
        double busy = 0;
        double t0 = bench_now_us ();
        for (int l = 0; l < L; ++l)
          {
            prepare ();
            pthread_barrier_wait (&start);
            double d0 = bench_now_us ();
            drain (0);
            busy += bench_now_us () - d0;
            pthread_barrier_wait (&done);
          }
        uint64_t c = atomic_load (&claims);
        per_launch[s][r] = (bench_now_us () - t0) / L;
        /* claims by all threads over the caller's time spent claiming */
        rate[s][r] = c / (busy > 0 ? busy : 1);
        claiming[s][r] = busy / L;
        claims_per_launch[s] = (double)c / L;
        steals_per_launch[s] = (double)atomic_load (&steals) / L;
      }
  for (int s = 0; s < S_COUNT; ++s)
    printf ("scheme=%s threads=%u groups=%llu launches=%d "
            "us_per_launch=%.3f claim_us_per_launch=%.3f "
            "claims_per_launch=%.1f steals_per_launch=%.1f "
            "mclaims_per_s=%.3f\n",
            scheme_name[s], T, (unsigned long long)G, L,
            bench_median (per_launch[s] + 1, ROUNDS - 1),
            bench_median (claiming[s] + 1, ROUNDS - 1), claims_per_launch[s],
            steals_per_launch[s], bench_median (rate[s] + 1, ROUNDS - 1));
  for (unsigned t = 1; t < T; ++t)
    pthread_join (th[t], NULL);
  free (launch);
  return 0;
}
