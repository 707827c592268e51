/* test_pool.c - the real pool (driver/pthread_pool.c) with PoCL mocked out
   (stub/), driven from one thread: each test sets the idle flags of the
   workers under the pool lock as the workers would (pt_pool_wait sets
   `spinning` or `sleeping` after a search that found nothing, P1 of
   pthread_pool.c; through pt_idle_set, which keeps the bitmap idle_bits
   equal to them), calls the pool's functions and inspects the flags and
   the queue.  A worker is "marked woken" when its `sleeping` flag was
   cleared (P3), "taken" when that or its `spinning` flag was cleared
   (P2); that is what a waker does, so counting cleared flags counts
   wake-ups exactly, with no thread running.

   Each test reproduced a wake-up defect of the pool before issue 12's
   fix (P2 and P5 of pthread_pool.c, and the helpers' cursor), failing
   with the message its check prints; they are unit tests since:

   spinner_push     A spinning worker swallows command wake-ups: 4 workers
                    of one device, worker 1 spinning, 0, 2 and 3 sleeping;
                    k independent commands pushed.  At most one of them may
                    be left to the spinner, so at least min (k - 1, 3)
                    sleepers must be marked woken.
   spinner_helpers  The same in pt_pool_wake_helpers: a static launch over
                    8 threads (64 work-groups: 8 each, so every helper has
                    work), worker 0 its joiner, worker 1 spinning, 2 to 7
                    sleeping.  After c calls (fan-out 2 each) the spinner
                    may stand for at most one wake-up, so at least
                    min (2 c - 1, 6) sleepers must be marked woken.  With
                    4 threads the defect does not show: 2 sleepers are
                    woken by 2 calls either way.
   woken_for_other  A worker woken for a sub-device's command takes an
                    older command of another device, and nobody is woken
                    for the one it was woken for.  4 workers, 0 busy, 1 to
                    3 sleeping; a root-device command A, then a command B
                    of the sub-device {2, 3}.  The worker of {2, 3} marked
                    woken runs pt_pool_wait: it must take B, or, if it
                    takes A, the other worker of {2, 3} must be marked
                    woken, because B waits in the queue.
   work_seq_scope   A push for sub-device {0, 1} changed what idle workers
                    of {2, 3} watch while they spin (the pool-wide
                    work_seq), so they searched in vain and spun anew.
                    Now only the worker a push takes is kicked, and a
                    launch kicks its spinners through the helpers'
                    wake-up, not when it is published.  WATCHED below is
                    what a worker watches.
   helpers_scan     pt_pool_wake_helpers inspected every worker of the
                    launch for every joiner: at T = 256, a static launch of
                    64 work-groups (threads 0 to 63 own one each), 64 to
                    255 idle (sleeping; again spinning), each of the 64
                    joiners calling it once: 12,288 inspections (calls of
                    wgd_thread_has_work, counted through the linker's
                    --wrap).  All calls together must inspect each worker
                    at most once (256), and take nobody.  With the bitmap
                    idle_bits, they must also read each of its 4 words at
                    most once (pt_pool_scan_words, see push_scan).

   And one test of the cost of finding an idle worker, counted, not timed:

   push_scan        pt_pool_push_command looked for an idle worker of the
                    command's device in thread order, reading each
                    worker's flags under the pool lock: with all but the
                    last worker of a 64-thread sub-device busy, 64 reads,
                    and 256 for a root-device command at T = 256 with only
                    worker 255 idle.  Now it reads the bitmaps spin_bits and
                    idle_bits, 64 workers a word; the pool, built with
                    PT_POOL_TEST_HOOKS, counts the words it reads
                    (pt_pool_scan_words).  The sub-device push (threads
                    128 to 191, worker 191 idle) must read 1 word of each,
                    2 if the sub-device straddles two words (100 to 163),
                    the root push 4; each must take the one idle worker of
                    its device, not an idle neighbour just outside it.

   And one of whom a push takes:

   push_prefers_spinner  A push took the first idle worker in thread
                    order, so a sleeper before a spinner was woken (a
                    futex wake-up, tens of microseconds) while the
                    spinner, which answers a kick at once, went on
                    spinning.  Now a push takes a spinner first.

   And one of the helpers a push takes (P7 of pthread_pool.c):

   push_helpers     A push took one worker, which prepared the launch and
                    only then woke helpers, so on a busy machine a launch
                    waited for two wake-ups in a row.  Now a push of a
                    launch no application thread takes also takes up to
                    PT_PUSH_HELPERS more idle workers: 4 sleeping workers;
                    64 work-groups take 3 (the first for the command, the
                    others for nothing in particular), 2 take 2, 1 takes
                    1; a sub-device of 2 threads, 2; a marker, 1; a launch
                    left to its enqueuer (a grace, P6), 1.

   And one of how many helpers fit (P8 of pthread_pool.c):

   helpers_cpus     With 4 threads on 2 CPUs, every push and launch woke
                    helpers for all four; those beyond the CPUs waited on a
                    run queue, preempted a participant when they got
                    there, and held their ranges while off their CPU
                    (launches of 16384 trivial work-groups: 150 us against
                    90 at 2 threads).  Now, where others may run a thread's
                    work-groups, a push takes the command's worker and
                    helpers while they fit (2 CPUs: 2 workers; 1 CPU or 2
                    busy workers: the command's worker only), and the
                    wake-ups of a static launch over 8 threads on 2 CPUs
                    with its preparer busy take one helper in all; with
                    stealing off they wake every owner, as before.

   And two of the watch (P9 of pthread_pool.c) and P10:

   watch            A cut of P8 marks the launch; the watch's look a tick
                    later takes every idle worker of its device, and
                    unmarks it; a launch with nothing left to claim, or one
                    that left the list, is unmarked and nobody taken;
                    without a watch thread nothing is capped.
   thief_passes     2 workers on 2 CPUs, the block of worker 1 gone: a
                    search of its own with the CPUs full passes the launch
                    over (it takes a queued command instead) and marks it;
                    with a CPU free, or for worker 0, whose block is full,
                    the search joins.  The watch's look a tick after the
                    mark, with a claim since, marks it again and takes
                    nobody; the next, with none since, takes the sleeping
                    worker 1, which joins.
   completer_runs   P11: a command that a running worker's completion
                    made ready (pt_pool_push_ready from this thread, after
                    pt_pool_wait handed it work) takes no idle worker and
                    is the worker's own: its next wait returns it, before
                    a listed launch with work for it.  One the worker
                    enqueues (pt_pool_push_command), one for a sub-device
                    it does not serve, one while it already has a command
                    of its own, and one made ready while it runs a native
                    kernel take an idle worker as before.
   publish_shared   pt_pool_publish_shared: an application thread that
                    took the command a worker waits for in a grace (P6)
                    publishes its launch on 2 CPUs: no helper is taken
                    (the thread and the graced worker fill them, P8), the
                    grace ends with a kick, the launch is listed.
   busy_cpu         B8 of pthread_spin.h: a worker that leaves its wait
                    with work is counted busy on the CPU it runs on, is
                    uncounted there at its next wait when the kernel moved
                    it meanwhile, and is counted nowhere on a CPU the
                    counts do not cover.

   And three of the grace (P6 of pthread_pool.c), with a grace of an
   hour and the worker in a thread of its own:

   host_grace       Only a push by the command's enqueuer of a small
                    command gives the worker it takes a grace; the worker
                    leaves the command alone during it (a worker that
                    ignores the grace fails it); the application thread
                    that takes the command learns which worker it was, and
                    of a command nobody took, none; pt_pool_end_graces and
                    shutdown end it.
   grace_reused     The command is run by its enqueuer during the grace
                    and its node reused for a command of a sub-device the
                    worker does not serve; the worker, which compares
                    pointers, must leave that one alone.
   grace_jump       A worker whose (scripted) clock jumps during its grace
                    of an hour ends it and takes its command (B2 of
                    pthread_spin.h).

   And one of the application threads' hint (H1 of pthread_pool.c):

   host_work        host_work counts exactly the queued NDRange commands
                    and listed launches of at most host_groups (here 64)
                    work-groups, and the queued markers and barriers,
                    through every way in and out: a worker's take, the take
                    of the command it was woken for, an application
                    thread's take, a launch's unlink.  Bigger launches and
                    other commands never count; with host_groups 0 (host
                    runs off) nothing does.

   Every test ends by checking that idle_bits and spin_bits still equal
   the flags (pool_destroy).

   `test_pool NAME` runs one test, `test_pool` all; an alarm turns a hang
   (a pt_pool_wait that finds nothing and sleeps) into a failure.

   Copyright (c) 2026 pocl-steal developers.  MIT licence, as PoCL.  */

#define _GNU_SOURCE

#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../check.h"
#include "pocl_util.h"
#include "pthread_pool.h"
#include "pthread_spin.h"

/* What worker `index` watches while it spins: its own kick counter, read
   by pt_pool_wait before pt_spin_watch (P2 of pthread_pool.c).  */
#define WATCHED(p, index)                                                     \
  atomic_load_explicit (&(p)->idle[index].kick, memory_order_relaxed)

/* Calls of wgd_thread_has_work from the pool (the test calls the real one
   directly, uncounted).  */
static unsigned has_work_calls;

bool __real_wgd_thread_has_work (const wgd_launch *l, unsigned tid);

bool
__wrap_wgd_thread_has_work (const wgd_launch *l, unsigned tid)
{
  ++has_work_calls;
  return __real_wgd_thread_has_work (l, tid);
}

