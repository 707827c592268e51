/* wg_dispatch.c - work-group dispatch for one kernel launch; see
   wg_dispatch.h for the schedules and the operations.

   THE STATIC SCHEDULE'S PROTOCOL, stated once; every CAS and store below
   cites the rules it relies on.  The Spin model in tests/model/ checks it
   for small cases, and tests/dispatch/ drives it through scripted
   interleavings.

   Each thread t owns one block word, (begin, end) of 32-bit unit indices
   packed in 64 bits, and remembers the block as dealt (`initial`).  An
   owner claims a range of k units from the front of its own word with one
   CAS, never more than half of what the word holds (one when it holds
   one); a thief takes over an unstarted block whole or steals the back
   half of the fullest one, runs its first k units and keeps the rest in
   its own (empty) word, where others can steal it again.  k is sized by
   time (W8's "sizing"), so that claims cost little beside what they hand
   out.  A range held privately cannot be stolen; the hunger latch (W8)
   makes holders give its unstarted rest back when another thread runs
   out, which keeps the worst case bounded (D1, tests/sim/).  The states
   of a word, and who may move it from one to another:

   | state     | word            | its owner may     | a thief may       |
   |-----------|-----------------|-------------------|-------------------|
   | unstarted | == initial,     | claim a front     | take it whole     |
   |           | not empty       | range (-> started |  (-> empty), or   |
   |           |                 | or empty)         | steal the back    |
   |           |                 |                   | half (-> started) |
   | started   | != initial,     | claim a front     | steal the back    |
   |           | not empty       | range (-> started | half (-> started  |
   |           |                 | or empty); give a | or empty)         |
   |           |                 | range's rest back |                   |
   |           |                 | (-> started)      |                   |
   | empty     | begin >= end    | refill it with    | nothing: skips it |
   |           |                 | what it stole, or |                   |
   |           |                 | give a range's    |                   |
   |           |                 | rest back         |                   |
   |           |                 | (-> refilled)     |                   |
   | refilled  | not empty,      | as started        | as started (never |
   |           | after a refill  |                   | a takeover: W4)   |

   Every move but the refill and a give-back to an empty word is a CAS from
   a value the mover saw not empty; those two are plain stores.

   Guests (wgd_launch_set_guests) are participants whose word is dealt
   empty: their words follow the same table and invariants.  A guest's
   `initial` is empty, which no word that is not empty equals, so a
   guest's word is never taken over, only stolen from once refilled.

   The unclaimed count is kept lazily, so that claims from a thread's own
   block touch no shared line: each thread adds what it hands out to its
   own `pending` (a plain field beside its word, which only it accesses)
   and subtracts the sum from `unclaimed` in one read-modify-write, a
   flush, when its word is empty: right after the claim or the refill
   that emptied it, or, if a thief emptied it, at its next claim.  So a
   launch costs one shared read-modify-write per word that runs dry (T
   plus the steals), not one per claim.

   Invariants:

   W1 (conservation)  Every unclaimed unit is in exactly one block word, or
      in the hands of exactly one thread: between the CAS that removed it
      from a word and either running it or storing it into its own empty
      word (the refill in steal()), or, in a range a thread holds, until
      the thread runs it or gives it back (wgd_give_back).
   W2 (who writes an empty word)  Only its owner, with the refill or a
      give-back.  Thieves and the owner CAS only words they saw not empty,
      and a CAS whose expected value is not empty fails on an empty word;
      so the owner's plain store cannot race with any other write.
   W3 (who moves what)  Only a word's owner moves its begin: claims move
      it forward, and a give-back moves it back to just past the last unit
      the owner started, which is where the range it holds began + 1 at
      least.  Thieves move only the end, and only down.  So while a word is
      not empty, its begin is where its owner's last claim or give-back
      left it: the end of the range the owner holds, if any (hold_end).
   W4 (no ABA that matters)  A word's value is the whole of what it holds,
      and every CAS computes its new value from the value it expects alone,
      so a CAS that succeeds on a value seen before is a valid move on what
      the word holds now.  The one thing read from history is `initial`,
      "not started": a word never returns to `initial` once it left it,
      because the front unit of every range claimed or stolen is run before
      anything can be given back (the holder runs one work-group first),
      a give-back's begin is past it, and a refill starts past the front
      unit its thread runs itself; and a range within one initial block
      never holds units of another.
   W5 (unclaimed bounds what is left)  `unclaimed` == the work-groups in
      words and in hands (W1) + the sum of every thread's `pending`, which
      includes the ranges it holds.  A flush subtracts exactly what its
      thread handed out since its last flush, so `unclaimed` is never
      below what is left, and reading 0 means nothing is left.  It lags: a
      thread's hand-outs stay counted until its word is empty, and a thread
      whose word a thief emptied flushes at its next claim.  A thread never
      flushes while it holds a range of more than one unit (a claim that
      empties its own word hands out one unit: the half rule, and its
      alone form in W8), so a
      give-back takes the units it returns off its own `pending`, and
      `unclaimed` never goes up.  Every thread that claims calls wgd_claim
      again until it returns false, and a false return has flushed
      (claim_static), so every pending count is flushed by the end.
   W6 (one last call)  A flush is a read-modify-write, so exactly one
      flush sees `unclaimed` go from its pending count to 0: the wgd_claim
      call that made it, and only it, sets `last` (the call may return
      false: then a thief had emptied the word of the thread flushing).
   W7 (one finisher)  `finished` grows by what each thread ran, in one
      fetch-and-add per thread (wgd_finish), and the sum of all is
      num_groups; exactly one call sees it reach num_groups.
   W8 (sizing and the hunger latch)  Sizing: a claim's k is one once the
      latch is set.  At the first claim of a launch, and at the first after
      a claim that found nothing, it is one, or, when the thread's cost per
      unit is known (from its last timed claim, or given from an earlier
      launch by wgd_set_group_cost), as many units as that cost fits in
      half the budget, but at most an eighth of its word; a takeover or a
      steal sizes its range so too, of what it took, when that is more
      than the claim's k.  Else twice the units
      of the thread's previous claim while those were fewer than
      WGD_UNTIMED_UNITS, unread clock; otherwise it follows the time the
      previous claim took, now - claimed_at: twice its units when it took
      less than half the budget, halved until it fits half the budget when
      it took more than the budget, else the same; the half rule then caps
      it.  In the tail of a word, where the half rule caps the claim at
      half the word <= the previous claim's units anyway, the clock is
      not read and k is the previous claim's units (and an untimed claim
      that the half rule caps below WGD_UNTIMED_UNITS does not start
      timing); the next claim the half rule does not cap so reads the
      clock to start timing, and keeps the previous claim's units.  A
      holder (a thread holding a range of more than one unit) sets its
      `holding` before the CAS that takes the range and clears it after giving
      the rest back, or at its next claim.  A thread whose claim finds no word
      to take from, with work left (unclaimed > 0), looks at every `holding`:
      if one is set, it sets the launch's `hungry` latch and returns false with
      `wait`; a holder reads the latch before each work-group after its range's
      first, and gives back the unstarted rest (W2, W3: to its word's front, or
      into its empty word).  Orderings: the holding store comes before a CAS
      with release, and the looker reads words with acquire before `holding`,
      so a looker that sees a range gone from a word sees its `holding`; a
      give-back writes the word with release before clearing `holding` with
      release, and the looker reads `holding` with acquire before looking at
      the word again, so a looker that sees `holding` clear sees what came
      back.
      Alone: a claim made while no other thread can see the launch
      (wgd_claim_alone: before it is published) is not sized and takes
      all of the word but its last unit, or the one unit it holds; there
      is no thief to leave half for, and the word keeps a unit so that the
      claim does not flush (W5).  It leaves last_units at 0, so the first
      claim after publishing is sized as a launch's first claim.  Its
      holder gives back the unstarted rest before publishing, a give-back
      as above with nobody to race; from then on D1 holds as for a launch
      whose first thread ran that much before the others came.  Nothing
      below depends on the sizes, so a cost carried from an earlier
      launch, wrong when the costs changed since, does not weaken D1.

   D1 (the bound)  With the latch, a launch of T threads that start
      together and are never descheduled ends within
        (sum + C) / T + 2 * dearest + budget-free terms,
      where C is the dispatch's own cost (claims and clock reads), and the
      "budget-free terms" are one claim and one look: when the first thread
      finds nothing while ranges are held, every thread was busy until
      then; each holder runs at most one more work-group before it sees the
      latch and gives its rest back; from then on every claim is of one
      unit and nothing is held, which is list scheduling again (Graham:
      + one dearest work-group).  Threads that leave (wgd_range.wait
      ignored) or are descheduled lose the bound, as under any schedule.
      tests/sim/ checks it for T = 2 to 256 on profiles whose costs jump
      1000-fold part-way through.

   Under guided, `unclaimed` is the whole state: every claim is a CAS on
   it that takes a chunk from the front, with nothing pending (W5 with
   every `pending` 0; W6 for the CAS that takes the count to 0).

   Memory ordering: block words and `unclaimed` are relaxed, but for W8's
   pairs (`pending` and the other owner-only fields are not atomic).  The
   protocol's whole state is in those words; every removal is a CAS,
   which acts on the latest value whatever the ordering, and nothing else
   is read on the strength of a word but `holding` (W8).  The launch itself is
   published by the caller (release/acquire, wg_dispatch.h), and the results of
   work-groups are published by wgd_finish (acq_rel).

   Copyright (c) 2026 pocl-steal developers.  MIT licence, as PoCL.  */

