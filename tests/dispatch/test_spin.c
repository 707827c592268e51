/* test_spin.c - the spin rules B1-B8 of driver/pthread_spin.h, with a
   scripted clock, from one thread, so that nothing depends on how the
   machine schedules this test:
     - B1: no spin calls sched_yield (this file defines sched_yield, which
       the driver's calls would reach, and counts them);
     - B2: a gap between two readings of the clock above PT_SPIN_JUMP_NS
       ends the spin as preempted, wherever it comes; gaps at the limit do
       not; a clock going backwards is no jump and no expiry;
     - the spin ends when the counter changes (at the first look after
       the change) or when its time is up, not before, and the clock is
       read often enough to stop it within a reading of that;
     - B3: a spin that caught the change, or a wait that a spin of max_ns
       would have caught, doubles the budget up to max_ns; a preempted
       spin, or a wait longer than PT_SPIN_IDLE_WAITS spins of max_ns,
       halves it down to PT_SPIN_MIN_NS; waits in between keep it;
       spinning off (max 0) stays off;
     - B4: when the spinner woke a thread that slept on the spinner's CPU,
       a woken thread waiting for more than PT_SPIN_GIVE_WAY_NS ends the
       spin (gave way); one that runs sooner does not, nor one the
       spinner did not wake (the note is consumed by one spin), nor one
       that slept on another CPU or an unknown one; giving way leaves the
       budget as it was;
     - B5: a spinner waiting for the workers ends its spin once, for
       PT_SPIN_CROWD_NS, the busy workers and it have outnumbered the
       CPUs, not when they have not, and a grace never does;
     - B6: an idle worker ends its spin at once when the busy workers, the
       idle spinners ahead of it, itself and one application thread
       (unless one is counted busy) outnumber the CPUs; B5 and B6 leave
       the budget as it was;
     - B7: a thread that finds nothing while others hold ranges may wait
       for their rest while the busy workers are no more than the CPUs,
       and not once they outnumber them; without counts it may; nor, by
       B8, while another busy worker is counted on its CPU; its wait
       (pt_hunger_wait) ends when it is ready, when its time is up, at a
       jump of the clock (B2) and when B7 or B8 says so, at the reading
       where each happens, and a clock going back ends nothing;
     - B8: a busy worker counted on the spinner's CPU for more than
       PT_SPIN_GIVE_WAY_NS ends the spin of an application thread and of
       an idle worker (gave way); one counted for less does not, nor one
       on another CPU, nor any during a grace.
   Why: the driver's waiters used to yield to other programs between
   looks, so every launch on a busy machine waited out a time slice
   (issue 31: 4-5 ms per launch beside two busy loops).

   Copyright (c) 2026 pocl-steal developers.  MIT licence, as PoCL.  */

#define _GNU_SOURCE

#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>

#include "../check.h"
#include "pthread_spin.h"

/* B1: every sched_yield of the process comes here.  */
static unsigned yields;

int
sched_yield (void)
{
  ++yields;
  return 0;
}

/* A scripted clock: reading n (from 1) is base + n * step, plus `jump`
   from reading jump_at on (0: never); `back` makes reading back_at go
   back by that much.  At reading change_at (0: never) it bumps the
   counter, as another thread's push would.  */
typedef struct
{
  uint64_t base, step;
  unsigned readings;
  unsigned jump_at;
  uint64_t jump;
  unsigned back_at;
  uint64_t back;
  unsigned change_at;
  _Atomic uint64_t *counter;
  /* The woken count (B4): 1 from reading woken_at to woken_until - 1
     (0: never); the spinner runs on CPU 3, and the thread it woke before
     its spin slept on CPU woke_cpu (-1: it woke none, or that CPU is
     unknown).  */
  unsigned woken_at, woken_until;
  int woke_cpu;
  pt_wake_hint hint;
  /* B5, B6: the spinner's role (0, PT_SPIN_GRACE, follows neither; the
     others need hint.cpus); hint.busy becomes busy_to at reading busy_at
     (0: never).  */
  pt_spin_role role;
  unsigned busy_at, busy_to;
  /* B8: from reading here_at to here_until - 1 (0: never), one busy
     worker, counted on CPU SPINNER_CPU + here_off.  */
  unsigned here_at, here_until, here_off;
  pt_cpu_busy busy_on[8];
} script;