/* The root device (every pool thread) and two halves of 4 threads.  */
static struct _cl_device_id root = { NULL, 0, 0 };
static struct _cl_device_id sub01 = { &root, 0, 2 };
static struct _cl_device_id sub23 = { &root, 2, 2 };
/* Sub-devices of 64 threads of a 256-thread pool (push_scan): one word of
   idle_bits, and straddling two.  */
static struct _cl_device_id sub_word = { &root, 128, 64 };
static struct _cl_device_id sub_straddle = { &root, 100, 64 };

static void
pool_init (pt_pool *p, unsigned threads)
{
  /* No spinning: a pt_pool_wait that finds nothing sleeps (and the alarm
     fails the test) instead of spinning for real.  */
  if (pt_pool_init (p, threads, 0, true) != CL_SUCCESS)
    {
      fprintf (stderr, "pt_pool_init failed\n");
      exit (2);
    }
  /* A machine with more CPUs than the pool has threads, whatever this one
     has, so that P8 (no more helpers than CPUs) never binds, but in
     helpers_cpus, which sets the CPUs and the busy workers itself.  */
  p->woken.cpus = 4 * threads;
  /* As if a watch thread ran (P9): P8 caps only then.  */
  p->watching = true;
}

/* Checks that idle_bits equals the flags (the invariant beside it in
   pthread_pool.h), the bits past num_threads clear, and destroys the
   pool.  */
static void
pool_destroy (pt_pool *p)
{
  unsigned bad = 0, first_bad = 0;
  pthread_mutex_lock (&p->lock);
  for (unsigned i = 0; i < PT_IDLE_WORDS (p->num_threads) * PT_IDLE_WORD_BITS;
       ++i)
    {
      uint64_t word = p->idle_bits[i / PT_IDLE_WORD_BITS];
      bool bit = (word >> (i % PT_IDLE_WORD_BITS)) & 1;
      bool idle
          = i < p->num_threads && (p->idle[i].spinning || p->idle[i].sleeping);
      bool spin_bit
          = (p->spin_bits[i / PT_IDLE_WORD_BITS] >> (i % PT_IDLE_WORD_BITS))
            & 1;
      bool spinning = i < p->num_threads && p->idle[i].spinning;
      if ((bit != idle || spin_bit != spinning) && bad++ == 0)
        first_bad = i;
    }
  pthread_mutex_unlock (&p->lock);
  CHECK (bad == 0,
         "idle_bits or spin_bits disagrees with the idle flags of %u of "
         "%u workers "
         "(first: worker %u): its invariant is broken",
         bad, p->num_threads, first_bad);
  pt_pool_destroy (p);
}

/* Worker i goes idle as pt_pool_wait would after finding nothing.  */
static void
set_idle (pt_pool *p, unsigned i, bool spinning, bool sleeping)
{
  pthread_mutex_lock (&p->lock);
  pt_idle_set (p, i, spinning, sleeping);
  pthread_mutex_unlock (&p->lock);
}

/* Whether worker i is idle, spinning or asleep: not taken.  */
static bool
is_idle (pt_pool *p, unsigned i)
{
  pthread_mutex_lock (&p->lock);
  bool idle = p->idle[i].spinning || p->idle[i].sleeping;
  pthread_mutex_unlock (&p->lock);
  return idle;
}

static bool
is_sleeping (pt_pool *p, unsigned i)
{
  pthread_mutex_lock (&p->lock);
  bool s = p->idle[i].sleeping;
  pthread_mutex_unlock (&p->lock);
  return s;
}

/* How many of workers [first, first + n) are no longer sleeping: with
   every one of them set sleeping before, those marked woken.  */
static unsigned
count_woken (pt_pool *p, unsigned first, unsigned n)
{
  unsigned k = 0;
  for (unsigned i = first; i < first + n; ++i)
    k += !is_sleeping (p, i);
  return k;
}

static unsigned
queue_length (pt_pool *p)
{
  unsigned n = 0;
  pthread_mutex_lock (&p->lock);
  for (_cl_command_node *c = p->commands; c != NULL; c = c->next)
    ++n;
  pthread_mutex_unlock (&p->lock);
  return n;
}

/* A launch over threads [first, first + n) with `groups` work-groups
   under the static schedule, pushed; the caller frees ->dispatch.  */
static void
launch_init (pt_pool *p, pt_pool_launch *l, unsigned first, unsigned n,
             uint64_t groups)
{
  memset (l, 0, sizeof (*l));
  l->dispatch = pocl_aligned_malloc (WGD_CACHELINE, wgd_launch_size (n));
  if (l->dispatch == NULL)
    exit (2);
  wgd_launch_init (l->dispatch, WGD_SCHED_STATIC, groups, n, p->num_threads);
  l->first_thread = first;
  l->num_threads = n;
  pt_pool_push_launch (p, l);
}

static void
launch_destroy (pt_pool *p, pt_pool_launch *l)
{
  pt_pool_unlink_launch (p, l);
  pocl_aligned_free (l->dispatch);
}

/* Bug 1: k pushes with worker 1 spinning and 0, 2, 3 sleeping.  */
static void
spinner_push_k (unsigned k)
{
  pt_pool p;
  _cl_command_node cmd[4];
  pool_init (&p, 4);
  set_idle (&p, 0, false, true);
  set_idle (&p, 1, true, false);
  set_idle (&p, 2, false, true);
  set_idle (&p, 3, false, true);
  for (unsigned i = 0; i < k; ++i)
    {
      memset (&cmd[i], 0, sizeof (cmd[i]));
      cmd[i].device = &root;
      pt_pool_push_command (&p, &cmd[i], false);
    }
  CHECK (queue_length (&p) == k, "%u commands queued, %u pushed",
         queue_length (&p), k);
  unsigned woken = !is_sleeping (&p, 0) + count_woken (&p, 2, 2);
  unsigned want = k - 1 < 3 ? k - 1 : 3;
  CHECK (woken >= want,
         "%u pushes with worker 1 spinning marked %u of the 3 sleepers "
         "woken; at most one push may be left to the spinner, so at least "
         "%u must be",
         k, woken, want);
  pool_destroy (&p);
}

static void
test_spinner_push (void)
{
  spinner_push_k (2);
  spinner_push_k (4);
}

/* Bug 1, the launch side.  */
static void
test_spinner_helpers (void)
{
  enum
  {
    T = 8,
    CALLS = 3
  };
  pt_pool p;
  pt_pool_launch l;
  pool_init (&p, T);
  launch_init (&p, &l, 0, T, 64);
  for (unsigned i = 0; i < T; ++i)
    CHECK (__real_wgd_thread_has_work (l.dispatch, i),
           "thread %u of 8 has no block of the 64 work-groups", i);
  /* Worker 0 prepared the launch and joined it; 1 spins, 2 to 7 sleep.  */
  set_idle (&p, 1, true, false);
  for (unsigned i = 2; i < T; ++i)
    set_idle (&p, i, false, true);
  for (unsigned c = 1; c <= CALLS; ++c)
    {
      /* By the joiners before (0, then those woken), each of which found
         work with work-groups left; the spinner has not run yet.  */
      pt_pool_wake_helpers (&p, &l, PT_WAKE_FAN_OUT);
      unsigned woken = count_woken (&p, 2, T - 2);
      unsigned want = 2 * c - 1 < T - 2 ? 2 * c - 1 : T - 2;
      CHECK (woken >= want,
             "after %u pt_pool_wake_helpers calls (fan-out %d) with worker "
             "1 spinning, %u of the 6 sleepers with work were marked woken; "
             "the spinner may stand for one wake-up only, so at least %u "
             "must be",
             c, PT_WAKE_FAN_OUT, woken, want);
    }
  launch_destroy (&p, &l);
  pool_destroy (&p);
}

/* Bug 2.  */
static void
test_woken_for_other (void)
{
  pt_pool p;
  _cl_command_node a, b;
  pool_init (&p, 4);
  memset (&a, 0, sizeof (a));
  memset (&b, 0, sizeof (b));
  a.device = &root;
  b.device = &sub23;
  /* Worker 0 is busy; 1, 2 and 3 went to sleep with nothing queued.  */
  for (unsigned i = 1; i < 4; ++i)
    set_idle (&p, i, false, true);
  pt_pool_push_command (&p, &a, false);
  pt_pool_push_command (&p, &b, false);
  /* Before any woken worker runs, each push has marked one (P3).  */
  unsigned w = 4;
  for (unsigned i = 2; i < 4 && w == 4; ++i)
    if (!is_sleeping (&p, i))
      w = i;
  CHECK (w < 4, "the push of {2, 3}'s command woke neither 2 nor 3");
  CHECK (count_woken (&p, 1, 3) >= 2,
         "two pushes with workers 1 to 3 sleeping marked %u of them woken",
         count_woken (&p, 1, 3));
  if (w == 4)
    {
      pool_destroy (&p);
      return;
    }
  unsigned other = w == 2 ? 3 : 2;
  /* w runs first: its pt_pool_wait searches again (as after its
     cond_wait) and returns at once with what it finds.  */
  pt_work work;
  bool running = pt_pool_wait (&p, w, 0, &work);
  CHECK (running && work.command != NULL && work.launch == NULL,
         "worker %u found no command", w);
  if (work.command != &b)
    {
      CHECK (work.command == &a, "worker %u took an unknown command", w);
      /* w took A; B waits, and only `other` can run it before w is
         done.  */
      CHECK (!is_sleeping (&p, other),
             "worker %u, woken for sub-device {2, 3}'s command, took the "
             "older root-device command, and worker %u of {2, 3} is still "
             "sleeping while that command waits (%u queued)",
             w, other, queue_length (&p));
    }
  pool_destroy (&p);
}