#include "wg_dispatch.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

_Static_assert (ATOMIC_LLONG_LOCK_FREE == 2,
                "the dispatcher needs lock-free 64-bit atomics");

#ifdef WGD_TEST_HOOKS
void (*wgd_yield_hook) (wgd_launch *l, wgd_yield_point point, unsigned tid);
void (*wgd_count_hook) (wgd_launch *l, wgd_op op, unsigned tid);
/* Calls a test hook if one is set.  */
#define WGD_CALL_HOOK(hook, l, what, tid)                                     \
  do                                                                          \
    {                                                                         \
      if ((hook) != NULL)                                                     \
        (hook) ((l), (what), (tid));                                          \
    }                                                                         \
  while (0)
#define WGD_YIELD(l, point, tid) WGD_CALL_HOOK (wgd_yield_hook, l, point, tid)
#define WGD_COUNT(l, op, tid) WGD_CALL_HOOK (wgd_count_hook, l, op, tid)
#else
#define WGD_YIELD(l, point, tid) ((void)0)
#define WGD_COUNT(l, op, tid) ((void)0)
#endif
#define WGD_COUNT_CAS(l, ok, tid)                                             \
  WGD_COUNT ((l), (ok) ? WGD_OP_RMW_OK : WGD_OP_RMW_FAIL, (tid))

/* Guided rule constants: PoCL's POCL_PTHREAD_MIN_WGS / POCL_PTHREAD_MAX_WGS.
 */
#define GUIDED_MIN_PER_THREAD 32u
#define GUIDED_MAX_PER_THREAD 256u

/* A claim sized from a cost learnt earlier (first_size, W8) takes at most
   this share of its word.  Measured at 2 and 4 threads on 2 CPUs, 1024
   trivial work-groups: 10-40% cheaper launches than from one unit, while
   sizing it from the cost alone (half the block at once) left the late
   thread waiting for the holder more often.  */
