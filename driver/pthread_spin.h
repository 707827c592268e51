/* pthread_spin.h - bounded busy-waiting before sleeping.

   Waking a sleeping thread costs a system call on one side and, on the
   other, the time the kernel (in a VM, the hypervisor) takes to run it
   again: tens of microseconds, sometimes a millisecond.  For a stream of
   small kernel launches that is most of a launch's cost, so idle workers,
   and host threads waiting in clFinish or clWaitForEvents, first watch a
   counter for a while and only then sleep.  Independent of PoCL.

   THE SPIN RULES, stated once (tests/dispatch/test_spin.c checks each
   with a scripted clock; the code cites them where it follows them):

   B1 (never wait out a time slice)  A spinner pauses between looks and
      never yields.  sched_yield to a thread of another program returns
      only when that thread's slice ends (milliseconds), and while it
      waits the spinner is not asleep, so the push or the completion it
      waits for cannot wake it.  A spinner that is preempted is the
      kernel's choice, and B2 ends its spin.
   B2 (a jump ends the spin)  The clock is read every PT_SPIN_LOOKS
      looks, about a microsecond apart.  Two reads more than
      PT_SPIN_JUMP_NS apart mean the thread lost its CPU in between: the
      machine is busy, and a thread that keeps spinning there is reached
      only when it runs again, where a sleeper is woken by a futex, which
      preempts (the kernel's wake-up preemption).  So the spin ends, and
      the waiter sleeps.
   B3 (spin while it pays)  Each waiter has a budget, at most max_ns
      (POCL_PTHREAD_SPIN_US) and at least PT_SPIN_MIN_NS (or 0 with
      spinning off), starting at max_ns.  After each wait
      (pt_spin_learn): a wait a spin of max_ns would have covered (the
      counter changed during the spin, or after it within max_ns of its
      start) doubles the budget; a spin ended by B2, or a wait longer
      than PT_SPIN_IDLE_WAITS spins of max_ns, halves it; a wait in
      between changes nothing.  Between two launches a worker that
      finished its part early waits out the others' part and the
      application's turn too, and halving after any wait longer than a
      spin made it sleep, be woken late for the next launch, finish its
      part later still, and so on; and a thread that sleeps long is slow
      to wake (a VM's idle CPU takes tens of microseconds to resume).
      So waits that keep coming soon are spun for, and waiters whose
      spins keep failing or being preempted spin little, like the
      kernel's adaptive mutexes and libgomp's throttled spin count,
      without a count to tune per machine.
   B4 (give way to the thread you woke)  The driver counts the threads of
      its own that a futex wake-up made runnable and that have not run
      yet (pt_wake_hint: workers woken in the pool, application threads
      woken by a completion), and a thread that wakes one notes the CPU
      that one slept on (pt_spin_woke), where the kernel queues it when
      no CPU is idle.  When the waker then spins on that same CPU, it
      only delays the thread it woke: on a busy machine whose other CPUs
      other programs hold, the driver's threads end up on one CPU, and a
      launch ping-pongs between a waiting thread that spins and the
      worker it woke, each waiting out the other's spin.  So a spin ends
      when, for PT_SPIN_GIVE_WAY_NS, a woken thread is waiting and the
      spinner runs on the CPU the thread it last woke slept on; the
      spinner sleeps.  Only the waker gives way: others, a thread
      waiting in clFinish while one worker wakes another, say, spin on,
      where the kernel's wake-up preemption lets the woken one in, and a
      thread woken onto an idle CPU starts there, just slowly (a VM's CPU
      takes about 15 us to leave its halt), while the spin pays.  Giving
      way leaves the budget as it was: it says nothing of how soon work
      comes, and the 2 us it costs per hand-off while the driver's
      threads share a CPU are less than a futex wake-up.
   B5 (leave the CPUs to busy workers)  An application thread waiting
      for a launch ends its spin when, for PT_SPIN_CROWD_NS, the busy
      workers (who count themselves) and it have outnumbered the CPUs the
      process may run on, and sleeps until the completion wakes it.  The
      default runs one worker per CPU, so a launch of every worker and
      the thread waiting for it outnumber the CPUs, and without yielding
      (B1) the spin takes a CPU from a worker: beside a busy loop per CPU
      (2 CPUs), launches of 1024 and 16384 trivial work-groups took 2.4
      and 1.7 times as long without B5.  A short launch is over before
      the delay, and its end is seen at once.  Ending a spin for B5
      leaves the budget as it was.
   B6 (idle workers spin on spare CPUs only)  An idle worker ends its spin
      when the busy workers, the idle ones that were spinning when its
      spin began, itself and one application thread, the one that
      enqueues the next command, outnumber the CPUs; the budget stays as
      it was.  Counting only those ahead of it leaves the first spinners
      spinning: counting every spinner made all of them stop, and every
      push wake a sleeper (16 us instead of 5 per launch of one
      work-group with host runs off, on 2 CPUs).  After a launch
      every worker spins for the next command while the application
      thread, woken by the completion, enqueues it: three threads on two
      CPUs, where the spinners slowed the thread they waited for (a
      launch of 4096 trivial work-groups took 50% longer than with nobody
      spinning).  An application thread counted busy (running a share of
      a launch, pt_pool_host_busy) is that one application thread, not
      one more: counted twice, the worker that finished its share of a
      launch before the application thread did slept, and the next push
      woke it with a futex (launches of 4096 trivial work-groups, 2
      threads: 0.96 [0.93-0.98] of the time without the second count).
      Graces (P6) are not idle spins and do not follow B6.
   B7 (a hungry thread waits on spare CPUs only)  A thread that finds
      nothing to claim while others hold ranges of a launch (W8 of
      wg_dispatch.c) waits for their rest only while the busy workers do
      not outnumber the CPUs (pt_hunger_may_wait).  When they do, some
      holder is waiting for a CPU, and the waiter, which is not asleep,
      keeps one from it for the whole wait (up to PT_HUNGER_WAIT_NS):
      with 4 threads on 2 CPUs, launches of 16384 trivial work-groups
      made 20 to 35 hungry claims each, 2 to 4 with B7.  Leaving is
      always safe; the holders give their rest back all the same and
      claim it one work-group at a time.  The application thread that
      waits for the others' last work-groups so as to complete the launch
      itself (S3 of pthread_share.h) waits by the same rule
      (pt_hunger_wait).
   B8 (give way to a busy worker on your CPU)  A busy worker counts itself on
      the CPU its busy spell begins on (pt_cpu_busy, counted in
      pthread_pool.c).  A spin ends when, for PT_SPIN_GIVE_WAY_NS, such a
      count is set on the CPU the spinner runs on: while the spinner runs
      there, that worker waits for the CPU (or is blocked), and every
      microsecond spun delays the work the spinner waits for.  B4 sees only a
      thread woken and not yet run; once it ran, a worker the spinner then
      preempted went unseen.  A kernel that does not move threads between
      CPUs by load (a 2-CPU VM whose kernel has no scheduling domains: a
      thread stays on the CPU it ran on) leaves a process's threads on one
      CPU while another program holds the other: beside a paced second PoCL
      process on one CPU, launches of 1024 trivial work-groups took 47 us
      with the application thread and idle workers spinning beside the worker
      running the launch, 35 us with B8.  The application thread and idle
      workers follow B8; graces follow B1 and B2 only.  Giving way leaves the
      budget as it was.  A worker the kernel moves during its spell stays
      counted where it began until its next wait, which only makes a spinner
      there sleep sooner, never spin longer.  A hungry thread (B7) is a busy
      worker itself: it stops waiting for the holders' rest at once when a
      busy worker other than itself is counted on its CPU
      (pt_hunger_may_wait); beside the paced second process, launches of
      16384 trivial work-groups made 15 to 23 hungry claims each, under one
      with it.

   Copyright (c) 2026 pocl-steal developers.  MIT licence, as PoCL.  */