#define SPINNER_CPU 3

static int
script_cpu (void *arg)
{
  (void)arg;
  return SPINNER_CPU;
}

static uint64_t
script_now (void *arg)
{
  script *s = arg;
  unsigned n = ++s->readings;
  uint64_t t = s->base + (uint64_t)n * s->step;
  if (s->jump_at != 0 && n >= s->jump_at)
    t += s->jump;
  if (s->back_at != 0 && n == s->back_at)
    t -= s->back;
  if (s->change_at != 0 && n == s->change_at)
    atomic_fetch_add (s->counter, 1);
  if (s->woken_at != 0 && n == s->woken_at)
    atomic_store (&s->hint.woken, 1);
  if (s->woken_until != 0 && n == s->woken_until)
    atomic_store (&s->hint.woken, 0);
  if (s->busy_at != 0 && n == s->busy_at)
    atomic_store (&s->hint.busy, s->busy_to);
  if (s->here_at != 0 && n == s->here_at)
    {
      atomic_store (&s->hint.busy, 1);
      atomic_store (&s->busy_on[SPINNER_CPU + s->here_off].n, 1);
    }
  if (s->here_until != 0 && n == s->here_until)
    {
      atomic_store (&s->hint.busy, 0);
      atomic_store (&s->busy_on[SPINNER_CPU + s->here_off].n, 0);
    }
  return t;
}

static pt_spin_end
watch (script *s, uint64_t ns, uint64_t *start)
{
  static _Atomic uint64_t counter;
  atomic_store (&counter, 7);
  s->counter = &counter;
  s->hint.busy_on = s->busy_on;
  s->hint.busy_on_len = sizeof s->busy_on / sizeof s->busy_on[0];
  pt_spin_woke (s->woke_cpu);
  return pt_spin_watch (&counter, 7, ns,
                        (pt_clock){ script_now, script_cpu, s }, start,
                        &s->hint, s->role);
}

static const char *
name_of (pt_spin_end e)
{
  return e == PT_SPIN_CHANGED     ? "changed"
         : e == PT_SPIN_EXPIRED   ? "expired"
         : e == PT_SPIN_PREEMPTED ? "preempted"
         : e == PT_SPIN_GAVE_WAY  ? "gave way"
                                  : "crowded";
}