#define FIRST_CLAIM_SHARE 8u

static inline uint64_t
pack (uint32_t begin, uint32_t end)
{
  return ((uint64_t)begin << 32) | end;
}

static inline uint32_t
word_begin (uint64_t w)
{
  return (uint32_t)(w >> 32);
}

static inline uint32_t
word_end (uint64_t w)
{
  return (uint32_t)w;
}

static inline uint32_t
word_len (uint64_t w)
{
  uint32_t b = word_begin (w), e = word_end (w);
  return e > b ? e - b : 0;
}

size_t
wgd_launch_size_guests (unsigned num_threads, unsigned num_guests)
{
  return sizeof (wgd_launch)
         + ((size_t)num_threads + num_guests) * sizeof (wgd_block);
}

size_t
wgd_launch_size (unsigned num_threads)
{
  return wgd_launch_size_guests (num_threads, 0);
}

/* Threads and guests: every block word.  */
static inline unsigned
participants (const wgd_launch *l)
{
  return l->num_threads + l->num_guests;
}

/* Work-groups of units [ub, ue).  */
static inline uint64_t
units_to_groups_begin (const wgd_launch *l, uint32_t u)
{
  return (uint64_t)u * l->grain;
}

static inline uint64_t
units_to_groups_end (const wgd_launch *l, uint32_t u)
{
  uint64_t g = (uint64_t)u * l->grain;
  return g < l->num_groups ? g : l->num_groups;
}

/* Unit where block t starts in the balanced split of num_units over
   num_threads: the first (num_units % num_threads) blocks get one more.  */
static inline uint32_t
block_start (uint32_t num_units, unsigned num_threads, unsigned t)
{
  uint64_t q = num_units / num_threads;
  uint64_t r = num_units % num_threads;
  return (uint32_t)(q * t + (t < r ? t : r));
}

/* The fields of a block other than its word, as a launch starts.  */
static void
init_owner_fields (wgd_block *bk, uint64_t initial)
{
  bk->initial = initial;
  bk->pending = 0;
  bk->claimed_at = 0;
  bk->last_units = 0;
  bk->timing = false;
  bk->unit_cost = 0;
  bk->hold_end = 0;
  /* relaxed: published with the launch.  */
  atomic_store_explicit (&bk->holding, 0, memory_order_relaxed);
}

void
wgd_launch_init_units (wgd_launch *l, wgd_schedule schedule,
                       uint64_t num_groups, unsigned num_threads,
                       unsigned guided_threads, uint32_t max_units)
{
  if (num_threads == 0)
    num_threads = 1;
  if (guided_threads == 0)
    guided_threads = num_threads;
  if (max_units == 0)
    max_units = 1;
  if ((unsigned)schedule >= WGD_NUM_SCHEDULES)
    schedule = WGD_SCHED_STATIC;

  l->num_groups = num_groups;
  l->schedule = schedule;
  l->num_threads = num_threads;
  l->guided_threads = guided_threads;
  l->grain = num_groups <= max_units
                 ? 1
                 : num_groups / max_units + (num_groups % max_units != 0);
  l->num_units
      = (uint32_t)(num_groups / l->grain + (num_groups % l->grain != 0));
  l->num_guests = 0;
  l->guest_first = l->num_threads - 1;
  l->node_of = NULL;
  l->steal = true;
  l->clock = NULL;
  l->clock_arg = NULL;
  l->budget = 0;
  /* relaxed: published with the launch, as below.  */
  atomic_store_explicit (&l->hungry, 0, memory_order_relaxed);

  /* relaxed: the launch is published to other threads by the caller with
     release/acquire (see wgd_launch_init in the header).  */
  atomic_store_explicit (&l->unclaimed, num_groups, memory_order_relaxed);
  atomic_store_explicit (&l->finished, 0, memory_order_relaxed);

  for (unsigned t = 0; t < num_threads; ++t)
    {
      uint32_t b = block_start (l->num_units, num_threads, t);
      uint32_t e = block_start (l->num_units, num_threads, t + 1);
      init_owner_fields (&l->blocks[t], pack (b, e));
      /* relaxed: published with the launch, as above.  Every word starts
         unstarted (or empty, for blocks of no units).  */
      atomic_store_explicit (&l->blocks[t].word, pack (b, e),
                             memory_order_relaxed);
    }
}

void
wgd_launch_init (wgd_launch *l, wgd_schedule schedule, uint64_t num_groups,
                 unsigned num_threads, unsigned guided_threads)
{
  wgd_launch_init_units (l, schedule, num_groups, num_threads, guided_threads,
                         WGD_MAX_UNITS);
}

void
wgd_launch_set_nodes (wgd_launch *l, const int *node_of)
{
  l->node_of = node_of;
}

void
wgd_launch_set_guest_first (wgd_launch *l, unsigned first)
{
  if (first < l->num_threads)
    l->guest_first = first;
}

void
wgd_launch_set_guests (wgd_launch *l, unsigned num_guests)
{
  l->num_guests = num_guests;
  for (unsigned g = l->num_threads; g < participants (l); ++g)
    {
      /* Empty as dealt: never taken over, and refilled only by its guest
         (W2).  relaxed: published with the launch.  */
      init_owner_fields (&l->blocks[g], pack (0, 0));
      atomic_store_explicit (&l->blocks[g].word, pack (0, 0),
                             memory_order_relaxed);
    }
}

void
wgd_launch_set_stealing (wgd_launch *l, bool steal)
{
  l->steal = steal;
}

uint64_t
wgd_group_cost (const wgd_launch *l, unsigned tid)
{
  if (l->schedule != WGD_SCHED_STATIC || tid >= participants (l))
    return 0;
  return l->blocks[tid].unit_cost / l->grain;
}

