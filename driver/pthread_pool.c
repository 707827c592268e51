/* pthread_pool.c - the pool's queues and the idle workers' sleep/wake
   hand-off; see pthread_pool.h.

   THE HAND-OFF, stated once (tests/model/pool_wake.pml checks it for small
   cases; each step below cites the rule it relies on):

   P1 (search and flag under one lock hold)  A worker searches the queues
      and, finding nothing, sets its `spinning` or `sleeping` flag without
      releasing the pool lock in between.  Every push appends under the
      same lock.  So a push is either before the search (which finds it)
      or after the flag is set (and the pusher sees it).
   P2 (kicking is unflagging)  A pusher that leaves its work to a spinner
      takes that spinner: it clears the spinner's `spinning` flag and bumps
      its own `kick` counter under the lock.  The spinner read `kick` under
      the lock before dropping it, so it sees the change, retakes the lock
      and searches again.  A taken spinner is no longer counted as idle, so
      the next push takes another worker: one idle worker answers one push.
      Nobody else's `kick` changes, so pushes for other sub-devices never
      renew a spin.
   P3 (waking is marking)  A waker clears the sleeper's `sleeping` flag
      under the lock and signals it after unlocking (signalling under the
      lock would make the woken thread wait for the signaller's lock).  The
      sleeper waits in a loop while the flag is set, so a signal that comes
      before its wait, or a spurious wake-up, changes nothing.
   P4 (shutdown)  pt_pool_shutdown sets `shutdown` under the lock, kicks
      every worker (cutting spins short) and marks every sleeper woken;
      every worker checks `shutdown` under the lock before it waits.
   P5 (a worker takes what it was woken for)  A worker woken or kicked for
      a command records it (`woken_for`) and, while that command is still
      queued, takes it before any other command or launch.  So a command
      whose pusher took worker w is run by w, by a worker that searched
      before w (P1), or by an application thread waiting for it
      (pt_pool_take_command_if), never left queued because w took another
      device's command instead.

   P6 (a grace for the enqueuing thread)  A command that counts in
      host_work (H1), pushed by the application thread that enqueued it
      (by_waiter), is usually waited for by that thread next, which then
      runs it itself (pthread_host.h) with no hand-off at all.  A worker
      kicked for it at once races that thread, and when the worker wins,
      the launch pays the hand-offs both ways (a third of the cost of a
      launch of 64 work-groups, measured at 2 threads).  So the push takes
      a worker as P2 and P3 say, but with a deadline, grace_until: the
      taken worker watches its `kick` until then, unlocked, and only then
      searches (P5 first).  Loses nothing: the worker is taken, not idle,
      and searches after its grace as after any kick; a grace is a delay
      between a take and the search, which P1-P3 allow anyway (the model's
      interleavings have every such delay).  Bounded: a grace ends at its
      deadline, at shutdown (P4's kick), or when an application thread
      that is about to wait without running anything ends all graces
      (pt_pool_end_graces kicks the workers in one), so a thread that
      waits for something behind the command, a read, say, does not wait
      out the grace; and so does one that publishes a launch it took
      (pthread_kernel.c), so that the worker left waiting for it joins
      at once.  A grace is spent spinning, so the workers give none
      where spinning is off (POCL_PTHREAD_SPIN_US=0), and it ends early
      when the worker lost its CPU during it, or gave way to a woken
      thread (B2, B4 of pthread_spin.h): on a busy machine the enqueuer
      may be off its CPU too, and a worker that then waits out the rest
      lets the command wait twice.

   P7 (the pusher wakes a launch's first helpers)  A push of an NDRange
      command of several work-groups that no application thread takes
      (no grace, P6) takes, besides the worker for the command, up to
      PT_PUSH_HELPERS more idle workers of its device, as
      pt_pool_wake_helpers would once the launch is published.  On a
      busy machine each wake-up waits for the woken thread to be
      scheduled; waking the helpers from the worker that prepares the
      launch made them wait for two such delays in a row, and they now
      overlap.  Loses nothing: a helper is taken as P2 and P3 say, with
      woken_for NULL, and searches: it finds the command itself if it
      runs before the worker taken for it (which then finds it gone, P5,
      and looks for the launch), else the launch once it is published
      (P1; or it goes idle again and the launch's own helper wake-ups
      take it).

   P8 (no more helpers than CPUs)  A push (P7) and a launch's wake-ups
      take an idle worker as a helper only while the driver's threads
      that run or are about to (the busy workers, the application threads
      running a published launch (pt_pool_host_busy), those woken and not
      yet running: pt_wake_hint, and the workers in a grace, P6) are
      fewer than the CPUs the process may run on, counting the workers
      the same call took, the one for the command included.  A helper beyond
      that finds no CPU: it waits on a run queue behind the participants,
      preempts one when it gets there (a context switch each way), and
      holds the range it claimed while it is off its CPU.  With 4 threads
      on 2 CPUs, launches of 16384 trivial work-groups took 150 us
      against 90 at 2 threads.  Loses nothing where others can run a
      thread's work-groups (guided, or static with stealing:
      wgd_others_may_run): the worker that prepares the launch, and every
      participant, claims until nothing is left; a busy worker searches
      before it goes idle (P1) and joins by itself.  So the launch's
      wake-ups keep the cap only there; with stealing off each thread's
      block needs its owner, and they wake as before.  The worker taken
      for the command itself is never capped.  Where no watch thread runs
      (P9), nothing is capped.

   P9 (the rest come a tick later)  P8 trusts the participants to run the
      blocks of the threads it leaves asleep.  That holds for work-groups
      that end on their own, not for those that wait for each other or
      for the host: OpenCL promises no forward progress between
      work-groups, but stock PoCL runs every thread of a launch, and
      programs rely on it (tests/opencl/busy_workers.h does: each worker
      runs one work-group that waits for a flag).  So a wake-up that P8
      cuts short while an idle worker of the device is left marks its
      launch (capped_at), and a watch thread (pt_pool_watch), looking
      every PT_WATCH_TICK_NS while a listed launch is marked, looks at
      each launch marked a tick or more before that still has unclaimed
      work-groups.  If a work-group was claimed since the mark (the units
      left in the block words changed, wgd_left_in_words), somebody is
      not stuck, and that somebody claims until nothing is left, so it
      marks the launch again from now; else it takes every idle worker of
      the launch's device, as P2 and P3 take a worker, for no command,
      without the cap, and unmarks the launch (a later cut marks it
      again).  So every thread of a launch runs at most two ticks after
      the launch's claims stopped with work-groups unclaimed, whatever the
      work-groups do; and a long launch that its participants run on
      keeps them alone, so that the same work-groups stay on the same
      threads from one launch to the next (a worker that came after a
      tick stole from the others' blocks: balanced launches of 1024
      work-groups of about 10 us each, 2 threads, the waiting thread
      running a share, ran 0.78 of their work-groups on the thread of the
      launch before, 0.95 with this rule).  A tick (1 ms) is longer than the
      launches P8 is for and shorter than a time slice.  The watch costs
      unmarked launches nothing: it sleeps until a launch is marked (the
      marker signals it), and after the last marked launch leaves the
      list it looks PT_WATCH_LINGER more times before it sleeps again, so
      that launches back to back do not pay a wake-up of the watch each.
      Loses nothing: a taken worker searches (P1) and joins the launch or
      goes idle again; one taken for a launch that finished meanwhile
      finds nothing.

   P10 (no thief beside full CPUs)  A worker that searches on its own (P1:
      before it goes idle, or when its spin ended without a kick), not
      taken by a pusher, a launch's wake-up or the watch, passes over a
      launch where it has no block of its own left (wgd_thread_has_work;
      an application thread took it over, say) while the participants
      there can run every block (wgd_others_may_run) and the threads
      that run or are about to fill the CPUs (helper_room, as P8 counts
      them).  It would only steal from the others' blocks and take a CPU
      from one of them: on 2 CPUs a launch's waiting thread runs a share
      of it, and an idle worker that joined besides the one woken made
      three threads for two CPUs and moved work-groups from one launch to
      the next.  The pass marks the launch for the watch as P8's cut does
      (P9).  Loses nothing: the participants claim until nothing is left
      (P8's argument), and the watch takes the worker if their claims
      stop; a worker taken for the launch is never passed over.

   P11 (a worker runs what its completion made ready)  A command that a
      completion made ready (pt_pool_push_ready, from
      pocl_pthread_notify), pushed by a running worker (pt_pool_wait
      returned work to this thread, and it has not waited since) of a
      device the worker serves, is recorded as that worker's woken_for
      and takes no idle worker for it; P7's helpers are still taken.  The
      pusher is about to finish: the completion is the last thing its
      command or launch does.  Then it searches (P1) and takes the
      command first (P5), with no hand-off.  Not for a command enqueued
      from a worker (an event callback's clEnqueue: pt_pool_push_command),
      nor from a native kernel, which runs the application's code: a
      user event it completes may make a command ready that the same code
      then waits for, and nobody else would take it.
      Before this rule, a launch followed by a read (cl_where: a blocking
      read after each launch) woke the other worker for the read; that
      worker was then the spinner the next launch's push took (P6), the
      waiting thread started on the other block (pthread_kernel.c), and
      the work-groups moved threads: 1024 balanced work-groups of about
      50 us on 2 threads ran 0.49-0.95 of them on the thread of the
      launch before, and 0.93-0.95 with this rule.  Loses nothing: the
      command is queued as any other and counts in host_work (H1), so
      whoever searches before the pusher (P1), or an application thread,
      may take it instead (P5: the pusher then finds it gone); the pusher
      is busy, not idle, so no push would have taken it anyway; and its
      woken_for was empty (a busy worker's is: it is cleared at each
      search, and only set by a take of an idle worker), else the rule
      does not apply and the push takes a worker as before.

   H1 (the application threads' hint)  host_work counts the queued NDRange
      commands and the listed launches of at most host_groups work-groups,
      and the queued markers and barriers (none if host_groups is 0).
      It changes under the lock only, with the append or removal of each
      such item (whose size never changes), so under the lock it is exact.
      Application threads read it without the lock (pt_pool_host_work)
      before they look for work they may run.  A 0 read while an item is
      being pushed makes the thread wait instead of run it, which loses
      nothing: the push has provided for the item (P1-P3).  A stale
      nonzero costs one lock hold that finds nothing.  So a thread waiting
      for a big launch, or for a read or a write, never takes the pool
      lock.

   The flags P1-P3 speak of are mirrored by the bitmaps idle_bits (either
   flag) and spin_bits (`spinning`), which are what pushers search
   (pthread_pool.h).  Flags and bits change together, in pt_idle_set,
   under the lock: whatever P1-P3 say of a worker's flag holds of its
   bit, and a pusher that finds no bit set has seen every flag clear.

   Copyright (c) 2026 pocl-steal developers.  MIT licence, as PoCL.  */