/* Bug 3.  */
static void
test_work_seq_scope (void)
{
  pt_pool p;
  _cl_command_node cmd;
  pt_pool_launch l;
  pool_init (&p, 4);
  memset (&cmd, 0, sizeof (cmd));
  cmd.device = &sub01;

  /* Workers 0 (of {0, 1}) and 2 (of {2, 3}) start spinning: pt_pool_wait
     reads what it watches under the lock, then sets `spinning`.  */
  pthread_mutex_lock (&p.lock);
  uint64_t seen0 = WATCHED (&p, 0), seen2 = WATCHED (&p, 2);
  pt_idle_set (&p, 0, true, false);
  pt_idle_set (&p, 2, true, false);
  pthread_mutex_unlock (&p.lock);

  pt_pool_push_command (&p, &cmd, false);
  uint64_t now0 = WATCHED (&p, 0), now2 = WATCHED (&p, 2);
  CHECK (now0 != seen0, "a command for {0, 1} left what its spinning "
                        "worker 0 watches unchanged (P2)");
  CHECK (now2 == seen2,
         "a command for {0, 1} changed what worker 2 of {2, 3} watches "
         "while it spins (%llu to %llu): it searches in vain and spins anew",
         (unsigned long long)seen2, (unsigned long long)now2);

  /* Worker 0, taken by that push, spins again.  A launch for {0, 1} is
     pushed by its worker 1, who joins it and wakes its helpers: only then
     is worker 0 kicked, and worker 2 never.  */
  pthread_mutex_lock (&p.lock);
  seen0 = WATCHED (&p, 0);
  seen2 = now2;
  pt_idle_set (&p, 0, true, false);
  pthread_mutex_unlock (&p.lock);
  launch_init (&p, &l, 0, 2, 4);
  CHECK (WATCHED (&p, 0) == seen0 && WATCHED (&p, 2) == seen2,
         "publishing a launch kicked a spinner: its pusher wakes helpers");
  pt_pool_wake_helpers (&p, &l, PT_WAKE_FAN_OUT);
  now0 = WATCHED (&p, 0);
  now2 = WATCHED (&p, 2);
  CHECK (now0 != seen0 && !p.idle[0].spinning,
         "the helpers' wake-up of a launch for {0, 1} left its spinning "
         "worker 0 untaken (P2)");
  CHECK (now2 == seen2,
         "a launch for {0, 1} changed what worker 2 of {2, 3} watches "
         "while it spins (%llu to %llu): it searches in vain and spins anew",
         (unsigned long long)seen2, (unsigned long long)now2);
  launch_destroy (&p, &l);
  pool_destroy (&p);
}

/* Bug 4: the helpers' wake-ups of one launch, workers 64..255 idle with
   empty blocks, either sleeping or spinning, and each of the 64 workers
   with a work-group joining and calling pt_pool_wake_helpers once, as
   pt_launch_participate does.  Together they may look at each worker at
   most once (O(T) per launch); a scan per joiner looks at 192 each,
   12,288 in all.  Nobody is taken, so no call stops inside a word of
   idle_bits: together they read each of its T / 64 words once.  */
static void
helpers_scan (bool spinning)
{
  enum
  {
    T = 256,
    GROUPS = 64
  };
  pt_pool p;
  pt_pool_launch l;
  pool_init (&p, T);
  launch_init (&p, &l, 0, T, GROUPS);
  for (unsigned i = 0; i < T; ++i)
    CHECK (__real_wgd_thread_has_work (l.dispatch, i) == (i < GROUPS),
           "thread %u: block %s, expected %s", i,
           i < GROUPS ? "empty" : "not empty", i < GROUPS ? "not" : "empty");
  /* Worker 0 joined and claimed its work-group; 1 to 63 were woken and are
     on their way in, not idle; 64 to 255 are idle with empty blocks.  */
  for (unsigned i = GROUPS; i < T; ++i)
    set_idle (&p, i, spinning, !spinning);
  has_work_calls = 0;
  pt_pool_scan_words = 0;
  for (unsigned j = 0; j < GROUPS; ++j)
    {
      wgd_range r;
      CHECK (wgd_claim (l.dispatch, j, &r, NULL), "worker %u claimed nothing",
             j);
      pt_pool_wake_helpers (&p, &l, PT_WAKE_FAN_OUT);
    }
  unsigned inspected = has_work_calls;
  unsigned long words = pt_pool_scan_words;
  unsigned taken = 0;
  for (unsigned i = GROUPS; i < T; ++i)
    taken += spinning ? !p.idle[i].spinning : !p.idle[i].sleeping;
  CHECK (taken == 0, "%u idle workers with empty blocks were taken", taken);
  CHECK (inspected <= T,
         "%d joiners' pt_pool_wake_helpers calls at T = %d with workers %d "
         "to %d %s inspected %u workers (wgd_thread_has_work calls); each "
         "worker once allows at most %d",
         GROUPS, T, GROUPS, T - 1, spinning ? "spinning" : "sleeping",
         inspected, T);
  CHECK (words <= T / PT_IDLE_WORD_BITS,
         "%d joiners' pt_pool_wake_helpers calls at T = %d with workers %d "
         "to %d %s read %lu words of idle_bits; taking nobody, they pass "
         "each of its %u words once",
         GROUPS, T, GROUPS, T - 1, spinning ? "spinning" : "sleeping", words,
         T / PT_IDLE_WORD_BITS);
  printf ("helpers_scan (%s): %u inspections, %lu bitmap words read for %d "
          "joiners at T = %d\n",
          spinning ? "spinning" : "sleeping", inspected, words, GROUPS, T);
  launch_destroy (&p, &l);
  pool_destroy (&p);
}

static void
test_helpers_scan (void)
{
  helpers_scan (false);
  helpers_scan (true);
}

/* push_scan: at T = 256, every worker busy but the two neighbours just
   outside dev's threads, asleep, which a scan that overran dev's threads
   would take.  A push for dev finds nobody to take; then dev's last
   worker `idle` goes idle (spinning or asleep), and a second push must
   take it.  Each push may read at most max_words words of the bitmaps
   (spin_bits, then idle_bits: two per 64 workers).  */
static void
push_scan (cl_device_id dev, const char *what, unsigned idle, bool spinning,
           unsigned long max_words)
{
  enum
  {
    T = 256
  };
  pt_pool p;
  _cl_command_node cmd[2];
  unsigned first, count;
  pool_init (&p, T);
  pt_pool_device_threads (&p, dev, &first, &count);
  unsigned last = first + count - 1;
  CHECK (idle == last, "%s: worker %u is not its last", what, idle);
  memset (cmd, 0, sizeof (cmd));
  cmd[0].device = cmd[1].device = dev;
  bool below = first > 0, above = last + 1 < T;
  if (below)
    set_idle (&p, first - 1, false, true);
  if (above)
    set_idle (&p, last + 1, false, true);

  for (unsigned k = 0; k < 2; ++k)
    {
      uint64_t seen = WATCHED (&p, idle);
      if (k == 1)
        set_idle (&p, idle, spinning, !spinning);
      pt_pool_scan_words = 0;
      pt_pool_push_command (&p, &cmd[k], false);
      unsigned long words = pt_pool_scan_words;

      CHECK (words <= max_words,
             "a push for %s (threads %u to %u) with %s read %lu words of "
             "the idle bitmaps; reading 64 workers a word allows at most "
             "%lu, not one read per worker",
             what, first, last,
             k == 0 ? "none of them idle" : "only its last idle", words,
             max_words);
      CHECK (!below || is_idle (&p, first - 1),
             "a push for %s (threads %u to %u) took worker %u, outside its "
             "threads",
             what, first, last, first - 1);
      CHECK (!above || is_idle (&p, last + 1),
             "a push for %s (threads %u to %u) took worker %u, outside its "
             "threads",
             what, first, last, last + 1);
      CHECK (queue_length (&p) == k + 1, "%u commands queued, %u pushed",
             queue_length (&p), k + 1);
      if (k == 1)
        {
          CHECK (!is_idle (&p, idle),
                 "a push for %s left its one idle worker %u (%s) untaken",
                 what, idle, spinning ? "spinning" : "asleep");
          CHECK (p.idle[idle].woken_for == &cmd[1],
                 "worker %u, taken by a push for %s, was not told which "
                 "command it was taken for (P5)",
                 idle, what);
          CHECK (!spinning || WATCHED (&p, idle) != seen,
                 "a push for %s took spinning worker %u without kicking it "
                 "(P2)",
                 what, idle);
        }
      const char *state = "none idle";
      if (k == 1)
        state = spinning ? "the last spinning" : "the last asleep";
      printf ("push_scan: %s (threads %u to %u), %s: %lu word(s) read\n", what,
              first, last, state, words);
    }
  pool_destroy (&p);
}

static void
test_push_scan (void)
{
  /* The sub-device is one word of each bitmap: two reads.  */
  push_scan (&sub_word, "sub-device {128..191}", 191, false, 2);
  /* Threads 100 to 163 straddle words 1 and 2.  */
  push_scan (&sub_straddle, "sub-device {100..163}", 163, true, 4);
  /* All 256 threads, worker 255 the only idle one: T / 64 = 4 words of
     each bitmap.  */
  push_scan (&root, "the root device", 255, false, 8);
  push_scan (&root, "the root device", 255, true, 8);
}

