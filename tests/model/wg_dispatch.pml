/* wg_dispatch.pml - Spin model of the static schedule's claim/steal
   protocol of driver/wg_dispatch.c (claim_static, claim_own,
   take_from_others, steal, hand_out, flush, wgd_finish, and with SIZED
   claim_size's ranges, worth_waiting and wgd_give_back), as
   pt_launch_participate and find_launch drive it.  W1..W8 are the
   invariants stated at the top of wg_dispatch.c.

   Granularity: every load of a block word, every CAS, the refill store
   and each read-modify-write of `unclaimed` or `finished` is one atomic
   step; what a thread computes from values it already holds is folded
   into the neighbouring step (nobody else can see it).  Words hold
   (begin, end) of units, and the model runs with grain 1: a unit is a
   work-group.

   Configuration (-D): NT threads (2, 3); G work-groups (0..6 with 3
   threads, 0..16 with 2: blocks of 3 or more units are needed for a
   thief's stale read to span two claims of the owner, and refilled words
   of 2 or more for steals from thieves); NODES NUMA nodes
   (1, or 2: thread t on node t * NODES / NT, so with 3 threads 0 and 1
   share node 0); LAUNCHER, the thread that prepared the launch (0);
   GUESTS (0 or 1), participants after the threads whose block is dealt
   empty (wgd_launch_set_guests: an application thread waiting for the
   launch), on no node (local to everybody), which join like any thread
   that did not launch: any time, or never.  SIZED (0 or 1): claims of
   several units (W8): an owner's claim and a thief's first hand-out take
   any k from 1 to the half rule's cap (k follows time in the code; every
   k the cap allows is explored), or 1 once the thread saw the hunger
   latch at the start of its claim; a holder reads the latch before each
   work-group after its range's first and gives the rest back (two steps:
   the load of its word, then the CAS or the store); a thread that finds
   nothing while another holds, or while a word is not empty, may claim
   again (it sets the latch when someone holds), or leave (a caller may
   ignore `wait`).  Run SIZED configurations under weak fairness: a
   waiting thread spins until the holder takes a step.

   Checked (tests/model/run_spin.sh), for every interleaving:
   - W1 and W5 (conservation): at every step that changes a word, a
     thread's hands, a pending count or `unclaimed`, unclaimed == units in
     all words + units that threads removed from a word and have not
     handed out or stored yet + every thread's pending count.  Hence
     `unclaimed` is never below what is left, and reading 0 means nothing
     is left, which find_launch's skip and steal()'s early exit rely on;
   - `unclaimed` never underflows (flush's fetch_sub), and is 0 at the
     end; a thread that leaves has nothing pending;
   - W6: exactly one call is flagged `last` (its flush took the count to
     0), whether it handed out a unit or found its word emptied by a
     thief, and when it is every word is empty, nobody holds work and
     nothing is pending;
   - no work-group is run twice (checked as it runs), and at the end every
     work-group ran once;
   - W7: `finished` never exceeds G and ends at G, and exactly one
     wgd_finish call sees it reach G, when every work-group has run;
   - the launch is retired (taken out of the list) exactly once, by the
     `last` claimer;
   - with SIZED, W2 and W3 at each give-back: a word its owner read empty
     is still empty when it stores into it, and a word read not empty
     begins where the owner's range ends; and every check above with
     ranges held, given back and stolen from the given-back words;
   - with NODES = 2, steal()'s two passes are followed: take_from_others
     among the thief's own node's threads, and only when it finds
     nothing, among the other nodes' threads;
   - no invalid end state, and no cycle without progress (pan -l): every
     run terminates, whatever the scheduling.

   Who joins: the LAUNCHER joins unconditionally (pt_kernel_run_command);
   every other thread may never join (it was busy, or nobody woke it), or
   join at any time while the launch is in the list and `unclaimed` > 0
   (find_launch with its skip).  A thread that left after running
   work-groups may join again under the same condition, and calls
   wgd_finish once per join; one that joined in vain does not join again
   (gave_up_seq).  The `last` caller retires the launch in a step of its
   own (retire_launch), so late joiners can come in between.  So
   completion is checked not to depend on helpers: the launcher alone
   takes over or steals whatever is left.

   Not modelled:
   - grain > 1 (units_to_groups_*, wgd_home_thread): a pure index mapping
     from units to work-groups, the same for every claim and outside the
     CAS protocol; the unit tests check that the claimed ranges tile
     [0, G) for small max_units and past 2^32 work-groups (tiling() in
     tests/dispatch/test_dispatch.c);
   - spurious failure of claim_own's weak CAS: it only retries with the
     fresh value, which the model does after a genuine failure;
   - memory ordering: every step is sequentially consistent.  The C code
     is relaxed on the block words and `unclaimed`, which is sound because
     every removal is a read-modify-write ("Memory ordering" in
     wg_dispatch.c); W8's release/acquire pairs on `holding` only make a
     looker's decision to wait exact, and a looker that leaves is modelled
     anyway; the ThreadSanitizer build of the unit tests covers the rest;
   - how k is chosen (claim_size: time against a budget): every k the half
     rule allows is explored instead;
   - the guided schedule (a single CAS on `unclaimed`), statistics, the
     `steal` switch off (owners only claim their own words: nothing
     interleaves), wgd_thread_has_work, launch reference counts, and who
     wakes whom (tests/model/pool_wake.pml);
   - a flush with nothing pending: the code skips its read-modify-write,
     the model takes a step that changes nothing;
   - sizes beyond the configurations above.

   Build: spin -a -DNT=3 -DG=6 [-DNODES=2] [-DLAUNCHER=2] [-DGUESTS=1]
   [-DSIZED=1] wg_dispatch.pml

   Copyright (c) 2026 pocl-steal developers.  MIT licence, as PoCL.  */

