/* pool_wake.pml - Spin model of the worker pool's sleep/wake hand-off
   (driver/pthread_pool.c): a worker's idle loop (pt_pool_wait; the loop
   of worker_main before the split into pthread_worker.c) with
   find_launch and take_command under the pool lock, the bounded spin on
   the worker's own `kick` counter (pt_spin_watch, which may end at any
   time: its rules B1-B6 and B8 in pthread_spin.h only decide when) with
   `spinning` set, and the sleep on
   the worker's own condition variable with `sleeping` set;
   pt_pool_push_command, pt_pool_push_launch, pt_pool_wake_helpers (the
   tree wake-up of a launch's helpers, from the launch's cursor),
   pt_pool_unlink_launch, and the shutdown (pt_pool_shutdown;
   stop_workers before the split).  P1..P6 and P11 are the rules stated
   at the top of pthread_pool.c (P5 needs sub-devices: not modelled; the
   unit test pool_woken_for_other, tests/pool/test_pool.c, covers it, and
   pool_completer_runs P11's use of it).  P6, the
   grace a worker taken for a small command gives the application
   thread that enqueued it, is a delay between the take and the taken
   worker's search, which every interleaving here may have anyway (a
   kicked worker's next step, retaking the lock, may come at any time),
   and its end by pt_pool_end_graces is one more kick: no new behaviour
   to model; nor is the end of the graces when an application thread
   publishes a launch it took (pthread_kernel.c), which is that call.
   That thread publishes, wakes helpers and ends the graces under one
   hold of the lock (pt_pool_publish_shared): the publish and the
   wake_helpers() below with no step of anybody else between them, which
   is one of the interleavings modelled here.

   The actors: W workers of one device; a host thread that pushes the
   commands, waits until all have completed (as clFinish would) and shuts
   the pool down; optionally an NDRange command, whose worker publishes a
   launch of G work-groups and participates in it (pt_kernel_run_command,
   pt_launch_participate), and optionally a command that pushes one more
   when it runs (a busy worker pushing, as when an event's completion
   makes a dependent command ready).

   Configuration (-D): W workers (2, 3); P plain commands from the host
   (0..2); L 1: the host pushes an NDRange command first; G its work-groups
   (1.., default W); CHAIN 1: running the last host command pushes one more
   (from a worker: P11, the push takes nobody and the worker searches next;
   SELF 0: it takes an idle worker, as pushes from a worker did before P11
   and still do where P11 does not apply); SPIN 0: POCL_PTHREAD_SPIN_US=0;
   SKIP 0: POCL_PTHREAD_SKIP_CLAIMED=0; STEAL 0: POCL_PTHREAD_STEAL=0 (a
   block is claimed by its owner only); FANOUT: PT_WAKE_FAN_OUT (2; 1 makes
   a deeper tree); HAS_WORK 0: pt_pool_wake_helpers considers the first G
   workers instead of those whose block has work (wgd_thread_has_work), as
   it did before; SPURIOUS n: each worker may wake up spuriously n times;
   HOST 1: an application thread helps (pthread_host.c), below;
   PUSH_HELPERS: the helpers a push of the NDRange command takes besides
   the worker for it (P7: 2 by default, as PT_PUSH_HELPERS; 0 as before P7,
   and as for a command left to its enqueuer, P6); CAP 1: P8, no more
   helpers than CPUs: the room is a hint that may be anything (whatever it
   counts: busy workers, application threads in a published launch, those
   woken, those in a grace), so each call of pt_pool_wake_helpers of a
   launch whose participants may run every block (STEAL 1) takes any number
   from none to the fan-out (the push's helpers are capped too:
   PUSH_HELPERS 0 and 1 are those pushes); and, P10, a worker whose block
   is empty may pass over the launch in any search (the code passes only in
   a search of its own while the CPUs are full, and marks the launch for
   the watch, which is not modelled: the participants alone must finish
   it); CAP_ANYWAY 1 caps with STEAL 0 too, which P8 does not, and must
   hang.

   With HOST, an application thread waiting for the commands (clFinish)
   first runs what it may, as pt_host_help does, until a help finds
   nothing: the NDRange command, if it is still queued at the head (it
   is pushed first), which it takes off the queue (pt_pool_take_command_if)
   and runs as the launch's guest, claiming before it publishes the launch
   (pt_kernel_host_run: a launch its first claim empties is never
   published, and nobody is woken for it), and running and claiming on
   alone for as long as it likes before it publishes (rule S1 of
   pthread_share.h; a launch it so claims whole is never published
   either); else the published launch, if
   work-groups are left, which it joins as a guest
   (pt_pool_join_launch_if, pt_launch_host_join).  A guest has no block
   of its own: it takes over or steals, and with STEAL 0 gets nothing.  A
   help may also find nothing at any time: the hint host_work read 0 (H1
   of pthread_pool.c), or the thread's stack is too small.  A plain
   command at the head it may also take and complete, as it does markers
   and barriers (pt_host_help); that it may also leave them covers the
   plain commands it never takes (reads, writes).

   Checked, for every interleaving:
   - no lost wake-up (P1, P3): no invalid end state, i.e. never a queued
     command, or a block that only its owner may claim, while every
     worker that could take it waits for ever (the host's wait for
     completion never ends);
   - shutdown (P4): every worker leaves its loop (the host joins them);
   - every command runs exactly once; all the launch's work-groups run,
     and the launch completes exactly once;
   - the launch's references: nothing touches the launch after its last
     reference is dropped, a claim never succeeds after the command
     completed (pt_launch_participate claims before touching it), and the
     launch is freed by the end; it is unlinked exactly once, by the
     claim flagged `last` (W6 of wg_dispatch.c), and `unclaimed` ends at
     0;
   - no cycle without progress (pan -l): idle workers do not spin, join
     or wake each other for ever.  With SKIP 0 under weak fairness only:
     without gave_up_seq, a worker does rejoin a launch in vain for as
     long as its last claimer is descheduled.
   P2 (a pusher that leaves its work to a spinner takes it: clears its
   `spinning` flag and kicks it) is partly a rule for latency: every spin
   ends in a search under the lock, so a kick that comes late delays a
   command by up to one spin and loses nothing; here a spin may end at any
   time, so the model cannot tell.  Its other half, that a taken spinner
   no longer counts as idle, decides whom the next push wakes, and is
   modelled.

   Found by this model, and fixed: with STEAL 0 and fewer work-groups
   than workers (configurations W=2,G=1 and W=3,G=1..2 with L=1; test
   pool_model_spin_nosteal), the worker that runs the NDRange command may
   own an empty block: its first claim failed, pt_launch_participate
   returned without calling pt_pool_wake_helpers, and if the owners of
   the other blocks slept, nobody ever woke them.  Now a join that finds
   nothing wakes helpers too while work-groups are unclaimed, as here.

   Abstractions:
   - the pool lock is an explicit flag.  A stretch of code that holds it
     and touches only what the lock guards, plus at most one lock-free
     read, is one atomic step, which is exact; pt_pool_wake_helpers,
     which reads block words lock-free under the lock, holds the flag over
     one step per read;
   - a condition variable: `waiting` is set in the same step as the lock
     is released (pthread_cond_wait); a signal clears it if set and is
     lost otherwise (a condition variable has no memory); a woken waiter
     retakes the lock and tests its flag again.  Signals are sent after
     unlocking, as pthread_pool.c does;
   - the spin is one step, taken at any time: it ends because the
     worker's `kick` differs from the value it read under the lock, or
     because its time ran out, which may also happen after a kick.  The
     counter is a flag here, `kicked`, cleared when the spin starts (under
     the lock, where the code reads the counter) and set by every kick:
     the same "changed since" with a bounded state;
   - the dispatcher (checked on its own by wg_dispatch.pml): one
     work-group per claim, from the claimer's own block, else (with
     stealing) from the next non-empty block, in one step; the
     subtraction from `unclaimed` is a later step, so the count lags as
     wg_dispatch.c's flushes make it lag (W5, where it lags longer), which
     is what makes fruitless joins and gave_up_seq matter.  Blocks only
     shrink: only a busy owner refills its own word, so the blocks of
     idle workers do;
   - commands are all for the one device, and there is one launch (so
     gave_up_seq is a flag).

   Found by this model's HOST configurations: nothing; a mutant whose
   application thread publishes without waking helpers hangs with STEAL 0
   (an invalid end state), as it must; so does one that publishes a
   launch after claiming its last work-group alone under S1 (the launch
   stays listed, never unlinked or freed: participate() in
   pthread_kernel.c ends S1 on such a claim).  W=3 with HOST exceeds 4 GB
   in the non-progress search and is not run.

   Not modelled: sub-devices and their overlapping thread ranges, more
   than one launch in the list, PoCL's events and queues, memory ordering
   (the pool lock orders all that matters; `kick` and `unclaimed` are
   hints acted on under the lock), the oversubscribed yield, and timing.

   Build: spin -a -DW=3 -DP=1 -DL=1 pool_wake.pml

   Copyright (c) 2026 pocl-steal developers.  MIT licence, as PoCL.  */