/* B2, and when a spin ends.  */
static void
spins (void)
{
  uint64_t start;
  /* A steady clock, a microsecond a reading: it expires once 50 us are
     up, at the first reading at or past it (reading 1 is the start).  */
  script s = { .base = 1000000, .step = 1000 };
  pt_spin_end e = watch (&s, 50000, &start);
  CHECK (e == PT_SPIN_EXPIRED && s.readings == 51 && start == s.base + s.step,
         "steady clock: %s after %u readings, start %llu (want expired "
         "after 51)",
         name_of (e), s.readings, (unsigned long long)start);

  /* A jump in the middle: preempted at that reading.  */
  s = (script){
    .base = 1000000, .step = 1000, .jump_at = 10, .jump = PT_SPIN_JUMP_NS + 1
  };
  e = watch (&s, 50000, &start);
  CHECK (e == PT_SPIN_PREEMPTED && s.readings == 10,
         "jump at reading 10: %s after %u readings (want preempted after "
         "10)",
         name_of (e), s.readings);

  /* A jump at the very first look after the start.  */
  s = (script){
    .base = 1000000, .step = 1000, .jump_at = 2, .jump = 5 * PT_SPIN_JUMP_NS
  };
  e = watch (&s, 1000000, &start);
  CHECK (e == PT_SPIN_PREEMPTED && s.readings == 2,
         "jump at reading 2: %s after %u readings", name_of (e), s.readings);

  /* Gaps of exactly PT_SPIN_JUMP_NS are no jump: it expires.  */
  s = (script){ .base = 1000000, .step = PT_SPIN_JUMP_NS };
  e = watch (&s, 10 * PT_SPIN_JUMP_NS, &start);
  CHECK (e == PT_SPIN_EXPIRED && s.readings == 11,
         "gaps at the limit: %s after %u readings (want expired after 11)",
         name_of (e), s.readings);

  /* A clock that goes back: neither a jump nor an early expiry.  */
  s = (script){ .base = 1000000, .step = 1000, .back_at = 5, .back = 900000 };
  e = watch (&s, 20000, &start);
  CHECK (e == PT_SPIN_EXPIRED && s.readings == 21,
         "clock going back at reading 5: %s after %u readings (want "
         "expired after 21)",
         name_of (e), s.readings);

  /* The counter changes at reading 8: seen at the next look.  */
  s = (script){ .base = 1000000, .step = 1000, .change_at = 8 };
  e = watch (&s, 50000, &start);
  CHECK (e == PT_SPIN_CHANGED && s.readings == 8,
         "change at reading 8: %s after %u readings", name_of (e), s.readings);

  /* Budget 0 (spinning off): one look, no second reading.  */
  s = (script){ .base = 1000000, .step = 1000 };
  e = watch (&s, 0, &start);
  CHECK (e == PT_SPIN_EXPIRED && s.readings == 1,
         "budget 0: %s after %u readings", name_of (e), s.readings);
  s = (script){ .base = 1000000, .step = 1000, .change_at = 1 };
  e = watch (&s, 0, &start);
  CHECK (e == PT_SPIN_CHANGED, "budget 0, changed before: %s", name_of (e));

  /* A change that comes with a jump: the jump is seen first and ends
     the spin; the caller looks again under its lock before it sleeps
     (P1 of pthread_pool.c; the queue's or event's lock in
     pthread_device.c), so the change is not lost.  */
  s = (script){ .base = 1000000,
                .step = 1000,
                .jump_at = 6,
                .jump = 5 * PT_SPIN_JUMP_NS,
                .change_at = 6 };
  e = watch (&s, 50000, &start);
  CHECK (e == PT_SPIN_PREEMPTED && s.readings == 6,
         "change and jump at once: %s after %u readings", name_of (e),
         s.readings);
  printf ("spins: expiry, jumps (B2), a clock going back and changes as "
          "scripted\n");
}

/* B4.  A microsecond a reading: the count of woken threads goes up at
   reading 10 (the previous reading, 9, saw none), and the thread the
   spinner woke slept on the spinner's CPU, so the spin gives way at the
   first reading more than PT_SPIN_GIVE_WAY_NS after reading 9.  */