#ifndef NT
#define NT 2
#endif
#ifndef G
#define G 4
#endif
#ifndef NODES
#define NODES 1
#endif
#ifndef LAUNCHER
#define LAUNCHER 0
#endif
#ifndef GUESTS
#define GUESTS 0
#endif
/* Participants: threads, then guests; every one owns a block word.  */
#define NP (NT + GUESTS)

/* The pass a thread looks in: 0 its own node, 1 the others.  With one node
   there is only pass 0 and it sees every other thread (node_of == NULL).
   Guests, and their words, are local to everybody (same_node).  */
#define NODE(t) ((t) * NODES / NT)
#define LOCAL(a, b) ((a) >= NT || (b) >= NT || NODE (a) == NODE (b))
#define IN_PASS(me, v, pass) (LOCAL (me, v) == (pass == 0))
/* The i-th block (1 <= i < NP) participant me looks at when it takes
   over or steals (take_from_others): a thread its neighbours upwards, a
   guest the threads downwards from the last (guest_first unset), then the
   other guests (none with GUESTS 1).  */
#define VICTIM(me, i)                                                      \
  ((me) < NT -> ((me) + (i)) % NP : ((i) <= NT -> NT - (i) : (me)))

/* The block of thread t as dealt (`initial`): the first G % NT blocks get
   one more (block_start); a guest's is empty.  Constants, so that reading
   them costs no interleaving.  */
#define TB(t) (G / NT * (t) + ((t) < G % NT -> (t) : G % NT))
#define IB(t) ((t) < NT -> TB (t) : 0)
#define IE(t) ((t) < NT -> TB ((t) + 1) : 0)

byte wb[NP];   /* block word: begin */
byte we[NP];   /*             end */
byte ran[G + 1]; /* + 1: Spin has no empty arrays */

byte unclaimed = G;
#ifndef SIZED
#define SIZED 0
#endif
#if SIZED
bit holding[NP]; /* W8: holds a range of more than one unit */
bit hungry;      /* the launch's latch */
#endif
bit linked = 1;  /* the launch is in the pool's list */
byte lasts;      /* calls flagged last */
byte finished;
byte finishers;  /* wgd_finish calls that returned true */

/* Each thread's `pending`: handed out, not yet subtracted (W5).  */
byte pending[NP];
/* Ghost: units thread t removed from a word and has not handed out or
   stored into its own word yet (a thief between its CAS and its
   refill). */
byte held[NP];
/* Scratch for loops in d_step; hidden: not part of the state.  Only in
   d_step: inside an atomic sequence pan backtracks through intermediate
   states, where a hidden variable would keep a later value.  */
hidden byte x;

/* Units in words and in hands, and pending counts, all participants
   (NP <= 3).  */
#define LEN(t) (we[t] > wb[t] -> we[t] - wb[t] : 0)
#if NP == 2
#define LEFT (LEN (0) + LEN (1) + held[0] + held[1])
#define PENDING (pending[0] + pending[1])
#elif NP == 3
#define LEFT (LEN (0) + LEN (1) + LEN (2) + held[0] + held[1] + held[2])
#define PENDING (pending[0] + pending[1] + pending[2])
#else
#error "NT + GUESTS is 2 or 3"
#endif

/* W1 and W5: unclaimed == words + hands + pending; at every step that
   changes any of them.  */
#define check_conservation() assert (unclaimed == LEFT + PENDING)

/* flush (): subtract our pending count; `last` if that took the count to
   0 (W6), and then nothing is left anywhere.  One step: the fetch_sub. */