/* push_prefers_spinner: 4 workers, worker 0 asleep and worker 2
   spinning.  A push takes the spinner, which answers a kick at once,
   not the sleeper before it in thread order, which needs a futex
   wake-up; the next push takes the sleeper.  */
static void
test_push_prefers_spinner (void)
{
  pt_pool p;
  _cl_command_node cmd[2];
  pool_init (&p, 4);
  memset (cmd, 0, sizeof (cmd));
  cmd[0].device = cmd[1].device = &root;
  set_idle (&p, 0, false, true);
  set_idle (&p, 2, true, false);
  uint64_t seen = WATCHED (&p, 2);
  pt_pool_push_command (&p, &cmd[0], false);
  CHECK (!is_idle (&p, 2) && WATCHED (&p, 2) != seen,
         "a push with worker 0 asleep and worker 2 spinning did not kick "
         "the spinner");
  CHECK (is_idle (&p, 0),
         "a push with worker 2 spinning woke worker 0 from its sleep");
  pt_pool_push_command (&p, &cmd[1], false);
  CHECK (!is_idle (&p, 0) && p.idle[0].woken_for == &cmd[1],
         "a second push, with only worker 0 idle (asleep), did not take it");
  printf ("push_prefers_spinner: the spinner first, then the sleeper\n");
  pool_destroy (&p);
}

/* An NDRange command of root with `groups` work-groups (0: a command
   that is no launch).  */
static void
command_init (_cl_command_node *c, uint32_t groups)
{
  memset (c, 0, sizeof (*c));
  c->device = &root;
  if (groups == 0)
    return;
  c->type = CL_COMMAND_NDRANGE_KERNEL;
  c->command.run.pc.num_groups[0] = groups;
  c->command.run.pc.num_groups[1] = 1;
  c->command.run.pc.num_groups[2] = 1;
}

static unsigned
host_work (pt_pool *p)
{
  return atomic_load_explicit (&p->host_work, memory_order_relaxed);
}

static bool
take_any (const _cl_command_node *cmd, void *arg)
{
  (void)cmd;
  (void)arg;
  return true;
}

static void
host_work_case (uint64_t host_groups)
{
  const bool on = host_groups > 0;
  pt_pool p;
  pool_init (&p, 4);
  pt_pool_count_host_work (&p, host_groups, 0);
  /* 64 work-groups as 8 x 8 x 1, and 65: the limit and just above.  */
  _cl_command_node small, limit, big, copy;
  command_init (&small, 1);
  command_init (&limit, 8);
  limit.command.run.pc.num_groups[1] = 8;
  command_init (&big, 65);
  command_init (&copy, 0);
  pt_pool_push_command (&p, &big, false);
  pt_pool_push_command (&p, &copy, false);
  CHECK (host_work (&p) == 0 && !pt_pool_host_work (&p),
         "host_groups %lu: a launch of 65 work-groups and a command that is "
         "no launch counted %u",
         (unsigned long)host_groups, host_work (&p));
  /* Worker 1 asleep: the next push takes it for `small`.  */
  set_idle (&p, 1, false, true);
  pt_pool_push_command (&p, &small, false);
  pt_pool_push_command (&p, &limit, false);
  CHECK (host_work (&p) == (on ? 2u : 0u) && pt_pool_host_work (&p) == on,
         "host_groups %lu: after commands of 1 and 64 work-groups, "
         "host_work is %u",
         (unsigned long)host_groups, host_work (&p));
  /* Worker 1 takes what it was woken for (small, P5); worker 0 the oldest
     (big), then copy, then limit.  */
  pt_work w;
  CHECK (pt_pool_wait (&p, 1, 0, &w) && w.command == &small
             && host_work (&p) == (on ? 1u : 0u),
         "host_groups %lu: worker 1 took %p for small, host_work %u",
         (unsigned long)host_groups, (void *)w.command, host_work (&p));
  CHECK (pt_pool_wait (&p, 0, 0, &w) && w.command == &big
             && host_work (&p) == (on ? 1u : 0u),
         "host_groups %lu: taking the big command changed host_work to %u",
         (unsigned long)host_groups, host_work (&p));
  CHECK (pt_pool_wait (&p, 0, 0, &w) && w.command == &copy,
         "worker 0 did not take the second command");
  CHECK (pt_pool_take_command_if (&p, take_any, NULL, NULL) == &limit
             && host_work (&p) == 0 && !pt_pool_host_work (&p),
         "host_groups %lu: after an application thread took the last "
         "command, host_work is %u",
         (unsigned long)host_groups, host_work (&p));
  /* Launches: 64 work-groups count, 65 do not.  */
  pt_pool_launch l64, l65;
  launch_init (&p, &l64, 0, 4, 64);
  launch_init (&p, &l65, 0, 4, 65);
  CHECK (host_work (&p) == (on ? 1u : 0u),
         "host_groups %lu: launches of 64 and 65 work-groups listed, "
         "host_work is %u",
         (unsigned long)host_groups, host_work (&p));
  launch_destroy (&p, &l65);
  CHECK (host_work (&p) == (on ? 1u : 0u),
         "host_groups %lu: unlinking the launch of 65 changed host_work to "
         "%u",
         (unsigned long)host_groups, host_work (&p));
  launch_destroy (&p, &l64);
  CHECK (host_work (&p) == 0,
         "host_groups %lu: no launch listed, host_work is %u",
         (unsigned long)host_groups, host_work (&p));
  /* Markers and barriers count: they do no work.  */
  _cl_command_node marker, barrier;
  command_init (&marker, 0);
  marker.type = CL_COMMAND_MARKER;
  command_init (&barrier, 0);
  barrier.type = CL_COMMAND_BARRIER;
  pt_pool_push_command (&p, &marker, false);
  pt_pool_push_command (&p, &barrier, false);
  CHECK (host_work (&p) == (on ? 2u : 0u),
         "host_groups %lu: a marker and a barrier queued, host_work is %u",
         (unsigned long)host_groups, host_work (&p));
  CHECK (pt_pool_wait (&p, 0, 0, &w) && w.command == &marker
             && host_work (&p) == (on ? 1u : 0u),
         "host_groups %lu: after a worker took the marker, host_work is %u",
         (unsigned long)host_groups, host_work (&p));
  CHECK (pt_pool_take_command_if (&p, take_any, NULL, NULL) == &barrier
             && host_work (&p) == 0,
         "host_groups %lu: after an application thread took the barrier, "
         "host_work is %u",
         (unsigned long)host_groups, host_work (&p));
  printf ("host_work: host_groups %lu: counted as it should\n",
          (unsigned long)host_groups);
  pool_destroy (&p);
}

static void
test_host_work (void)
{
  host_work_case (64);
  host_work_case (0);
}

/* A worker's pt_pool_wait in a thread of its own: one that waits out a
   grace (P6) must not block the test.  */
typedef struct
{
  pt_pool *p;
  unsigned index;
  pt_work work;
  bool running;
  pthread_t thread;
} waiter;

static void *
waiter_main (void *arg)
{
  waiter *w = arg;
  w->running = pt_pool_wait (w->p, w->index, 0, &w->work);
  return NULL;
}

static void
waiter_start (waiter *w, pt_pool *p, unsigned index)
{
  memset (w, 0, sizeof (*w));
  w->p = p;
  w->index = index;
  if (pthread_create (&w->thread, NULL, waiter_main, w) != 0)
    exit (2);
}

static void
waiter_join (waiter *w)
{
  pthread_join (w->thread, NULL);
}

static uint64_t
grace_of (pt_pool *p, unsigned i)
{
  pthread_mutex_lock (&p->lock);
  uint64_t g = p->idle[i].grace_until;
  pthread_mutex_unlock (&p->lock);
  return g;
}

static unsigned
graces (pt_pool *p)
{
  return atomic_load_explicit (&p->graces, memory_order_relaxed);
}

/* A scripted clock for graces (P6) and spins: from `base`, one nanosecond
   per reading, and `jump` more once `jump_after` readings are done (0:
   never).  A reading is the worker thread's only: it is atomic so that
   the test thread may set it up between runs.  */
typedef struct
{
  uint64_t base;
  _Atomic uint64_t readings;
  uint64_t jump_after, jump;
  int cpu; /* what the clock says the caller runs on */
} scripted_clock;

static uint64_t
scripted_now (void *arg)
{
  scripted_clock *c = arg;
  uint64_t n = atomic_fetch_add (&c->readings, 1) + 1;
  return c->base + n + (c->jump_after != 0 && n > c->jump_after ? c->jump : 0);
}

/* -2 unless a test says otherwise: not a CPU any woken worker slept on,
   so B4 never gives way, and not one B8 counts on.  */
static int
scripted_cpu (void *arg)
{
  scripted_clock *c = arg;
  return c->cpu;
}

static void
scripted_clock_use (pt_pool *p, scripted_clock *c, uint64_t jump_after,
                    uint64_t jump)
{
  c->base = pt_now_ns ();
  atomic_store (&c->readings, 0);
  c->jump_after = jump_after;
  c->jump = jump;
  c->cpu = -2;
  p->clock = (pt_clock){ scripted_now, scripted_cpu, c };
}

/* P6 with a grace of an hour: only a push by the enqueuing application
   thread of a command counted in host_work gives the worker it takes a
   grace; the worker does not take the command during it (the
   application thread can); pt_pool_end_graces and shutdown end it (else
   the alarm fails the test).  */