static void
give_way (void)
{
  uint64_t start;
  const unsigned step = 1000, after = PT_SPIN_GIVE_WAY_NS / step;
  script s = {
    .base = 1000000, .step = step, .woken_at = 10, .woke_cpu = SPINNER_CPU
  };
  pt_spin_end e = watch (&s, 200000, &start);
  CHECK (e == PT_SPIN_GAVE_WAY && s.readings == 9 + after + 1,
         "woken here from reading 10 on: %s after %u readings (want gave "
         "way after %u)",
         name_of (e), s.readings, 9 + after + 1);
  /* Waiting for no longer than that: the spin goes on to its end.  */
  s = (script){ .base = 1000000,
                .step = step,
                .woken_at = 10,
                .woken_until = 10 + after,
                .woke_cpu = SPINNER_CPU };
  e = watch (&s, 100000, &start);
  CHECK (e == PT_SPIN_EXPIRED && s.readings == 101,
         "woken here for %u readings: %s after %u readings (want expired "
         "after 101)",
         after, name_of (e), s.readings);
  /* The next spin of the same thread has woken nobody since: it does not
     give way (the note is consumed by a spin).  */
  static _Atomic uint64_t unchanged;
  s = (script){ .base = 1000000, .step = step, .woken_at = 10 };
  e = pt_spin_watch (&unchanged, 0, 100000,
                     (pt_clock){ script_now, script_cpu, &s }, &start, &s.hint,
                     PT_SPIN_GRACE);
  CHECK (e == PT_SPIN_EXPIRED,
         "a spin after one that gave way, having "
         "woken nobody: %s",
         name_of (e));
  /* The thread it woke slept on another CPU, or on one unknown, however
     long it waits: it starts on an idle CPU (an idle machine), or the
     kernel's wake-up preemption lets it in, and the spin goes on.  */
  s = (script){
    .base = 1000000, .step = step, .woken_at = 10, .woke_cpu = SPINNER_CPU + 1
  };
  e = watch (&s, 100000, &start);
  CHECK (e == PT_SPIN_EXPIRED, "woken on another CPU: %s", name_of (e));
  s = (script){
    .base = 1000000, .step = step, .woken_at = 10, .woke_cpu = -1
  };
  e = watch (&s, 100000, &start);
  CHECK (e == PT_SPIN_EXPIRED, "woken on an unknown CPU: %s", name_of (e));
  /* No hint to watch: never.  */
  static _Atomic uint64_t counter;
  s = (script){ .base = 1000000, .step = step };
  e = pt_spin_watch (&counter, 0, 50000,
                     (pt_clock){ script_now, script_cpu, &s }, &start, NULL,
                     PT_SPIN_RESULT);
  CHECK (e == PT_SPIN_EXPIRED, "no hint: %s", name_of (e));
  /* Giving way leaves the budget as it was (B3).  */
  pt_spin_state st;
  pt_spin_init (&st, 50000);
  pt_spin_learn (&st, 50000, PT_SPIN_EXPIRED, 1000000);
  pt_spin_learn (&st, 50000, PT_SPIN_GAVE_WAY, 10);
  pt_spin_learn (&st, 50000, PT_SPIN_GAVE_WAY, 1000000);
  CHECK (pt_spin_budget (&st) == 25000,
         "giving way changed the budget: %llu, want 25000",
         (unsigned long long)pt_spin_budget (&st));
  printf ("give way: after %u us of the woken thread waiting for this "
          "CPU, not sooner, not for another CPU, not twice (B4)\n",
          PT_SPIN_GIVE_WAY_NS / 1000);
}

/* B5 and B6.  On 2 CPUs, a microsecond a reading: one busy worker leaves
   a CPU to the waiting thread, two do not, from PT_SPIN_CROWD_NS after the
   last reading that saw fewer; a grace spins on.  An idle worker stops at
   once when the busy workers, the idle spinners ahead of it, itself and
   one application thread outnumber the CPUs.  */
