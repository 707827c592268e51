/* wgd_sim.c - the many-thread simulator; see wgd_sim.h.

   Copyright (c) 2026 pocl-steal developers.  MIT licence, as PoCL.  */

#include "wgd_sim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *
sim_schedule_name (sim_schedule s)
{
  static const char *const names[SIM_NUM_SCHEDULES]
      = { [SIM_STATIC] = "static",
          [SIM_STATIC_ONE] = "static-1",
          [SIM_GUIDED] = "guided",
          [SIM_OMP_STEAL] = "omp-steal" };
  return (unsigned)s < SIM_NUM_SCHEDULES ? names[s] : "?";
}

const char *
sim_profile_name (sim_profile p)
{
  static const char *const names[SIM_NUM_PROFILES] = {
    [SIM_FLAT] = "flat",
    [SIM_LINEAR] = "linear 1..32",
    [SIM_HORIZON] = "horizon band",
    [SIM_FIRST_EIGHTH] = "first eighth 16x",
    [SIM_PERIOD_T] = "period T",
    [SIM_ONE_BLOCK] = "one dear block",
    [SIM_HEAVY_TAIL] = "heavy tail",
    [SIM_JUMP_ONCE] = "jump 1000x once",
    [SIM_JUMP_BLOCKS] = "jump 1000x per block",
    [SIM_JUMP_OFTEN] = "jump 1000x often",
  };
  return (unsigned)p < SIM_NUM_PROFILES ? names[p] : "?";
}

/* A fixed-seed generator, so that "random" profiles are the same on every
   machine (xorshift64*).  */
static uint64_t
next_random (uint64_t *s)
{
  *s ^= *s >> 12;
  *s ^= *s << 25;
  *s ^= *s >> 27;
  return *s * 0x2545F4914F6CDD1DULL;
}

void
sim_costs (sim_profile p, unsigned threads, uint64_t groups, uint64_t *cost)
{
  uint64_t seed = 0x9E3779B97F4A7C15ULL;
  for (uint64_t g = 0; g < groups; ++g)
    {
      uint64_t c = 1;
      switch (p)
        {
        case SIM_FLAT:
          break;
        case SIM_LINEAR:
          c = groups > 1 ? 1 + 31 * g / (groups - 1) : 1;
          break;
        case SIM_HORIZON:
          c = (g >= 2 * groups / 5 && g < 3 * groups / 5) ? 16 : 1;
          break;
        case SIM_FIRST_EIGHTH:
          c = g < groups / 8 ? 16 : 1;
          break;
        case SIM_PERIOD_T:
          /* As the 004 seed article: every T-th item four times dearer.  */
          c = g % threads == 0 ? 4 : 1;
          break;
        case SIM_ONE_BLOCK:
          /* Thread 0's block of the balanced split.  */
          c = g < (groups + threads - 1) / threads ? 16 : 1;
          break;
        case SIM_HEAVY_TAIL:
          {
            /* P(c > x) ~ 1/x from 1 to 64: most groups cheap, a few dear. */
            uint64_t u = next_random (&seed) % 4096 + 1;
            c = 4096 / u;
            if (c > 64)
              c = 64;
            if (c == 0)
              c = 1;
          }
          break;
        case SIM_JUMP_ONCE:
          c = g >= groups * 5 / 8 ? 1000 : 1;
          break;
        case SIM_JUMP_BLOCKS:
          {
            /* The balanced split's block of g: the first r blocks have
               q + 1 groups.  */
            uint64_t q = groups / threads, r = groups % threads;
            uint64_t t
                = g < r * (q + 1) ? g / (q + 1) : r + (g - r * (q + 1)) / q;
            uint64_t b = q * t + (t < r ? t : r);
            uint64_t e = b + q + (t < r);
            c = g >= e - (e - b) / 8 ? 1000 : 1;
          }
          break;
        case SIM_JUMP_OFTEN:
          c = g % 208 >= 200 ? 1000 : 1;
          break;
        default:
          break;
        }
      cost[g] = c;
    }
}

/* The result the count hook adds to (the simulator is single-threaded).  */
static sim_result *counting;

static void
count_op (wgd_launch *l, wgd_op op, unsigned tid)
{
  (void)l;
  (void)tid;
  if (counting != NULL && (unsigned)op < WGD_NUM_OPS)
    counting->ops[op]++;
}

/* The launch's clock: the virtual time of the thread asking.  */
static uint64_t
sim_clock (void *arg, unsigned tid)
{
  return ((const uint64_t *)arg)[tid];
}

/* A model of LLVM OpenMP's static_steal (kmp_dispatch.cpp) for comparison:
   each thread's balanced block is handed out `chunk` groups at a time from
   its front; a thread whose block is empty looks for a victim from the one
   it stole from last, and takes a quarter of the victim's chunks from the
   back (one chunk when 7 or fewer are left), which become its own block.
   Every claim is one RMW on the thread's own pair (libomp's CAS of it),
   every steal one RMW on the victim's, every look at a victim one peek.  */
typedef struct
{
  uint64_t begin, end; /* chunk indices */
  unsigned last_victim;
} omp_thread;