static void
test_host_grace (void)
{
  const uint64_t hour = 3600ull * 1000000000u;
  pt_pool p;
  pool_init (&p, 2);
  pt_pool_count_host_work (&p, 64, hour);
  /* A clock that never jumps: a grace spent off the CPU, on a machine
     busy with other tests, ends early by B2 (test_grace_jump), which is
     not what this test is about.  */
  scripted_clock steady;
  scripted_clock_use (&p, &steady, 0, 0);
  _cl_command_node small, big, later;
  command_init (&small, 1);
  command_init (&big, 65);
  command_init (&later, 1);
  pt_work w;

  /* Not by the enqueuer, or too big for an application thread: the
     worker takes the command at once.  */
  set_idle (&p, 0, false, true);
  pt_pool_push_command (&p, &small, false);
  CHECK (grace_of (&p, 0) == 0 && graces (&p) == 0,
         "a push not by its enqueuer gave the worker a grace");
  CHECK (pt_pool_wait (&p, 0, 0, &w) && w.command == &small,
         "worker 0 did not take the command pushed not by its enqueuer");
  set_idle (&p, 0, false, true);
  pt_pool_push_command (&p, &big, true);
  CHECK (grace_of (&p, 0) == 0 && graces (&p) == 0,
         "a push of 65 work-groups (host_groups 64) gave the worker a "
         "grace");
  CHECK (pt_pool_wait (&p, 0, 0, &w) && w.command == &big,
         "worker 0 did not take the command of 65 work-groups");

  /* By the enqueuer: a grace of an hour; the application thread takes
     the command first, and pt_pool_end_graces sends the worker on.  */
  set_idle (&p, 0, false, true);
  uint64_t before = p.clock.now (p.clock.arg);
  pt_pool_push_command (&p, &small, true);
  CHECK (grace_of (&p, 0) >= before + hour && graces (&p) == 1
             && !is_idle (&p, 0),
         "a push by its enqueuer took worker 0 with grace_until %llu, "
         "%u graces (want an hour from now, 1)",
         (unsigned long long)grace_of (&p, 0), graces (&p));
  waiter a;
  waiter_start (&a, &p, 0);
  /* Until the worker waits out its grace, or (the defect) took the
     command; neither: the alarm fails the test.  */
  while (atomic_load (&pt_pool_graces_begun) == 0 && queue_length (&p) > 0)
    sched_yield ();
  unsigned graced = 7;
  CHECK (pt_pool_take_command_if (&p, take_any, NULL, &graced) == &small,
         "the worker took the command during its grace");
  /* The application thread learns who comes to the launch (it leaves
     that worker's block to it, pthread_kernel.h).  */
  CHECK (graced == 0,
         "the worker in a grace for the command taken: %u, "
         "want 0",
         graced);
  pt_pool_end_graces (&p);
  CHECK (graces (&p) == 0, "pt_pool_end_graces left %u graces", graces (&p));
  /* Not by the enqueuer: the worker, asleep or searching, takes it.  */
  pt_pool_push_command (&p, &later, false);
  waiter_join (&a);
  CHECK (a.running && a.work.command == &later,
         "after its grace ended, worker 0 got %p, not the next command",
         (void *)a.work.command);
  /* No grace for a command nobody took: nobody is said to come.  */
  pt_pool_push_command (&p, &big, false);
  CHECK (pt_pool_take_command_if (&p, take_any, NULL, &graced) == &big
             && graced == UINT_MAX,
         "a command pushed with every worker busy: %u said to come, want "
         "none",
         graced);

  /* pt_pool_end_graces with the command still queued: the worker takes
     it.  */
  set_idle (&p, 0, false, true);
  pt_pool_push_command (&p, &small, true);
  waiter_start (&a, &p, 0);
  pt_pool_end_graces (&p);
  waiter_join (&a);
  CHECK (a.running && a.work.command == &small && graces (&p) == 0,
         "after pt_pool_end_graces, worker 0 got %p, not its command",
         (void *)a.work.command);

  /* Shutdown ends a grace.  */
  set_idle (&p, 0, false, true);
  pt_pool_push_command (&p, &small, true);
  waiter_start (&a, &p, 0);
  pt_pool_shutdown (&p);
  waiter_join (&a);
  CHECK (!a.running, "worker 0 kept running after the shutdown");
  CHECK (pt_pool_take_command_if (&p, take_any, NULL, NULL) == &small,
         "the command left at shutdown is gone");
  printf ("host_grace: graces given, kept and ended as they should\n");
  pool_destroy (&p);
}

/* P5 after a grace (P6): the command a worker was taken for is run by
   its enqueuer meanwhile, and PoCL reuses the node for a command of a
   sub-device the worker does not serve, which is queued when the grace
   ends.  The worker compares pointers only; it must not take that one.  */
static void
test_grace_reused (void)
{
  const uint64_t hour = 3600ull * 1000000000u;
  pt_pool p;
  pool_init (&p, 4);
  pt_pool_count_host_work (&p, 64, hour);
  /* A clock that never jumps: a grace spent off the CPU ends early (B2),
     which is not what this test is about.  */
  scripted_clock steady;
  scripted_clock_use (&p, &steady, 0, 0);
  _cl_command_node node, next;
  command_init (&node, 1);
  command_init (&next, 1);
  set_idle (&p, 0, false, true);
  pt_pool_push_command (&p, &node, true);
  waiter a;
  waiter_start (&a, &p, 0);
  CHECK (pt_pool_take_command_if (&p, take_any, NULL, NULL) == &node,
         "the enqueuer could not take its command");
  /* The node again, now a command of sub-device {2, 3}, whose workers are
     busy.  */
  command_init (&node, 1);
  node.device = &sub23;
  pt_pool_push_command (&p, &node, false);
  pt_pool_end_graces (&p);
  /* Worker 0 must leave it and sleep; this push wakes it.  */
  while (is_idle (&p, 0) == false && queue_length (&p) > 0)
    sched_yield ();
  pt_pool_push_command (&p, &next, false);
  waiter_join (&a);
  CHECK (a.running && a.work.command == &next,
         "worker 0 took %s after its grace",
         a.work.command == &node ? "the reused node, a command of a "
                                   "sub-device it does not serve"
                                 : "an unknown command");
  CHECK (queue_length (&p) == 1,
         "%u commands queued, want 1 (sub-device "
         "{2, 3}'s)",
         queue_length (&p));
  printf ("grace_reused: the reused node was left to its sub-device\n");
  pool_destroy (&p);
}

/* P7: how many of 4 sleeping workers a push takes; cpus, busy: the CPUs
   and the busy workers for P8, or 0, 0 for P8 not to bind.  */
static unsigned
push_takes (uint32_t groups, struct _cl_device_id *dev, bool by_waiter,
            uint64_t grace_ns, bool *first_for_cmd, unsigned cpus,
            unsigned busy)
{
  pt_pool p;
  pool_init (&p, 4);
  if (cpus > 0)
    {
      p.woken.cpus = cpus;
      atomic_store_explicit (&p.woken.busy, busy, memory_order_relaxed);
    }
  pt_pool_count_host_work (&p, 64, grace_ns);
  for (unsigned i = 0; i < 4; ++i)
    set_idle (&p, i, false, true);
  _cl_command_node cmd;
  command_init (&cmd, groups);
  cmd.device = dev;
  pt_pool_push_command (&p, &cmd, by_waiter);
  unsigned taken = 0, for_cmd = 0;
  for (unsigned i = 0; i < 4; ++i)
    if (!is_idle (&p, i))
      {
        taken++;
        for_cmd += p.idle[i].woken_for == &cmd;
      }
  *first_for_cmd = for_cmd == 1;
  /* Leave nobody marked woken for a queued command: take it back.  */
  pt_pool_take_command_if (&p, take_any, NULL, NULL);
  pool_destroy (&p);
  return taken;
}

static void
test_push_helpers (void)
{
  static const struct
  {
    uint32_t groups;
    struct _cl_device_id *dev;
    bool by_waiter;
    uint64_t grace_ns;
    unsigned want;
    const char *what;
  } cases[] = {
    { 64, &root, false, 0, 1 + PT_PUSH_HELPERS, "64 work-groups" },
    { 2, &root, false, 0, 2, "2 work-groups" },
    { 1, &root, false, 0, 1, "1 work-group" },
    { 64, &sub01, false, 0, 2, "64 work-groups of a 2-thread sub-device" },
    { 0, &root, false, 0, 1, "a marker" },
    { 64, &root, true, 1000000, 1, "64 work-groups left to their enqueuer" },
    { 65, &root, true, 1000000, 1 + PT_PUSH_HELPERS,
      "65 work-groups (too many for the enqueuer)" },
  };
  for (size_t c = 0; c < sizeof (cases) / sizeof (cases[0]); ++c)
    {
      bool first_for_cmd = false;
      unsigned taken
          = push_takes (cases[c].groups, cases[c].dev, cases[c].by_waiter,
                        cases[c].grace_ns, &first_for_cmd, 0, 0);
      CHECK (taken == cases[c].want && first_for_cmd,
             "a push of %s took %u workers, want %u, %s for the command",
             cases[c].what, taken, cases[c].want,
             first_for_cmd ? "one" : "not exactly one");
    }
  printf ("push_helpers: a push takes its launch's first helpers (P7)\n");
}