#define _GNU_SOURCE

#include "pthread_pool.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
#include "pocl_util.h"
#include "utlist.h"

#include "pthread_spin.h"

#ifdef PT_POOL_TEST_HOOKS
unsigned long pt_pool_scan_words;
_Atomic unsigned long pt_pool_graces_begun;
#define PT_COUNT_SCAN_WORD() (++pt_pool_scan_words)
#define PT_COUNT_GRACE()                                                      \
  atomic_fetch_add_explicit (&pt_pool_graces_begun, 1, memory_order_relaxed)
#else
#define PT_COUNT_SCAN_WORD() ((void)0)
#define PT_COUNT_GRACE() ((void)0)
#endif

cl_int
pt_pool_init (pt_pool *p, unsigned num_threads, uint64_t spin_ns,
              bool skip_claimed)
{
  memset (p, 0, sizeof (*p));
  p->num_threads = num_threads > 0 ? num_threads : 1;
  p->spin_ns = spin_ns;
  p->skip_claimed = skip_claimed;
  p->clock = pt_real_clock ();
  size_t bytes = p->num_threads * sizeof (pt_idle);
  p->idle = pocl_aligned_malloc (WGD_CACHELINE, bytes);
  if (p->idle == NULL)
    return CL_OUT_OF_HOST_MEMORY;
  size_t bit_bytes = PT_IDLE_WORDS (p->num_threads) * sizeof (uint64_t);
  p->idle_bits = pocl_aligned_malloc (WGD_CACHELINE, 2 * bit_bytes);
  p->watch_taken = calloc (p->num_threads, sizeof (unsigned));
  if (p->idle_bits == NULL || p->watch_taken == NULL)
    {
      pocl_aligned_free (p->idle);
      pocl_aligned_free (p->idle_bits);
      free (p->watch_taken);
      p->idle = NULL; /* pt_pool_destroy then frees nothing */
      return CL_OUT_OF_HOST_MEMORY;
    }
  p->spin_bits = p->idle_bits + PT_IDLE_WORDS (p->num_threads);
  memset (p->idle, 0, bytes);
  /* Nobody idle, as no flag is set: the invariant of idle_bits and
     spin_bits.  */
  memset (p->idle_bits, 0, 2 * bit_bytes);
  for (unsigned i = 0; i < p->num_threads; ++i)
    {
      pthread_cond_init (&p->idle[i].wake, NULL);
      pt_spin_init (&p->idle[i].spin, spin_ns);
    }
  pthread_mutex_init (&p->lock, NULL);
  /* P9: the watch's looks are timed waits on the monotonic clock.  */
  pthread_condattr_t attr;
  pthread_condattr_init (&attr);
  pthread_condattr_setclock (&attr, CLOCK_MONOTONIC);
  pthread_cond_init (&p->watch_wake, &attr);
  pthread_condattr_destroy (&attr);
  /* relaxed: the pool is published to the workers by pthread_create.  */
  for (unsigned i = 0; i < p->num_threads; ++i)
    atomic_init (&p->idle[i].kick, 0);
  atomic_init (&p->woken.woken, 0);
  /* The workers start running, and count themselves out as they first
     wait (B5).  */
  atomic_init (&p->woken.busy, p->num_threads);
  atomic_init (&p->woken.spinners, 0);
  p->woken.cpus = pt_allowed_cpus ();
  for (unsigned i = 0; i < p->num_threads; ++i)
    {
      p->idle[i].cpu = -1;
      p->idle[i].busy_cpu = -1;
    }
  /* B8: a count per CPU the machine has, whichever the process may run
     on; without memory for them, no B8.  */
  long conf = sysconf (_SC_NPROCESSORS_CONF);
  unsigned ncpu = conf > 0 ? (unsigned)conf : 1;
  p->woken.busy_on
      = pocl_aligned_malloc (PT_SPIN_LINE, ncpu * sizeof (pt_cpu_busy));
  if (p->woken.busy_on != NULL)
    {
      p->woken.busy_on_len = ncpu;
      for (unsigned c = 0; c < ncpu; ++c)
        atomic_init (&p->woken.busy_on[c].n, 0);
    }
  return CL_SUCCESS;
}