typedef struct
{
  unsigned threads;
  uint64_t groups, chunk, chunks;
  omp_thread t[SIM_MAX_THREADS];
} omp_state;

static void
omp_init (omp_state *s, unsigned threads, uint64_t groups, uint64_t chunk)
{
  s->threads = threads;
  s->groups = groups;
  s->chunk = chunk ? chunk : 1;
  s->chunks = (groups + s->chunk - 1) / s->chunk;
  uint64_t q = s->chunks / threads, r = s->chunks % threads;
  for (unsigned i = 0; i < threads; ++i)
    {
      s->t[i].begin = q * i + (i < r ? i : r);
      s->t[i].end = q * (i + 1) + (i + 1 < r ? i + 1 : r);
      s->t[i].last_victim = (i + 1) % threads;
    }
}

static bool
omp_claim (omp_state *s, unsigned tid, wgd_range *out, sim_result *res,
           bool *stole)
{
  omp_thread *me = &s->t[tid];
  *stole = false;
  out->last = false;
  if (me->begin >= me->end)
    {
      unsigned v = me->last_victim;
      for (unsigned looked = 0; looked < s->threads; ++looked)
        {
          if (v != tid)
            {
              res->ops[WGD_OP_PEEK]++;
              omp_thread *vic = &s->t[v];
              uint64_t left
                  = vic->end > vic->begin ? vic->end - vic->begin : 0;
              if (left > 0)
                {
                  uint64_t take = left > 7 ? left / 4 : 1;
                  res->ops[WGD_OP_RMW_OK]++;
                  vic->end -= take;
                  me->begin = vic->end;
                  me->end = vic->end + take;
                  me->last_victim = v;
                  *stole = true;
                  break;
                }
            }
          v = (v + 1) % s->threads;
        }
      if (!*stole)
        return false;
    }
  res->ops[WGD_OP_OWN_RMW]++;
  uint64_t c = me->begin++;
  out->begin = c * s->chunk;
  out->end
      = out->begin + s->chunk < s->groups ? out->begin + s->chunk : s->groups;
  return true;
}

/* The first time >= t at which thread `tid` is not preempted.  */
static uint64_t
runnable_at (const sim_config *c, unsigned tid, uint64_t t)
{
  bool moved = true;
  while (moved)
    {
      moved = false;
      for (unsigned i = 0; i < c->n_preempt; ++i)
        {
          const sim_preemption *p = &c->preempt[i];
          if (p->thread == tid && t >= p->from && t < p->to)
            {
              t = p->to;
              moved = true;
            }
        }
    }
  return t;
}

/* When a range of `work` time units started at `t` on thread tid ends,
   with the preemptions that fall inside it.  */
static uint64_t
range_end (const sim_config *c, unsigned tid, uint64_t t, uint64_t work)
{
  uint64_t end = t + work;
  for (unsigned i = 0; i < c->n_preempt; ++i)
    {
      const sim_preemption *p = &c->preempt[i];
      if (p->thread == tid && p->from > t && p->from < end)
        end += p->to - p->from;
    }
  return end;
}

/* One simulated thread's range in hand: groups [next, range.end) are
   still to run.  */
typedef struct
{
  wgd_range range;
  uint64_t next;
  bool waiting; /* its last claim said to wait */
} sim_hand;

/* The next thread to step: the lowest clock among active threads; among
   equals one that is not waiting, then the lowest index.  T if none.
   busy_only: among the threads that are not waiting only.  */
static unsigned
pick (unsigned T, const uint64_t *clock, const bool *active, const sim_hand *h,
      bool busy_only)
{
  unsigned t = T;
  for (unsigned i = 0; i < T; ++i)
    if (active[i] && !(busy_only && h[i].waiting)
        && (t == T || clock[i] < clock[t]
            || (clock[i] == clock[t] && h[t].waiting && !h[i].waiting)))
      t = i;
  return t;
}