#define flush()                                                             \
  atomic {                                                                  \
    assert (unclaimed >= pending[tid]);                                     \
    last = (pending[tid] > 0 && unclaimed == pending[tid]);                 \
    unclaimed = unclaimed - pending[tid];                                   \
    pending[tid] = 0;                                                       \
    check_conservation ();                                                  \
    if                                                                      \
    :: last -> lasts++; assert (lasts == 1 && LEFT == 0 && PENDING == 0)    \
    :: else -> skip                                                         \
    fi                                                                      \
  }

/* Locals are zeroed as soon as they are dead, so that states differing
   only in stale values are one state.  `goto` out of an atomic sequence
   ends it there.  */
proctype worker (byte tid)
{
  byte b, e, k, i, v, best, bb, be, gb, ge, done;
  bit last, pass, dry;
#if SIZED
  byte rb;  /* where the range in hand began */
  bit h;    /* the latch as seen at the start of this claim */
#endif

  if
  :: tid == LAUNCHER -> goto claim
  :: else -> skip
  fi;
join:
  /* find_launch, under the pool lock: in the list, something left */
  if
  :: (linked && unclaimed > 0) -> skip
  :: skip -> goto out
  fi;

claim:
  /* claim_own: load our word (and claim_size: read the latch) */
  atomic {
    b = wb[tid]; e = we[tid];
#if SIZED
    h = hungry;
#endif
    if
    :: e > b -> skip
    :: else -> b = 0; e = 0; goto own_empty
    fi
  };
  /* its CAS: the front unit, or with SIZED a front range of any size the
     half rule allows; `dry` if that emptied the word */
  atomic {
    if
    :: (wb[tid] == b && we[tid] == e) ->
       k = 1;
#if SIZED
       do
       :: (!h && k < (e - b) / 2) -> k++
       :: break
       od;
       holding[tid] = (k > 1);
       rb = b;
#endif
       wb[tid] = b + k; pending[tid] = pending[tid] + k;
       gb = b; ge = b + k; dry = (e - b == k);
       b = 0; e = 0; k = 0;
       check_conservation ()
    :: else -> b = 0; e = 0; goto claim
    fi
  };
  goto claimed;

own_empty:
#if SIZED
  /* claim_static_empty: the range we held is run */
  holding[tid] = 0;
#endif
  /* claim_static: our word is empty; flush before looking further.  A
     flush that takes the count to 0 makes this empty-handed call the
     last one. */
  flush ();
  if
  :: last -> goto retire_and_leave
  :: else -> skip
  fi;
  /* steal: nothing left anywhere (unclaimed 0: exact by W5)? */
  if
  :: (unclaimed == 0) -> goto leave
  :: else -> skip
  fi;

  /* take_from_others: pass 0 on our node, pass 1 (NODES > 1 only) on
     the others.  One step per block, in VICTIM's order: an
     unstarted block is taken over whole at once; otherwise the fullest
     is remembered.  The code loads the word, and CASes it only if it
     equals the block as dealt (`initial`), using the CAS's fresh value
     as the candidate if that fails; by W4 a word never returns to
     `initial`, so load and CAS folded into one step have the same
     outcomes. */
scan:
  best = NP; i = 1;
  do
  :: i < NP ->
     if
     :: IN_PASS (tid, VICTIM (tid, i), pass) ->
        atomic {
          v = VICTIM (tid, i);
          if
          :: (IE (v) > IB (v) && wb[v] == IB (v) && we[v] == IE (v)) ->
             /* unstarted -> empty: a takeover */
             wb[v] = IE (v); held[tid] = IE (v) - IB (v);
#if SIZED
             holding[tid] = 1; /* W8: in our hands till the refill */
#endif
             gb = IB (v); ge = IE (v);
             i = 0; v = 0; best = 0; bb = 0; be = 0;
             check_conservation ();
             goto got
          :: (we[v] > wb[v]
              && we[v] - wb[v] > (best == NP -> 0 : be - bb)) ->
             best = v; bb = wb[v]; be = we[v]
          :: else -> skip
          fi;
          v = 0;
          i++
        }
     :: else -> i++
     fi
  :: else -> i = 0; break
  od;
  if
  :: best == NP ->
     /* every block of this pass looked empty */
     if
     :: (pass == 0 && NODES > 1) -> pass = 1; best = 0; goto scan
     :: else -> pass = 0; best = 0; goto found_nothing
     fi
  :: else -> skip
  fi;
  /* steal the back half, rounded up, of the fullest block seen */
  atomic {
    k = (be - bb) - (be - bb) / 2;
    if
    :: (wb[best] == bb && we[best] == be) ->
       we[best] = be - k; held[tid] = k;
#if SIZED
       holding[tid] = 1; /* W8: in our hands till the refill */
#endif
       gb = be - k; ge = be;
       k = 0; best = 0; bb = 0; be = 0;
       check_conservation ()
    :: else ->
       /* changed since we read it: look again */
       k = 0; best = 0; bb = 0; be = 0; goto scan
    fi
  };

got:
  /* hand out the first unit of what we got (with SIZED, the first k the
     half rule allows), refill our empty word with the rest (W2: only we
     write it) */
  atomic {
    k = 1;
#if SIZED
    do
    :: (!h && k < (ge - gb) / 2) -> k++
    :: break
    od;
    holding[tid] = (k > 1);
    rb = gb;
#endif
    wb[tid] = gb + k; we[tid] = ge;
    held[tid] = 0;
    pending[tid] = pending[tid] + k;
    dry = (ge - gb == k);
    ge = gb + k;
    pass = 0; k = 0;
    check_conservation ()
  };

claimed:
  /* hand_out: a word we emptied ourselves is flushed at once */
  if
  :: dry -> dry = 0; flush ()
  :: else -> skip
  fi;
  if
  :: last ->
     /* retire_launch: out of the pool's list, in a step of its own */
     atomic { linked = 0; last = 0 }
  :: else -> skip
  fi;

  /* run_range */
  do
  :: gb < ge ->
progress:
     atomic {
#if SIZED
       /* wgd_hungry before each work-group after the range's first */
       if
       :: (gb > rb && hungry) -> goto give_back
       :: else -> skip
       fi;
#endif
       ran[gb]++;
       assert (ran[gb] == 1);
       done++;
       gb++;
       if
       :: gb == ge -> gb = 0; ge = 0
       :: else -> skip
       fi
     }
  :: else -> break
  od;
  goto claim;

#if SIZED
give_back:
  /* wgd_give_back: [gb, ge) back to our word.  Load it ... */
  atomic { b = wb[tid]; e = we[tid] };
  /* ... then store into it if it was empty, or CAS its begin back */
  atomic {
    if
    :: (e <= b) ->
       assert (we[tid] <= wb[tid]); /* W2: nobody else wrote it */
       wb[tid] = gb; we[tid] = ge
    :: (e > b && wb[tid] == b && we[tid] == e) ->
       assert (b == ge); /* W3: it begins where our range ends */
       wb[tid] = gb
    :: else -> b = 0; e = 0; goto give_back
    fi;
    /* W5: we have not flushed since the range was handed out */
    assert (pending[tid] >= ge - gb);
    pending[tid] = pending[tid] - (ge - gb);
    holding[tid] = 0;
    gb = 0; ge = 0; b = 0; e = 0; rb = 0;
    check_conservation ()
  };
  goto claim;
#endif

found_nothing:
#if SIZED
  /* worth_waiting, with something left: another holds (then raise the
     latch) or a word is not empty.  Then claim again, or leave, as a
     caller may. */
  atomic {
    if
    :: (unclaimed > 0) ->
       v = 0;
       do
       :: v < NP ->
          if
          :: (v != tid && holding[v]) -> k = 1; hungry = 1
          :: (v != tid && !holding[v] && we[v] > wb[v]) -> k = 1
          :: else -> skip
          fi;
          v++
       :: else -> break
       od;
       v = 0
    :: else -> skip
    fi
  };
  if
  :: k -> k = 0; goto claim
  :: k -> k = 0; goto leave
  :: else -> goto leave
  fi;
#endif
  goto leave;

retire_and_leave:
  atomic { linked = 0; last = 0 };

leave:
  /* every false return has flushed (W5) */
  assert (pending[tid] == 0);
  /* wgd_finish, once per join that ran something; a join that found
     nothing neither finishes nor joins again (gave_up_seq) */
  if
  :: done > 0 ->
     d_step {
       finished = finished + done;
       done = 0;
       assert (finished <= G);
       if
       :: finished == G ->
          finishers++;
          x = 0;
          do
          :: x < G -> assert (ran[x] == 1); x++
          :: else -> break
          od;
          assert (unclaimed == 0)
       :: else -> skip
       fi
     };
     goto join
  :: else -> skip
  fi;
out:
  skip
}

init
{
  byte t;
  atomic {
    t = 0;
    do
    :: t < NP ->
       wb[t] = IB (t); we[t] = IE (t);
       run worker (t);
       t++
    :: else -> t = 0; break
    od
  };
  (_nr_pr == 1);
  d_step {
    x = 0;
    do
    :: x < G -> assert (ran[x] == 1); x++
    :: else -> break
    od;
    assert (unclaimed == 0 && finished == G);
    assert (lasts == (G > 0 -> 1 : 0) && finishers == lasts);
    assert (linked == (G > 0 -> 0 : 1))
  }
}