void
pt_pool_count_host_work (pt_pool *p, uint64_t max_groups, uint64_t grace_ns)
{
  p->host_groups = max_groups;
  p->host_grace_ns = grace_ns;
}

/* Whether cmd counts in host_work (H1).  */
static bool
host_command (const pt_pool *p, const _cl_command_node *cmd)
{
  return p->host_groups > 0
         && (pt_pool_command_is_empty (cmd)
             || (cmd->type == CL_COMMAND_NDRANGE_KERNEL
                 && pt_pool_command_groups (cmd) <= p->host_groups));
}

/* Whether l counts in host_work (H1).  */
static bool
host_launch (const pt_pool *p, const pt_pool_launch *l)
{
  return p->host_groups > 0 && l->dispatch->num_groups <= p->host_groups;
}

/* Adds delta to host_work if `counts`.  Under the lock (H1).  */
static void
host_work_add (pt_pool *p, bool counts, int delta)
{
  if (!counts)
    return;
  /* relaxed: only lock holders write it, and readers without the lock
     take it as a hint (H1).  */
  unsigned n = atomic_load_explicit (&p->host_work, memory_order_relaxed);
  atomic_store_explicit (&p->host_work, n + (unsigned)delta,
                         memory_order_relaxed);
}

/* The one way commands enter and leave the queue, so that host_work
   follows them (H1).  Under the lock.  */
static void
queue_append (pt_pool *p, _cl_command_node *cmd)
{
  DL_APPEND (p->commands, cmd);
  host_work_add (p, host_command (p, cmd), 1);
}

static void
queue_remove (pt_pool *p, _cl_command_node *cmd)
{
  DL_DELETE (p->commands, cmd);
  host_work_add (p, host_command (p, cmd), -1);
}

void
pt_pool_destroy (pt_pool *p)
{
  if (p->idle == NULL)
    return;
  for (unsigned i = 0; i < p->num_threads; ++i)
    pthread_cond_destroy (&p->idle[i].wake);
  pocl_aligned_free (p->idle);
  p->idle = NULL;
  pocl_aligned_free (p->idle_bits); /* spin_bits with it */
  p->idle_bits = NULL;
  p->spin_bits = NULL;
  free (p->watch_taken);
  p->watch_taken = NULL;
  pthread_cond_destroy (&p->watch_wake);
  pthread_mutex_destroy (&p->lock);
  pocl_aligned_free (p->woken.busy_on);
  p->woken.busy_on = NULL;
  p->woken.busy_on_len = 0;
}

void
pt_pool_device_threads (const pt_pool *p, cl_device_id dev, unsigned *first,
                        unsigned *count)
{
  unsigned f = 0, n = p->num_threads;
  if (dev != NULL && dev->parent_device != NULL)
    {
      /* core_start counts from the root device, also for sub-sub-devices. */
      f = dev->core_start;
      n = dev->core_count;
    }
  if (f >= p->num_threads)
    f = p->num_threads - 1;
  if (n == 0 || n > p->num_threads - f)
    n = p->num_threads - f;
  *first = f;
  *count = n;
}

static bool
serves (const pt_pool *p, unsigned index, cl_device_id dev)
{
  unsigned first, count;
  pt_pool_device_threads (p, dev, &first, &count);
  return index >= first && index < first + count;
}

/* P2: tells a spinning worker to look again.  Under the pool lock.
   relaxed: the spinner that sees it takes the lock before looking.  */
static void
kick (pt_pool *p, unsigned index)
{
  atomic_fetch_add_explicit (&p->idle[index].kick, 1, memory_order_relaxed);
}

/* P6: worker `index`, about to be taken, leaves its command alone until
   host_grace_ns from now.  Under the lock.  */