#ifndef W
#define W 2
#endif
#ifndef P
#define P 1
#endif
#ifndef L
#define L 0
#endif
#ifndef G
#define G W
#endif
#ifndef CHAIN
#define CHAIN 0
#endif
#ifndef SPIN
#define SPIN 1
#endif
#ifndef SKIP
#define SKIP 1
#endif
#ifndef STEAL
#define STEAL 1
#endif
#ifndef FANOUT
#define FANOUT 2
#endif
#ifndef HAS_WORK
#define HAS_WORK 1
#endif
#ifndef SPURIOUS
#define SPURIOUS 0
#endif
#ifndef SELF
#define SELF 1
#endif
#ifndef HOST
#define HOST 0
#endif
#ifndef PUSH_HELPERS
#define PUSH_HELPERS 2
#endif
#ifndef CAP
#define CAP 0
#endif
#ifndef CAP_ANYWAY
#define CAP_ANYWAY 0
#endif
#if W > 3
#error "woken_signal knows 3 workers"
#endif
#if HOST && !L
#error "HOST needs the NDRange command (L 1)"
#endif
#if L && G < 1
#error "a launch of no work-groups completes at once, without the pool"
#endif
#if CHAIN && P < 1
#error "CHAIN needs a plain host command to chain from"
#endif