static void
crowding (void)
{
  uint64_t start;
  const unsigned after = PT_SPIN_CROWD_NS / 1000;
  script s = { .base = 1000000,
               .step = 1000,
               .role = PT_SPIN_RESULT,
               .busy_at = 1,
               .busy_to = 1 };
  s.hint.cpus = 2;
  pt_spin_end e = watch (&s, 200000, &start);
  CHECK (e == PT_SPIN_EXPIRED, "one busy worker on 2 CPUs: %s", name_of (e));
  s = (script){ .base = 1000000,
                .step = 1000,
                .role = PT_SPIN_RESULT,
                .busy_at = 7,
                .busy_to = 2 };
  s.hint.cpus = 2;
  e = watch (&s, 200000, &start);
  CHECK (e == PT_SPIN_CROWDED && s.readings == 6 + after,
         "two busy workers from reading 7 on 2 CPUs: %s after %u readings, "
         "want crowded after %u",
         name_of (e), s.readings, 6 + after);
  s = (script){ .base = 1000000,
                .step = 1000,
                .role = PT_SPIN_GRACE,
                .busy_at = 7,
                .busy_to = 2 };
  s.hint.cpus = 2;
  e = watch (&s, 100000, &start);
  CHECK (e == PT_SPIN_EXPIRED, "a grace beside two busy workers: %s",
         name_of (e));
  /* An idle worker that found nobody spinning: alone with the
     application thread, it spins; with one busy worker on 2 CPUs it
     stops at the first reading that sees it.  One that found another
     spinning stops at once on 2 CPUs, not on 3.  */
  s = (script){ .base = 1000000, .step = 1000, .role = pt_spin_idle_role (0) };
  s.hint.cpus = 2;
  e = watch (&s, 100000, &start);
  CHECK (e == PT_SPIN_EXPIRED, "an idle worker alone: %s", name_of (e));
  s = (script){ .base = 1000000,
                .step = 1000,
                .role = pt_spin_idle_role (0),
                .busy_at = 5,
                .busy_to = 1 };
  s.hint.cpus = 2;
  e = watch (&s, 100000, &start);
  CHECK (e == PT_SPIN_CROWDED && s.readings == 5,
         "an idle worker and a busy one from reading 5 on 2 CPUs: %s after "
         "%u readings",
         name_of (e), s.readings);
  /* The busy one an application thread running a share of a launch:
     the one counted for the next command already, so the idle worker
     spins beside it; beside a busy worker as well, it does not.  */
  s = (script){ .base = 1000000, .step = 1000, .role = pt_spin_idle_role (0) };
  s.hint.cpus = 2;
  atomic_store (&s.hint.busy, 1);
  atomic_store (&s.hint.hosts, 1);
  e = watch (&s, 100000, &start);
  CHECK (e == PT_SPIN_EXPIRED,
         "an idle worker beside a busy application thread on 2 CPUs: %s",
         name_of (e));
  atomic_store (&s.hint.busy, 2);
  s.readings = 0;
  e = watch (&s, 100000, &start);
  CHECK (e == PT_SPIN_CROWDED && s.readings == 2,
         "an idle worker beside a busy application thread and a busy "
         "worker on 2 CPUs: %s after %u readings",
         name_of (e), s.readings);
  s = (script){ .base = 1000000, .step = 1000, .role = pt_spin_idle_role (1) };
  s.hint.cpus = 2;
  e = watch (&s, 100000, &start);
  CHECK (e == PT_SPIN_CROWDED && s.readings == 2,
         "the second idle spinner on 2 CPUs: %s after %u readings",
         name_of (e), s.readings);
  s.hint.cpus = 3;
  s.readings = 0;
  e = watch (&s, 100000, &start);
  CHECK (e == PT_SPIN_EXPIRED, "the second idle spinner on 3 CPUs: %s",
         name_of (e));
  /* Leaving the CPUs to others leaves the budget as it was.  */
  pt_spin_state st;
  pt_spin_init (&st, 50000);
  pt_spin_learn (&st, 50000, PT_SPIN_CROWDED, 10000000);
  CHECK (pt_spin_budget (&st) == 50000, "after crowding: budget %llu",
         (unsigned long long)pt_spin_budget (&st));
  printf ("crowding: a waiting application thread leaves the CPUs to busy "
          "workers after %u us (B5), an idle worker spins on spare CPUs "
          "only (B6)\n",
          after);
}

/* B8.  A microsecond a reading, 4 CPUs (B5 and B6 leave the spinner
   be): a busy worker counts itself on the spinner's CPU from reading 10
   (reading 9 saw none), so the spin gives way at the first reading more
   than PT_SPIN_GIVE_WAY_NS after reading 9.  */
static void
busy_here (void)
{
  uint64_t start;
  const unsigned step = 1000, after = PT_SPIN_GIVE_WAY_NS / step;
  const pt_spin_role roles[] = { PT_SPIN_RESULT, pt_spin_idle_role (0) };
  for (unsigned r = 0; r < 2; ++r)
    {
      script s
          = { .base = 1000000, .step = step, .role = roles[r], .here_at = 10 };
      s.hint.cpus = 4;
      pt_spin_end e = watch (&s, 200000, &start);
      CHECK (e == PT_SPIN_GAVE_WAY && s.readings == 9 + after + 1,
             "%s, a busy worker on its CPU from reading 10: %s after %u "
             "readings (want gave way after %u)",
             r == 0 ? "application thread" : "idle worker", name_of (e),
             s.readings, 9 + after + 1);
    }
  /* Counted there for no longer than that: the spin goes on to its end.  */
  script s = { .base = 1000000,
               .step = step,
               .role = PT_SPIN_RESULT,
               .here_at = 10,
               .here_until = 10 + after };
  s.hint.cpus = 4;
  pt_spin_end e = watch (&s, 100000, &start);
  CHECK (e == PT_SPIN_EXPIRED && s.readings == 101,
         "a busy worker here for %u readings: %s after %u readings (want "
         "expired after 101)",
         after, name_of (e), s.readings);
  /* On another CPU, it runs beside the spinner.  */
  s = (script){ .base = 1000000,
                .step = step,
                .role = PT_SPIN_RESULT,
                .here_at = 10,
                .here_off = 1 };
  s.hint.cpus = 4;
  e = watch (&s, 100000, &start);
  CHECK (e == PT_SPIN_EXPIRED, "a busy worker on another CPU: %s",
         name_of (e));
  /* A grace follows B1 and B2 only.  */
  s = (script){
    .base = 1000000, .step = step, .role = PT_SPIN_GRACE, .here_at = 10
  };
  s.hint.cpus = 4;
  e = watch (&s, 100000, &start);
  CHECK (e == PT_SPIN_EXPIRED, "a grace beside a busy worker here: %s",
         name_of (e));
  printf ("busy here: a spin gives way to a busy worker on its CPU after "
          "%u us, not sooner, not for another CPU, not in a grace (B8)\n",
          PT_SPIN_GIVE_WAY_NS / 1000);
}