static void
grace_start (pt_pool *p, unsigned index, const _cl_command_node *cmd)
{
  p->idle[index].grace_until = p->clock.now (p->clock.arg) + p->host_grace_ns;
  p->grace_cmd = cmd;
  p->grace_worker = index;
  /* relaxed: changed under the lock only; pt_pool_end_graces reads it
     without the lock as a hint.  */
  unsigned n = atomic_load_explicit (&p->graces, memory_order_relaxed);
  atomic_store_explicit (&p->graces, n + 1, memory_order_relaxed);
}

/* P6: worker `index`'s grace is over, if it had one.  Under the lock.  */
static void
grace_clear (pt_pool *p, unsigned index)
{
  if (p->idle[index].grace_until == 0)
    return;
  p->idle[index].grace_until = 0;
  /* relaxed: see grace_start.  */
  unsigned n = atomic_load_explicit (&p->graces, memory_order_relaxed);
  atomic_store_explicit (&p->graces, n - 1, memory_order_relaxed);
}

static void
wake_signal (pt_pool *p, unsigned index)
{
  pthread_cond_signal (&p->idle[index].wake);
}

/* Takes idle worker `index` for work (for command cmd, or NULL for a
   launch), under the pool lock: a spinner is kicked and no longer counts
   as spinning (P2); a sleeper is marked woken (P3), and true says that
   the caller must signal it with wake_signal() after dropping the lock.
   Either way it records what it was taken for (P5).  */
static bool
take_idle (pt_pool *p, unsigned index, _cl_command_node *cmd)
{
  pt_idle *w = &p->idle[index];
  bool spinning = w->spinning;
  w->woken_for = cmd;
  /* Both flags clear: a worker sets one of them at a time
     (pt_pool_wait), so this clears the one that was set; its bit goes
     with it, and the next search passes this worker.  */
  pt_idle_set (p, index, false, false);
  if (spinning)
    {
      kick (p, index);
      return false;
    }
  pt_pool_woken_add (p, 1, w->cpu); /* B4, until it leaves its wait */
  return true;
}

/* The bits of bitmap `map` (idle_bits or spin_bits) for workers
   [from, end), from the word that holds `from` only (end > from): 64
   workers in one read.  Under the lock.  */
static inline uint64_t
bits_word (const uint64_t *map, unsigned from, unsigned end)
{
  unsigned base = from / PT_IDLE_WORD_BITS * PT_IDLE_WORD_BITS;
  uint64_t bits = map[from / PT_IDLE_WORD_BITS];
  PT_COUNT_SCAN_WORD ();
  bits &= ~(uint64_t)0 << (from - base);
  if (end - base < PT_IDLE_WORD_BITS)
    bits &= ((uint64_t)1 << (end - base)) - 1;
  return bits;
}

/* The first worker of [from, end) whose bit is set in `map`, or end if
   none.  Under the lock.  A word at a time.  */
static unsigned
first_set (const uint64_t *map, unsigned from, unsigned end)
{
  while (from < end)
    {
      uint64_t bits = bits_word (map, from, end);
      unsigned base = from / PT_IDLE_WORD_BITS * PT_IDLE_WORD_BITS;
      if (bits != 0)
        return base + (unsigned)__builtin_ctzll (bits);
      from = base + PT_IDLE_WORD_BITS;
    }
  return end;
}

/* The idle worker of [from, end) a push should take, or end if none:
   the first spinner, else the first sleeper.  Under the lock.  */
static unsigned
idle_to_take (const pt_pool *p, unsigned from, unsigned end)
{
  unsigned i = first_set (p->spin_bits, from, end);
  return i < end ? i : first_set (p->idle_bits, from, end);
}

/* P8: how many more helpers fit on the CPUs: the CPUs less the busy
   workers and application threads, those woken and not yet running, and
   the workers in a grace.  relaxed: hints, read
   under the lock; a stale one wakes one helper too many or too few, and
   the participants claim what nobody else does.  */
static unsigned
helper_room (pt_pool *p)
{
  /* Without a watch, nothing would wake the rest (P9): no cap.  */
  if (!p->watching)
    return UINT_MAX;
  unsigned used
      = atomic_load_explicit (&p->woken.busy, memory_order_relaxed)
        + atomic_load_explicit (&p->woken.woken, memory_order_relaxed)
        + atomic_load_explicit (&p->graces, memory_order_relaxed);
  return used < p->woken.cpus ? p->woken.cpus - used : 0;
}

/* Marks launch l for the watch (P9), unless it is marked already.  Under
   the lock.  Returns whether the watch sleeps and must be signalled.  */
static bool
mark_capped (pt_pool *p, pt_pool_launch *l)
{
  if (l->capped_at != 0)
    return false;
  l->capped_at = p->clock.now (p->clock.arg) | 1;
  l->capped_left = wgd_left_in_words (l->dispatch);
  p->capped++;
  return p->watch_idle;
}

/* The index of the worker this thread is while it runs work that
   pt_pool_wait handed it, other than a native kernel (P11); -1 in
   application threads, and in a worker while it waits.  */
static __thread int running_worker = -1;

