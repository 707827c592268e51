/* pthread_pool.h - the pool's queues: what the worker threads of the
   pthread device wait for, and how they are woken.  One pool per process,
   shared by the device and all its sub-devices.

   Ready commands wait in a FIFO, published kernel launches in a list, both
   guarded by the pool lock.  A worker takes a command only if it is one of
   the threads of the command's (sub)device; it joins a launch only if that
   launch still has unclaimed work-groups, read lock-free from the launch's
   dispatcher, so fully claimed launches cost a scan, not a join.  Claiming
   work-groups inside a launch takes no lock at all (wg_dispatch.h).

   Idle workers first spin, watching a counter of their own that only a
   push handing them work bumps (pthread_spin.h), then sleep on a
   condition variable of their own.  A command wakes or kicks one worker;
   a launch wakes helpers in a tree, only while it has work-groups to
   share (pt_pool_wake_helpers).  Both find idle workers in a bitmap, 64
   workers a word, so that a push with most workers busy reads T / 64
   words under the pool lock, not T workers' flags.  The hand-off
   between a push and a worker deciding to sleep is the protocol P1-P3 at
   the top of pthread_pool.c, modelled in tests/model/pool_wake.pml.

   This layer knows nothing of kernels or of the worker threads' other
   state: it hands out work items (pt_pool_wait) and wakes workers by index.
   Layers above it: pthread_kernel (launches), pthread_worker (threads),
   pthread_device (PoCL's device ops).

   Copyright (c) 2026 pocl-steal developers.  MIT licence, as PoCL.  */

#ifndef POCL_STEAL_PTHREAD_POOL_H
#define POCL_STEAL_PTHREAD_POOL_H

#include <pthread.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "pocl_cl.h"

#include "pthread_spin.h"
#include "wg_dispatch.h"

#ifdef __GNUC__
#pragma GCC visibility push(hidden)
#endif

/* A published launch as the pool sees it.  The launch layer embeds it in
   its own record (pthread_kernel.c) and fills in the fields marked "set
   before publishing"; the rest is the pool's.  */
typedef struct pt_pool_launch
{
  /* In pt_pool.launches; under the pool lock.  */
  struct pt_pool_launch *prev, *next;
  /* Numbers launches in push order; under the pool lock.  */
  uint64_t seq;
  /* The next of the launch's threads pt_pool_wake_helpers looks at;
     under the pool lock.  */
  unsigned wake_cursor;
  /* One reference for being in the list, one per worker inside the launch
     (taken by pt_pool_wait under the lock); see pt_pool_launch_release.  */
  _Atomic unsigned refs;
  /* Set before publishing: the (sub)device's threads [first_thread,
     first_thread + num_threads) in the pool, and the dispatcher, which the
     pool asks whether to join (wgd_unclaimed) and whom to wake
     (wgd_thread_has_work).  */
  unsigned first_thread;
  unsigned num_threads;
  wgd_launch *dispatch;
  /* Set before publishing: the affinity domains the (sub)device keeps to
     (pt_device_domains in pthread_kernel.h), which its threads bind to
     before they run any of it; the pool only carries it.  */
  unsigned domains;
  /* Set before publishing: the queue and the event of the launch's
     command, for application threads looking for launches they wait for
     (pt_pool_join_launch_if).  Compared, never dereferenced: the command
     may complete, and its event go, while the launch is still listed.  */
  const void *queue;
  const void *event;
  /* When a wake-up of the launch's helpers last left idle workers asleep
     because they did not fit on the CPUs (P8 of pthread_pool.c), on the
     pool's clock, or 0: the watch thread wakes them a tick later (P9).
     Under the pool lock.  */
  uint64_t capped_at;
  /* wgd_left_in_words when capped_at was set: the watch takes the
     sleepers only if nobody claimed since (P9).  Under the pool lock.  */
  uint64_t capped_left;
} pt_pool_launch;

/* The idle state of one worker, by pool index.  Under the pool lock, but
   for `kick`.  One cache line each: a spinner reads its own `kick`.  */