/* P8: no more helpers than CPUs.  */
static void
test_helpers_cpus (void)
{
  enum
  {
    T = 8,
    CALLS = 4
  };
  /* A push of 64 work-groups, 4 sleeping workers: the worker for the
     command always, helpers while the busy workers and those taken are
     fewer than the CPUs.  */
  static const struct
  {
    unsigned cpus, busy, want;
  } pushes[] = {
    { 2, 0, 2 }, /* the command's worker and one helper */
    { 1, 0, 1 }, /* the command's worker only */
    { 2, 2, 1 }, /* the CPUs are busy: still the command's worker */
    { 3, 0, 3 }, /* 1 + PT_PUSH_HELPERS, as without P8 */
  };
  for (size_t c = 0; c < sizeof (pushes) / sizeof (pushes[0]); ++c)
    {
      bool first_for_cmd = false;
      unsigned taken = push_takes (64, &root, false, 0, &first_for_cmd,
                                   pushes[c].cpus, pushes[c].busy);
      CHECK (taken == pushes[c].want && first_for_cmd,
             "a push of 64 work-groups on %u CPUs with %u busy workers took "
             "%u workers, want %u, %s for the command (P8)",
             pushes[c].cpus, pushes[c].busy, taken, pushes[c].want,
             first_for_cmd ? "one" : "not exactly one");
    }

  /* A static launch over 8 threads, 2 CPUs, worker 0 (its preparer) busy,
     1 to 7 asleep with a block each: with stealing, the wake-ups of every
     joiner together take one helper; without, each block needs its owner
     and every sleeper is woken as before.  */
  for (int steal = 1; steal >= 0; --steal)
    {
      pt_pool p;
      pt_pool_launch l;
      pool_init (&p, T);
      p.woken.cpus = 2;
      launch_init (&p, &l, 0, T, 64);
      wgd_launch_set_stealing (l.dispatch, steal);
      for (unsigned i = 1; i < T; ++i)
        set_idle (&p, i, false, true);
      atomic_store_explicit (&p.woken.busy, 1, memory_order_relaxed);
      for (unsigned c = 0; c < CALLS; ++c)
        pt_pool_wake_helpers (&p, &l, PT_WAKE_FAN_OUT);
      unsigned woken = count_woken (&p, 1, T - 1);
      unsigned want = steal ? 1 : T - 1;
      CHECK (woken == want,
             "%u wake-ups of a static launch over %u threads on 2 CPUs, "
             "stealing %s, marked %u sleepers woken, want %u (P8)",
             CALLS, T, steal ? "on" : "off", woken, want);
      launch_destroy (&p, &l);
      pool_destroy (&p);
    }
  printf ("helpers_cpus: pushes and wake-ups take no more helpers than "
          "fit on the CPUs where others may run their work (P8)\n");
}

/* B2 of pthread_spin.h during a grace (P6): a worker whose clock jumps
   in the middle of its grace of an hour, as when it lost its CPU, ends
   the grace and takes its command, without anybody ending graces.  */
static void
test_grace_jump (void)
{
  const uint64_t hour = 3600ull * 1000000000u;
  pt_pool p;
  pool_init (&p, 1);
  pt_pool_count_host_work (&p, 64, hour);
  scripted_clock jumpy;
  /* The jump comes after a few readings of the grace's spin: the push's
     reading, the grace's start and first reads pass first.  */
  scripted_clock_use (&p, &jumpy, 5, 1000u * 1000u);
  _cl_command_node small;
  command_init (&small, 1);
  set_idle (&p, 0, false, true);
  pt_pool_push_command (&p, &small, true);
  CHECK (graces (&p) == 1, "a push by its enqueuer gave no grace");
  waiter a;
  waiter_start (&a, &p, 0);
  waiter_join (&a);
  CHECK (a.running && a.work.command == &small && graces (&p) == 0,
         "a worker whose clock jumped during its grace got %p, not its "
         "command (%u graces left)",
         (void *)a.work.command, graces (&p));
  printf ("grace_jump: a grace whose clock jumps ends at once\n");
  pool_destroy (&p);
}

static void
on_alarm (int sig)
{
  static const char msg[]
      = "FAIL: test_pool hung (a pt_pool_wait found no work and slept)\n";
  (void)sig;
  ssize_t n = write (2, msg, sizeof (msg) - 1);
  (void)n;
  _exit (1);
}

static void test_watch (void);
static void test_busy_cpu (void);
static void test_host_busy (void);
static void test_thief_passes (void);
static void test_completer_runs (void);
static void test_publish_shared (void);

static const struct
{
  const char *name;
  void (*run) (void);
} tests[] = {
  { "spinner_push", test_spinner_push },
  { "spinner_helpers", test_spinner_helpers },
  { "woken_for_other", test_woken_for_other },
  { "work_seq_scope", test_work_seq_scope },
  { "helpers_scan", test_helpers_scan },
  { "push_scan", test_push_scan },
  { "push_prefers_spinner", test_push_prefers_spinner },
  { "host_work", test_host_work },
  { "host_grace", test_host_grace },
  { "grace_reused", test_grace_reused },
  { "grace_jump", test_grace_jump },
  { "push_helpers", test_push_helpers },
  { "helpers_cpus", test_helpers_cpus },
  { "watch", test_watch },
  { "busy_cpu", test_busy_cpu },
  { "host_busy", test_host_busy },
  { "thief_passes", test_thief_passes },
  { "completer_runs", test_completer_runs },
  { "publish_shared", test_publish_shared },
};

/* P11 of pthread_pool.c (see the list at the top).  */
static void
test_completer_runs (void)
{
  pt_pool p;
  pt_pool_launch l;
  pt_work work;
  _cl_command_node cmd[8];
  pool_init (&p, 4);
  for (unsigned i = 0; i < 8; ++i)
    command_init (&cmd[i], 0);
  cmd[3].device = &sub23;
  cmd[6].type = CL_COMMAND_NATIVE_KERNEL;
  /* Pushed with every worker busy: nobody is taken, and worker 0 (this
     thread) takes it.  */
  pt_pool_push_command (&p, &cmd[0], false);
  CHECK (pt_pool_wait (&p, 0, 0, &work) && work.command == &cmd[0],
         "worker 0 did not take the queued command");
  /* Running cmd[0]; a launch with work for every thread is listed, and
     the others go idle: 1 and 2 asleep, 3 spinning.  */
  launch_init (&p, &l, 0, 4, 8);
  set_idle (&p, 1, false, true);
  set_idle (&p, 2, false, true);
  set_idle (&p, 3, true, false);
  pt_pool_push_ready (&p, &cmd[1]);
  CHECK (is_idle (&p, 1) && is_idle (&p, 2) && is_idle (&p, 3),
         "a running worker's push of a command its completion made ready "
         "took an idle worker for it (P11)");
  CHECK (p.idle[0].woken_for == &cmd[1] && queue_length (&p) == 1,
         "the command made ready by running worker 0 is not its own, or "
         "not queued (woken_for %p, %u queued)",
         (void *)p.idle[0].woken_for, queue_length (&p));
  /* Enqueued from the worker (an event callback): the spinner.  */
  pt_pool_push_command (&p, &cmd[2], false);
  CHECK (!is_idle (&p, 3) && is_idle (&p, 1) && is_idle (&p, 2),
         "a command enqueued by a running worker did not take the "
         "spinner");
  /* Of a sub-device of workers 2 and 3: worker 2.  */
  pt_pool_push_ready (&p, &cmd[3]);
  CHECK (!is_idle (&p, 2) && p.idle[2].woken_for == &cmd[3],
         "a command made ready for a sub-device the running worker does "
         "not serve did not take one of its idle workers");
  /* Worker 0 has a command of its own already: worker 1.  */
  pt_pool_push_ready (&p, &cmd[4]);
  CHECK (!is_idle (&p, 1) && p.idle[1].woken_for == &cmd[4]
             && p.idle[0].woken_for == &cmd[1],
         "a second command made ready by running worker 0 did not take "
         "idle worker 1, or changed worker 0's own command");
  CHECK (pt_pool_wait (&p, 0, 0, &work) && work.command == &cmd[1]
             && work.launch == NULL,
         "worker 0's next wait did not return the command it pushed first "
         "(P5), but %s",
         work.launch != NULL ? "the listed launch" : "another command");
  /* A native kernel runs the application's code: what it makes ready
     (a user event's dependant) takes an idle worker.  First the other
     commands and the launch out of the way.  */
  CHECK (pt_pool_wait (&p, 1, 0, &work) && work.command == &cmd[4],
         "worker 1 did not take the command it was taken for");
  pt_pool_take_command_if (&p, take_any, NULL, NULL); /* cmd[2] */
  pt_pool_take_command_if (&p, take_any, NULL, NULL); /* cmd[3] */
  launch_destroy (&p, &l);
  pt_pool_push_command (&p, &cmd[6], false);
  CHECK (pt_pool_wait (&p, 0, 0, &work) && work.command == &cmd[6],
         "worker 0 did not take the native kernel");
  set_idle (&p, 3, false, true);
  pt_pool_push_ready (&p, &cmd[7]);
  CHECK (!is_idle (&p, 3) && p.idle[3].woken_for == &cmd[7]
             && p.idle[0].woken_for == NULL,
         "a command made ready while worker 0 runs a native kernel did not "
         "take idle worker 3");
  printf ("completer_runs: a running worker's push of a command its "
          "completion made ready is its own next work\n");
  pool_destroy (&p);
}

/* B8 of pthread_spin.h: a worker that leaves pt_pool_wait with work
   counts itself busy on the CPU it runs on, and uncounts itself there
   when it next waits, wherever it runs then; a CPU the counts do not
   cover counts nowhere.  Commands queued with every worker busy, so that
   each pt_pool_wait returns at once.  */