/* pt_pool_push_command, and with `ready`, pt_pool_push_ready.  */
static void
push (pt_pool *p, _cl_command_node *cmd, bool by_waiter, bool ready)
{
  unsigned first, count;
  pt_pool_device_threads (p, cmd->device, &first, &count);
  /* The worker leaves cmd to its enqueuer a while (P6).  */
  bool grace = by_waiter && p->host_grace_ns > 0 && host_command (p, cmd);
  /* One worker for the command, and for a launch of several work-groups
     that no application thread takes up to PT_PUSH_HELPERS more, one
     per work-group at most (P7).  */
  unsigned want = 1;
  if (!grace && cmd->type == CL_COMMAND_NDRANGE_KERNEL)
    {
      uint64_t groups = pt_pool_command_groups (cmd);
      uint64_t most
          = count < 1 + PT_PUSH_HELPERS ? count : 1 + PT_PUSH_HELPERS;
      want = (unsigned)(groups < most ? (groups > 0 ? groups : 1) : most);
    }
  unsigned woken[1 + PT_PUSH_HELPERS];
  unsigned k = 0;

  pthread_mutex_lock (&p->lock);
  queue_append (p, cmd);
  /* P11: the running worker that pushes runs cmd itself next.  */
  unsigned n = 0;
  if (ready && running_worker >= 0
      && serves (p, (unsigned)running_worker, cmd->device)
      && p->idle[running_worker].woken_for == NULL)
    {
      p->idle[running_worker].woken_for = cmd;
      n = 1;
    }
  /* Take idle workers of the device (P2, P3), spinners first: they answer
     at once, where a sleeper takes a futex wake-up.  The first is taken
     for cmd (P5); the others search as any taken worker does, and take
     cmd themselves if they run first.  If none is idle, the busy ones
     search the queue before they go idle (P1).  Helpers only while they
     fit on the CPUs (P8).  */
  /* Read only where helpers are wanted: the counts' lines are the
     workers', and a push of one work-group should not pay for them.  */
  unsigned room = want > 1 ? helper_room (p) : 0;
  for (; n < want; ++n)
    {
      if (n > 0 && room == 0)
        break;
      unsigned i = idle_to_take (p, first, first + count);
      if (i == first + count)
        break;
      /* Whoever is taken will run: the worker for cmd too.  */
      if (room > 0)
        room--;
      if (n == 0 && grace)
        grace_start (p, i, cmd);
      if (take_idle (p, i, n == 0 ? cmd : NULL))
        woken[k++] = i;
    }
  pthread_mutex_unlock (&p->lock);
  for (unsigned n = 0; n < k; ++n)
    wake_signal (p, woken[n]);
}

void
pt_pool_push_command (pt_pool *p, _cl_command_node *cmd, bool by_waiter)
{
  push (p, cmd, by_waiter, false);
}

void
pt_pool_push_ready (pt_pool *p, _cl_command_node *cmd)
{
  push (p, cmd, false, true);
}

/* P6: ends every grace (pt_pool_end_graces).  Under the lock.  */
static void
end_graces_locked (pt_pool *p)
{
  for (unsigned i = 0;
       i < p->num_threads
       && atomic_load_explicit (&p->graces, memory_order_relaxed) > 0;
       ++i)
    if (p->idle[i].grace_until != 0)
      {
        grace_clear (p, i);
        kick (p, i); /* it watches its kick during the grace (P6) */
      }
}

void
pt_pool_end_graces (pt_pool *p)
{
  /* relaxed: a hint.  A grace started before our caller's search for
     work is seen: that search took the lock after the push dropped it.
     One started since is for a command pushed after that search, which
     its own enqueuer may still run.  */
  if (atomic_load_explicit (&p->graces, memory_order_relaxed) == 0)
    return;
  pthread_mutex_lock (&p->lock);
  end_graces_locked (p);
  pthread_mutex_unlock (&p->lock);
}

/* pt_pool_push_launch's work.  Under the lock.  */
static void
push_launch_locked (pt_pool *p, pt_pool_launch *l)
{
  /* relaxed: l is published to the workers by the pool lock.  */
  atomic_store_explicit (&l->refs, 2, memory_order_relaxed);
  l->seq = ++p->launch_seq;
  l->wake_cursor = 0;
  DL_APPEND (p->launches, l);
  host_work_add (p, host_launch (p, l), 1);
}

void
pt_pool_push_launch (pt_pool *p, pt_pool_launch *l)
{
  pthread_mutex_lock (&p->lock);
  push_launch_locked (p, l);
  /* Nobody is kicked: the pusher joins the launch and wakes helpers
     (pt_pool_wake_helpers); busy workers search before going idle (P1).  */
  pthread_mutex_unlock (&p->lock);
}

/* Whom a wake-up took: the sleepers to signal once the lock is dropped,
   and whether the watch must be signalled (P9).  */
typedef struct
{
  unsigned woken[PT_WAKE_FAN_OUT];
  unsigned k;
  bool signal_watch;
} wake_list;

static void
wake_list_signal (pt_pool *p, const wake_list *w)
{
  for (unsigned i = 0; i < w->k; ++i)
    wake_signal (p, w->woken[i]);
  if (w->signal_watch)
    pthread_cond_signal (&p->watch_wake);
}

/* pt_pool_wake_helpers' work, under the lock; the caller signals w once
   it dropped the lock (P3).  */
static void
wake_helpers_locked (pt_pool *p, pt_pool_launch *l, unsigned n, wake_list *w)
{
  w->k = 0;
  w->signal_watch = false;
  if (n > PT_WAKE_FAN_OUT)
    n = PT_WAKE_FAN_OUT;

  bool cut = false;
  /* No more than fit on the CPUs where the participants can run every
     thread's work-groups (P8).  */
  if (wgd_others_may_run (l->dispatch))
    {
      unsigned room = helper_room (p);
      cut = n > room;
      if (cut)
        n = room;
    }
  /* Idle workers that would find work of their own, spinning or asleep:
     each one taken answers one wake-up (P2, P3).  In thread order from
     where the launch's previous wake-up stopped: a worker looked at once
     is never looked at again for this launch, so all the joiners together
     look at each worker at most once, not each joiner at every worker.
     Nothing is lost by not looking again: a worker that was busy, or
     became idle after the cursor passed it, searches the launch list
     before it goes idle (P1) and joins by itself.  Busy workers are
     passed a word of idle_bits at a time, unlooked at; the idle ones of
     a word are taken from the one read.  */
  unsigned first = l->first_thread;
  unsigned end = first + l->num_threads;
  unsigned at = first + l->wake_cursor; /* the next worker to look at */
  unsigned taken = 0;
  while (at < end && taken < n)
    {
      uint64_t bits = bits_word (p->idle_bits, at, end);
      unsigned base = at / PT_IDLE_WORD_BITS * PT_IDLE_WORD_BITS;
      /* Unless we stop inside it, the whole word is passed.  */
      at = end - base > PT_IDLE_WORD_BITS ? base + PT_IDLE_WORD_BITS : end;
      while (bits != 0)
        {
          unsigned index = base + (unsigned)__builtin_ctzll (bits);
          bits &= bits - 1;
          /* The bit was read before any take below, and a take clears
             only the bit of the worker taken: index is still idle.  */
          if (!wgd_thread_has_work (l->dispatch, index - first))
            continue;
          if (take_idle (p, index, NULL))
            w->woken[w->k++] = index;
          if (++taken == n)
            {
              /* Stop here: the workers after index in this word have not
                 been looked at.  */
              at = index + 1;
              break;
            }
        }
    }
  l->wake_cursor = at - first;
  /* A cut that left an idle worker of the device asleep marks the launch
     for the watch, which wakes the rest a tick later if the launch still
     has work-groups to claim (P9).  One with every worker busy leaves
     nobody: they search before they go idle (P1).  */
  if (cut && first_set (p->idle_bits, first, end) != end)
    w->signal_watch = mark_capped (p, l);
}