typedef struct
{
  alignas (WGD_CACHELINE) pthread_cond_t wake;
  /* Bumped (under the lock) by whoever hands this worker work while it
     spins, and at shutdown; the spinner watches it lock-free (P2).  */
  _Atomic uint64_t kick;
  /* The command this worker was woken or kicked for, or NULL: it takes
     that one first if it is still queued (P5).  Compared, never
     dereferenced: it may be gone.  */
  _cl_command_node *woken_for;
  /* When this worker, taken for woken_for, may take it (pt_now_ns), or
     0: at once.  Set by a push that leaves the command a while to the
     application thread that enqueued it (P6 of pthread_pool.c).  */
  uint64_t grace_until;
  bool sleeping; /* waiting on `wake`; cleared by whoever wakes it */
  bool spinning; /* watching `kick`; cleared by whoever kicks it */
  int cpu;       /* the CPU it last went to sleep on (B4), or -1 */
  /* The CPU it counts itself busy on (B8 of pthread_spin.h), or -1.  Its
     own thread's only.  */
  int busy_cpu;
  /* How long this worker spins before it sleeps (B3 of pthread_spin.h).
     Its own thread's only, lock or not.  */
  pt_spin_state spin;
} pt_idle;

typedef struct
{
  alignas (WGD_CACHELINE) pthread_mutex_t lock;
  _cl_command_node *commands; /* ready commands, FIFO */
  pt_pool_launch *launches;   /* launches with work-groups to claim */
  uint64_t launch_seq;        /* the last seq handed out */
  bool shutdown;
  /* The queued NDRange commands and listed launches of at most
     host_groups work-groups, and the queued markers and barriers: what an
     application thread may run (pthread_host.h).  Changed under the lock
     only; read without it, as a hint (H1 of pthread_pool.c).  */
  _Atomic unsigned host_work;
  /* The workers whose grace_until is set (P6).  Changed under the lock
     only; read without it, as a hint, by pt_pool_end_graces.  */
  _Atomic unsigned graces;
  /* The command of the latest grace, compared only, and the worker taken
     for it (pt_pool_take_command_if).  Under the lock.  */
  const _cl_command_node *grace_cmd;
  unsigned grace_worker;

  /* The threads a futex wake-up of the driver made runnable and that
     have not run since (B4 of pthread_spin.h, which spinners read): the
     workers woken here (P3,
     P4), counted when marked woken and uncounted when they leave their
     wait, both under the lock; and application threads woken by a
     completion (pt_pool_woken_add, pthread_device.c).  On a line of its
     own: spinners read it at every look at the clock.  */
  alignas (WGD_CACHELINE) pt_wake_hint woken;

  /* Set by pt_pool_init, read-only afterwards.  */
  alignas (WGD_CACHELINE) unsigned num_threads;
  /* What graces and spins read (pthread_spin.h): pt_real_clock; tests
     set a scripted one before any worker runs.  */
  pt_clock clock;
  uint64_t spin_ns;  /* POCL_PTHREAD_SPIN_US, in ns; 0: no spinning */
  bool skip_claimed; /* POCL_PTHREAD_SKIP_CLAIMED */
  /* POCL_PTHREAD_HOST_GROUPS and POCL_PTHREAD_HOST_GRACE_US, in ns
     (pt_pool_count_host_work).  */
  uint64_t host_groups;
  uint64_t host_grace_ns;
  pt_idle *idle; /* num_threads of them */
  /* P9 of pthread_pool.c, under the pool lock: whether a watch thread runs
     pt_pool_watch (set by whoever started it; without one, P8 caps
     nothing), the listed launches whose capped_at is set, whether the
     watch sleeps on watch_wake until one is (else it looks every tick),
     and the workers its look takes, num_threads of them.  */
  bool watching;
  bool watch_idle;
  unsigned capped;
  pthread_cond_t watch_wake;
  unsigned *watch_taken;
  /* Bit i % 64 of word i / 64 is set iff worker i is idle:
     idle[i].spinning || idle[i].sleeping.  Under the pool lock (the
     pointer is set by pt_pool_init).  pt_idle_set is the one way to
     change those flags, and changes the bit with them, so the invariant
     holds whenever the lock is free; bits past num_threads stay clear.
     Searches for an idle worker read the words, never the flags.  */
  uint64_t *idle_bits; /* PT_IDLE_WORDS (num_threads) words */
  /* The same for idle[i].spinning alone (a subset of idle_bits): a push
     prefers a spinner, which answers a kick in well under a microsecond,
     to a sleeper, which a futex wake-up takes tens of.  */
  uint64_t *spin_bits; /* PT_IDLE_WORDS (num_threads) words */
} pt_pool;

