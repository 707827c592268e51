/* test_sim.c - the many-thread simulator (wgd_sim.h) as a test and as a
   table.

   test_sim           checks what must hold at any thread count and prints
                      the table for T = 4, 16, 64, 256
   test_sim --table   prints the table for T = 2 to 256 (make bench)

   The table: 4000 work-groups (as issue 12 measured), every profile, the
   four schedules (static with claims sized by a budget of SIM_BUDGET,
   static with claims of one, as before the sizing, guided, and a model of
   libomp's static_steal); efficiency = ideal makespan / makespan, where ideal
   is the work divided evenly (sum / T, at least the dearest group); claims,
   shared-line read-modify-writes (successful and failed), loads of other
   threads' words (peeks), CASes of a thread's own word, clock reads and
   ranges given back per launch; the fraction of work-groups run by the
   thread whose static block holds them; and whether the makespan is
   within the bound the schedule promises: D1 of wg_dispatch.c for sized
   static (sum / T + 2 max), Graham's (sum / T + max) for the others.

   What is checked, exactly, because the simulation is deterministic:
   every work-group run once under every schedule, profile, thread count,
   start delay and preemption; one call flagged last; the same work-group
   to thread mapping when a launch is repeated; a balanced launch started
   together runs every work-group at home under static; a second run
   gives the same figures; and the bounded worst case (check_bounded),
   with costs per claim and per clock read, on every profile, those whose
   costs jump 1000-fold part-way through included, for T = 2 to 256.

   In detail.  The profiles (wgd_sim.h): flat, linear, horizon band,
   first eighth dear, period T, one dear block, heavy tail, and three
   whose work-groups become 1000 times dearer part-way through (once, at
   the end of every static block, often), which is where sized claims
   need the latch.  A thread that starts after the others are done has
   its work done by them.  check_bounded: for every profile, T = 2 to 256
   and 1,000 to 100,003 work-groups, with and without a cost per claim
   and per clock read, static, with and without a cost per work-group
   carried from an earlier launch of cheap ones (wgd_set_group_cost: the
   first claims are sized for the cheapest work-group, whatever the
   launch's costs; on flat costs they are fewer), ends within D1 (the work and
   dispatch overhead divided evenly, plus twice the dearest work-group, one
   claim and one clock read), and with claims of one (static-1) within Graham's
   bound (plus the dearest work-group once); their shared-line
   read-modify-writes stay within 24 T; and without dispatch overhead
   static-1 is never more than the dearest work-group behind guided.

   Copyright (c) 2026 pocl-steal developers.  MIT licence, as PoCL.  */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "wgd_sim.h"

#define GROUPS 4000

typedef struct
{
  sim_result r;
  uint64_t ideal, bound;
} row;

/* The bound schedule s promises (see the top of this file).  */
static uint64_t
promised (sim_schedule s, const sim_result *r, unsigned T, uint64_t cc,
          uint64_t kc)
{
  return s == SIM_STATIC ? sim_latch_bound (r, T, cc, kc)
                         : sim_graham_bound (r, T, cc);
}

/* One launch.  Costs are profile p's times `scale`, and every claim
   costs claim_cost on top, every clock read clock_cost.  start_cost: the
   cost per work-group the threads' claims start from (sim_config).  */
static void
run_carried (sim_schedule s, sim_profile p, unsigned T, uint64_t groups,
             uint64_t scale, uint64_t claim_cost, uint64_t clock_cost,
             uint64_t start_cost, const uint64_t *start,
             const sim_preemption *pre, unsigned npre, uint16_t *runner,
             row *out)
{
  uint64_t *cost = malloc ((groups ? groups : 1) * sizeof (uint64_t));
  if (cost == NULL)
    exit (2);
  sim_costs (p, T, groups, cost);
  for (uint64_t g = 0; g < groups; ++g)
    cost[g] *= scale;
  sim_config c = { .schedule = s,
                   .threads = T,
                   .groups = groups,
                   .cost = cost,
                   .claim_cost = claim_cost,
                   .start = start,
                   .preempt = pre,
                   .n_preempt = npre,
                   .omp_chunk = 1,
                   .clock_cost = clock_cost,
                   .start_cost = start_cost };
  out->r.runner = runner;
  sim_run (&c, &out->r);
  out->ideal = sim_ideal (&out->r, T);
  out->bound = promised (s, &out->r, T, claim_cost, clock_cost);
  free (cost);
}