/* B3.  */
static void
budgets (void)
{
  const uint64_t max = 50000;
  pt_spin_state st;
  pt_spin_init (&st, max);
  CHECK (pt_spin_budget (&st) == max, "initial budget %llu",
         (unsigned long long)pt_spin_budget (&st));
  /* Waits up to PT_SPIN_IDLE_WAITS full spins keep it; a longer one, and
     a preempted spin, halve it, down to the least.  */
  pt_spin_learn (&st, max, PT_SPIN_EXPIRED, max + 1);
  pt_spin_learn (&st, max, PT_SPIN_EXPIRED, PT_SPIN_IDLE_WAITS * max);
  CHECK (pt_spin_budget (&st) == max,
         "after waits of 1 and %u full spins: %llu, want %llu",
         PT_SPIN_IDLE_WAITS, (unsigned long long)pt_spin_budget (&st),
         (unsigned long long)max);
  pt_spin_learn (&st, max, PT_SPIN_EXPIRED, PT_SPIN_IDLE_WAITS * max + 1);
  CHECK (pt_spin_budget (&st) == max / 2,
         "after a wait of more than %u full spins: %llu", PT_SPIN_IDLE_WAITS,
         (unsigned long long)pt_spin_budget (&st));
  pt_spin_learn (&st, max, PT_SPIN_PREEMPTED, 100);
  CHECK (pt_spin_budget (&st) == max / 4, "after a preempted spin: %llu",
         (unsigned long long)pt_spin_budget (&st));
  for (int i = 0; i < 40; ++i)
    pt_spin_learn (&st, max, PT_SPIN_PREEMPTED, 100);
  CHECK (pt_spin_budget (&st) == PT_SPIN_MIN_NS,
         "after many preempted spins: %llu, want %u",
         (unsigned long long)pt_spin_budget (&st), PT_SPIN_MIN_NS);
  /* Successes double it back, up to max: a wait that came just after a
     short spin, within max, counts as one.  */
  pt_spin_learn (&st, max, PT_SPIN_EXPIRED, max);
  CHECK (pt_spin_budget (&st) == 2 * PT_SPIN_MIN_NS,
         "after a wait a full spin would have caught: %llu",
         (unsigned long long)pt_spin_budget (&st));
  pt_spin_learn (&st, max, PT_SPIN_CHANGED, 0);
  CHECK (pt_spin_budget (&st) == 4 * PT_SPIN_MIN_NS,
         "after a caught change: %llu",
         (unsigned long long)pt_spin_budget (&st));
  for (int i = 0; i < 40; ++i)
    pt_spin_learn (&st, max, PT_SPIN_CHANGED, 0);
  CHECK (pt_spin_budget (&st) == max, "after many caught changes: %llu",
         (unsigned long long)pt_spin_budget (&st));
  /* Spinning off stays off.  */
  pt_spin_init (&st, 0);
  pt_spin_learn (&st, 0, PT_SPIN_CHANGED, 0);
  CHECK (pt_spin_budget (&st) == 0, "spinning off: budget %llu",
         (unsigned long long)pt_spin_budget (&st));
  /* A max below the least: the budget stays within [max, max].  */
  pt_spin_init (&st, 1000);
  pt_spin_learn (&st, 1000, PT_SPIN_PREEMPTED, 0);
  CHECK (pt_spin_budget (&st) == 1000, "max 1000 after a failure: %llu",
         (unsigned long long)pt_spin_budget (&st));
  printf ("budgets: doubled by waits a spin covers, halved by preempted "
          "spins and long waits, kept otherwise (B3)\n");
}