void
pt_pool_wake_helpers (pt_pool *p, pt_pool_launch *l, unsigned n)
{
  wake_list w;
  pthread_mutex_lock (&p->lock);
  wake_helpers_locked (p, l, n, &w);
  pthread_mutex_unlock (&p->lock);
  wake_list_signal (p, &w);
}

void
pt_pool_publish_shared (pt_pool *p, pt_pool_launch *l)
{
  wake_list w;
  pthread_mutex_lock (&p->lock);
  push_launch_locked (p, l);
  /* In this order: P8 still counts the graced worker while it takes
     helpers, so the grace's end below does not make room for one more
     helper than there are CPUs.  */
  wake_helpers_locked (p, l, PT_WAKE_FAN_OUT, &w);
  end_graces_locked (p);
  pthread_mutex_unlock (&p->lock);
  wake_list_signal (p, &w);
}

void
pt_pool_unlink_launch (pt_pool *p, pt_pool_launch *l)
{
  pthread_mutex_lock (&p->lock);
  DL_DELETE (p->launches, l);
  host_work_add (p, host_launch (p, l), -1);
  if (l->capped_at != 0)
    {
      l->capped_at = 0;
      p->capped--; /* P9: nothing left to watch in it */
    }
  pthread_mutex_unlock (&p->lock);
  /* The list's reference; the caller holds another, so this is never the
     last.  */
  pt_pool_launch_release (l);
}

bool
pt_pool_launch_release (pt_pool_launch *l)
{
  /* acq_rel: everything a holder did with l happens before the free by
     whoever drops the last reference.  */
  return atomic_fetch_sub_explicit (&l->refs, 1, memory_order_acq_rel) == 1;
}

/* A launch of worker `index`'s device with work-groups left, or NULL.
   by_self: the worker searches on its own, not taken for this search
   (P10).  Under the lock.  */
static pt_pool_launch *
find_launch (pt_pool *p, unsigned index, uint64_t gave_up_seq, bool by_self)
{
  pt_pool_launch *l;
  DL_FOREACH (p->launches, l)
  {
    if (index < l->first_thread || index >= l->first_thread + l->num_threads)
      continue;
    /* P10: a thief that would only take a CPU from a participant.  */
    if (by_self && wgd_others_may_run (l->dispatch)
        && !wgd_thread_has_work (l->dispatch, index - l->first_thread)
        && wgd_unclaimed (l->dispatch) > 0 && helper_room (p) == 0)
      {
        if (mark_capped (p, l))
          pthread_cond_signal (&p->watch_wake);
        continue;
      }
    /* The skip: a launch whose work-groups are all claimed is finishing;
       joining it would only find nothing to do.  Its last claimer is
       about to take it out of the list.  The count can lag behind the
       blocks (W5 of wg_dispatch.c), so a worker that joined a launch in
       vain does not join it again: it would spin on the pool lock until
       the claimer runs.  */
    if (p->skip_claimed
        && (wgd_unclaimed (l->dispatch) == 0 || l->seq == gave_up_seq))
      continue;
    return l;
  }
  return NULL;
}

/* The oldest command worker `index` may run, removed from the queue, or
   NULL.  Under the lock.  The whole queue is searched: commands of other
   sub-devices may stand in front.  */
static _cl_command_node *
take_command (pt_pool *p, unsigned index)
{
  _cl_command_node *cmd;
  DL_FOREACH (p->commands, cmd)
  {
    if (serves (p, index, cmd->device))
      {
        queue_remove (p, cmd);
        return cmd;
      }
  }
  return NULL;
}

/* Command cmd, removed from the queue, if it is still there (P5) and
   worker `index` may run it, else NULL.  Under the lock.  Compares
   pointers only: cmd may be gone, and its node reused by PoCL for
   another command since (during a grace, P6, that is tens of
   microseconds), maybe of a sub-device this worker does not serve; that
   one is only taken if it does.  */
static _cl_command_node *
take_this_command (pt_pool *p, unsigned index, const _cl_command_node *cmd)
{
  _cl_command_node *c;
  DL_FOREACH (p->commands, c)
  {
    if (c == cmd && serves (p, index, c->device))
      {
        queue_remove (p, c);
        return c;
      }
  }
  return NULL;
}

_cl_command_node *
pt_pool_take_command_if (pt_pool *p,
                         bool (*match) (const _cl_command_node *, void *),
                         void *arg, unsigned *graced)
{
  _cl_command_node *cmd, *found = NULL;
  unsigned worker = UINT_MAX;
  pthread_mutex_lock (&p->lock);
  DL_FOREACH (p->commands, cmd)
  {
    if (match (cmd, arg))
      {
        queue_remove (p, cmd);
        found = cmd;
        break;
      }
  }
  if (found != NULL && found == p->grace_cmd)
    {
      worker = p->grace_worker;
      p->grace_cmd = NULL;
    }
  pthread_mutex_unlock (&p->lock);
  if (graced != NULL)
    *graced = worker;
  return found;
}

pt_pool_launch *
pt_pool_join_launch_if (pt_pool *p,
                        bool (*match) (const pt_pool_launch *, void *),
                        void *arg)
{
  pt_pool_launch *l, *found = NULL;
  pthread_mutex_lock (&p->lock);
  DL_FOREACH (p->launches, l)
  {
    if (wgd_unclaimed (l->dispatch) > 0 && match (l, arg))
      {
        /* relaxed: as in pt_pool_wait, the list's reference keeps l while
           we hold the lock.  */
        atomic_fetch_add_explicit (&l->refs, 1, memory_order_relaxed);
        found = l;
        break;
      }
  }
  pthread_mutex_unlock (&p->lock);
  return found;
}

/* B8: the CPU the calling worker counts itself busy on, or -1 (its
   pt_idle's busy_cpu, for code that knows no index).  */
static __thread int counted_cpu = -1;