static void
test_busy_cpu (void)
{
  pt_pool p;
  scripted_clock clk;
  _cl_command_node cmd[3];
  pool_init (&p, 2);
  scripted_clock_use (&p, &clk, 0, 0);
  CHECK (p.woken.busy_on != NULL && p.woken.busy_on_len >= 1,
         "no busy counts per CPU");
  const unsigned last = p.woken.busy_on_len - 1;
  memset (cmd, 0, sizeof (cmd));
  for (unsigned i = 0; i < 3; ++i)
    {
      cmd[i].device = &root;
      pt_pool_push_command (&p, &cmd[i], false);
    }
  pt_work work;
  clk.cpu = 0;
  CHECK (pt_pool_wait (&p, 0, 0, &work) && work.command == &cmd[0],
         "worker 0 did not take the first command");
  CHECK (atomic_load (&p.woken.busy_on[0].n) == 1 && p.idle[0].busy_cpu == 0,
         "busy on CPU 0: count %u, busy_cpu %d, want 1 and 0",
         atomic_load (&p.woken.busy_on[0].n), p.idle[0].busy_cpu);
  /* The kernel moved it: it waits on the last CPU, and is counted there
     from then on.  */
  clk.cpu = (int)last;
  CHECK (pt_pool_wait (&p, 0, 0, &work) && work.command == &cmd[1],
         "worker 0 did not take the second command");
  unsigned on0 = atomic_load (&p.woken.busy_on[0].n);
  unsigned on_last = atomic_load (&p.woken.busy_on[last].n);
  CHECK (on_last == 1 && (last == 0 || on0 == 0),
         "moved to CPU %u: counts %u there and %u on CPU 0, want 1 and 0",
         last, on_last, on0);
  /* A CPU past the counts: counted nowhere.  */
  clk.cpu = (int)p.woken.busy_on_len;
  CHECK (pt_pool_wait (&p, 0, 0, &work) && work.command == &cmd[2],
         "worker 0 did not take the third command");
  unsigned total = 0;
  for (unsigned c = 0; c < p.woken.busy_on_len; ++c)
    total += atomic_load (&p.woken.busy_on[c].n);
  CHECK (total == 0 && p.idle[0].busy_cpu == -1,
         "on a CPU past the counts: %u counted, busy_cpu %d, want 0 and -1",
         total, p.idle[0].busy_cpu);
  pool_destroy (&p);
  printf ("busy_cpu: a busy worker is counted on its CPU, moved with its "
          "next wait, and nowhere on an unknown CPU (B8)\n");
}

/* P9: the watch wakes the helpers P8 left asleep, a tick later.  8
   threads on 2 CPUs, worker 0 busy, 1 to 7 asleep, a static launch of 64
   work-groups whose wake-ups P8 cuts to one helper (as in helpers_cpus).  */
static void
cut_launch (pt_pool *p, pt_pool_launch *l, scripted_clock *clk, bool watching)
{
  enum
  {
    T = 8
  };
  pool_init (p, T);
  scripted_clock_use (p, clk, 0, 0);
  p->woken.cpus = 2;
  p->watching = watching;
  launch_init (p, l, 0, T, 64);
  for (unsigned i = 1; i < T; ++i)
    set_idle (p, i, false, true);
  atomic_store_explicit (&p->woken.busy, 1, memory_order_relaxed);
  for (unsigned c = 0; c < 4; ++c)
    pt_pool_wake_helpers (p, l, PT_WAKE_FAN_OUT);
}

static void
test_watch (void)
{
  pt_pool p;
  pt_pool_launch l;
  scripted_clock clk;

  /* Marked at the cut; a look before a tick takes nobody; one a tick
     after takes the other 6 sleepers, work of their own or not, and
     unmarks the launch; the next takes nobody.  */
  cut_launch (&p, &l, &clk, true);
  uint64_t t0 = l.capped_at;
  CHECK (t0 != 0 && p.capped == 1 && count_woken (&p, 1, 7) == 1,
         "the cut: marked at %" PRIu64 ", %u marked, %u woken; want marked, "
         "1, 1",
         t0, p.capped, count_woken (&p, 1, 7));
  unsigned early = pt_pool_watch_look (&p, t0 + PT_WATCH_TICK_NS - 1);
  unsigned due = pt_pool_watch_look (&p, t0 + PT_WATCH_TICK_NS);
  unsigned after = pt_pool_watch_look (&p, t0 + 2 * PT_WATCH_TICK_NS);
  CHECK (early == 0 && due == 6 && after == 0 && count_woken (&p, 1, 7) == 7
             && p.capped == 0 && l.capped_at == 0,
         "looks before, at and after a tick took %u, %u, %u workers (want "
         "0, 6, 0); %u of 7 woken, %u marked",
         early, due, after, count_woken (&p, 1, 7), p.capped);
  launch_destroy (&p, &l);
  pool_destroy (&p);

  /* Nothing left to claim: unmarked, nobody taken.  */
  cut_launch (&p, &l, &clk, true);
  wgd_range r;
  for (unsigned t = 0; t < 8; ++t)
    while (wgd_claim (l.dispatch, t, &r, NULL) || r.wait)
      ;
  t0 = l.capped_at;
  due = pt_pool_watch_look (&p, t0 + PT_WATCH_TICK_NS);
  CHECK (due == 0 && p.capped == 0 && count_woken (&p, 1, 7) == 1,
         "a look at a claimed launch took %u workers, %u marked; want 0, 0",
         due, p.capped);
  launch_destroy (&p, &l);
  pool_destroy (&p);

  /* A marked launch that leaves the list is unmarked.  */
  cut_launch (&p, &l, &clk, true);
  launch_destroy (&p, &l);
  CHECK (p.capped == 0, "%u marked after the launch left the list", p.capped);
  pool_destroy (&p);

  /* Without a watch, P8 cuts nothing: the 4 wake-ups take 7 helpers.  */
  cut_launch (&p, &l, &clk, false);
  CHECK (count_woken (&p, 1, 7) == 7 && l.capped_at == 0 && p.capped == 0,
         "without a watch: %u of 7 woken, launch %s; want 7, unmarked",
         count_woken (&p, 1, 7), l.capped_at ? "marked" : "unmarked");
  launch_destroy (&p, &l);
  pool_destroy (&p);
  printf ("watch: the helpers P8 left asleep are woken a tick later (P9), "
          "and nothing is capped without a watch\n");
}

/* P10 and P9: a worker that searches on its own passes over a launch
   where its block is gone while the CPUs are full, and marks it for the
   watch; the watch leaves it asleep while the launch's claims go on, and
   takes it once they stop, when it joins.  2 workers on 2 CPUs, a static
   launch of 64 work-groups whose block 1 (32..63) was claimed whole (by
   thread 1 itself here; in the driver, an application thread takes it
   over), and a queued command of one work-group, which a worker that
   passes the launch takes instead.  `busy` counts the worker that calls
   pt_pool_wait (which uncounts it) and those said busy.  */
static void
test_thief_passes (void)
{
  pt_pool p;
  pt_pool_launch l;
  scripted_clock clk;
  _cl_command_node cmd;
  pt_work w;
  wgd_range r;
  pool_init (&p, 2);
  scripted_clock_use (&p, &clk, 0, 0);
  p.woken.cpus = 2;
  launch_init (&p, &l, 0, 2, 64);
  for (unsigned i = 0; i < 32; ++i)
    wgd_claim (l.dispatch, 1, &r, NULL);
  CHECK (!__real_wgd_thread_has_work (l.dispatch, 1)
             && __real_wgd_thread_has_work (l.dispatch, 0),
         "block 1 should be empty and block 0 full");

  /* Three cases that join: a CPU free (worker 0 alone busy); the CPUs
     full but the worker's own block has work (worker 0); then the pass.  */
  static const struct
  {
    unsigned index, busy;
    bool join;
    const char *what;
  } cases[] = {
    { 1, 2, true, "worker 1, a CPU free" },
    { 0, 3, true, "worker 0 (its block full), the CPUs full" },
    { 1, 3, false, "worker 1 (its block gone), the CPUs full" },
  };
  for (unsigned c = 0; c < 3; ++c)
    {
      command_init (&cmd, 1);
      pt_pool_push_command (&p, &cmd, false);
      atomic_store_explicit (&p.woken.busy, cases[c].busy,
                             memory_order_relaxed);
      bool ok = pt_pool_wait (&p, cases[c].index, 0, &w);
      bool joined = ok && w.launch == &l && w.command == NULL;
      bool passed = ok && w.launch == NULL && w.command == &cmd;
      CHECK (cases[c].join ? joined : passed,
             "%s: pt_pool_wait gave %s, want %s", cases[c].what,
             joined   ? "the launch"
             : passed ? "the command"
                      : "neither",
             cases[c].join ? "the launch" : "the command (P10)");
      CHECK ((l.capped_at != 0) == !cases[c].join
                 && p.capped == (cases[c].join ? 0u : 1u),
             "%s: launch %s, %u marked; want %s", cases[c].what,
             l.capped_at != 0 ? "marked" : "unmarked", p.capped,
             cases[c].join ? "unmarked" : "marked for the watch");
      if (joined)
        pt_pool_launch_release (&l);
      /* Still queued after a join: out before the node is reused.  */
      pt_pool_take_command_if (&p, take_any, NULL, NULL);
    }

  /* Worker 1 searches again on its own, passes, and sleeps (no spinning
     here).  A look a tick after the mark, with a claim since, marks the
     launch again and takes nobody; a look a tick after that, with no
     claim since, takes worker 1, which joins: taken, it does not pass.  */
  atomic_store_explicit (&p.woken.busy, 3, memory_order_relaxed);
  waiter wt;
  waiter_start (&wt, &p, 1);
  while (!is_sleeping (&p, 1))
    usleep (100);
  uint64_t t0 = l.capped_at;
  wgd_claim (l.dispatch, 0, &r, NULL);
  unsigned claimed = pt_pool_watch_look (&p, t0 + PT_WATCH_TICK_NS);
  uint64_t t1 = l.capped_at;
  unsigned stopped = pt_pool_watch_look (&p, t1 + PT_WATCH_TICK_NS);
  waiter_join (&wt);
  CHECK (claimed == 0 && t1 == ((t0 + PT_WATCH_TICK_NS) | 1) && stopped == 1
             && wt.running && wt.work.launch == &l && p.capped == 0,
         "the watch took %u workers after a claim (want 0, the launch "
         "marked again), %u once the claims stopped (want 1); worker 1 "
         "%s (want it joined), %u marked",
         claimed, stopped, wt.work.launch == &l ? "joined" : "did not join",
         p.capped);
  if (wt.work.launch == &l)
    pt_pool_launch_release (&l);
  launch_destroy (&p, &l);
  pool_destroy (&p);
  printf ("thief_passes: a worker whose block is gone stays out while the "
          "CPUs are full (P10), and the watch takes it once the claims "
          "stop (P9)\n");
}