static void
run_costed (sim_schedule s, sim_profile p, unsigned T, uint64_t groups,
            uint64_t scale, uint64_t claim_cost, uint64_t clock_cost,
            const uint64_t *start, const sim_preemption *pre, unsigned npre,
            uint16_t *runner, row *out)
{
  run_carried (s, p, T, groups, scale, claim_cost, clock_cost, 0, start, pre,
               npre, runner, out);
}

static void
run_one (sim_schedule s, sim_profile p, unsigned T, uint64_t groups,
         const uint64_t *start, const sim_preemption *pre, unsigned npre,
         uint16_t *runner, row *out)
{
  run_costed (s, p, T, groups, 1, 0, 0, start, pre, npre, runner, out);
}

static void
print_table (const unsigned *Ts, unsigned nT)
{
  printf ("| profile | T | schedule | efficiency | claims | shared RMW "
          "(ok/failed) | peeks | own-word CAS | clock reads | given back "
          "| home | within its bound |\n");
  printf ("|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (unsigned p = 0; p < SIM_NUM_PROFILES; ++p)
    for (unsigned i = 0; i < nT; ++i)
      for (unsigned s = 0; s < SIM_NUM_SCHEDULES; ++s)
        {
          row x;
          run_one (s, p, Ts[i], GROUPS, NULL, NULL, 0, NULL, &x);
          printf ("| %s | %u | %s | %.1f%% | %" PRIu64 " | %" PRIu64
                  "/%" PRIu64 " | %" PRIu64 " | %" PRIu64 " | %" PRIu64
                  " | %" PRIu64 " | %.1f%% | %s |\n",
                  sim_profile_name (p), Ts[i], sim_schedule_name (s),
                  100.0 * x.ideal / x.r.makespan, x.r.claims,
                  x.r.ops[WGD_OP_RMW_OK], x.r.ops[WGD_OP_RMW_FAIL],
                  x.r.ops[WGD_OP_PEEK], x.r.ops[WGD_OP_OWN_RMW],
                  x.r.clock_reads, x.r.gave_back,
                  100.0 * x.r.home_groups / GROUPS,
                  x.r.makespan <= x.bound ? "yes" : "no");
        }
}

/* Every schedule, profile and thread count: exactly once, one last claim,
   the same figures twice.  */
static void
check_exactly_once (void)
{
  static const unsigned Ts[] = { 1, 2, 3, 4, 7, 16, 64, 255, 256 };
  static const uint64_t Gs[] = { 1, 5, 63, 4000 };
  for (unsigned s = 0; s < SIM_NUM_SCHEDULES; ++s)
    for (unsigned p = 0; p < SIM_NUM_PROFILES; ++p)
      for (unsigned i = 0; i < sizeof (Ts) / sizeof (Ts[0]); ++i)
        for (unsigned j = 0; j < sizeof (Gs) / sizeof (Gs[0]); ++j)
          {
            row a, b;
            run_one (s, p, Ts[i], Gs[j], NULL, NULL, 0, NULL, &a);
            run_one (s, p, Ts[i], Gs[j], NULL, NULL, 0, NULL, &b);
            CHECK (a.r.wrong == 0,
                   "%s %s T=%u G=%" PRIu64 ": %" PRIu64
                   " groups not run exactly once",
                   sim_schedule_name (s), sim_profile_name (p), Ts[i], Gs[j],
                   a.r.wrong);
            CHECK (a.r.lasts == 1,
                   "%s %s T=%u G=%" PRIu64 ": %u claims flagged last",
                   sim_schedule_name (s), sim_profile_name (p), Ts[i], Gs[j],
                   a.r.lasts);
            CHECK (a.r.makespan == b.r.makespan && a.r.claims == b.r.claims
                       && memcmp (a.r.ops, b.r.ops, sizeof (a.r.ops)) == 0,
                   "%s %s T=%u G=%" PRIu64 ": two runs differ",
                   sim_schedule_name (s), sim_profile_name (p), Ts[i], Gs[j]);
            CHECK (a.r.makespan >= a.ideal,
                   "%s %s T=%u: makespan %" PRIu64 " below the ideal %" PRIu64,
                   sim_schedule_name (s), sim_profile_name (p), Ts[i],
                   a.r.makespan, a.ideal);
          }
}

/* Late starters and preempted threads: still exactly once, and the work
   of a thread that starts after everybody else has finished is done by
   the others (a preempted thread keeps what it claimed: no schedule can
   take that back).  */
static void
check_delays_and_preemption (void)
{
  enum
  {
    T = 16
  };
  uint64_t start[T] = { 0 };
  /* Starts after everybody else is done, on every profile.  */
  const uint64_t late = 100000000;
  start[3] = late;
  start[7] = 50;
  sim_preemption pre[] = { { 0, 10, 400 }, { 5, 1, 2000 }, { 9, 30, 31 } };
  for (unsigned s = 0; s < SIM_NUM_SCHEDULES; ++s)
    for (unsigned p = 0; p < SIM_NUM_PROFILES; ++p)
      {
        row x;
        run_one (s, p, T, GROUPS, start, pre, 3, NULL, &x);
        CHECK (x.r.wrong == 0, "%s %s, delays: %" PRIu64 " groups wrong",
               sim_schedule_name (s), sim_profile_name (p), x.r.wrong);
        CHECK (x.r.makespan < late,
               "%s %s: makespan %" PRIu64
               " waited for the thread that starts late",
               sim_schedule_name (s), sim_profile_name (p), x.r.makespan);
      }
}

/* Balanced launches started together: under static every work-group runs
   at home, with no steal or takeover, and a repeated launch runs every
   work-group on the same thread.  */
static void
check_locality (void)
{
  static const unsigned Ts[] = { 2, 4, 16, 64, 256 };
  for (unsigned i = 0; i < sizeof (Ts) / sizeof (Ts[0]); ++i)
    {
      unsigned T = Ts[i];
      uint64_t G = 64 * (uint64_t)T;
      uint16_t *r1 = malloc (G * sizeof (uint16_t));
      uint16_t *r2 = malloc (G * sizeof (uint16_t));
      for (int s = SIM_STATIC; s <= SIM_STATIC_ONE; ++s)
        {
          row a, b;
          const char *n = sim_schedule_name (s);
          run_one (s, SIM_FLAT, T, G, NULL, NULL, 0, r1, &a);
          run_one (s, SIM_FLAT, T, G, NULL, NULL, 0, r2, &b);
          CHECK (a.r.home_groups == G,
                 "%s flat T=%u: %" PRIu64 " of %" PRIu64 " groups at home", n,
                 T, a.r.home_groups, G);
          CHECK (a.r.steals == 0 && a.r.takeovers == 0,
                 "%s flat T=%u: %" PRIu64 " steals, %" PRIu64 " takeovers", n,
                 T, a.r.steals, a.r.takeovers);
          CHECK (memcmp (r1, r2, G * sizeof (uint16_t)) == 0,
                 "%s flat T=%u: a repeated launch ran groups elsewhere", n, T);
        }
      free (r1);
      free (r2);
    }
}

/* The bounded worst case, for every profile and thread count, with and
   without dispatch overhead: static ends within D1 of wg_dispatch.c with
   sized claims, and within Graham's bound with claims of one (see
   sim_latch_bound and sim_graham_bound for why those are theorems of the
   protocol, not luck), and its shared-line read-modify-writes stay
   O(T).  */
static void
check_bounded (void)
{
  static const unsigned Ts[] = { 2, 3, 4, 8, 16, 32, 64, 128, 255, 256 };
  static const uint64_t Gs[] = { 4000, 1000, 100003 };
  for (unsigned p = 0; p < SIM_NUM_PROFILES; ++p)
    for (unsigned i = 0; i < sizeof (Ts) / sizeof (Ts[0]); ++i)
      for (unsigned j = 0; j < sizeof (Gs) / sizeof (Gs[0]); ++j)
        for (unsigned over = 0; over < 2; ++over)
          {
            unsigned T = Ts[i];
            row st[2], gu;
            /* over: costs times 8, one unit per claim and per clock
               read.  */
            uint64_t scale = over ? 8 : 1, cc = over ? 1 : 0;
            run_costed (SIM_GUIDED, p, T, Gs[j], scale, cc, cc, NULL, NULL, 0,
                        NULL, &gu);
            /* The third run: static, its claims starting from the cost
               of the cheapest work-group, as carried from an earlier
               launch of cheap ones (wgd_set_group_cost), on profiles
               whose work-groups are dear where its first claims are.  */
            row carried;
            for (int s = SIM_STATIC; s <= SIM_STATIC_ONE + 1; ++s)
              {
                bool carry = s > SIM_STATIC_ONE;
                row *x = carry ? &carried : &st[s - SIM_STATIC];
                const char *n
                    = carry ? "static, carried cost" : sim_schedule_name (s);
                run_carried (carry ? SIM_STATIC : s, p, T, Gs[j], scale, cc,
                             cc, carry ? scale << WGD_COST_SHIFT : 0, NULL,
                             NULL, 0, NULL, x);
                CHECK (x->r.wrong == 0 && x->r.lasts == 1,
                       "%s %s T=%u G=%" PRIu64 ": %" PRIu64
                       " groups wrong, %u lasts",
                       n, sim_profile_name (p), T, Gs[j], x->r.wrong,
                       x->r.lasts);
                CHECK (x->r.makespan <= x->bound,
                       "%s %s T=%u G=%" PRIu64 " claim cost %" PRIu64
                       ": makespan %" PRIu64 " above its bound %" PRIu64,
                       n, sim_profile_name (p), T, Gs[j], cc, x->r.makespan,
                       x->bound);
                uint64_t shared
                    = x->r.ops[WGD_OP_RMW_OK] + x->r.ops[WGD_OP_RMW_FAIL];
                /* 24 T: sized claims steal a little more than claims of
                   one on the jump profiles (16.9 T at T = 256, G = 100003,
                   jump often), since what a holder holds is not in its
                   word.  */
                CHECK (shared <= 24 * (uint64_t)T,
                       "%s %s T=%u G=%" PRIu64 ": %" PRIu64
                       " shared-line read-modify-writes, above 24 T",
                       n, sim_profile_name (p), T, Gs[j], shared);
              }
            /* The carried cost is used: on flat costs of 1, in blocks big
               enough that the first claim is of 16 units or more (half
               the budget, an eighth of the block), the ramp from one unit
               is skipped, so there are fewer claims.  */
            if (p == SIM_FLAT && !over && Gs[j] / T >= 8 * WGD_UNTIMED_UNITS)
              CHECK (carried.r.claims < st[0].r.claims,
                     "flat T=%u G=%" PRIu64 ": %" PRIu64
                     " claims with a carried cost, %" PRIu64 " without",
                     T, Gs[j], carried.r.claims, st[0].r.claims);
            /* Without dispatch overhead: claims of one are never behind
               guided by more than the dearest work-group.  Exactly "never
               behind" cannot hold for a schedule that does not know the
               costs: on some profiles guided's chunks happen to end
               together (e.g. first eighth at T=4: 2875, the ideal, against
               static's 2882).  With overhead, static-1 pays one claim per
               work-group and guided one per chunk, so only the bound above
               applies.  */
            if (cc == 0)
              CHECK (st[1].r.makespan <= gu.r.makespan + st[1].r.max_cost,
                     "static-1 %s T=%u G=%" PRIu64 ": makespan %" PRIu64
                     ", guided %" PRIu64 ", more than the dearest "
                     "work-group (%" PRIu64 ") behind",
                     sim_profile_name (p), T, Gs[j], st[1].r.makespan,
                     gu.r.makespan, st[1].r.max_cost);
          }
}

int
main (int argc, char **argv)
{
  if (argc > 1 && strcmp (argv[1], "--table") == 0)
    {
      static const unsigned Ts[] = { 2, 4, 8, 16, 32, 64, 128, 256 };
      print_table (Ts, sizeof (Ts) / sizeof (Ts[0]));
      return 0;
    }
  check_exactly_once ();
  check_delays_and_preemption ();
  check_locality ();
  check_bounded ();
  static const unsigned Ts[] = { 4, 16, 64, 256 };
  print_table (Ts, sizeof (Ts) / sizeof (Ts[0]));
  return check_finish ("sim");
}