int
pt_pool_counted_cpu (void)
{
  return counted_cpu;
}

void
pt_pool_host_busy (pt_pool *p, bool busy)
{
  /* relaxed: hints, as the workers' own counts (pt_pool_wait).  */
  if (busy)
    {
      atomic_fetch_add_explicit (&p->woken.busy, 1, memory_order_relaxed);
      atomic_fetch_add_explicit (&p->woken.hosts, 1, memory_order_relaxed);
      int cpu = p->clock.cpu (p->clock.arg);
      if (cpu >= 0 && (unsigned)cpu < p->woken.busy_on_len)
        {
          counted_cpu = cpu;
          atomic_fetch_add_explicit (&p->woken.busy_on[cpu].n, 1,
                                     memory_order_relaxed);
        }
      return;
    }
  atomic_fetch_sub_explicit (&p->woken.busy, 1, memory_order_relaxed);
  atomic_fetch_sub_explicit (&p->woken.hosts, 1, memory_order_relaxed);
  if (counted_cpu >= 0)
    atomic_fetch_sub_explicit (&p->woken.busy_on[counted_cpu].n, 1,
                               memory_order_relaxed);
  counted_cpu = -1;
}

bool
pt_pool_wait (pt_pool *p, unsigned index, uint64_t gave_up_seq, pt_work *out)
{
  pt_idle *me = &p->idle[index];
  running_worker = -1; /* P11: waiting, not running */
  /* B5 of pthread_spin.h: we run no work from here until we return with
     some; counted by ourselves, not by a waker, since a woken worker may
     wait long for a CPU.  relaxed: a hint.  */
  atomic_fetch_sub_explicit (&p->woken.busy, 1, memory_order_relaxed);
  if (me->busy_cpu >= 0)
    atomic_fetch_sub_explicit (&p->woken.busy_on[me->busy_cpu].n, 1,
                               memory_order_relaxed); /* B8 */
  me->busy_cpu = -1;
  counted_cpu = -1;
  /* Whether this idle spell already had its spin: then it sleeps; and how
     that spin ended and when it began, to learn from (B3).  */
  bool spun = false;
  /* Whether this search is our own, no pusher, wake-up or watch having
     taken us for it (P10): the first one is (P1).  */
  bool by_self = true;
  pt_spin_end spin_end = PT_SPIN_EXPIRED;
  uint64_t spin_start = 0;
  out->command = NULL;
  out->launch = NULL;

  pthread_mutex_lock (&p->lock);
  while (!p->shutdown)
    {
      /* P5: what we were woken for first, if it is still queued.  */
      _cl_command_node *mine = me->woken_for;
      if (mine != NULL && me->grace_until != 0)
        {
          /* P6: its enqueuer may run it; wait until the deadline, or a
             kick (pt_pool_end_graces, shutdown), then look again.  */
          uint64_t until = me->grace_until;
          /* relaxed: see kick.  */
          uint64_t seen
              = atomic_load_explicit (&me->kick, memory_order_relaxed);
          pthread_mutex_unlock (&p->lock);
          PT_COUNT_GRACE ();
          uint64_t now = p->clock.now (p->clock.arg), start;
          /* B1, B2: a grace is no reason to wait out another program's
             time slice; a spin that lost its CPU ends the grace.  */
          if (now < until)
            pt_spin_watch (&me->kick, seen, until - now, p->clock, &start,
                           &p->woken, PT_SPIN_GRACE);
          pthread_mutex_lock (&p->lock);
          grace_clear (p, index);
          by_self = false;
          continue; /* shutdown first; woken_for is still set */
        }
      me->woken_for = NULL;
      if (mine != NULL)
        {
          out->command = take_this_command (p, index, mine);
          if (out->command != NULL)
            break;
        }
      pt_pool_launch *l = find_launch (p, index, gave_up_seq, by_self);
      if (l != NULL)
        {
          /* relaxed: the list holds a reference while l is linked, and we
             hold the lock that guards the list, so l cannot be freed under
             us; the lock orders the rest.  */
          atomic_fetch_add_explicit (&l->refs, 1, memory_order_relaxed);
          out->launch = l;
          break;
        }
      out->command = take_command (p, index);
      if (out->command != NULL)
        break;
      /* Nothing for us.  First watch our kick counter a while (P1, P2):
         a pusher that takes us bumps it; we search again, under the lock,
         when it changed and when the spin ends.  */
      if (!spun && pt_spin_budget (&me->spin) > 0)
        {
          /* relaxed: see kick.  */
          uint64_t seen
              = atomic_load_explicit (&me->kick, memory_order_relaxed);
          pt_idle_set (p, index, true, false);
          pthread_mutex_unlock (&p->lock);
          /* B1-B3 of pthread_spin.h.  */
          /* B6: our rank among the idle spinners.  relaxed: a hint.  */
          unsigned ahead = atomic_fetch_add_explicit (&p->woken.spinners, 1,
                                                      memory_order_relaxed);
          spin_end = pt_spin_watch (
              &me->kick, seen, pt_spin_budget (&me->spin), p->clock,
              &spin_start, &p->woken, pt_spin_idle_role (ahead));
          atomic_fetch_sub_explicit (&p->woken.spinners, 1,
                                     memory_order_relaxed);
          if (spin_end == PT_SPIN_CHANGED)
            pt_spin_learn (&me->spin, p->spin_ns, spin_end, 0);
          spun = spin_end != PT_SPIN_CHANGED;
          by_self = spun; /* a kick took us (P2), or nobody did */
          pthread_mutex_lock (&p->lock);
          /* Cleared already if a pusher took us (P2).  */
          pt_idle_set (p, index, false, false);
          continue;
        }
      /* Then sleep until someone hands us work (P1, P3).  */
      me->cpu = pt_current_cpu (); /* where a waker will expect us (B4) */
      pt_idle_set (p, index, false, true);
      while (me->sleeping && !p->shutdown)
        pthread_cond_wait (&me->wake, &p->lock);
      /* Marked woken by take_idle or pt_pool_shutdown, which counted us
         in `woken` (B4): we run.  The lock was held from the marking to
         here, so no such count is missed or taken twice.  */
      pt_pool_woken_add (p, -1, -1);
      pt_idle_set (p, index, false, false);
      by_self = false; /* taken (P3), or the shutdown */
      /* B3: would a longer spin have caught this wake-up?  */
      if (spun)
        pt_spin_learn (&me->spin, p->spin_ns, spin_end,
                       p->clock.now (p->clock.arg) - spin_start);
      spun = false;
    }
  bool running = !p->shutdown;
  pthread_mutex_unlock (&p->lock);
  /* P11.  A native kernel runs the application's code, which may
     complete a user event and then wait for what that made ready: its
     worker is not about to search.  */
  bool native
      = out->command != NULL && out->command->type == CL_COMMAND_NATIVE_KERNEL;
  running_worker = running && !native ? (int)index : -1;
  if (running)
    {
      atomic_fetch_add_explicit (&p->woken.busy, 1, memory_order_relaxed);
      /* B8: counted on the CPU the spell begins on; a worker the kernel
         moves later stays counted there until its spell ends, which only
         makes a spinner there sleep sooner.  */
      int cpu = p->clock.cpu (p->clock.arg);
      if (cpu >= 0 && (unsigned)cpu < p->woken.busy_on_len)
        {
          me->busy_cpu = cpu;
          counted_cpu = cpu;
          atomic_fetch_add_explicit (&p->woken.busy_on[cpu].n, 1,
                                     memory_order_relaxed);
        }
    }
  return running;
}