/* Commands by id, in the order they are pushed: the NDRange one (if L)
   is 0, the host's plain ones follow, the chained one (if CHAIN) last. */
#define NCMD (L + P + CHAIN)
#define NDR 0
#define CHAIN_PARENT (L + P - 1)
#define NONE 255

/* Work-groups dealt to thread t, as the static schedule does.  */
#define IB(t) (G / W * (t) + ((t) < G % W -> (t) : G % W))
#define BLOCK(t) (IB ((t) + 1) - IB (t))

/* The pool, guarded by `lock` but for kicked */
bit lock;
byte q[NCMD + 1];    /* the command FIFO: q[taken .. pushed - 1] */
byte pushed, taken;
bit shutdown;
bit kicked[W];       /* `kick` changed since the spin began; atomic,
                        written under the lock */
bit spinning[W], sleeping[W];
bit waiting[W];      /* in pthread_cond_wait: the lock is released */
bit gave_up[W];      /* gave_up_seq == the launch's seq */

/* The launch */
bit published;       /* pushed to the list (once); unpublished, nobody
                        else can see it (HOST) */
bit linked;          /* in the pool's list, under the lock */
byte cursor;         /* wake_cursor, under the lock */
byte blk[W + 1];     /* work-groups left in each thread's block; the
                        guest's (index W, HOST) is always empty */