void
sim_run (const sim_config *c, sim_result *r)
{
  const unsigned T = c->threads;
  uint16_t *runner = r->runner;
  memset (r, 0, sizeof (*r));
  r->runner = runner;
  if (T == 0 || T > SIM_MAX_THREADS)
    {
      fprintf (stderr, "sim_run: %u threads (1 to %u)\n", T, SIM_MAX_THREADS);
      exit (2);
    }

  unsigned char *seen = calloc (c->groups ? c->groups : 1, 1);
  uint64_t *clock = calloc (T, sizeof (uint64_t));
  bool *active = calloc (T, sizeof (bool));
  sim_hand *hand = calloc (T, sizeof (sim_hand));
  wgd_thread_stats *st = calloc (T, sizeof (wgd_thread_stats));
  size_t bytes = wgd_launch_size (T);
  bytes = (bytes + WGD_CACHELINE - 1) / WGD_CACHELINE * WGD_CACHELINE;
  wgd_launch *l = aligned_alloc (WGD_CACHELINE, bytes);
  omp_state *omp
      = c->schedule == SIM_OMP_STEAL ? malloc (sizeof (*omp)) : NULL;
  if (!seen || !clock || !active || !hand || !st || !l
      || (c->schedule == SIM_OMP_STEAL && !omp))
    {
      perror ("sim_run");
      exit (2);
    }

  /* The launch's split is the static one for every schedule, so that home
     fractions compare.  */
  wgd_launch_init (
      l, c->schedule == SIM_GUIDED ? WGD_SCHED_GUIDED : WGD_SCHED_STATIC,
      c->groups, T, T);
  if (c->schedule == SIM_STATIC)
    {
      wgd_launch_set_clock (l, sim_clock, clock,
                            c->budget ? c->budget : SIM_BUDGET);
      for (unsigned t = 0; t < T; ++t)
        wgd_set_group_cost (l, t, c->start_cost);
    }
  if (omp)
    omp_init (omp, T, c->groups, c->omp_chunk);

  for (uint64_t g = 0; g < c->groups; ++g)
    {
      r->sum_cost += c->cost[g];
      if (c->cost[g] > r->max_cost)
        r->max_cost = c->cost[g];
    }
  for (unsigned t = 0; t < T; ++t)
    {
      clock[t] = c->start ? c->start[t] : 0;
      active[t] = true;
    }

  counting = r;
  wgd_count_hook = count_op;
  for (;;)
    {
      unsigned t = pick (T, clock, active, hand, false);
      if (t == T)
        break;
      uint64_t now = runnable_at (c, t, clock[t]);
      if (now != clock[t])
        {
          clock[t] = now; /* preempted: others may go first */
          continue;
        }
      sim_hand *h = &hand[t];

      if (h->next < h->range.end)
        {
          /* A work-group of the range in hand; before each after the
             first, the latch (wg_dispatch.h).  */
          if (h->next > h->range.begin && !omp && wgd_hungry (l))
            {
              wgd_give_back (l, t, &h->range, h->next, &st[t]);
              if (h->next >= h->range.end)
                continue; /* gave back all the rest: claim next */
            }
          uint64_t g = h->next++;
          seen[g]++;
          if (runner)
            runner[g] = (uint16_t)t;
          if (omp && wgd_home_thread (l, g) == t)
            r->home_groups++;
          clock[t] = range_end (c, t, now, c->cost[g]);
          if (clock[t] > r->makespan)
            r->makespan = clock[t];
          continue;
        }

      wgd_range got;
      bool ok, stole = false;
      uint64_t reads = r->ops[WGD_OP_CLOCK];
      if (omp)
        {
          ok = omp_claim (omp, t, &got, r, &stole);
          got.wait = false;
        }
      else
        ok = wgd_claim (l, t, &got, &st[t]);
      r->lasts += got.last; /* set on every return, true or false */
      reads = r->ops[WGD_OP_CLOCK] - reads;
      if (!ok)
        {
          /* With wait, claim again when a thread that is not waiting
             takes its next step (it wins ties); if none is left, nothing
             can change, and the thread leaves.  */
          unsigned other = T;
          if (got.wait)
            {
              active[t] = false;
              other = pick (T, clock, active, hand, true);
              active[t] = true;
            }
          if (other == T)
            active[t] = false;
          else
            {
              h->waiting = true;
              if (clock[other] > clock[t])
                clock[t] = clock[other];
            }
          continue;
        }
      h->waiting = false;
      r->claims++;
      if (stole)
        r->steals++;
      h->range = got;
      h->next = got.begin;
      /* The claim's own cost; a thread preempted meanwhile pays it late.  */
      clock[t] = range_end (c, t, now, c->claim_cost + reads * c->clock_cost);
      if (clock[t] > r->makespan)
        r->makespan = clock[t];
    }
  wgd_count_hook = NULL;
  counting = NULL;
  r->clock_reads = r->ops[WGD_OP_CLOCK];

  for (uint64_t g = 0; g < c->groups; ++g)
    r->wrong += seen[g] != 1;
  if (!omp)
    for (unsigned t = 0; t < T; ++t)
      {
        r->takeovers += st[t].takeovers;
        r->steals += st[t].steals;
        r->gave_back += st[t].gave_back;
        r->home_groups += st[t].home_groups;
      }
  if (omp)
    r->lasts = 1; /* the model has no unclaimed count to flag it */

  free (omp);
  free (l);
  free (st);
  free (hand);
  free (active);
  free (clock);
  free (seen);
}

uint64_t
sim_ideal (const sim_result *r, unsigned threads)
{
  uint64_t ideal = (r->sum_cost + threads - 1) / threads;
  return ideal > r->max_cost ? ideal : r->max_cost;
}

uint64_t
sim_graham_bound (const sim_result *r, unsigned threads, uint64_t claim_cost)
{
  uint64_t work = r->sum_cost + r->claims * claim_cost;
  return (work + threads - 1) / threads + r->max_cost + claim_cost;
}

uint64_t
sim_latch_bound (const sim_result *r, unsigned threads, uint64_t claim_cost,
                 uint64_t clock_cost)
{
  uint64_t work
      = r->sum_cost + r->claims * claim_cost + r->clock_reads * clock_cost;
  return (work + threads - 1) / threads + 2 * r->max_cost + claim_cost
         + clock_cost;
}