#ifndef POCL_STEAL_PTHREAD_SPIN_H
#define POCL_STEAL_PTHREAD_SPIN_H

#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Looks at the counter between two reads of the clock (B2): a look and a
   pause take tens of nanoseconds, a clock read as much as a few looks.  */
#define PT_SPIN_LOOKS 16
/* A gap between two reads of the clock that says the thread lost its CPU
   (B2): well above the microsecond the looks between them take, and
   above a timer interrupt's work, well under a scheduler's slice
   (hundreds of microseconds and more).  */
#define PT_SPIN_JUMP_NS 20000u
/* A wait longer than this many of the longest spins says that nobody is
   coming soon (B3): the budget halves.  */
#define PT_SPIN_IDLE_WAITS 4u
/* The least budget of a waiter that spins at all (B3): a couple of reads
   of the clock, so that a budget halved down to it can grow again.  */
#define PT_SPIN_MIN_NS 2000u
/* How long an application thread waiting for a launch spins beside busy
   workers that, with it, outnumber the CPUs (B5).  */
#define PT_SPIN_CROWD_NS 20000u
/* The cache line the per-CPU counts of B8 are padded to.  */
#define PT_SPIN_LINE 64
/* How long a woken thread may wait on the spinner's CPU before the
   spinner gives way (B4): a couple of reads of the clock, so that a
   thread that was about to sleep anyway is not counted.  */
