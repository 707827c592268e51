/* wg_dispatch.c - work-group dispatch for one kernel launch; see
   wg_dispatch.h for the schedules and the operations.

   THE STATIC SCHEDULE'S PROTOCOL, stated once; every CAS and store below
   cites the rules it relies on.  The Spin model in tests/model/ checks it
   for small cases, and tests/dispatch/ drives it through scripted
   interleavings.

   Each thread t owns one block word, (begin, end) of 32-bit unit indices
   packed in 64 bits, and remembers the block as dealt (`initial`).  Claims
   hand out one unit at a time: an owner takes the front unit of its own
   word; a thief takes over an unstarted block whole or steals the back
   half of the fullest one, runs its first unit and keeps the rest in its
   own (empty) word, where others can steal it again.  So no thread ever
   holds more than one unit that others could not take from it, which is
   what bounds a launch's makespan by Graham's bound for list scheduling,
   sum / T + the dearest work-group, whatever the costs (tests/sim/).  The
   states of a word, and who may move it from one to another:

   | state     | word            | its owner may     | a thief may       |
   |-----------|-----------------|-------------------|-------------------|
   | unstarted | == initial,     | claim the front   | take it whole     |
   |           | not empty       | unit (-> started  | (-> empty), or    |
   |           |                 | or empty)         | steal the back    |
   |           |                 |                   | half (-> started) |
   | started   | != initial,     | claim the front   | steal the back    |
   |           | not empty       | unit (-> started  | half (-> started  |
   |           |                 | or empty)         | or empty)         |
   | empty     | begin >= end    | refill it with    | nothing: skips it |
   |           |                 | what it stole     |                   |
   |           |                 | (-> refilled)     |                   |
   | refilled  | not empty,      | as started        | as started (never |
   |           | after a refill  |                   | a takeover: W4)   |

   Every move but the refill is a CAS from a value the mover saw not
   empty; the refill is a plain store.

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
      in the hands of exactly one thread between the CAS that removed it
      from a word and either handing it out or storing it into its own
      empty word (the refill in steal()).
   W2 (who writes an empty word)  Only its owner, with the refill.  Thieves
      and the owner CAS only words they saw not empty, and a CAS whose
      expected value is not empty fails on an empty word; so the owner's
      plain store cannot race with any other write.
   W3 (monotone)  Between two refills, a word's begin only grows and its
      end only shrinks: claims move the front, steals move the back.
   W4 (no ABA)  A CAS succeeds only on the value it read, unchanged since:
      by W3 an old value could only come back through a refill with the
      same range; but a refill starts past the front of what its thread
      removed (that front unit is handed out at once, in steal()), whereas
      the front of a word that is not empty stays its front until claimed.
   W5 (unclaimed bounds what is left)  `unclaimed` == the work-groups in
      words and in hands (W1) + the sum of every thread's `pending`.  A
      flush subtracts exactly what its thread handed out since its last
      flush, so `unclaimed` is never below what is left, and reading 0
      means nothing is left.  It lags: a thread's hand-outs stay counted
      until its word is empty, and a thread whose word a thief emptied
      flushes at its next claim.  Every thread that claims calls wgd_claim
      again until it returns false, and a false return has flushed
      (claim_static), so every pending count is flushed by the end.
   W6 (one last call)  A flush is a read-modify-write, so exactly one
      flush sees `unclaimed` go from its pending count to 0: the wgd_claim
      call that made it, and only it, sets `last` (the call may return
      false: then a thief had emptied the word of the thread flushing).
   W7 (one finisher)  `finished` grows by what each thread ran, in one
      fetch-and-add per thread (wgd_finish), and the sum of all is
      num_groups; exactly one call sees it reach num_groups.

   Under guided, `unclaimed` is the whole state: every claim is a CAS on
   it that takes a chunk from the front, with nothing pending (W5 with
   every `pending` 0; W6 for the CAS that takes the count to 0).

   Memory ordering: block words and `unclaimed` are relaxed everywhere
   (`pending` is not atomic: only its thread accesses it).
   The protocol's whole state is in those words; every removal is a CAS,
   which acts on the latest value whatever the ordering, and nothing else
   is read on the strength of a word.  The launch itself is published by
   the caller (release/acquire, wg_dispatch.h), and the results of
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
  l->node_of = NULL;
  l->steal = true;

  /* relaxed: the launch is published to other threads by the caller with
     release/acquire (see wgd_launch_init in the header).  */
  atomic_store_explicit (&l->unclaimed, num_groups, memory_order_relaxed);
  atomic_store_explicit (&l->finished, 0, memory_order_relaxed);

  for (unsigned t = 0; t < num_threads; ++t)
    {
      uint32_t b = block_start (l->num_units, num_threads, t);
      uint32_t e = block_start (l->num_units, num_threads, t + 1);
      l->blocks[t].initial = pack (b, e);
      l->blocks[t].pending = 0;
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
wgd_launch_set_guests (wgd_launch *l, unsigned num_guests)
{
  l->num_guests = num_guests;
  for (unsigned g = l->num_threads; g < participants (l); ++g)
    {
      /* Empty as dealt: never taken over, and refilled only by its guest
         (W2).  relaxed: published with the launch.  */
      l->blocks[g].initial = pack (0, 0);
      l->blocks[g].pending = 0;
      atomic_store_explicit (&l->blocks[g].word, pack (0, 0),
                             memory_order_relaxed);
    }
}

void
wgd_launch_set_stealing (wgd_launch *l, bool steal)
{
  l->steal = steal;
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

/* Accounts unit u, just removed from a word by thread tid, as handed out
   to it (W5), and fills in *out.  now_empty: tid's own word is empty after
   that removal (or refill), so tid flushes its pending count now.  home:
   u lies in tid's initial block (for the statistics).  Inlined into both
   callers: an owner's claim is the hot path of a launch of cheap
   work-groups, where every instruction per work-group shows.  */
static inline __attribute__ ((always_inline)) bool
hand_out (wgd_launch *l, unsigned tid, uint32_t u, bool now_empty, bool home,
          wgd_range *out, wgd_thread_stats *stats)
{
  uint64_t n;
  if (l->grain == 1)
    {
      out->begin = u;
      out->end = (uint64_t)u + 1;
      n = 1;
    }
  else
    {
      out->begin = units_to_groups_begin (l, u);
      out->end = units_to_groups_end (l, u + 1);
      n = out->end - out->begin;
    }
  WGD_YIELD (l, WGD_AFTER_REMOVE, tid);
  l->blocks[tid].pending += n;
  out->last = now_empty && flush (l, tid);
  if (stats)
    {
      stats->claims++;
      stats->groups += n;
      stats->home_groups += home ? n : 0;
    }
  return true;
}

/* Whether unit u lies in thread t's initial block: units never straddle
   blocks, so a unit is either wholly home or not at all.  */
static inline bool
unit_is_home (const wgd_launch *l, unsigned t, uint32_t u)
{
  uint64_t init = l->blocks[t].initial;
  return u >= word_begin (init) && u < word_end (init);
}

/* Claims the front unit of thread tid's own block.  Returns false when
   it is empty.  */
static inline __attribute__ ((always_inline)) bool
claim_own (wgd_launch *l, unsigned tid, wgd_range *out,
           wgd_thread_stats *stats)
{
  _Atomic uint64_t *word = &l->blocks[tid].word;
  /* relaxed, here and at every block word: see "Memory ordering" above.  */
  uint64_t w = atomic_load_explicit (word, memory_order_relaxed);
  uint32_t b, e;
  for (;;)
    {
      b = word_begin (w);
      e = word_end (w);
      if (b >= e)
        return false; /* empty: only we may write it again (W2) */
      WGD_YIELD (l, WGD_AFTER_LOAD_OWN, tid);
      /* unstarted/started/refilled -> started or empty, front unit.  W3:
         begin grows; W4: succeeds only on the value read.  On failure w
         is the new value (a thief moved the end, or took the whole).  */
      bool ok = atomic_compare_exchange_weak_explicit (
          word, &w, pack (b + 1, e), memory_order_relaxed,
          memory_order_relaxed);
      WGD_COUNT (l, ok ? WGD_OP_OWN_RMW : WGD_OP_RMW_FAIL, tid);
      if (ok)
        break;
    }
  return hand_out (l, tid, b, e - b == 1, unit_is_home (l, tid, b), out,
                   stats);
}

/* Guests have no node: they, and their words, are local to everybody.  */
static inline bool
same_node (const wgd_launch *l, unsigned a, unsigned b)
{
  return l->node_of == NULL || a >= l->num_threads || b >= l->num_threads
         || l->node_of[a] == l->node_of[b];
}

/* Looks at the blocks of the threads on (local) or off (!local) tid's
   node, nearest neighbour first, one load each, and removes work from one
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
  for (;;)
    {
      unsigned best = nt;
      uint64_t best_w = 0;
      uint32_t best_n = 0;
      for (unsigned i = 1; i < nt; ++i)
        {
          unsigned v = (tid + i) % nt;
          if (same_node (l, tid, v) != local)
            continue;
          _Atomic uint64_t *word = &l->blocks[v].word;
          uint64_t w = atomic_load_explicit (word, memory_order_relaxed);
          WGD_COUNT (l, WGD_OP_PEEK, tid);
          uint32_t n = word_len (w);
          if (n == 0)
            continue;
          if (w == l->blocks[v].initial)
            {
              /* unstarted -> empty.  Succeeds only while the word still
                 equals `initial`, which by W4 means nobody claimed or
                 stole from it: a word never returns to `initial` once it
                 left it.  So a started block is never CASed here, which
                 would fail anyway and take the owner's line away.  */
              bool ok = atomic_compare_exchange_strong_explicit (
                  word, &w, pack (word_end (w), word_end (w)),
                  memory_order_relaxed, memory_order_relaxed);
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
      /* any non-empty state -> started or empty, back half.  W3: end
         shrinks; W4: fails if the block changed since we read it (then we
         look again).  What we remove is now ours alone (W1).  */
      bool ok = atomic_compare_exchange_strong_explicit (
          &l->blocks[best].word, &best_w, pack (word_begin (best_w), end - k),
          memory_order_relaxed, memory_order_relaxed);
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
   fullest block.  Runs the first unit of what it got and keeps the rest
   as its own block, where others may steal it again.  */
static bool
steal (wgd_launch *l, unsigned tid, wgd_range *out, wgd_thread_stats *stats)
{
  uint32_t got_b = 0, got_e = 0;
  unsigned victim = 0;
  bool whole = false, got = false;

  /* Nothing left anywhere (W5: 0 is exact): skip looking at every block,
     which would cost a load of T - 1 lines each time a thread leaves.  */
  bool left = wgd_unclaimed (l) > 0;
  WGD_COUNT (l, WGD_OP_PEEK, tid);
  for (int pass = 0; pass < 2 && left && !got; ++pass)
    {
      bool local = pass == 0;
      if (!local && l->node_of == NULL)
        break; /* one node: the first pass saw every block */
      got = take_from_others (l, tid, local, &got_b, &got_e, &victim, &whole);
    }
  if (!got)
    return false; /* every block looked empty: all handed out (W5 lag) */

  WGD_YIELD (l, WGD_AFTER_STEAL, tid);
  /* empty -> refilled (or stays empty when we got one unit).  A plain
     store is safe by W2: our word is empty and only we write it.  It
     starts at got_b + 1, past the front unit we run ourselves (W4).  */
  atomic_store_explicit (&l->blocks[tid].word, pack (got_b + 1, got_e),
                         memory_order_relaxed);
  if (stats)
    {
      if (whole)
        stats->takeovers++;
      else
        stats->steals++;
      if (!same_node (l, tid, victim))
        stats->remote++;
    }
  return hand_out (l, tid, got_b, got_e - got_b == 1,
                   unit_is_home (l, tid, got_b), out, stats);
}

/* Thread tid's own word is empty: the rest of claim_static, out of line,
   so that the owner's claim above needs no stack frame of its own.  */
static __attribute__ ((noinline)) bool
claim_static_empty (wgd_launch *l, unsigned tid, wgd_range *out,
                    wgd_thread_stats *stats)
{
  /* Our word is empty, maybe emptied by a thief after our last claim:
     flush what we handed out before looking further (W5), so that a
     false return leaves nothing pending.  If that took the count to 0,
     nothing is left anywhere and this call is the last (W6).  */
  if (flush (l, tid))
    {
      out->last = true;
      return false;
    }
  return l->steal && steal (l, tid, out, stats);
}

static bool
claim_static (wgd_launch *l, unsigned tid, wgd_range *out,
              wgd_thread_stats *stats)
{
  out->last = false;
  if (tid >= participants (l))
    return false;
  if (claim_own (l, tid, out, stats))
    return true;
  return claim_static_empty (l, tid, out, stats);
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
  bool (*has_work) (const wgd_launch *l, unsigned tid);
} schedule_row;

static const schedule_row schedules[WGD_NUM_SCHEDULES] = {
  [WGD_SCHED_STATIC] = { "static", claim_static, has_work_static },
  [WGD_SCHED_GUIDED] = { "guided", claim_guided, has_work_guided },
};

bool
wgd_claim (wgd_launch *l, unsigned tid, wgd_range *out,
           wgd_thread_stats *stats)
{
  return schedules[l->schedule].claim (l, tid, out, stats);
}

bool
wgd_thread_has_work (const wgd_launch *l, unsigned tid)
{
  return schedules[l->schedule].has_work (l, tid);
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