/* Workers per word of pt_pool.idle_bits and spin_bits, and the words for
   n workers.  */
#define PT_IDLE_WORD_BITS 64u
#define PT_IDLE_WORDS(n) (((n) + PT_IDLE_WORD_BITS - 1) / PT_IDLE_WORD_BITS)

/* Sets worker `index`'s idle flags and its bits of idle_bits and
   spin_bits with them.
   Under the pool lock.  The pool's (pthread_pool.c), and tests/pool's,
   which set the flags as a worker would; no other layer touches them.  */
static inline void
pt_idle_set (pt_pool *p, unsigned index, bool spinning, bool sleeping)
{
  uint64_t bit = (uint64_t)1 << (index % PT_IDLE_WORD_BITS);
  uint64_t *word = &p->idle_bits[index / PT_IDLE_WORD_BITS];
  uint64_t *spin_word = &p->spin_bits[index / PT_IDLE_WORD_BITS];
  p->idle[index].spinning = spinning;
  p->idle[index].sleeping = sleeping;
  if (spinning || sleeping)
    *word |= bit;
  else
    *word &= ~bit;
  if (spinning)
    *spin_word |= bit;
  else
    *spin_word &= ~bit;
}

/* What pt_pool_wait hands a worker.  */
typedef struct
{
  _cl_command_node *command; /* a command to run, or NULL */
  pt_pool_launch *launch;    /* a launch to join, with a reference, or NULL */
} pt_work;

/* The work-groups of an NDRange command.  */
static inline uint64_t
pt_pool_command_groups (const _cl_command_node *cmd)
{
  const struct pocl_context *pc = &cmd->command.run.pc;
  return (uint64_t)pc->num_groups[0] * pc->num_groups[1] * pc->num_groups[2];
}

/* Whether cmd does no work: a marker or a barrier, which only completes
   (PoCL's pocl_exec_command), so any thread may run it in no time.  */
static inline bool
pt_pool_command_is_empty (const _cl_command_node *cmd)
{
  return cmd->type == CL_COMMAND_MARKER || cmd->type == CL_COMMAND_BARRIER;
}

/* Sets up the queues for num_threads workers (no threads are started).
   spin_ns: the most an idle worker spins before it sleeps (B3 of
   pthread_spin.h; 0: it never spins).  */
cl_int pt_pool_init (pt_pool *p, unsigned num_threads, uint64_t spin_ns,
                     bool skip_claimed);

/* Counts work application threads may run in host_work: NDRange commands
   and launches of at most max_groups work-groups, and markers and
   barriers (max_groups 0, the default: nothing).  grace_ns: how long a
   worker leaves such a command to the application thread that enqueued
   it (P6 of pthread_pool.c; 0: not at all).  Before anything is
   pushed.  */
void pt_pool_count_host_work (pt_pool *p, uint64_t max_groups,
                              uint64_t grace_ns);

/* Whether something counted in host_work may be queued or listed: a hint,
   read without the lock (H1); an application thread that reads false
   waits for the workers instead of taking the lock in vain.  */
static inline bool
pt_pool_host_work (pt_pool *p)
{
  /* relaxed: a hint; whatever it finds is taken under the lock.  */
  return atomic_load_explicit (&p->host_work, memory_order_relaxed) > 0;
}