byte unclaimed;      /* atomic: lags behind blk (W5) */
byte refs;
bit freed;
byte finished;
bit ndr_done;        /* the NDRange command completed */
byte lasts, unlinks, units;

/* Progress and checks */
byte ran[NCMD + 1];
byte completed;
byte exited;

/* Scratch within one d_step; hidden: not part of the state.  Only in
   d_step: inside an atomic sequence pan would backtrack through the
   intermediate states, where a hidden variable keeps a later value.  */
hidden byte x, y, z;

#if HAS_WORK
#define WORTH_WAKING(i) (blk[i] > 0)
#else
#define WORTH_WAKING(i) ((i) < G)
#endif

/* pthread_cond_signal on worker w's condition variable, after unlocking:
   wakes it if it waits, else is lost.  */
inline signal (w)
{
  waiting[w] = 0
}

/* Signals, after unlocking, the workers whose bits are set in mask (a
   local byte), one step each, and clears it.  */
inline woken_signal (mask)
{
  do
  :: mask == 0 -> break
  :: mask != 0 ->
     if
     :: mask & 1 -> signal (0); mask = mask & ~1
     :: (mask & 2) -> signal (1); mask = mask & ~2
     :: (mask & 4) -> signal (2); mask = mask & ~4
     fi
  od
}

/* pt_pool_push_command: append under the lock and take the first idle
   worker: a spinner is kicked and no longer spins (P2), a sleeper is
   marked woken and signalled after unlocking (P3).  With PUSH_HELPERS
   (P7), the NDRange command of G >= 2 work-groups takes up to
   min (G, W) - 1 more, at most PUSH_HELPERS (here, for nothing in
   particular: no worker records what it was taken for, P5 not being
   modelled).  The sleepers taken are signalled after unlocking, one
   step each (wmask: bit w for worker w).  */
inline push_command (id, woken)
{
  d_step {
    lock == 0 ->
    q[pushed] = id;
    pushed++;
    z = 1;
    if
    :: (id == NDR && L && G >= 2) ->
       z = (G < W -> G : W);
       z = (z < 1 + PUSH_HELPERS -> z : 1 + PUSH_HELPERS)
    :: else -> skip
    fi;
    x = 0;
    do
    :: (x < W && z > 0) ->
       if
       :: spinning[x] -> spinning[x] = 0; kicked[x] = 1; z--
       :: sleeping[x] -> sleeping[x] = 0; woken = woken | (1 << x); z--
       :: else -> skip
       fi;
       x++
    :: else -> break
    od
  };
  woken_signal (woken)
}

/* P11: a running worker pushes a command its completion made ready:
   appended, and nobody taken; the pusher searches next (P1) and finds it,
   unless somebody took it before.  */
inline push_own (id)
{
  d_step {
    lock == 0 ->
    q[pushed] = id;
    pushed++
  }
}

/* launch_release: the last reference frees the launch.  */
inline release ()
{
  atomic {
    assert (refs > 0 && !freed);
    refs--;
    if
    :: refs == 0 -> freed = 1
    :: else -> skip
    fi
  }
}

/* wgd_claim, abstracted: remove one work-group, then (a step later) the
   fetch_sub on `unclaimed` that flags exactly one claim last.  */
inline claim ()
{
  d_step {
    assert (!freed);
    if
    :: blk[me] > 0 -> blk[me]--; got = 1
    :: else ->
       /* the others' blocks, from the next one on; a guest (me == W)
          looks at all of them */
       x = 1;
       do
       :: (STEAL && x <= W) ->
          y = (me + x) % W;
          if
          :: blk[y] > 0 -> blk[y]--; got = 1; break
          :: else -> x++
          fi
       :: else -> break
       od
    fi
  };
  if
  :: got ->
     atomic {
       assert (unclaimed > 0);
       last = (unclaimed == 1);
       unclaimed--;
       if
       :: last -> lasts++; assert (lasts == 1)
       :: else -> skip
       fi
     }
  :: else -> skip
  fi
}