/* The real clock, once: a spin that nobody ends stops on time (or
   earlier, preempted), never on a change.  */
static void
real_clock (void)
{
  static _Atomic uint64_t counter;
  uint64_t start;
  pt_spin_end e = pt_spin_watch (&counter, 0, 200000, pt_real_clock (), &start,
                                 NULL, PT_SPIN_GRACE);
  uint64_t took = pt_now_ns () - start;
  CHECK (e == PT_SPIN_PREEMPTED || (e == PT_SPIN_EXPIRED && took >= 200000),
         "real clock: %s after %llu ns", name_of (e),
         (unsigned long long)took);
}

/* B7, and B8 for a hungry thread.  */
static void
hunger (void)
{
  pt_wake_hint hint;
  atomic_init (&hint.woken, 0);
  atomic_init (&hint.spinners, 0);
  hint.cpus = 2;
  hint.busy_on = NULL;
  hint.busy_on_len = 0;
  static const struct
  {
    unsigned busy;
    bool may;
  } cases[] = { { 0, true }, { 2, true }, { 3, false }, { 8, false } };
  for (size_t c = 0; c < sizeof (cases) / sizeof (cases[0]); ++c)
    {
      atomic_init (&hint.busy, cases[c].busy);
      bool may = pt_hunger_may_wait (&hint, SPINNER_CPU, -1);
      CHECK (may == cases[c].may,
             "B7: %u busy workers on 2 CPUs: a hungry thread %s wait, want "
             "it %s",
             cases[c].busy, may ? "may" : "may not",
             cases[c].may ? "may" : "may not");
    }
  CHECK (pt_hunger_may_wait (NULL, SPINNER_CPU, -1),
         "B7: without counts a hungry thread may not wait");
  /* B8: 2 busy workers on 2 CPUs (B7 lets them wait).  The hungry one
     counted on its CPU, alone there: it may wait; with the other there
     too, not; counted elsewhere (the kernel moved it), with one there:
     not; on an unknown CPU: it may.  */
  pt_cpu_busy on[8];
  for (unsigned c = 0; c < 8; ++c)
    atomic_init (&on[c].n, 0);
  hint.busy_on = on;
  hint.busy_on_len = 8;
  atomic_init (&hint.busy, 2);
  atomic_store (&on[SPINNER_CPU].n, 1);
  CHECK (pt_hunger_may_wait (&hint, SPINNER_CPU, SPINNER_CPU),
         "B8: alone on its CPU, a hungry worker may not wait");
  atomic_store (&on[SPINNER_CPU].n, 2);
  CHECK (!pt_hunger_may_wait (&hint, SPINNER_CPU, SPINNER_CPU),
         "B8: a hungry worker may wait beside a busy one on its CPU");
  atomic_store (&on[SPINNER_CPU].n, 1);
  CHECK (!pt_hunger_may_wait (&hint, SPINNER_CPU, SPINNER_CPU + 1),
         "B8: a hungry worker counted elsewhere may wait beside a busy one "
         "on its CPU");
  CHECK (pt_hunger_may_wait (&hint, -1, SPINNER_CPU),
         "B8: on an unknown CPU a hungry worker may not wait");
}

/* pt_hunger_wait's ready: true once the script's counter moved from 7
   (the script bumps it at reading change_at).  */
typedef struct
{
  script *s;
  unsigned calls;
} ready_probe;

static bool
counter_moved (void *arg)
{
  ready_probe *r = arg;
  ++r->calls;
  return atomic_load (r->s->counter) != 7;
}

/* B7's wait (pt_hunger_wait): scripted clocks, counts of readings and of
   calls of ready, so that each ending is at the reading it must be.  */