void
wgd_set_group_cost (wgd_launch *l, unsigned tid, uint64_t cost)
{
  if (l->schedule != WGD_SCHED_STATIC || tid >= participants (l)
      || l->clock == NULL)
    return;
  l->blocks[tid].unit_cost = cost * l->grain;
}

void
wgd_launch_set_clock (wgd_launch *l,
                      uint64_t (*clock) (void *arg, unsigned tid), void *arg,
                      uint64_t budget)
{
  l->clock = clock;
  l->clock_arg = arg;
  l->budget = budget;
}

unsigned
wgd_home_thread (const wgd_launch *l, uint64_t g)
{
  uint64_t u = g / l->grain;
  uint64_t q = l->num_units / l->num_threads;
  uint64_t r = l->num_units % l->num_threads;
  /* The first r blocks have q + 1 units, the others q.  */
  if (u < r * (q + 1))
    return (unsigned)(u / (q + 1));
  return (unsigned)(r + (u - r * (q + 1)) / q);
}

/* Work-groups of [gb, ge) that lie in thread t's initial block.  */
static uint64_t
home_part (const wgd_launch *l, unsigned t, uint64_t gb, uint64_t ge)
{
  uint64_t init = l->blocks[t].initial;
  uint64_t hb = units_to_groups_begin (l, word_begin (init));
  uint64_t he = units_to_groups_end (l, word_end (init));
  uint64_t b = gb > hb ? gb : hb;
  uint64_t e = ge < he ? ge : he;
  return b < e ? e - b : 0;
}

/* Subtracts what thread tid handed out since its last flush from the
   unclaimed count.  Returns true for the one flush that takes the count
   to 0 (W6).  */
static bool
flush (wgd_launch *l, unsigned tid)
{
  uint64_t n = l->blocks[tid].pending;
  if (n == 0)
    return false;
  l->blocks[tid].pending = 0;
  /* W5, W6.  relaxed: a hint for threads choosing a launch (see
     wgd_unclaimed); the read-modify-write alone makes exactly one flush
     see the count reach 0.  */
  bool last
      = atomic_fetch_sub_explicit (&l->unclaimed, n, memory_order_relaxed)
        == n;
  WGD_COUNT (l, WGD_OP_RMW_OK, tid);
  return last;
}

/* Whether unit u lies in thread t's initial block: a range never holds
   units of two initial blocks (W4), so a range is wholly home or not at
   all.  */
static inline bool
unit_is_home (const wgd_launch *l, unsigned t, uint32_t u)
{
  uint64_t init = l->blocks[t].initial;
  return u >= word_begin (init) && u < word_end (init);
}

/* Accounts units [u, u + n), just removed from a word by thread tid, as
   handed out to it (W5), and fills in *out.  now_empty: tid's own word is
   empty after that removal (or refill), so tid flushes its pending count
   now.  Inlined into both callers: an owner's claim is the hot path of a
   launch of cheap work-groups.  */
static inline __attribute__ ((always_inline)) bool
hand_out (wgd_launch *l, unsigned tid, uint32_t u, uint32_t n, bool now_empty,
          wgd_range *out, wgd_thread_stats *stats)
{
  wgd_block *bk = &l->blocks[tid];
  uint64_t groups;
  if (l->grain == 1)
    {
      out->begin = u;
      out->end = (uint64_t)u + n;
      groups = n;
    }
  else
    {
      out->begin = units_to_groups_begin (l, u);
      out->end = units_to_groups_end (l, u + n);
      groups = out->end - out->begin;
    }
  bk->hold_end = u + n;
  bk->last_units = n;
  WGD_YIELD (l, WGD_AFTER_REMOVE, tid);
  bk->pending += groups;
  out->last = now_empty && flush (l, tid);
  if (stats)
    {
      stats->claims++;
      stats->groups += groups;
      stats->home_groups += unit_is_home (l, tid, u) ? groups : 0;
    }
  return true;
}

/* W8: tells lookers whether tid holds a range it may give back.  Written
   only when it changes, so that ranges of one unit cost no store.  */
static inline void
set_holding (wgd_block *bk, bool holding)
{
  /* relaxed load: only the owner writes it.  relaxed store: ordered before
     lookers by the release CAS or store on the word that follows (W8), or,
     when clearing, by the release of give_back or of the next removal.  */
  if ((atomic_load_explicit (&bk->holding, memory_order_relaxed) != 0)
      != holding)
    atomic_store_explicit (&bk->holding, holding, memory_order_relaxed);
}

/* The units in thread bk's own word.  relaxed: only thieves shorten it
   (W3), and a stale length only sizes a claim.  */
static inline uint32_t
own_len (const wgd_block *bk)
{
  return word_len (atomic_load_explicit (&bk->word, memory_order_relaxed));
}

/* Units of a range of len units that fit half the budget at the block's
   estimated cost per unit, but at most an eighth of len (a range sized
   so cannot have been timed against this launch's work-groups, and the
   rest stays where threads that come late find it); 0 when the cost is
   unknown (W8).  */
static uint32_t
cost_size (const wgd_launch *l, const wgd_block *bk, uint32_t len)
{
  if (bk->unit_cost == 0)
    return 0;
  uint64_t k = ((l->budget / 2) << WGD_COST_SHIFT) / bk->unit_cost;
  if (k > len / FIRST_CLAIM_SHARE)
    k = len / FIRST_CLAIM_SHARE;
  return (uint32_t)k;
}

/* The units of a claim with no previous one to go by (W8): cost_size of
   the thread's word, or one.  Out of line: once per launch and thread.  */
static __attribute__ ((noinline)) uint32_t
first_size (const wgd_launch *l, const wgd_block *bk)
{
  uint32_t k = cost_size (l, bk, own_len (bk));
  return k > 1 ? k : 1;
}