#define PT_SPIN_GIVE_WAY_NS 2000u

/* CLOCK_MONOTONIC, in nanoseconds.  */
uint64_t pt_now_ns (void);

/* B1: the pause between looks; never a yield.  */
static inline void
pt_cpu_relax (void)
{
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause ();
#elif defined(__aarch64__)
  __asm__ __volatile__ ("yield"); /* a hint to the core, not sched_yield */
#endif
}

/* The clock a spin reads, and the CPU it runs on: pt_now_ns and
   pt_current_cpu, or scripted ones in tests.  */
typedef struct
{
  uint64_t (*now) (void *arg);
  int (*cpu) (void *arg);
  void *arg;
} pt_clock;

/* The CPU the calling thread runs on, or -1 where that is unknown.  */
int pt_current_cpu (void);

/* pt_now_ns and pt_current_cpu as a pt_clock.  */
pt_clock pt_real_clock (void);

/* B8: how many of the driver's busy workers began their busy spell on
   one CPU.  One cache line each: a worker counts itself on the line of
   its CPU, which spinners on that CPU read.  */
typedef struct
{
  alignas (PT_SPIN_LINE) _Atomic unsigned n;
} pt_cpu_busy;

/* The driver's threads woken and not yet running (B4).  Changed by
   wakers and the woken (pt_pool_woken_add), read by spinners, both
   relaxed: a hint that only ever makes a spinner sleep.  */
typedef struct
{
  _Atomic unsigned woken;
  /* B5, B6: the driver's workers running work (counted by themselves,
     from the end of their wait to the start of the next), and the
     application threads running work-groups of a published launch
     (pt_pool_host_busy, for as long as they are in it), the idle ones
     spinning (pthread_pool.c counts them, for their rank), and the CPUs
     the process may run on.  */
  _Atomic unsigned busy;
  /* B6: how many of `busy` are application threads
     (pt_pool_host_busy).  */
  _Atomic unsigned hosts;
  _Atomic unsigned spinners;
  unsigned cpus;
  /* B8: the busy workers by CPU, busy_on_len entries (CPU numbers from
     0), or NULL: not counted.  */
  pt_cpu_busy *busy_on;
  unsigned busy_on_len;
} pt_wake_hint;

/* B7: whether a thread that found nothing while others hold ranges may
   wait for their rest: no more busy workers than CPUs; and B8: no busy
   worker but the caller counted on the CPU it runs on (cpu; -1:
   unknown), where the caller counts itself on CPU `counted` (-1: it is
   not a worker, or is counted nowhere).  relaxed: a hint; leaving is
   always safe.  */
static inline bool
pt_hunger_may_wait (pt_wake_hint *hint, int cpu, int counted)
{
  if (hint == NULL)
    return true;
  if (atomic_load_explicit (&hint->busy, memory_order_relaxed) > hint->cpus)
    return false;
  if (hint->busy_on == NULL || cpu < 0 || (unsigned)cpu >= hint->busy_on_len)
    return true;
  unsigned here
      = atomic_load_explicit (&hint->busy_on[cpu].n, memory_order_relaxed);
  return here <= (cpu == counted ? 1u : 0u);
}

