/* pthread_spin.c - bounded busy-waiting; see the header (rules B1-B8).

   Copyright (c) 2026 pocl-steal developers.  MIT licence, as PoCL.  */

#define _GNU_SOURCE

#include "pthread_spin.h"

#include <sched.h>
#include <time.h>
#include <unistd.h>

uint64_t
pt_now_ns (void)
{
  struct timespec t;
  clock_gettime (CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

int
pt_current_cpu (void)
{
#ifdef __linux__
  return sched_getcpu ();
#else
  return -1;
#endif
}

static uint64_t
real_now (void *arg)
{
  (void)arg;
  return pt_now_ns ();
}

static int
real_cpu (void *arg)
{
  (void)arg;
  return pt_current_cpu ();
}

pt_clock
pt_real_clock (void)
{
  return (pt_clock){ real_now, real_cpu, NULL };
}

void
pt_spin_init (pt_spin_state *s, uint64_t max_ns)
{
  s->budget_ns = max_ns;
}

/* B4: the CPU the thread this thread last woke slept on, until its next
   spin; -1: none.  */
static __thread int woke_cpu = -1;

void
pt_spin_woke (int cpu)
{
  woke_cpu = cpu;
}

/* B4: whether a woken thread may wait for the caller's CPU: one is
   waiting, and the one the caller woke slept on this CPU.  relaxed: a
   hint; whoever gives way searches again under its lock before it
   sleeps.  */
static bool
woken_here (pt_wake_hint *hint, pt_clock clock, int cpu)
{
  return hint != NULL && cpu >= 0
         && atomic_load_explicit (&hint->woken, memory_order_relaxed) > 0
         && cpu == clock.cpu (clock.arg);
}

/* B5, B6: whether the threads that need a CPU more than the caller, and
   the caller, outnumber the CPUs.  relaxed: a hint; whoever stops
   spinning on it looks again under its lock before it sleeps.  */
static bool
crowded (pt_wake_hint *hint, pt_spin_role role)
{
  if (hint == NULL || role == PT_SPIN_GRACE)
    return false;
  unsigned n = atomic_load_explicit (&hint->busy, memory_order_relaxed);
  if (role == PT_SPIN_RESULT)
    return n + 1 > hint->cpus; /* B5 */
  /* B6: the idle spinners ahead of the caller, the caller, one
     application thread unless one is counted busy already.  */
  n += (unsigned)(role - PT_SPIN_IDLE) + 1
       + (atomic_load_explicit (&hint->hosts, memory_order_relaxed) == 0);
  return n > hint->cpus;
}

/* B8: whether a busy worker of the driver began its busy spell on the
   caller's CPU.  Graces follow only B1 and B2, as for B5 and B6.
   relaxed: a hint; a spinner that gives way looks again under its lock
   before it sleeps.  */
static bool
busy_here (pt_wake_hint *hint, pt_clock clock, pt_spin_role role)
{
  if (hint == NULL || hint->busy_on == NULL || role == PT_SPIN_GRACE
      || atomic_load_explicit (&hint->busy, memory_order_relaxed) == 0)
    return false;
  int cpu = clock.cpu (clock.arg);
  return cpu >= 0 && (unsigned)cpu < hint->busy_on_len
         && atomic_load_explicit (&hint->busy_on[cpu].n, memory_order_relaxed)
                > 0;
}

pt_spin_end
pt_spin_watch (_Atomic uint64_t *counter, uint64_t seen, uint64_t ns,
               pt_clock clock, uint64_t *start, pt_wake_hint *hint,
               pt_spin_role role)
{
  const uint64_t t0 = clock.now (clock.arg);
  uint64_t last = t0;
  /* The last reading at which no woken thread waited for this CPU, and
     the CPU the thread we woke slept on, consumed here (B4).  */
  uint64_t none_here = t0;
  /* The last reading at which the CPUs were not crowded (B5).  */
  uint64_t roomy = t0;
  /* The last reading at which no busy worker shared this CPU (B8).  */
  uint64_t alone = t0;
  const int woke = woke_cpu;
  woke_cpu = -1;
  *start = t0;
  for (;;)
    {
      /* relaxed: the caller takes a lock before acting on what changed,
         and that lock orders everything else.  */
      for (int i = 0; i < PT_SPIN_LOOKS; ++i)
        {
          if (atomic_load_explicit (counter, memory_order_relaxed) != seen)
            return PT_SPIN_CHANGED;
          if (ns == 0)
            return PT_SPIN_EXPIRED;
          pt_cpu_relax (); /* B1 */
        }
      uint64_t now = clock.now (clock.arg);
      /* B2: the thread was off its CPU between the two reads (a clock
         going backwards is taken as no time).  */
      if (now > last && now - last > PT_SPIN_JUMP_NS)
        return PT_SPIN_PREEMPTED;
      if (now > t0 && now - t0 >= ns)
        return PT_SPIN_EXPIRED;
      if (now > last)
        last = now;
      if (!woken_here (hint, clock, woke))
        none_here = last;
      else if (last - none_here > PT_SPIN_GIVE_WAY_NS)
        return PT_SPIN_GAVE_WAY; /* B4 */
      if (!busy_here (hint, clock, role))
        alone = last;
      else if (last - alone > PT_SPIN_GIVE_WAY_NS)
        return PT_SPIN_GAVE_WAY; /* B8 */
      if (!crowded (hint, role))
        roomy = last;
      else if (role >= PT_SPIN_IDLE || last - roomy >= PT_SPIN_CROWD_NS)
        return PT_SPIN_CROWDED; /* B5, B6 */
    }
}

bool
pt_hunger_wait (bool (*ready) (void *), void *arg, uint64_t ns, pt_clock clock,
                pt_wake_hint *hint, int counted, unsigned pauses)
{
  if (!pt_hunger_may_wait (hint, clock.cpu (clock.arg), counted))
    return false; /* B7, B8 */
  const uint64_t start = clock.now (clock.arg);
  uint64_t before = start;
  if (pauses == 0)
    pauses = 1;
  for (;;)
    {
      for (unsigned i = 0; i < PT_SPIN_LOOKS; ++i)
        {
          /* The last of each `pauses` looks: the caller has just found
             its ready false once.  */
          if ((i + 1) % pauses == 0 && ready (arg))
            return true;
          pt_cpu_relax (); /* B1 */
        }
      uint64_t now = clock.now (clock.arg);
      /* B2 (a clock going backwards is taken as no time), the time
         allowed, then B7 and B8.  */
      if ((now > before && now - before > PT_SPIN_JUMP_NS)
          || (now > start && now - start >= ns)
          || !pt_hunger_may_wait (hint, clock.cpu (clock.arg), counted))
        return false;
      if (now > before)
        before = now;
    }
}

void
pt_spin_learn (pt_spin_state *s, uint64_t max_ns, pt_spin_end how,
               uint64_t waited_ns)
{
  if (s->budget_ns == 0 || max_ns == 0 || how == PT_SPIN_GAVE_WAY
      || how == PT_SPIN_CROWDED)
    return; /* spinning is off, or the spin gave way (B4, B5, B6) */
  const uint64_t least = max_ns < PT_SPIN_MIN_NS ? max_ns : PT_SPIN_MIN_NS;
  /* B3: would a spin of max_ns have covered this wait?  Then the budget
     doubles.  A spin ended by B2 says that the CPU is wanted elsewhere,
     and a wait of more than PT_SPIN_IDLE_WAITS longest spins that nobody
     is coming soon: then it halves.  Waits in between change nothing.  */
  uint64_t b = s->budget_ns;
  if (how == PT_SPIN_CHANGED
      || (how == PT_SPIN_EXPIRED && waited_ns <= max_ns))
    b = b > max_ns / 2 ? max_ns : 2 * b;
  else if (how == PT_SPIN_PREEMPTED || waited_ns > PT_SPIN_IDLE_WAITS * max_ns)
    b = b / 2 < least ? least : b / 2;
  s->budget_ns = b;
}

unsigned
pt_allowed_cpus (void)
{
#ifdef __linux__
  cpu_set_t set;
  CPU_ZERO (&set);
  if (sched_getaffinity (0, sizeof (set), &set) == 0 && CPU_COUNT (&set) > 0)
    return (unsigned)CPU_COUNT (&set);
#endif
  long online = sysconf (_SC_NPROCESSORS_ONLN);
  return online > 0 ? (unsigned)online : 1;
}