/* Thread tid's next claim is timed: the clock now is where its range
   starts (W8).  */
static inline void
start_timing (wgd_launch *l, wgd_block *bk, unsigned tid)
{
  bk->claimed_at = l->clock (l->clock_arg, tid);
  bk->timing = true;
  WGD_COUNT (l, WGD_OP_CLOCK, tid);
}

/* The units of thread tid's next claim, before the half rule (W8's
   sizing): first_size at the first claim of the launch and after a claim
   that found nothing, one once the hunger latch is set, else from the
   time the previous claim took against the budget.  Reads the clock at
   most once, and not in the tail of the word, where the half rule caps
   the claim whatever the clock says.  */
static inline uint32_t
claim_size (wgd_launch *l, unsigned tid)
{
  wgd_block *bk = &l->blocks[tid];
  if (l->clock == NULL || wgd_hungry (l))
    return 1;
  uint32_t last = bk->last_units;
  if (last < WGD_UNTIMED_UNITS)
    {
      /* Small ranges double untimed: a read of the clock costs as much as
         a cheap work-group.  The first range big enough is timed.  */
      uint32_t k = last > 0 ? 2 * last : first_size (l, bk);
      /* Not in the tail, where the half rule makes the range smaller
         (below).  */
      if (k >= WGD_UNTIMED_UNITS && own_len (bk) / 2 >= WGD_UNTIMED_UNITS)
        start_timing (l, bk, tid);
      return k;
    }
  /* The tail: the half rule caps this claim at len / 2 <= last, below
     any size the clock could give but a shrink, so the clock is not read
     (26 ns in a VM, as much as the rest of a claim).  A cost that jumped
     meanwhile is met by ranges that halve anyway, and by the latch.  The
     next claim that is not capped so starts timing afresh.  */
  if (own_len (bk) / 2 <= last)
    {
      bk->timing = false;
      return last;
    }
  if (!bk->timing)
    {
      start_timing (l, bk, tid);
      return last;
    }
  uint64_t now = l->clock (l->clock_arg, tid);
  WGD_COUNT (l, WGD_OP_CLOCK, tid);
  uint64_t took = now - bk->claimed_at;
  bk->claimed_at = now;
  /* What a later claim with nothing to go by, in this launch or the
     thread's next (wgd_group_cost), starts from.  */
  bk->unit_cost = ((took << WGD_COST_SHIFT) + last - 1) / last;
  if (took < l->budget / 2)
    return last < (UINT32_C (1) << 30) ? 2 * last : last;
  if (took > l->budget)
    while (last > 1 && took > l->budget / 2)
      {
        last /= 2;
        took /= 2;
      }
  return last;
}

/* The half rule: of a word holding len units, take at most half, or the
   one unit it holds.  alone (wgd_claim_alone, W8): nobody can steal, so
   take all but the last unit, or the one unit the word holds.  Either
   way a claim empties a word only by taking its one unit (W5).  */
static inline uint32_t
capped (uint32_t want, uint32_t len, bool alone)
{
  uint32_t most = alone ? len - 1 : len / 2;
  if (most == 0)
    most = 1;
  return want < most ? want : most;
}

/* Claims a range of up to `want` units from the front of thread tid's own
   block.  Returns false when it is empty.  */
static inline __attribute__ ((always_inline)) bool
claim_own (wgd_launch *l, unsigned tid, uint32_t want, bool alone,
           wgd_range *out, wgd_thread_stats *stats)
{
  wgd_block *bk = &l->blocks[tid];
  _Atomic uint64_t *word = &bk->word;
  /* relaxed, here and at every block word: see "Memory ordering" above.  */
  uint64_t w = atomic_load_explicit (word, memory_order_relaxed);
  uint32_t b, e, n;
  for (;;)
    {
      b = word_begin (w);
      e = word_end (w);
      if (b >= e)
        return false; /* empty: only we may write it again (W2) */
      n = capped (want, e - b, alone);
      set_holding (bk, n > 1); /* W8: before the CAS */
      WGD_YIELD (l, WGD_AFTER_LOAD_OWN, tid);
      /* unstarted/started/refilled -> started or empty, front range.  W3:
         only we move the begin; W4: the new value depends on w alone.  On
         failure w is the new value (a thief moved the end, or took the
         whole).  release: W8's holding before it.  */
      bool ok = atomic_compare_exchange_weak_explicit (
          word, &w, pack (b + n, e), memory_order_release,
          memory_order_relaxed);
      WGD_COUNT (l, ok ? WGD_OP_OWN_RMW : WGD_OP_RMW_FAIL, tid);
      if (ok)
        break;
    }
  return hand_out (l, tid, b, n, n == e - b, out, stats);
}

/* Guests have no node: they, and their words, are local to everybody.  */
static inline bool
same_node (const wgd_launch *l, unsigned a, unsigned b)
{
  return l->node_of == NULL || a >= l->num_threads || b >= l->num_threads
         || l->node_of[a] == l->node_of[b];
}

/* Looks at the blocks of the threads on (local) or off (!local) tid's
   node, one load each (a thread: its neighbours upwards; a guest: the
   threads from guest_first downwards, then the other guests; see "Guests"
   in wg_dispatch.h), and removes work from one
   of them: an unstarted block whole (a takeover: the first one met, so
   that a thread that arrives late finds its neighbours' work rather than
   everybody's), or else the back half, rounded up, of the fullest block.
   Fails when all those blocks are empty.  */
