/* wg_dispatch.pml - Spin model of the static schedule's claim/steal
   protocol of driver/wg_dispatch.c, step for step: every load of a block
   word and every CAS is one atomic step, everything else is local.

   Checked (tests/model/run_spin.sh), for NT threads and G work-groups:
   - safety: no work-group is run twice (assertion at run time), and when
     all threads are done every work-group ran once and exactly one thread
     finished the launch (assertions in init); no invalid end states;
   - liveness: no cycle without progress (pan -l): every run terminates.

   Build: spin -a -DNT=3 -DG=6 wg_dispatch.pml

   Copyright (c) 2026 pocl-steal developers.  MIT licence, as PoCL.  */

#ifndef NT
#define NT 2
#endif
#ifndef G
#define G 4
#endif

byte wb[NT];   /* block word: begin */
byte we[NT];   /*             end */
byte ib[NT];   /* the block as dealt */
byte ie[NT];
byte ran[G + 1]; /* + 1: Spin has no empty arrays */
byte finished;
byte finishers;

/* compare-and-swap of a whole block word */
inline cas (v, eb, ee, nb, ne, ok)
{
  atomic {
    if
    :: (wb[v] == eb && we[v] == ee) -> wb[v] = nb; we[v] = ne; ok = 1
    :: else -> ok = 0
    fi
  }
}

proctype worker (byte tid)
{
  byte b, e, n, k, i, v, best, bb, be, bn, gb, ge, g, done;
  bit ok;

claim:
  /* claim_own: half of what is left, at least one */
  atomic { b = wb[tid]; e = we[tid] };
  if
  :: e > b ->
     n = e - b;
     k = (n > 1 -> n / 2 : n);
     cas (tid, b, e, b + k, e, ok);
     if
     :: ok -> gb = b; ge = b + k; goto run_range
     :: else -> goto claim
     fi
  :: else -> skip
  fi;

  /* steal, first pass: take over an unstarted block whole */
  i = 1;
  do
  :: i < NT ->
     v = (tid + i) % NT;
     if
     :: ie[v] > ib[v] ->
        cas (v, ib[v], ie[v], ie[v], ie[v], ok);
        if
        :: ok -> gb = ib[v]; ge = ie[v]; goto got
        :: else -> skip
        fi
     :: else -> skip
     fi;
     i++
  :: else -> break
  od;

pass2:
  /* second pass: the back half (rounded up) of the fullest block */
  best = NT; bn = 0; i = 1;
  do
  :: i < NT ->
     v = (tid + i) % NT;
     atomic { b = wb[v]; e = we[v] };
     if
     :: (e > b && e - b > bn) -> best = v; bb = b; be = e; bn = e - b
     :: else -> skip
     fi;
     i++
  :: else -> break
  od;
  if
  :: best == NT -> goto leave
  :: else -> skip
  fi;
  k = bn - bn / 2;
  cas (best, bb, be, bb, be - k, ok);
  if
  :: ok -> gb = be - k; ge = be
  :: else -> goto pass2
  fi;

got:
  /* run half (at least one) of what we got, keep the rest as our block;
     our word is empty, and only we write an empty word */
  n = ge - gb;
  k = (n > 1 -> n / 2 : n);
  atomic { wb[tid] = gb + k; we[tid] = ge };
  ge = gb + k;

run_range:
  g = gb;
  do
  :: g < ge ->
progress:
     atomic { ran[g]++; assert (ran[g] == 1) };
     done++;
     g++
  :: else -> break
  od;
  goto claim;

leave:
  /* wgd_finish */
  if
  :: done > 0 ->
     atomic {
       finished = finished + done;
       if
       :: finished == G -> finishers++
       :: else -> skip
       fi
     }
  :: else -> skip
  fi
}

init
{
  byte t, q, r, g;
  q = G / NT;
  r = G % NT;
  t = 0;
  do
  :: t < NT ->
     ib[t] = q * t + (t < r -> t : r);
     ie[t] = q * (t + 1) + (t + 1 < r -> t + 1 : r);
     wb[t] = ib[t];
     we[t] = ie[t];
     t++
  :: else -> break
  od;
  atomic {
    t = 0;
    do
    :: t < NT -> run worker (t); t++
    :: else -> break
    od
  };
  (_nr_pr == 1);
  g = 0;
  do
  :: g < G -> assert (ran[g] == 1); g++
  :: else -> break
  od;
  assert (finishers == (G > 0 -> 1 : 0))
}