/* retire_launch: the last claimer takes it out of the list and drops the
   list's reference; a launch never published (HOST) is in no list.  */
inline retire ()
{
  if
  :: published ->
     atomic {
       lock == 0 ->
       assert (linked && !freed);
       linked = 0;
       unlinks++;
       last = 0
     };
     release ()
  :: else -> last = 0
  fi
}

/* pt_pool_wake_helpers (l, FANOUT), called by a joiner after its first
   claim while work-groups are left: from the launch's cursor on, each
   worker looked at once, take idle workers whose block has work, up to
   the fan-out: a spinner is kicked (P2), a sleeper marked and signalled
   after unlocking (P3).  The block words are read lock-free, one step
   each.  */
inline wake_helpers ()
{
  atomic { lock == 0 -> lock = 1; assert (!freed); n = FANOUT };
#if (CAP && STEAL) || CAP_ANYWAY
  /* P8: the room, whatever it is.  */
  do
  :: n > 0 -> n--
  :: break
  od;
#endif
  do
  :: (cursor < W && k < n) ->
     atomic {
       i = cursor;
       cursor++;
       if
       :: ((spinning[i] || sleeping[i]) && WORTH_WAKING (i)) ->
          if
          :: spinning[i] -> spinning[i] = 0; kicked[i] = 1
          :: else -> sleeping[i] = 0; mask = mask | (1 << i)
          fi;
          k++
       :: else -> skip
       fi;
       i = 0
     }
  :: else -> break
  od;
  atomic { lock = 0; i = 0; n = 0; k = 0 };
  do
  :: i < W ->
     if
     :: mask & (1 << i) -> atomic { signal (i); mask = mask & ~(1 << i) }
     :: else -> skip
     fi;
     i++
  :: else -> i = 0; break
  od
}

/* The rest of pt_launch_participate, with a work-group claimed (got):
   run it, claim the next, until a claim fails; the one that finishes the
   last work-group completes the launch (wgd_finish); then drop our
   reference.  */
inline run_claimed ()
{
  do
  :: got ->
progress_unit:
     atomic { units++; done++; got = 0 };
     claim ();
     if
     :: last -> retire ()
     :: else -> skip
     fi
  :: else -> break
  od;
  /* wgd_finish: the one that finishes the last work-group completes */
  atomic {
    finished = finished + done;
    done = 0;
    assert (finished <= G);
    if
    :: finished == G ->
       assert (units == G && unclaimed == 0);
       ndr_done = 1;
       ran[NDR]++;
       completed++
    :: else -> skip
    fi
  };
  release ();
}

/* The search of the idle loop, one pass, with the lock held (P1: what
   it finds nothing in, it flags itself idle in before unlocking).  Leaves
   the atomic step it is part of by jumping to what it decided.  */
inline search ()
{
  if
  :: shutdown -> lock = 0; goto leave
  :: else -> skip
  fi;
  /* find_launch */
  if
  :: (linked && (!SKIP || (unclaimed > 0 && !gave_up[me]))) ->
     assert (!freed);
     refs++;
     lock = 0;
     goto join
#if CAP && STEAL
  /* P10: a worker whose block is gone may pass over the launch (whether
     it searches on its own and the CPUs are full are hints: any search
     may).  */
  :: (linked && unclaimed > 0 && blk[me] == 0) -> skip
#endif
  :: else -> skip
  fi;
  /* take_command */
  if
  :: taken < pushed -> c = q[taken]; taken++; lock = 0; goto run_cmd
  :: else -> skip
  fi;
  /* spin first (once per idle spell), then sleep */
  if
  :: (SPIN && !spun) ->
     kicked[me] = 0;
     spinning[me] = 1;
     lock = 0;
     goto spin
  :: else -> skip
  fi;
  spun = 0;
  sleeping[me] = 1;
  /* while (sleeping && !shutdown) pthread_cond_wait: shutdown is false
     here, so it waits, releasing the lock in the same step */
  waiting[me] = 1;
  lock = 0;
  goto wait
}