static bool
take_from_others (wgd_launch *l, unsigned tid, bool local, uint32_t *b,
                  uint32_t *e, unsigned *victim, bool *whole)
{
  /* Guests' words too: what a guest refilled must stay stealable.  */
  const unsigned nt = participants (l);
  const unsigned T = l->num_threads;
  const bool guest = tid >= T;
  for (;;)
    {
      unsigned best = nt;
      uint64_t best_w = 0;
      uint32_t best_n = 0;
      for (unsigned i = 1; i < nt; ++i)
        {
          /* A thread: its neighbours upwards.  A guest: the threads from
             guest_first downwards (wgd_launch_set_guest_first), then the
             other guests.  */
          unsigned v = !guest   ? (tid + i) % nt
                       : i <= T ? (l->guest_first + T - (i - 1)) % T
                                : T + (tid - T + (i - T)) % l->num_guests;
          if (same_node (l, tid, v) != local)
            continue;
          _Atomic uint64_t *word = &l->blocks[v].word;
          /* acquire: W8, a range gone from this word shows its taker's
             holding to our look at it after a failed search.  */
          uint64_t w = atomic_load_explicit (word, memory_order_acquire);
          WGD_COUNT (l, WGD_OP_PEEK, tid);
          uint32_t n = word_len (w);
          if (n == 0)
            continue;
          if (w == l->blocks[v].initial)
            {
              /* W8: what we take is in our hands until the refill, where
                 lookers cannot see it: count it as held from before the
                 CAS that takes it (release: after it).  */
              set_holding (&l->blocks[tid], true);
              /* unstarted -> empty.  Succeeds only while the word still
                 equals `initial`, which by W4 means nobody claimed or
                 stole from it: a word never returns to `initial` once it
                 left it.  So a started block is never CASed here, which
                 would fail anyway and take the owner's line away.  */
              bool ok = atomic_compare_exchange_strong_explicit (
                  word, &w, pack (word_end (w), word_end (w)),
                  memory_order_release, memory_order_relaxed);
              WGD_COUNT_CAS (l, ok, tid);
              if (ok)
                {
                  *b = word_begin (w);
                  *e = word_end (w);
                  *victim = v;
                  *whole = true;
                  return true;
                }
              /* w is the word's new value: a candidate as any other.  */
              n = word_len (w);
            }
          if (n > best_n)
            {
              best = v;
              best_w = w;
              best_n = n;
            }
        }
      if (best == nt)
        return false;

      uint32_t k = best_n - best_n / 2;
      uint32_t end = word_end (best_w);
      WGD_YIELD (l, WGD_AFTER_PICK_VICTIM, tid);
      set_holding (&l->blocks[tid], true); /* W8, as for a takeover */
      /* any non-empty state -> started or empty, back half.  W3: end
         shrinks; W4: the new value depends on best_w alone, and the CAS
         fails if the block changed since we read it (then we look again).
         What we remove is now ours alone (W1).  release: W8.  */
      bool ok = atomic_compare_exchange_strong_explicit (
          &l->blocks[best].word, &best_w, pack (word_begin (best_w), end - k),
          memory_order_release, memory_order_relaxed);
      WGD_COUNT_CAS (l, ok, tid);
      if (ok)
        {
          *b = end - k;
          *e = end;
          *victim = best;
          *whole = false;
          return true;
        }
    }
}

/* Thread tid's block is empty.  On its own node first, then on the others:
   take over an unstarted block whole, or else steal the back half of the
   fullest block.  Runs the first units of what it got, up to `want` and
   the half rule, and keeps the rest as its own block, where others may
   steal it again.  */
static bool
steal (wgd_launch *l, unsigned tid, uint32_t want, bool alone, wgd_range *out,
       wgd_thread_stats *stats)
{
  wgd_block *bk = &l->blocks[tid];
  uint32_t got_b = 0, got_e = 0;
  unsigned victim = 0;
  bool whole = false, got = false;

  /* Nothing left anywhere (W5: 0 is exact): skip looking at every block,
     which would cost a load of T - 1 lines each time a thread leaves.  */
  bool left = wgd_unclaimed (l) > 0;
  WGD_COUNT (l, WGD_OP_PEEK, tid);
  if (!left)
    return false;
  for (int pass = 0; pass < 2 && !got; ++pass)
    {
      bool local = pass == 0;
      if (!local && l->node_of == NULL)
        break; /* one node: the first pass saw every block */
      got = take_from_others (l, tid, local, &got_b, &got_e, &victim, &whole);
    }
  if (!got)
    {
      set_holding (bk, false);
      return false; /* every block looked empty: all handed out (W5 lag) */
    }

  /* W8: what we got is sized as a first claim of it when our cost is
     known and that is more: a claim sized in the tail of our own block
     would start the range from a few units.  A claim grown to be timed
     starts its timing here.  */
  if (!alone && l->clock != NULL && !wgd_hungry (l))
    {
      uint32_t k = cost_size (l, bk, got_e - got_b);
      if (k > want)
        {
          if (want < WGD_UNTIMED_UNITS && k >= WGD_UNTIMED_UNITS)
            start_timing (l, bk, tid);
          want = k;
        }
    }
  uint32_t n = capped (want, got_e - got_b, alone);
  WGD_YIELD (l, WGD_AFTER_STEAL, tid);
  set_holding (bk, n > 1);
  /* empty -> refilled (or stays empty when we run all we got).  A plain
     store is safe by W2: our word is empty and only we write it.  It
     starts past the front unit we run ourselves (W4).  release: W8, what
     comes back into sight comes with our holding.  */
  atomic_store_explicit (&bk->word, pack (got_b + n, got_e),
                         memory_order_release);
  if (stats)
    {
      if (whole)
        stats->takeovers++;
      else
        stats->steals++;
      if (!same_node (l, tid, victim))
        stats->remote++;
    }
  return hand_out (l, tid, got_b, n, n == got_e - got_b, out, stats);
}

/* W8: whether a thread other than tid holds a range it may give back, or
   work came back into a word since tid looked (then tid should look
   again).  */