/* B4 of pthread_spin.h: the calling thread made n more threads of the
   driver's runnable with a wake-up, the last of them having slept on CPU
   cpu (n > 0), or -n of them ran (n < 0).  Any thread.  */
static inline void
pt_pool_woken_add (pt_pool *p, int n, int cpu)
{
  if (n > 0)
    pt_spin_woke (cpu);
  /* relaxed: a hint for spinners, who act on it only by sleeping.  */
  atomic_fetch_add_explicit (&p->woken.woken, (unsigned)n,
                             memory_order_relaxed);
}

/* Frees what pt_pool_init made; the workers must have left.  */
void pt_pool_destroy (pt_pool *p);

/* The pool threads [*first, *first + *count) that serve dev.  */
void pt_pool_device_threads (const pt_pool *p, cl_device_id dev,
                             unsigned *first, unsigned *count);

/* B8 of pthread_spin.h: the CPU the calling thread, a worker between
   two waits, counts itself busy on, or -1 (any other thread).  */
int pt_pool_counted_cpu (void);

/* An application thread that runs work-groups of a published launch
   counts itself busy (busy), in `busy` and on the CPU it runs on (B8 of
   pthread_spin.h), as a worker does between two waits, and stops (!busy)
   when it leaves the launch: P8 and B5-B8 count it among the busy.  */
void pt_pool_host_busy (pt_pool *p, bool busy);

/* Worker `index` waits for work: returns false at shutdown, else true with
   *out holding a command or a launch of its device.  gave_up_seq: the seq
   of a launch this worker joined in vain last time (0: none), which it is
   not handed again (the count of unclaimed work-groups can lag behind the
   blocks, W5 of wg_dispatch.c).  */
bool pt_pool_wait (pt_pool *p, unsigned index, uint64_t gave_up_seq,
                   pt_work *out);

/* The helpers a push wakes besides the worker for the command (P7 of
   pthread_pool.c); the rest are woken in the launch's tree.  */
#define PT_PUSH_HELPERS 2

/* Queues a ready command and wakes one of its device's idle workers, and
   for a launch no application thread takes, up to PT_PUSH_HELPERS more
   (P7).
   by_waiter: the calling application thread enqueued cmd and may run it
   itself when it waits (pthread_host.h); if cmd counts in host_work, the
   worker taken for it then leaves it to that thread for host_grace_ns
   before taking it (P6).  */
void pt_pool_push_command (pt_pool *p, _cl_command_node *cmd, bool by_waiter);

/* The same for a command that a completion made ready, by_waiter false;
   called by a running worker of cmd's device (the completion was its
   command's), it takes no idle worker for cmd: that worker runs it next
   (P11).  */
void pt_pool_push_ready (pt_pool *p, _cl_command_node *cmd);

/* How often the watch thread looks at launches whose helpers P8 left
   asleep, and how many quiet looks it makes before it sleeps (P9).  */
#define PT_WATCH_TICK_NS 1000000u
#define PT_WATCH_LINGER 64u

/* The watch thread's loop (P9 of pthread_pool.c): returns after
   pt_pool_shutdown.  Whoever runs it sets p->watching under the lock
   first.  */
void pt_pool_watch (pt_pool *p);

/* One look of the watch at time now (pool clock): takes every idle
   worker of each listed launch whose helpers were capped at least a tick
   before now, that still has unclaimed work-groups, and where nobody
   claimed since (else it marks the launch again from now), and signals the
   sleepers among them.  Returns the workers taken.  For pt_pool_watch and
   tests.  */
unsigned pt_pool_watch_look (pt_pool *p, uint64_t now);

/* Ends the graces of the workers taken for pushes by_waiter (P6): they
   take their commands now.  For an application thread that is about to
   wait without running what it waits for, which may be such a command
   or come after one.  Takes the lock only when a grace is on.  */
void pt_pool_end_graces (pt_pool *p);

/* Publishes a launch (refs set to 2: the list's and the caller's, who
   then joins it).  */
void pt_pool_push_launch (pt_pool *p, pt_pool_launch *l);

