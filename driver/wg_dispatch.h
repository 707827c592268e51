/* wg_dispatch.h - hands out the work-groups of one kernel launch to the
   threads of a (sub)device.  Independent of PoCL: it deals in linear
   work-group indices and thread indices only, so it can be unit-tested,
   model-checked and benchmarked on its own.

   Two schedules (one row each in wg_dispatch.c's schedule table):

   static  One contiguous block of work-groups per thread, split by linear
           index as OpenMP's static schedule does (block sizes differ by at
           most one).  A thread claims a range of k work-groups from the
           front of its own block with one CAS, never more than half of
           what the block holds, so that thieves always find half; k starts
           at 1 in each launch, or where the cost of a work-group learnt in
           the thread's previous launch of the kernel puts it
           (wgd_set_group_cost), and follows the time the thread's previous
           range took against a budget (wgd_launch_set_clock): it doubles
           while ranges take less than half the budget and shrinks at once
           when one takes more.  A thread whose block is empty takes over,
           whole, the block of a thread that has not started on it;
           otherwise it steals the back half of the fullest block, runs the
           first k work-groups of what it got and makes the rest its own
           block, where it can be stolen again; it looks on its own NUMA
           node first, then on the others.  A thread that finds nothing
           while others hold ranges privately raises the launch's hunger
           latch: holders give the unstarted rest of their ranges back to
           their blocks (wgd_give_back), and everybody claims one
           work-group at a time from then on.  So a launch ends within
           sum / T + twice the dearest work-group + the dispatch costs,
           whatever the costs (the bound D1 of wg_dispatch.c).  All of it
           is lock-free: each block is one 64-bit word updated by CAS.  The
           protocol, its block-word states and its invariants (W1-W8) are
           stated once, at the top of wg_dispatch.c.

   guided  PoCL's previous rule, kept exactly: chunk = min (limit,
           ceil (remaining / n), remaining) with limit = 32 n, or 256 n
           while more than 256 n^2 remain; n is the size of the whole
           thread pool.  Claimed by CAS on the unclaimed count.

   Both keep the number of unclaimed work-groups in an atomic on its own
   cache line, so that threads looking for work can skip launches that have
   nothing left without touching anything else.  Under static it is kept
   lazily (a thread subtracts what it ran from its block when the block
   runs dry), so it may stay above the truth a little longer; it is never
   below it.

   Guests: a launch may also have participants beyond the (sub)device's
   threads (wgd_launch_set_guests), for threads that are not the device's,
   such as an application thread waiting for the launch.  A guest owns a
   block word that starts empty, so it never has work of its own: like a
   thread whose block ran dry, it takes over unstarted blocks and steals
   back halves, and what it keeps in its word may be stolen back.  A
   thread looks at the others' blocks from its neighbour upwards; a guest
   from the last thread's downwards (or from wgd_launch_set_guest_first's),
   so that threads woken from the first up find their own blocks.  Its
   word is never taken over (it never equals its `initial` while not
   empty).  Guests have no NUMA node: they and their words count as local
   to everybody.  Under guided a guest claims chunks like any thread.

   Operations (who calls them, and when):

     wgd_launch_init*      the thread preparing a launch, before publishing
     wgd_launch_set_nodes  the same, optional
     wgd_launch_set_stealing  the same, optional (tests and measurements)
     wgd_launch_set_guests the same, optional
     wgd_launch_set_guest_first  the same, optional
     wgd_launch_set_clock  the same, optional (without: ranges of one)
     wgd_claim_alone       the thread preparing a launch, before publishing
                           it, any number of times
     wgd_claim             any thread of the launch, any number of times
     wgd_hungry            a thread running a range, before each of its
                           work-groups after the first
     wgd_give_back         the same, once it read wgd_hungry true; and
                           a thread that claimed alone, before publishing
     wgd_finish            each thread that ran work-groups, once, at the end
     wgd_all_but_finished  the same, before its wgd_finish: a hint
     wgd_unclaimed         anybody, any time: a hint
     wgd_thread_has_work   anybody, any time: a hint (whom to wake)
     wgd_left_in_words     anybody, any time: a hint (is anybody claiming)
     wgd_others_may_run    anybody, any time

   Copyright (c) 2026 pocl-steal developers.  MIT licence, as PoCL.  */

#ifndef POCL_STEAL_WG_DISPATCH_H
#define POCL_STEAL_WG_DISPATCH_H