static bool
worth_waiting (wgd_launch *l, unsigned tid)
{
  const unsigned nt = participants (l);
  bool held = false;
  for (unsigned v = 0; v < nt && !held; ++v)
    /* acquire: pairs with give_back's release clear (W8).  */
    held
        = v != tid
          && atomic_load_explicit (&l->blocks[v].holding, memory_order_acquire)
                 != 0;
  if (held)
    {
      /* The latch, set once.  relaxed: holders only need to see it
         eventually (W8); a read first, so that its line is written once
         per launch, not once per hungry thread.  */
      if (!wgd_hungry (l))
        atomic_store_explicit (&l->hungry, 1, memory_order_relaxed);
      return true;
    }
  for (unsigned v = 0; v < nt; ++v)
    if (v != tid
        && word_len (
               atomic_load_explicit (&l->blocks[v].word, memory_order_relaxed))
               > 0)
      return true;
  return false;
}

/* Thread tid's own word is empty: the rest of claim_static, out of line,
   so that the owner's claim above needs no stack frame of its own.  */
static __attribute__ ((noinline)) bool
claim_static_empty (wgd_launch *l, unsigned tid, uint32_t want, bool alone,
                    wgd_range *out, wgd_thread_stats *stats)
{
  wgd_block *bk = &l->blocks[tid];
  /* The range we held, if any, is run: nothing of ours to give back.  */
  set_holding (bk, false);
  /* Our word is empty, maybe emptied by a thief after our last claim:
     flush what we handed out before looking further (W5), so that a
     false return leaves nothing pending.  If that took the count to 0,
     nothing is left anywhere and this call is the last (W6).  */
  if (flush (l, tid))
    {
      out->last = true;
      return false;
    }
  if (!l->steal)
    return false;
  if (steal (l, tid, want, alone, out, stats))
    return true;
  /* Nothing to take.  The next claim's timing starts afresh (W8).  */
  bk->last_units = 0;
  if (wgd_unclaimed (l) > 0 && worth_waiting (l, tid))
    {
      out->wait = true;
      if (stats)
        stats->hungry++;
    }
  return false;
}

static bool
claim_static (wgd_launch *l, unsigned tid, wgd_range *out,
              wgd_thread_stats *stats)
{
  out->last = false;
  out->wait = false;
  if (tid >= participants (l))
    return false;
  uint32_t want = claim_size (l, tid);
  if (claim_own (l, tid, want, false, out, stats))
    return true;
  return claim_static_empty (l, tid, want, false, out, stats);
}

/* wgd_claim_alone: no thread but tid can see the launch (W8).  */
static bool
claim_static_alone (wgd_launch *l, unsigned tid, wgd_range *out,
                    wgd_thread_stats *stats)
{
  out->last = false;
  out->wait = false;
  if (tid >= participants (l))
    return false;
  bool found = claim_own (l, tid, UINT32_MAX, true, out, stats)
               || claim_static_empty (l, tid, UINT32_MAX, true, out, stats);
  /* Not a sized claim: the first claim after publishing is sized as a
     launch's first claim is (W8).  */
  l->blocks[tid].last_units = 0;
  return found;
}

void
wgd_give_back (wgd_launch *l, unsigned tid, wgd_range *r, uint64_t next,
               wgd_thread_stats *stats)
{
  if (l->schedule != WGD_SCHED_STATIC || tid >= participants (l))
    return;
  wgd_block *bk = &l->blocks[tid];
  /* The first unit not started: a unit is run whole (grain > 1).  */
  uint32_t from = (uint32_t)(next / l->grain + (next % l->grain != 0));
  uint32_t to = bk->hold_end;
  if (from < to && next < r->end)
    {
      _Atomic uint64_t *word = &bk->word;
      uint64_t w = atomic_load_explicit (word, memory_order_relaxed);
      for (;;)
        {
          WGD_YIELD (l, WGD_AFTER_LOAD_GIVE, tid);
          if (word_len (w) == 0)
            {
              /* empty -> refilled: W2, only we write an empty word.
                 release: W8, before the holding clear below.  */
              atomic_store_explicit (word, pack (from, to),
                                     memory_order_release);
              break;
            }
          /* started -> started: W3, the word begins where our range ends,
             and we move its begin back to the first unit we did not start;
             the units in between are ours (W1).  A thief's CAS on the old
             value fails, and a CAS on the new one is a valid move (W4).  */
          bool ok = atomic_compare_exchange_weak_explicit (
              word, &w, pack (from, word_end (w)), memory_order_release,
              memory_order_relaxed);
          WGD_COUNT (l, ok ? WGD_OP_OWN_RMW : WGD_OP_RMW_FAIL, tid);
          if (ok)
            break;
        }
      uint64_t gb = units_to_groups_begin (l, from);
      uint64_t returned = units_to_groups_end (l, to) - gb;
      /* W5: we hold a range, so we have not flushed since it was handed
         out, and `pending` still counts what we return.  */
      bk->pending -= returned;
      bk->hold_end = from;
      r->end = gb;
      if (stats)
        {
          stats->gave_back++;
          stats->groups -= returned;
          stats->home_groups -= unit_is_home (l, tid, from) ? returned : 0;
        }
    }
  /* release: after the word above (W8).  */
  atomic_store_explicit (&bk->holding, 0, memory_order_release);
}