/* B7's wait: a participant that found nothing to claim while others
   still run work-groups of the launch calls ready (arg) once every
   `pauses` pauses (B1), until it returns true, for at most ns from the
   clock's first reading; the clock is read every PT_SPIN_LOOKS pauses,
   and the wait ends early when it jumps (B2) or when pt_hunger_may_wait
   says no (B7, B8; counted: the CPU the caller counts itself busy on, -1:
   none), which it asks first, before any call.  pauses: 1 to
   PT_SPIN_LOOKS, a divisor of it.  A ready that is one load of a line
   the others write once (S3's) is called between every two pauses: a
   pause takes 30 ns on some CPUs, and 16 of them were half a microsecond
   added to a launch's end.  A ready that is a claim, which reads every
   block's word, is called once per reading, so that a hundred threads
   waiting do not keep pulling the holders' lines away.  Returns whether
   ready returned true.  Leaving is always safe: the caller only waits
   for what others do without it.  */
bool pt_hunger_wait (bool (*ready) (void *), void *arg, uint64_t ns,
                     pt_clock clock, pt_wake_hint *hint, int counted,
                     unsigned pauses);

/* Who spins, for B5 and B6.  */
typedef enum
{
  PT_SPIN_GRACE,  /* a worker's grace (P6 of pthread_pool.c): neither */
  PT_SPIN_RESULT, /* an application thread waiting for a launch (B5) */
  PT_SPIN_IDLE,   /* an idle worker waiting for work (B6); PT_SPIN_IDLE + k
                     is one that found k idle workers spinning when it
                     began (pt_spin_idle_role) */
} pt_spin_role;

/* B6: the role of an idle worker that found `ahead` others spinning.  */
static inline pt_spin_role
pt_spin_idle_role (unsigned ahead)
{
  return (pt_spin_role)(PT_SPIN_IDLE + ahead);
}

/* B4: the calling thread has just woken a thread that slept on CPU cpu
   (-1: unknown); its next spin gives way to that one while it waits for
   the CPU.  */
void pt_spin_woke (int cpu);

/* One waiter's budget (B3).  Written by its own thread only.  */
typedef struct
{
  uint64_t budget_ns;
} pt_spin_state;

/* How a spin ended.  */
typedef enum
{
  PT_SPIN_CHANGED,   /* the counter changed */
  PT_SPIN_EXPIRED,   /* the time allowed ran out */
  PT_SPIN_PREEMPTED, /* the clock jumped: the thread lost its CPU (B2) */
  PT_SPIN_GAVE_WAY,  /* a thread of ours was waiting for this CPU (B4, B8) */
  PT_SPIN_CROWDED,   /* other threads needed every CPU (B5, B6) */
} pt_spin_end;

/* A waiter's state before its first wait: the budget at max_ns (0: never
   spins).  */
void pt_spin_init (pt_spin_state *s, uint64_t max_ns);

/* Watches *counter until it differs from seen, for at most ns
   nanoseconds from *start (set to the clock's first reading), ending
   early when the clock jumps (B2) or when, for PT_SPIN_GIVE_WAY_NS, *hint
   (NULL: none) has shown a woken thread waiting and the caller has run on
   the CPU the thread it last woke slept on (B4; pt_spin_woke, which this
   spin consumes), or a busy worker has been counted on the caller's CPU
   (B8, but in a grace); or, by the caller's role, when the CPUs are
   crowded (B5, B6); pauses between looks, never yields (B1).  ns 0:
   looks once.  */
pt_spin_end pt_spin_watch (_Atomic uint64_t *counter, uint64_t seen,
                           uint64_t ns, pt_clock clock, uint64_t *start,
                           pt_wake_hint *hint, pt_spin_role role);

/* The budget for the waiter's next spin (B3).  */
static inline uint64_t
pt_spin_budget (const pt_spin_state *s)
{
  return s->budget_ns;
}

/* After a wait that began with a spin: how that spin ended, and how long
   the whole wait took, spin and sleep (waited_ns; for a spin that ended
   with PT_SPIN_CHANGED, the spin's own length).  Updates the budget
   (B3), within [PT_SPIN_MIN_NS, max_ns]; a budget of 0 (spinning off)
   stays 0.  */
void pt_spin_learn (pt_spin_state *s, uint64_t max_ns, pt_spin_end how,
                    uint64_t waited_ns);

/* The number of CPUs this process may run on (its affinity mask where
   there is one, else the online CPUs); at least 1.  */
unsigned pt_allowed_cpus (void);

#endif /* POCL_STEAL_PTHREAD_SPIN_H */