#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C"
{
#endif

#define WGD_CACHELINE 64

  /* The schedules; each has one row in wg_dispatch.c's schedule table.
     WGD_NUM_SCHEDULES counts them (statistics keep one entry each).  */
  typedef enum
  {
    WGD_SCHED_STATIC = 0,
    WGD_SCHED_GUIDED = 1,
    WGD_NUM_SCHEDULES
  } wgd_schedule;

  /* Work-groups [begin, end) by linear index.  */
  typedef struct
  {
    uint64_t begin;
    uint64_t end;
    /* After this call nothing of the launch is left to claim: exactly one
       wgd_claim call per launch sets it, so that its thread can retire the
       launch from wherever threads look for work.  That call may return
       false (it handed out nothing): callers test `last` either way.  */
    bool last;
    /* Set with a false return only: nothing is left to claim or steal
       now, but others hold ranges privately and have been asked to give
       their unstarted rest back (the hunger latch).  The caller may call
       wgd_claim again shortly to share it, or leave: leaving is always
       safe, but the launch's bound (D1 of wg_dispatch.c) counts on threads
       that come back while any range is held.  */
    bool wait;
  } wgd_range;

  /* Counters of one thread, written by that thread only.  */
  typedef struct
  {
    uint64_t claims;      /* successful claims (ranges handed out) */
    uint64_t groups;      /* work-groups handed out */
    uint64_t home_groups; /* ... of which lay in the thread's own block */
    uint64_t takeovers;   /* whole blocks taken from threads not started */
    uint64_t steals;      /* back halves stolen from started blocks */
    uint64_t remote;      /* ... takeovers and steals across NUMA nodes */
    uint64_t gave_back;   /* ranges given back to the hunger latch */
    uint64_t hungry;      /* claims that found nothing while ranges were
                             held (they raised or saw the latch) */
  } wgd_thread_stats;

  /* One thread's block under the static schedule: a packed (begin, end) pair
     of 32-bit unit indices.  Alone on its cache line, because its owner CASes
     it on every claim.  */
  typedef struct
  {
    alignas (WGD_CACHELINE) _Atomic uint64_t word;
    /* The block as dealt; a word still equal to it has not been started.  */
    uint64_t initial;
    /* Work-groups this thread handed out and has not yet subtracted from
       `unclaimed` (W5 of wg_dispatch.c).  Only this block's owner thread
       reads or writes it; it shares the word's line, which the owner's
       claims write anyway.  The fields below up to `holding` are the
       owner's alone too.  */
    uint64_t pending;
    /* The clock when the owner made its previous claim, and how many units
       that claim handed out (0: none yet in this launch): what sizes the
       next claim.  */
    uint64_t claimed_at;
    uint32_t last_units;
    /* Whether claimed_at is the start of the previous claim's range: not
       at a launch's first claims, nor after claims in the tail of a word,
       where the clock is not read (W8 of wg_dispatch.c).  */
    bool timing;
    /* The owner's estimate of one unit's cost, in the clock's units times
       2^WGD_COST_SHIFT, from its last timed claim or given for the launch
       (wgd_set_group_cost); 0: unknown.  Sizes a claim made with no
       previous claim to go by (W8 of wg_dispatch.c).  */
    uint64_t unit_cost;
    /* One past the last unit of the range the owner holds: where a
       give-back ends.  */
    uint32_t hold_end;
    /* Nonzero while the owner holds a range of more than one unit that it
       may give back (W8 of wg_dispatch.c).  Written by the owner only; read
       by threads that found nothing, to decide whether to wait.  */
    _Atomic uint32_t holding;
  } wgd_block;

  typedef struct
  {
    /* Work-groups not yet handed out, plus, under static, those handed out
       and still pending (W5 of wg_dispatch.c).  Never below the true
       number: threads subtract after they hand out.  Read without locks by
       threads deciding whether to join the launch at all.  */
    alignas (WGD_CACHELINE) _Atomic uint64_t unclaimed;

    /* Work-groups finished; the caller whose wgd_finish() brings it to
       num_groups completes the launch.  */
    alignas (WGD_CACHELINE) _Atomic uint64_t finished;

    alignas (WGD_CACHELINE) uint64_t num_groups;
    wgd_schedule schedule;
    unsigned num_threads;    /* threads of the (sub)device: dealt blocks */
    unsigned num_guests;     /* further participants, blocks dealt empty */
    unsigned guest_first;    /* the block guests look at first */
    unsigned guided_threads; /* n of the guided rule: the whole pool */
    /* Static: blocks are dealt in units of `grain` consecutive work-groups,
       so that unit indices fit the 32-bit halves of a block word.  grain is 1
       below 2^32 work-groups, which is every launch a CPU finishes in
       reasonable time; above, a unit is a few work-groups and every
       work-group is still run exactly once.  We chose this over a 128-bit CAS
       (cmpxchg16b is not on every x86-64 and goes through libatomic) and over
       a lock per block.  */
    uint64_t grain;
    uint32_t num_units;
    /* NUMA node of each thread, or NULL (one node): thieves look on their
       own node first.  */
    const int *node_of;
    /* Static: whether a thread whose block is empty may take work from
       other blocks (true unless wgd_launch_set_stealing said otherwise).  */
    bool steal;
    /* Static: the clock that sizes claims, and their budget in its units
       (wgd_launch_set_clock); NULL: every claim is of one unit.  */
    uint64_t (*clock) (void *arg, unsigned tid);
    void *clock_arg;
    uint64_t budget;

    /* The hunger latch (W8 of wg_dispatch.c): set once, by the first
       thread that finds nothing while ranges are held.  On a line of its
       own, which nothing else writes, because holders read it before each
       work-group of their ranges.  */
    alignas (WGD_CACHELINE) _Atomic uint32_t hungry;

    wgd_block blocks[];
  } wgd_launch;

/* The largest number of units a static launch uses; tests lower it to
   exercise grain > 1 without 2^32 work-groups.  */
#define WGD_MAX_UNITS UINT32_MAX

  /* Bytes to allocate (with WGD_CACHELINE alignment) for a launch over
     num_threads threads.  */
  size_t wgd_launch_size (unsigned num_threads);

  /* The same, with room for num_guests guests (wgd_launch_set_guests).  */
  size_t wgd_launch_size_guests (unsigned num_threads, unsigned num_guests);

  /* Prepares a launch of num_groups work-groups over num_threads threads.
     guided_threads is the n of the guided rule (ignored by static).  Must be
     published to the other threads with release/acquire ordering (a lock or
     a queue) before they call wgd_claim().  */
  void wgd_launch_init (wgd_launch *l, wgd_schedule schedule,
                        uint64_t num_groups, unsigned num_threads,
                        unsigned guided_threads);

  /* As wgd_launch_init, with at most max_units units per static launch.  */
  void wgd_launch_init_units (wgd_launch *l, wgd_schedule schedule,
                              uint64_t num_groups, unsigned num_threads,
                              unsigned guided_threads, uint32_t max_units);

  /* Tells the launch each thread's NUMA node (node_of[tid], kept by the
     caller for the launch's life; NULL: one node).  Call after init and
     before publishing the launch.  */
  void wgd_launch_set_nodes (wgd_launch *l, const int *node_of);

  /* steal false: under the static schedule each thread runs exactly its
     own block and claims nothing else; for tests and measurements, since a
     slow thread then holds up the launch.  Call after init and before
     publishing the launch.  No effect on guided.  */
  void wgd_launch_set_stealing (wgd_launch *l, bool steal);

  /* Gives the launch num_guests guests, participants num_threads to
     num_threads + num_guests - 1 whose blocks start empty (see "Guests"
     above); the launch must have been allocated with
     wgd_launch_size_guests.  Call after init and before publishing the
     launch.  */
  void wgd_launch_set_guests (wgd_launch *l, unsigned num_guests);

  /* The thread whose block guests look at first when they take over or
     steal (num_threads - 1 unless set; then the one below, and so on,
     wrapping, then the other guests).  A hint for which blocks guests
     run: threads that are woken in index order, as the pool's wake-ups
     take them, then find their own blocks, and a thread known to come
     (first + 1, wrapping) finds its own.  Call after set_guests and before
     the first claim.  */
  void wgd_launch_set_guest_first (wgd_launch *l, unsigned first);

/* Claims of fewer units than this double without a read of the clock
   (W8 of wg_dispatch.c): the read costs about as much as a cheap
   work-group, and a launch of a few dozen cheap work-groups would pay
   more for reading it than for the claims it saves.  */
#define WGD_UNTIMED_UNITS 16u

  /* Static: sizes claims by time.  clock (arg, tid) returns the time now
     on a monotonic clock, for participant tid; it is called at most once
     per claim, and only for claims of WGD_UNTIMED_UNITS units or more. budget:
     how long a range should take at most, in the clock's units.  clock NULL:
     claims of one unit (the default).  Call after init and before publishing
     the launch.  No effect on guided.  */
  void wgd_launch_set_clock (wgd_launch *l,
                             uint64_t (*clock) (void *arg, unsigned tid),
                             void *arg, uint64_t budget);

/* Costs (wgd_group_cost) are in the clock's units times 2^WGD_COST_SHIFT,
   so that a work-group cheaper than one tick still has a cost.  */
#define WGD_COST_SHIFT 8

  /* Static: what one work-group cost participant tid, as its timed claims
     in this launch measured it (the clock's units times
     2^WGD_COST_SHIFT); 0 when none of its claims was timed.  Called by tid
     after its last claim, to carry the cost to its next launch of the same
     kernel (wgd_set_group_cost).  0 under guided.  */
  uint64_t wgd_group_cost (const wgd_launch *l, unsigned tid);

  /* Static: participant tid's claims start from this cost per work-group
     (as wgd_group_cost gives it, from an earlier launch of the same
     kernel) instead of from one unit: its first claim is of as many units
     as fit half the budget, before the half rule (W8 of wg_dispatch.c).
     0: from one unit, the default.  Called by tid before its first claim.
     No effect on guided, or without a clock.  */
  void wgd_set_group_cost (wgd_launch *l, unsigned tid, uint64_t cost);

  /* Claims the next work-groups for participant tid: a thread
     (0 <= tid < num_threads) or a guest (up to num_threads + num_guests).
     Returns false when every work-group has been handed out, as far as this
     thread can see; the caller then leaves the launch.  Sets out->last on
     every return (see wgd_range).  stats may be NULL.  */
  bool wgd_claim (wgd_launch *l, unsigned tid, wgd_range *out,
                  wgd_thread_stats *stats);

  /* As wgd_claim, for the one participant that can see the launch
     before it is published, which runs it alone meanwhile (W8 of
     wg_dispatch.c).  Under static, the range is not sized: it is all but
     the last unit of the word claimed from (a takeover's block, or the
     caller's word), because no thief can need the half that wgd_claim
     leaves, so running a block alone takes two claims, not one per
     halving.  Before publishing, the caller must give the unstarted rest
     of the range it holds back (wgd_give_back), so that those it shares
     the launch with find it.  The first wgd_claim after that is sized
     as a launch's first claim is.  Under guided, the same as
     wgd_claim.  */
  bool wgd_claim_alone (wgd_launch *l, unsigned tid, wgd_range *out,
                        wgd_thread_stats *stats);
  /* Reports n work-groups of this launch done.  Returns true for exactly one
     call: the one that finishes the last work-group.  Release/acquire: what
     every thread did for the launch happens before that call returns.  */
  bool wgd_finish (wgd_launch *l, uint64_t n);

  /* Whether every work-group but n has been reported finished
     (wgd_finish): a hint for a participant that has yet to report its n,
     and would rather be the one whose wgd_finish returns true.  */
  static inline bool wgd_all_but_finished (wgd_launch *l, uint64_t n)
  {
    /* relaxed: nothing is read on the strength of it; the caller's
       wgd_finish, acq_rel, orders what the others did (W7).  */
    return atomic_load_explicit (&l->finished, memory_order_relaxed) + n
           >= l->num_groups;
  }

  /* Whether the hunger latch is set: a thread running a range of more than
     one work-group asks before each work-group after the first, and calls
     wgd_give_back when it is.  */
  static inline bool wgd_hungry (wgd_launch *l)
  {
    /* relaxed: a request, read once per work-group on a line written once
       per launch; a holder that sees it late gives back a little later
       (W8).  Nothing else is read on the strength of it.  */
    return atomic_load_explicit (&l->hungry, memory_order_relaxed) != 0;
  }

  /* Gives the unstarted rest of participant tid's range r, from work-group
     `next` on, back to tid's block, where others can steal it, and
     shortens r to what tid must still run: r->end becomes `next`, or the
     start of the next unit when a unit is several work-groups.  r is the
     range wgd_claim or wgd_claim_alone last handed to tid, and next lies
     in (r->begin, r->end].  Nothing to give back is not an error.  stats may
     be NULL; the groups given back leave its counts.  */
  void wgd_give_back (wgd_launch *l, unsigned tid, wgd_range *r, uint64_t next,
                      wgd_thread_stats *stats);

  /* Unclaimed work-groups, read without ordering: a hint for skipping a
     launch.  0 means every work-group has been handed out.  */
  static inline uint64_t wgd_unclaimed (wgd_launch *l)
  {
    /* relaxed: the count only decreases, so any value read is at least the
       true one; reading 0 can only mean nothing is left.  No other data is
       read on the strength of it.  */
    return atomic_load_explicit (&l->unclaimed, memory_order_relaxed);
  }

  /* Whether thread tid, joining now, would find work-groups of its own to
     claim: under static, its block is not empty; under guided, work-groups
     are unclaimed and tid is one of the first num_groups threads.  Read
     without ordering: a hint for choosing which idle threads to wake, so
     that the caller need not know how the schedule splits the work.  */
  bool wgd_thread_has_work (const wgd_launch *l, unsigned tid);

  /* The units left in the block words now, summed over the participants,
     each word read without ordering (static; under guided, wgd_unclaimed).
     Under static wgd_unclaimed changes only when a block runs dry (W5);
     this changes with every claim, so a value that stayed the same over a
     while says that nobody claimed in it (or gave back as much).  A hint;
     costs a load of every participant's word.  */
  uint64_t wgd_left_in_words (const wgd_launch *l);

  /* Whether any participant may end up running any work-group: guided, or
     static with stealing on (a thief may take from any word that is not
     empty: the table of word states in wg_dispatch.c).  Then the participants
     there are run the whole launch, and whom to wake is a question of
     speed; otherwise each thread's block needs its owner.  */
  bool wgd_others_may_run (const wgd_launch *l);

  /* The thread whose initial block holds work-group g (static schedule).  */
  unsigned wgd_home_thread (const wgd_launch *l, uint64_t g);

  /* Parses a schedule name (a name of the schedule table, "static" or
     "guided"; case and surrounding blanks ignored).  Returns false for
     anything else.  */
  bool wgd_parse_schedule (const char *s, wgd_schedule *out);

  const char *wgd_schedule_name (wgd_schedule s);

  /* Writes the accepted schedule names, comma-separated ("static,
     guided"), for messages; truncated to fit size bytes.  */
  void wgd_schedule_names (char *buf, size_t size);

  /* Test hooks.  WGD_YIELD (l, point, tid) marks a step of the protocol after
     which another thread's steps may come (the points are named in
     wgd_yield_point).  It compiles to nothing unless wg_dispatch.c is built
     with WGD_TEST_HOOKS; then it calls wgd_yield_hook if set, so that tests
     can inject preemption (sched_yield) or run other threads' claims right
     there, from one thread, in a scripted order.  */
  typedef enum
  {
    WGD_AFTER_LOAD_OWN,    /* claim_own: read own word, before its CAS */
    WGD_AFTER_REMOVE,      /* hand_out: removed work, before accounting it */
    WGD_AFTER_PICK_VICTIM, /* take_from_others: chose a block to steal
                              from, before its CAS */
    WGD_AFTER_STEAL,       /* steal: took work, before refilling own word */
    WGD_AFTER_LOAD_GUIDED, /* claim_guided: read unclaimed, before its CAS */
    WGD_AFTER_LOAD_GIVE,   /* give_back: read own word, before writing it */
    WGD_NUM_YIELD_POINTS
  } wgd_yield_point;

  /* What WGD_COUNT (l, op, tid) reports: each access of the launch's
     shared state that can move a cache line between cores.  The
     many-thread simulator (tests/sim/) sums them per launch.  */
  typedef enum
  {
    WGD_OP_RMW_OK,   /* a CAS or fetch-and-add that changed a word
                        other threads also write */
    WGD_OP_RMW_FAIL, /* a CAS that failed */
    WGD_OP_PEEK,     /* a load of another thread's block word, or of
                        `unclaimed` */
    WGD_OP_OWN_RMW,  /* a CAS that changed the thread's own block word,
                        whose line other threads touch only to steal */
    WGD_OP_CLOCK,    /* a read of the launch's clock */
    WGD_NUM_OPS
  } wgd_op;

#ifdef WGD_TEST_HOOKS
  extern void (*wgd_yield_hook) (wgd_launch *l, wgd_yield_point point,
                                 unsigned tid);
  extern void (*wgd_count_hook) (wgd_launch *l, wgd_op op, unsigned tid);
#endif

#ifdef __cplusplus
}
#endif

#endif /* POCL_STEAL_WG_DISPATCH_H */