/* Whether every worker is idle (spinning or asleep).  Under the lock.
   Whole words of idle_bits: the bits past num_threads are clear.  */
static bool
all_idle (const pt_pool *p)
{
  unsigned full = p->num_threads / PT_IDLE_WORD_BITS;
  unsigned rest = p->num_threads % PT_IDLE_WORD_BITS;
  for (unsigned w = 0; w < full; ++w)
    if (p->idle_bits[w] != ~(uint64_t)0)
      return false;
  return rest == 0 || p->idle_bits[full] == ((uint64_t)1 << rest) - 1;
}

bool
pt_pool_when_idle (pt_pool *p, void (*fn) (void *), void *arg,
                   unsigned wait_ms)
{
  /* Polled: this is for exit, where a worker that just completed the last
     event is a moment away from its idle loop.  */
  for (unsigned waited_us = 0;; waited_us += 200)
    {
      pthread_mutex_lock (&p->lock);
      bool idle = p->commands == NULL && p->launches == NULL && all_idle (p);
      if (idle)
        fn (arg);
      pthread_mutex_unlock (&p->lock);
      if (idle)
        return true;
      if (waited_us >= wait_ms * 1000u)
        return false;
      struct timespec pause = { 0, 200 * 1000 };
      nanosleep (&pause, NULL);
    }
}

void
pt_pool_shutdown (pt_pool *p)
{
  pthread_mutex_lock (&p->lock);
  p->shutdown = true;
  for (unsigned i = 0; i < p->num_threads; ++i)
    {
      kick (p, i); /* P4: cuts spins short */
      /* A sleeper is marked woken (counted for B4, uncounted when it
         leaves its wait); a spinner keeps its flag, and clears it when
         its spin ends.  */
      if (p->idle[i].sleeping)
        pt_pool_woken_add (p, 1, p->idle[i].cpu);
      pt_idle_set (p, i, p->idle[i].spinning, false);
    }
  pthread_mutex_unlock (&p->lock);
  for (unsigned i = 0; i < p->num_threads; ++i)
    wake_signal (p, i);
  pthread_cond_broadcast (&p->watch_wake); /* P9: the watch returns */
}

unsigned
pt_pool_watch_look (pt_pool *p, uint64_t now)
{
  unsigned k = 0, taken = 0;
  pthread_mutex_lock (&p->lock);
  for (pt_pool_launch *l = p->launches; l != NULL && p->capped > 0;
       l = l->next)
    {
      if (l->capped_at == 0 || now - l->capped_at < PT_WATCH_TICK_NS)
        continue;
      if (wgd_unclaimed (l->dispatch) == 0)
        {
          l->capped_at = 0;
          p->capped--;
          continue;
        }
      /* P9: claimed since the mark: somebody is not stuck.  */
      uint64_t left = wgd_left_in_words (l->dispatch);
      if (left != l->capped_left)
        {
          l->capped_at = now | 1;
          l->capped_left = left;
          continue;
        }
      l->capped_at = 0;
      p->capped--;
      /* Every idle worker of the device, work of its own or not: the
         work left may be in the words of participants that are stuck in
         work-groups waiting for others, where only a thief gets it.
         Taken as P2 and P3 say, for no command: each searches and joins
         (P1), or goes idle again.  */
      for (unsigned i = l->first_thread; i < l->first_thread + l->num_threads;
           ++i)
        if (p->idle[i].spinning || p->idle[i].sleeping)
          {
            taken++;
            if (take_idle (p, i, NULL))
              p->watch_taken[k++] = i;
          }
    }
  pthread_mutex_unlock (&p->lock);
  for (unsigned i = 0; i < k; ++i)
    wake_signal (p, p->watch_taken[i]);
  return taken;
}

void
pt_pool_watch (pt_pool *p)
{
  /* Looks in a row with nothing marked; it starts asleep.  */
  unsigned quiet = PT_WATCH_LINGER;
  pthread_mutex_lock (&p->lock);
  while (!p->shutdown)
    {
      if (p->capped == 0 && quiet >= PT_WATCH_LINGER)
        {
          /* Until a launch is marked (pt_pool_wake_helpers signals).  */
          p->watch_idle = true;
          pthread_cond_wait (&p->watch_wake, &p->lock);
          p->watch_idle = false;
          quiet = 0;
          continue;
        }
      struct timespec until;
      clock_gettime (CLOCK_MONOTONIC, &until);
      until.tv_nsec += PT_WATCH_TICK_NS;
      if (until.tv_nsec >= 1000000000L)
        {
          until.tv_sec++;
          until.tv_nsec -= 1000000000L;
        }
      pthread_cond_timedwait (&p->watch_wake, &p->lock, &until);
      if (p->shutdown)
        break;
      quiet = p->capped == 0 ? quiet + 1 : 0;
      if (p->capped == 0)
        continue;
      pthread_mutex_unlock (&p->lock);
      pt_pool_watch_look (p, p->clock.now (p->clock.arg));
      pthread_mutex_lock (&p->lock);
    }
  pthread_mutex_unlock (&p->lock);
}