proctype worker (byte me)
{
  byte c, done, i, n, k, woken = 0;
  byte mask, spurious;
  bit spun, got, last, worked;

  atomic { lock == 0 -> lock = 1; search () };

spin:
  /* pt_spin_until_changed, then back under the lock */
  if
  :: kicked[me] -> spun = 0
  :: skip -> spun = 1   /* time is up; may also come after a kick */
  fi;
  atomic {
    lock == 0 -> lock = 1;
    spinning[me] = 0;
    kicked[me] = 0;  /* dead until the next spin reads it afresh */
    search ()
  };

wait:
  /* woken by a signal, or spuriously (P3: changes nothing) */
  if
  :: !waiting[me] -> skip
  :: (waiting[me] && spurious < SPURIOUS) -> waiting[me] = 0; spurious++
  fi;
  atomic {
    lock == 0 -> lock = 1;
    if
    :: (sleeping[me] && !shutdown) -> waiting[me] = 1; lock = 0; goto wait
    :: else -> sleeping[me] = 0
    fi;
    search ()
  };

run_cmd:
  if
  :: (L && c == NDR) -> goto launch
  :: else -> skip
  fi;
progress_cmd:
  atomic { ran[c]++; assert (ran[c] == 1); completed++ };
  if
#if SELF
  :: (CHAIN && c == CHAIN_PARENT) -> push_own (NCMD - 1)
#else
  :: (CHAIN && c == CHAIN_PARENT) -> push_command (NCMD - 1, woken)
#endif
  :: else -> skip
  fi;
  atomic { lock == 0 -> lock = 1; c = 0; spun = 0; search () };

launch:
  /* pt_kernel_run_command: deal the blocks, publish, participate with
     our own reference (a label may not start a d_step) */
  skip;
  d_step {
    c = 0;
    x = 0;
    do
    :: x < W -> blk[x] = BLOCK (x); x++
    :: else -> break
    od;
    unclaimed = G
  };
  atomic {
    lock == 0 ->
    refs = 2;      /* the list's and ours */
    published = 1;
    linked = 1;
    cursor = 0     /* nobody kicked: we wake helpers */
  };

join:
  /* pt_launch_participate: claim before touching the command */
  claim ();
  if
  :: !got ->
     /* Nothing for us, but maybe for others (stealing off): wake the
        owners of blocks with work, then leave.  */
     if
     :: unclaimed > 0 -> wake_helpers ()
     :: else -> skip
     fi;
     release ();
     worked = 0;
     goto back
  :: else -> skip
  fi;
  assert (!ndr_done);
  if
  :: last -> retire ()
  :: else ->
     if
     :: unclaimed > 0 -> wake_helpers ()
     :: else -> skip
     fi
  fi;

  run_claimed ();
  worked = 1;

back:
  atomic {
    lock == 0 -> lock = 1;
    if
    :: !worked -> gave_up[me] = 1
    :: else -> skip
    fi;
    worked = 0;
    spun = 0;
    search ()
  };

leave:
  atomic { exited++; c = 0 }
}

#if HOST
/* The application thread's helps (pt_host_help), then it is done (the
   host's wait for completion is init's).  */
