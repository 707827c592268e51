/* wgd_sim.h - a deterministic many-thread simulator of one kernel launch:
   the real dispatch module (driver/wg_dispatch.c) driven from one OS
   thread in virtual time.

   T simulated threads each have a clock.  The thread whose clock is
   lowest (among equals, one that is not waiting, then the lowest index)
   takes its next step: it runs the next work-group of the range it holds,
   advancing its clock by the group's cost, or, before a group after its
   range's first, gives the rest of the range back when the hunger latch
   is set (wgd_give_back), or, holding nothing, claims.  A claim is
   instantaneous, and costs `claim_cost`, plus `clock_cost` per read of
   the launch's clock, which reads the thread's own clock.  A thread whose
   claim fails has left the launch, unless the claim said to wait
   (wgd_range.wait): then it claims again at the next time another thread
   takes a step.  Because the dispatcher keeps no state
   outside the launch, this sequential order is one of the interleavings
   real threads could produce, so every figure is exact and repeatable:
   makespan, claims, the launch's shared-line atomic operations (counted
   by wg_dispatch.c's WGD_COUNT hook), and which thread ran each
   work-group.

   Costs are known to the simulator only: the dispatcher learns nothing of
   them, as in a real launch.  Start delays hold a thread back at the
   beginning; a preemption stops one thread during [from, to) of virtual
   time (a range it is running then ends that much later).

   Copyright (c) 2026 pocl-steal developers.  MIT licence, as PoCL.  */

#ifndef POCL_STEAL_WGD_SIM_H
#define POCL_STEAL_WGD_SIM_H

#include <stdbool.h>
#include <stdint.h>

#include "wg_dispatch.h"

#define SIM_MAX_THREADS 256

/* The schedules the simulator runs: the driver's two, and a model of
   LLVM OpenMP's static_steal with a fixed chunk, for comparison.  */
typedef enum
{
  SIM_STATIC,     /* wg_dispatch.c, static, claims sized by `budget` */
  SIM_STATIC_ONE, /* the same with claims of one unit (no clock) */
  SIM_GUIDED,     /* wg_dispatch.c, guided (n = T) */
  SIM_OMP_STEAL,  /* libomp-style: own block in chunks, steal a quarter */
  SIM_NUM_SCHEDULES
} sim_schedule;

/* Per-work-group cost profiles.  */
typedef enum
{
  SIM_FLAT,         /* every group costs 1 */
  SIM_LINEAR,       /* a ramp from 1 to 32 over the range */
  SIM_HORIZON,      /* the middle fifth 16 times dearer */
  SIM_FIRST_EIGHTH, /* the first eighth 16 times dearer */
  SIM_PERIOD_T,     /* every T-th group 16 times dearer */
  SIM_ONE_BLOCK,    /* thread 0's static block 16 times dearer */
  SIM_HEAVY_TAIL,   /* random, Pareto-like (fixed seed) */
  SIM_JUMP_ONCE,    /* 1, then 1000 from 5/8 of the range on */
  SIM_JUMP_BLOCKS,  /* 1, then 1000 in the last eighth of every thread's
                       static block */
  SIM_JUMP_OFTEN,   /* 1 for 200 groups, then 1000 for 8, over and over */
  SIM_NUM_PROFILES
} sim_profile;

typedef struct
{
  unsigned thread;
  uint64_t from, to;
} sim_preemption;

typedef struct
{
  sim_schedule schedule;
  unsigned threads;
  uint64_t groups;
  const uint64_t *cost;          /* groups entries */
  uint64_t claim_cost;           /* virtual time per claim */
  const uint64_t *start;         /* per-thread start delay, or NULL */
  const sim_preemption *preempt; /* n_preempt of them, or NULL */
  unsigned n_preempt;
  unsigned omp_chunk;  /* SIM_OMP_STEAL's chunk, 1 if 0 */
  uint64_t budget;     /* SIM_STATIC's claim budget; SIM_BUDGET if 0 */
  uint64_t clock_cost; /* virtual time per read of the launch's clock */
  /* SIM_STATIC: a cost per work-group carried from an earlier launch
     (wgd_set_group_cost, times 2^WGD_COST_SHIFT) that every thread's
     claims start from; 0: from one unit.  */
  uint64_t start_cost;
} sim_config;

/* SIM_STATIC's default budget, in units of the cheapest work-group.  */
#define SIM_BUDGET 64

typedef struct
{
  uint64_t makespan;
  uint64_t sum_cost, max_cost;
  uint64_t claims, takeovers, steals, gave_back;
  uint64_t clock_reads;
  uint64_t ops[WGD_NUM_OPS]; /* shared-line atomic operations */
  uint64_t home_groups;      /* run by the thread whose block holds them */
  uint64_t wrong;            /* groups not run exactly once */
  unsigned lasts;            /* claims flagged last */
  uint16_t *runner;          /* groups entries: the thread that ran it */
} sim_result;

const char *sim_schedule_name (sim_schedule s);
const char *sim_profile_name (sim_profile p);

/* Fills cost[0..groups) for profile p at T threads.  */
void sim_costs (sim_profile p, unsigned threads, uint64_t groups,
                uint64_t *cost);

/* Runs one launch.  r->runner must hold c->groups entries (or be NULL).  */
void sim_run (const sim_config *c, sim_result *r);

/* Graham's bound for list scheduling, with the dispatch overhead counted
   as work: (sum + claims * claim_cost) / T, rounded up, + the dearest
   work-group + one claim.  A schedule in which no thread leaves while
   anything is unclaimed, and no thread holds more than one work-group
   that others cannot take, ends within it: when the first thread leaves,
   every thread was busy until then, and each has at most one work-group
   (and its claim) still to run.  SIM_STATIC_ONE is such a schedule.  */
uint64_t sim_graham_bound (const sim_result *r, unsigned threads,
                           uint64_t claim_cost);

/* D1 of wg_dispatch.c, the bound of SIM_STATIC: (sum + claims *
   claim_cost + clock reads * clock_cost) / T, rounded up, + twice the
   dearest work-group + one claim and one clock read.  The second dearest
   group is what a holder may still run after the latch is set, while
   threads that found nothing wait.  */
uint64_t sim_latch_bound (const sim_result *r, unsigned threads,
                          uint64_t claim_cost, uint64_t clock_cost);

/* The ideal makespan, sum / T rounded up (never below the dearest
   group).  */
uint64_t sim_ideal (const sim_result *r, unsigned threads);

#endif /* POCL_STEAL_WGD_SIM_H */