static bool
claim_guided (wgd_launch *l, unsigned tid, wgd_range *out,
              wgd_thread_stats *stats)
{
  const uint64_t n = l->guided_threads;
  /* relaxed: the unclaimed count is the whole state of the guided
     dispenser, and every claim is a CAS on it (W5, W6).  */
  uint64_t rem = atomic_load_explicit (&l->unclaimed, memory_order_relaxed);
  out->last = false;
  out->wait = false;
  for (;;)
    {
      if (rem == 0)
        return false;
      uint64_t limit = rem <= GUIDED_MAX_PER_THREAD * n * n
                           ? GUIDED_MIN_PER_THREAD * n
                           : GUIDED_MAX_PER_THREAD * n;
      uint64_t per_thread = (rem + n - 1) / n;
      uint64_t chunk = limit < per_thread ? limit : per_thread;
      if (chunk > rem)
        chunk = rem;
      WGD_YIELD (l, WGD_AFTER_LOAD_GUIDED, tid);
      bool ok = atomic_compare_exchange_weak_explicit (
          &l->unclaimed, &rem, rem - chunk, memory_order_relaxed,
          memory_order_relaxed);
      WGD_COUNT_CAS (l, ok, tid);
      if (ok)
        {
          out->begin = l->num_groups - rem;
          out->end = out->begin + chunk;
          out->last = chunk == rem;
          if (stats)
            {
              stats->claims++;
              stats->groups += chunk;
              /* Guided has no home blocks; count the groups that the
                 static split would have given this thread, so that the two
                 schedules' locality can be compared.  */
              if (tid < l->num_threads)
                stats->home_groups += home_part (l, tid, out->begin, out->end);
            }
          return true;
        }
    }
}

static bool
has_work_static (const wgd_launch *l, unsigned tid)
{
  /* relaxed: a hint (see the header); the block may change at once.  */
  return tid < participants (l)
         && word_len (atomic_load_explicit (&l->blocks[tid].word,
                                            memory_order_relaxed))
                > 0;
}

static bool
has_work_guided (const wgd_launch *l, unsigned tid)
{
  /* Every thread may claim the next chunk; the first num_groups threads
     are the ones a launch of fewer work-groups than threads can use.  */
  return tid < l->num_threads && tid < l->num_groups
         && wgd_unclaimed ((wgd_launch *)l) > 0;
}

/* The schedules.  A new schedule is one enumerator in wg_dispatch.h and
   one row here; its enumerator is also its index in the statistics.  */
typedef struct
{
  const char *name;
  bool (*claim) (wgd_launch *l, unsigned tid, wgd_range *out,
                 wgd_thread_stats *stats);
  /* wgd_claim_alone; a schedule with nothing to gain from it names its
     claim again.  */
  bool (*claim_alone) (wgd_launch *l, unsigned tid, wgd_range *out,
                       wgd_thread_stats *stats);
  bool (*has_work) (const wgd_launch *l, unsigned tid);
} schedule_row;

static const schedule_row schedules[WGD_NUM_SCHEDULES] = {
  [WGD_SCHED_STATIC]
  = { "static", claim_static, claim_static_alone, has_work_static },
  [WGD_SCHED_GUIDED]
  = { "guided", claim_guided, claim_guided, has_work_guided },
};

bool
wgd_claim (wgd_launch *l, unsigned tid, wgd_range *out,
           wgd_thread_stats *stats)
{
  return schedules[l->schedule].claim (l, tid, out, stats);
}

bool
wgd_claim_alone (wgd_launch *l, unsigned tid, wgd_range *out,
                 wgd_thread_stats *stats)
{
  return schedules[l->schedule].claim_alone (l, tid, out, stats);
}

uint64_t
wgd_left_in_words (const wgd_launch *l)
{
  if (l->schedule != WGD_SCHED_STATIC)
    return atomic_load_explicit (&l->unclaimed, memory_order_relaxed);
  uint64_t n = 0;
  /* relaxed: a hint (see the header); guests' words too, they hold
     refills.  */
  for (unsigned t = 0; t < participants (l); ++t)
    n += word_len (
        atomic_load_explicit (&l->blocks[t].word, memory_order_relaxed));
  return n;
}

bool
wgd_thread_has_work (const wgd_launch *l, unsigned tid)
{
  return schedules[l->schedule].has_work (l, tid);
}

bool
wgd_others_may_run (const wgd_launch *l)
{
  return l->schedule != WGD_SCHED_STATIC || l->steal;
}

bool
wgd_finish (wgd_launch *l, uint64_t n)
{
  /* W7.  acq_rel: release publishes this thread's work (and its printf
     output flushed before) to the thread that finishes the launch;
     acquire lets that thread see everybody's.  */
  uint64_t before
      = atomic_fetch_add_explicit (&l->finished, n, memory_order_acq_rel);
  return before + n == l->num_groups;
}

bool
wgd_parse_schedule (const char *s, wgd_schedule *out)
{
  if (s == NULL)
    return false;
  while (isspace ((unsigned char)*s))
    ++s;
  size_t len = strlen (s);
  while (len > 0 && isspace ((unsigned char)s[len - 1]))
    --len;
  for (unsigned i = 0; i < WGD_NUM_SCHEDULES; ++i)
    if (len == strlen (schedules[i].name)
        && strncasecmp (s, schedules[i].name, len) == 0)
      {
        *out = (wgd_schedule)i;
        return true;
      }
  return false;
}

const char *
wgd_schedule_name (wgd_schedule s)
{
  return (unsigned)s < WGD_NUM_SCHEDULES ? schedules[s].name : "unknown";
}

void
wgd_schedule_names (char *buf, size_t size)
{
  size_t used = 0;
  if (size == 0)
    return;
  for (unsigned i = 0; i < WGD_NUM_SCHEDULES; ++i)
    {
      const char *sep = i ? ", " : "";
      size_t ls = strlen (sep), ln = strlen (schedules[i].name);
      if (used + ls + ln + 1 > size)
        break;
      memcpy (buf + used, sep, ls);
      memcpy (buf + used + ls, schedules[i].name, ln);
      used += ls + ln;
    }
  buf[used] = '\0';
}