int
main (int argc, char **argv)
{
  struct sigaction sa;
  memset (&sa, 0, sizeof (sa));
  sa.sa_handler = on_alarm;
  sigaction (SIGALRM, &sa, NULL);
  /* Everything here runs in milliseconds; only a hang reaches this.  */
  alarm (30);

  bool found = false;
  for (size_t i = 0; i < sizeof (tests) / sizeof (tests[0]); ++i)
    if (argc < 2 || strcmp (argv[1], tests[i].name) == 0)
      {
        printf ("pool: %s\n", tests[i].name);
        fflush (stdout); /* before its failures, which go to stderr */
        tests[i].run ();
        found = true;
      }
  if (!found)
    {
      fprintf (stderr, "test_pool: no test %s\n", argv[1]);
      return 2;
    }
  return check_finish ("pool");
}

/* P8 counts an application thread that runs a published launch
   (pt_pool_host_busy), and the workers in a grace (P6), as it counts busy
   workers: 2 CPUs, 4 sleeping workers.  A push of 64 work-groups takes
   the command's worker and one helper; with the application thread
   counted busy, the command's worker only; with a worker in a grace
   (taken for a small command its enqueuer may run), the same.  And the
   count itself: busy once, on the CPU the clock says (B8), and gone
   again.  */
static void
test_host_busy (void)
{
  enum
  {
    T = 4
  };
  for (int c = 0; c < 3; ++c)
    {
      const uint64_t hour = 3600ull * 1000000000u;
      pt_pool p;
      scripted_clock clk;
      pool_init (&p, T);
      scripted_clock_use (&p, &clk, 0, 0);
      clk.cpu = 0;
      p.woken.cpus = 2;
      atomic_store_explicit (&p.woken.busy, 0, memory_order_relaxed);
      pt_pool_count_host_work (&p, 4, hour);
      for (unsigned i = 0; i < T; ++i)
        set_idle (&p, i, false, true);
      _cl_command_node small, cmd;
      command_init (&small, 1);
      small.device = &root;
      command_init (&cmd, 64);
      cmd.device = &root;
      if (c == 1)
        {
          pt_pool_host_busy (&p, true);
          CHECK (atomic_load (&p.woken.busy) == 1
                     && atomic_load (&p.woken.busy_on[0].n) == 1
                     && pt_pool_counted_cpu () == 0,
                 "an application thread counted busy: busy %u, on CPU 0 "
                 "%u, counted on %d, want 1, 1 and 0",
                 atomic_load (&p.woken.busy),
                 atomic_load (&p.woken.busy_on[0].n), pt_pool_counted_cpu ());
        }
      if (c == 2)
        {
          /* A grace for worker 0, which then runs (its grace spin): no
             longer counted as woken.  */
          pt_pool_push_command (&p, &small, true);
          pt_pool_woken_add (&p, -1, -1);
        }
      unsigned before = T - count_woken (&p, 0, T);
      pt_pool_push_command (&p, &cmd, false);
      unsigned taken = before - (T - count_woken (&p, 0, T));
      unsigned want = c == 0 ? 2 : 1;
      CHECK (taken == want,
             "a push of 64 work-groups on 2 CPUs, %s, took %u workers, "
             "want %u (P8)",
             c == 0   ? "nobody busy"
             : c == 1 ? "an application thread busy"
                      : "a worker in a grace",
             taken, want);
      if (c == 1)
        {
          pt_pool_host_busy (&p, false);
          CHECK (atomic_load (&p.woken.busy) == 0
                     && atomic_load (&p.woken.busy_on[0].n) == 0
                     && pt_pool_counted_cpu () == -1,
                 "an application thread uncounted: busy %u, on CPU 0 %u, "
                 "counted on %d, want 0, 0 and -1",
                 atomic_load (&p.woken.busy),
                 atomic_load (&p.woken.busy_on[0].n), pt_pool_counted_cpu ());
        }
      /* Leave nobody marked woken for a queued command.  */
      while (pt_pool_take_command_if (&p, take_any, NULL, NULL) != NULL)
        ;
      pt_pool_end_graces (&p);
      pool_destroy (&p);
    }
  printf ("host_busy: an application thread in a published launch, and a "
          "worker in a grace, count against the CPUs for helpers (P8)\n");
}

/* pt_pool_publish_shared: an application thread that took the command a
   worker was left waiting for (P6) publishes its launch, wakes helpers
   and ends the grace in one hold of the lock, helpers first.  2 CPUs, 4
   sleeping workers; a small command pushed by its enqueuer takes worker w
   with a grace of an hour; the thread takes the command, counts itself
   busy and publishes a launch with work for every thread.  The thread
   and w fill the CPUs, so no helper is taken (P8); w's grace is over
   and w was kicked, so it joins now; the launch is listed.  Ending the
   grace first would have left room for a third thread on the 2 CPUs.  */
static void
test_publish_shared (void)
{
  enum
  {
    T = 4
  };
  const uint64_t hour = 3600ull * 1000000000u;
  pt_pool p;
  pt_pool_launch l;
  scripted_clock clk;
  pool_init (&p, T);
  scripted_clock_use (&p, &clk, 0, 0);
  p.woken.cpus = 2;
  /* No worker runs (pt_pool_init counts them busy until they wait).  */
  atomic_store_explicit (&p.woken.busy, 0, memory_order_relaxed);
  pt_pool_count_host_work (&p, 64, hour);
  for (unsigned i = 0; i < T; ++i)
    set_idle (&p, i, false, true);
  _cl_command_node cmd;
  command_init (&cmd, 64);
  cmd.device = &root;
  pt_pool_push_command (&p, &cmd, true);
  /* The taken worker runs its grace spin: no longer counted as woken.  */
  pt_pool_woken_add (&p, -1, -1);
  unsigned w = T;
  for (unsigned i = 0; i < T; ++i)
    if (grace_of (&p, i) != 0)
      w = i;
  CHECK (w < T && count_woken (&p, 0, T) == 1,
         "the enqueuer's push took %u workers, want one, with a grace",
         count_woken (&p, 0, T));
  if (w == T)
    {
      pool_destroy (&p);
      return;
    }
  uint64_t kicks = atomic_load (&p.idle[w].kick);
  unsigned graced = T;
  CHECK (pt_pool_take_command_if (&p, take_any, NULL, &graced) == &cmd
             && graced == w,
         "the enqueuer did not take its command from graced worker %u", w);
  pt_pool_host_busy (&p, true);

  memset (&l, 0, sizeof (l));
  l.dispatch = pocl_aligned_malloc (WGD_CACHELINE, wgd_launch_size (T));
  if (l.dispatch == NULL)
    exit (2);
  wgd_launch_init (l.dispatch, WGD_SCHED_STATIC, 64, T, T);
  l.first_thread = 0;
  l.num_threads = T;
  pt_pool_publish_shared (&p, &l);

  CHECK (count_woken (&p, 0, T) == 1,
         "publishing on 2 CPUs held by the thread and the graced worker "
         "took %u helpers, want none (P8 before the grace's end)",
         count_woken (&p, 0, T) - 1);
  CHECK (grace_of (&p, w) == 0 && graces (&p) == 0
             && atomic_load (&p.idle[w].kick) == kicks + 1,
         "worker %u's grace did not end with one kick: grace_until %lu, "
         "graces %u, kicks %lu more",
         w, (unsigned long)grace_of (&p, w), graces (&p),
         (unsigned long)(atomic_load (&p.idle[w].kick) - kicks));
  pthread_mutex_lock (&p.lock);
  bool listed = p.launches == &l && atomic_load (&l.refs) == 2;
  pthread_mutex_unlock (&p.lock);
  CHECK (listed, "the launch is not listed with the list's reference and "
                 "the publisher's");
  pt_pool_host_busy (&p, false);
  launch_destroy (&p, &l);
  pool_destroy (&p);
  printf ("publish_shared: the publish, the helpers' wake-up and the end "
          "of the graces in one hold of the lock, helpers first (P6, "
          "P8)\n");
}