/* Wakes up to n (at most PT_WAKE_FAN_OUT) idle workers of l's device that
   would find work of their own in l (wgd_thread_has_work).  Every worker
   that joins l and finds work calls it while work-groups are left
   unclaimed, so helpers are woken in a tree, each wake-up off the
   critical path of the worker before, and the waking stops by itself when
   a launch is too small to share: a one-work-group launch wakes nobody.
   All calls for one launch together look at each of its workers at most
   once (a cursor), so a launch costs O(T) looks under the lock, not O(T)
   per joiner; and the cursor passes busy workers 64 at a time (idle_bits),
   so only idle workers are looked at one by one.  */
#define PT_WAKE_FAN_OUT 2
void pt_pool_wake_helpers (pt_pool *p, pt_pool_launch *l, unsigned n);

/* Publishes launch l that an application thread runs a share of (refs
   as pt_pool_push_launch sets them), wakes helpers for it as
   pt_pool_wake_helpers (l, PT_WAKE_FAN_OUT) does, and then ends every
   grace as pt_pool_end_graces does (P6: the worker left waiting for the
   command the thread took joins now), under one hold of the lock: the
   three one after the other took the publishing thread 0.9 us and the
   graced worker joined 2.3 us after the publish began (2 threads, a
   2-CPU VM).  The order is the three calls' order, with nothing between
   them, which is one of the interleavings the calls allowed
   (tests/model/pool_wake.pml).  */
void pt_pool_publish_shared (pt_pool *p, pt_pool_launch *l);

/* An application thread waiting for its commands (pthread_host.h): the
   oldest queued command that match (cmd, arg) accepts, removed from the
   queue, or NULL.  A worker taken for that command finds it gone (P5)
   and looks for other work.  graced, unless NULL: the pool index of the
   worker taken for the command with the latest grace (P6), which comes
   to its launch once the grace ends, or UINT_MAX.  */
_cl_command_node *pt_pool_take_command_if (
    pt_pool *p, bool (*match) (const _cl_command_node *cmd, void *arg),
    void *arg, unsigned *graced);

/* The same thread: the oldest listed launch with work-groups left that
   match (l, arg) accepts, with a reference taken for the caller (dropped
   with pt_pool_launch_release), or NULL.  */
pt_pool_launch *pt_pool_join_launch_if (
    pt_pool *p, bool (*match) (const pt_pool_launch *l, void *arg), void *arg);

/* Removes a launch whose work-groups are all claimed from the list, and
   drops the list's reference (the caller still holds its own).  */
void pt_pool_unlink_launch (pt_pool *p, pt_pool_launch *l);

/* Drops one reference; true if it was the last, and the caller must free
   the launch.  */
bool pt_pool_launch_release (pt_pool_launch *l);

/* Stops handing out work: every worker's pt_pool_wait returns false.  */
void pt_pool_shutdown (pt_pool *p);

/* Calls fn (arg) under the pool lock once every worker is idle (spinning
   or asleep) and nothing is queued, waiting up to wait_ms for that, and
   returns whether it did.  While fn runs no worker can start anything
   (that takes the lock), and whatever a worker did before it went idle
   happens before fn (it flagged itself idle under the lock): fn may read
   the workers' own state.  */
bool pt_pool_when_idle (pt_pool *p, void (*fn) (void *), void *arg,
                        unsigned wait_ms);

#ifdef PT_POOL_TEST_HOOKS
/* Words of idle_bits and spin_bits read by pt_pool_push_command and
   pt_pool_wake_helpers, under the lock; tests/pool reads and resets it.
   Only in builds with PT_POOL_TEST_HOOKS.  */
extern unsigned long pt_pool_scan_words;
/* Graces a worker began to wait out (P6), counted as it drops the lock
   to wait.  */
extern _Atomic unsigned long pt_pool_graces_begun;
#endif

#ifdef __GNUC__
#pragma GCC visibility pop
#endif

#endif /* POCL_STEAL_PTHREAD_POOL_H */