proctype app ()
{
  byte c, done, i, n, k, woken = 0;
  byte mask;
  bit got, last;
  bit alone_last;  /* S1: it claimed the last work-group alone */
  byte me = W;  /* guest 0: the index past the device's threads */

help:
  if
  :: skip -> goto leave  /* nothing it may run, or the hint read 0 */
  :: atomic {
       lock == 0 -> lock = 1;
       if
       :: (taken < pushed && q[taken] == NDR) ->
          taken++;
          lock = 0;
          goto own
       :: (taken < pushed && q[taken] != NDR) ->
          /* a marker or a barrier: it completes it (pt_host_help) */
          c = q[taken];
          taken++;
          lock = 0;
          goto plain
       :: (linked && unclaimed > 0) ->
          assert (!freed);
          refs++;
          lock = 0;
          goto join
       :: else -> lock = 0; goto leave
       fi
     }
  fi;

own:
  /* pt_kernel_host_run: deal the blocks, claim before anyone can see the
     launch */
  skip;
  d_step {
    x = 0;
    do
    :: x < W -> blk[x] = BLOCK (x); x++
    :: else -> break
    od;
    unclaimed = G;
    refs = 1       /* ours */
  };
  claim ();
  if
  :: got && last -> skip  /* it took everything: never published */
  :: else ->
     /* Rule S1 (pthread_share.h): while the launch is unpublished, the
        thread may run what it claimed and claim on alone, any number of
        times, before it publishes (the clock decides; here any choice).
        A claim flagged `last` retires the launch at once, as
        participate() does (a no-op: it is in no list), and then it is
        never published (participate() ends S1 there).  */
     do
     :: (got && !alone_last) ->
        atomic { units++; done++; got = 0 };
        claim ();
        if
        :: last -> retire (); alone_last = 1
        :: else -> skip
        fi
     :: !alone_last -> break
     :: else -> break
     od
  fi;
  if
  :: (got && last) || alone_last -> skip
  :: else ->
     atomic {
       lock == 0 ->
       refs = 2;   /* the list's and ours */
       published = 1;
       linked = 1;
       cursor = 0
     };
     wake_helpers ();
     if
     :: !got -> release (); goto help  /* STEAL 0: the owners run it */
     :: else -> skip
     fi
  fi;
  assert (!ndr_done);
  run_claimed ();
  goto help;

plain:
  atomic { ran[c]++; assert (ran[c] == 1); completed++ };
  if
  :: (CHAIN && c == CHAIN_PARENT) -> push_command (NCMD - 1, woken)
  :: else -> skip
  fi;
  c = 0;
  goto help;

join:
  /* pt_launch_host_join: participate as a guest */
  claim ();
  if
  :: !got ->
     if
     :: unclaimed > 0 -> wake_helpers ()
     :: else -> skip
     fi;
     release ();
     goto leave
  :: else -> skip
  fi;
  assert (!ndr_done);
  if
  :: last -> retire ()
  :: else ->
     if
     :: unclaimed > 0 -> wake_helpers ()
     :: else -> skip
     fi
  fi;
  run_claimed ();
  goto help;

leave:
  atomic { exited++; c = 0 }
}
#endif

init
{
  byte c, woken = 0;
  atomic {
    c = 0;
    do
    :: c < W -> run worker (c); c++
    :: else -> c = 0; break
    od
  };
  /* the host pushes every command */
  do
  :: c < L + P -> push_command (c, woken); c++
  :: else -> break
  od;
#if HOST
  run app ();
#endif
  /* waits for them all, then stops the pool (P4) */
  (completed == NCMD);
  atomic {
    lock == 0 ->
    shutdown = 1;
    c = 0;
    do
    :: c < W -> kicked[c] = 1; sleeping[c] = 0; c++
    :: else -> c = 0; break
    od
  };
  do
  :: c < W -> signal (c); c++
  :: else -> break
  od;
  /* and joins the workers (and the application thread is done) */
  (exited == W + HOST);
  d_step {
    x = 0;
    do
    :: x < NCMD -> assert (ran[x] == 1); x++
    :: else -> break
    od;
    assert (pushed == NCMD && taken == NCMD);
    assert (L == 0 || (ndr_done && units == G && unclaimed == 0
                       && lasts == (G > 0 -> 1 : 0)
                       && unlinks == (published -> lasts : 0)
                       && refs == 0 && freed))
  }
}