static void
hunger_waits (void)
{
  /* calls: with one call per reading (pauses = PT_SPIN_LOOKS); with one
     between every two pauses, PT_SPIN_LOOKS per reading.  */
  static const struct
  {
    const char *what;
    unsigned change_at, jump_at, back_at, busy_at, here_at;
    uint64_t jump;
    int counted;
    bool busy_first, want;
    unsigned readings, calls;
  } cases[] = {
    /* ready as soon as the counter moves: the call after reading 5 (with
       a call per pause, the first of PT_SPIN_LOOKS after it) */
    { "ready", 5, 0, 0, 0, 0, 0, -1, false, true, 5, 5 },
    /* nobody comes: 50 steps of 1000 ns reach 50000 at reading 51 */
    { "time up", 0, 0, 0, 0, 0, 0, -1, false, false, 51, 50 },
    /* B2: a gap above PT_SPIN_JUMP_NS at reading 4; one at the limit
       (the jump plus a step) is none, and time runs out at reading 32,
       31 steps and the jump after the start */
    { "B2", 0, 4, 0, 0, 0, PT_SPIN_JUMP_NS - 999, -1, false, false, 4, 3 },
    { "B2 at the limit", 0, 4, 0, 0, 0, PT_SPIN_JUMP_NS - 1000, -1, false,
      false, 32, 31 },
    /* a clock going back is neither a jump nor time */
    { "backwards", 0, 0, 3, 0, 0, 0, -1, false, false, 51, 50 },
    /* B7: 3 busy workers on 2 CPUs from reading 3; or from the start,
       when it does not wait at all */
    { "B7", 0, 0, 0, 3, 0, 0, -1, false, false, 3, 2 },
    { "B7 first", 0, 0, 0, 0, 0, 0, -1, true, false, 0, 0 },
    /* B8: a busy worker on its CPU from reading 3; unless that worker
       is the caller itself */
    { "B8", 0, 0, 0, 0, 3, 0, -1, false, false, 3, 2 },
    { "B8 itself", 0, 0, 0, 0, 3, 0, SPINNER_CPU, false, false, 51, 50 },
  };
  for (size_t k = 0; k < 2 * sizeof (cases) / sizeof (cases[0]); ++k)
    {
      const size_t c = k / 2;
      const unsigned pauses = k % 2 ? 1 : PT_SPIN_LOOKS;
      unsigned calls = cases[c].calls;
      if (pauses == 1)
        calls = cases[c].want ? (calls - 1) * PT_SPIN_LOOKS + 1
                              : calls * PT_SPIN_LOOKS;
      static _Atomic uint64_t counter;
      atomic_store (&counter, 7);
      script s = { 0 };
      s.base = 1000000;
      s.step = 1000;
      s.change_at = cases[c].change_at;
      s.counter = &counter;
      s.jump_at = cases[c].jump_at;
      s.jump = cases[c].jump;
      s.back_at = cases[c].back_at;
      s.back = 5000;
      s.busy_at = cases[c].busy_at;
      s.busy_to = 3;
      s.here_at = cases[c].here_at;
      s.hint.cpus = 2;
      atomic_init (&s.hint.busy, cases[c].busy_first ? 3u : 0u);
      s.hint.busy_on = s.busy_on;
      s.hint.busy_on_len = sizeof s.busy_on / sizeof s.busy_on[0];
      ready_probe r = { &s, 0 };
      bool got = pt_hunger_wait (counter_moved, &r, 50000,
                                 (pt_clock){ script_now, script_cpu, &s },
                                 &s.hint, cases[c].counted, pauses);
      CHECK (got == cases[c].want && s.readings == cases[c].readings
                 && r.calls == calls,
             "hunger wait, %s, a call every %u pauses: %s after %u readings "
             "and %u calls of ready, want %s after %u and %u",
             cases[c].what, pauses, got ? "ready" : "left", s.readings,
             r.calls, cases[c].want ? "ready" : "left", cases[c].readings,
             calls);
    }
  printf ("hunger waits: end when ready, on time, preempted (B2) or "
          "crowded (B7, B8), at the reading they must\n");
}

int
main (void)
{
  spins ();
  hunger ();
  hunger_waits ();
  give_way ();
  crowding ();
  busy_here ();
  budgets ();
  real_clock ();
  CHECK (yields == 0, "B1: %u calls of sched_yield", yields);
  printf ("no spin yielded (B1)\n");
  return check_finish ("spin");
}
