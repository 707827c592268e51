#!/bin/sh
# check_contention.sh CL_LAUNCH [BUSY]: launches that need the driver's
# workers stay fast while other programs keep every CPU busy.
#
# Beside BUSY busy loops (`sh -c 'while :; do :; done'`; default: one per
# allowed CPU), runs 400 launches that a worker must take: 400 of one
# work-group with host runs off (POCL_PTHREAD_HOST_GROUPS=0, the waiting
# thread only waits), and 400 of 1024 work-groups (more than an
# application thread runs itself), each launch waited for with clFinish.
# Each set must take less than a second in all.
#
# Why: idle workers and waiting threads used to yield the CPU between
# looks (sched_yield), and a yield to a busy loop returns only when its
# time slice ends, so every such launch took 4-5 ms, 2 s for 400
# (issue 31); stock PoCL takes 20-70 us each.  The bound is 20 times what
# the driver needs here and half of what the old spin needed: it holds on
# a loaded machine and cannot miss a launch that waits out a slice.  The
# figures themselves are `make bench`'s (section 1d).  The busy loops end
# with this script, on success, failure and signals.
set -u
launch=$1 busy=${2:-$(nproc)}
pids=
stop () { [ -n "$pids" ] && kill $pids 2>/dev/null; wait 2>/dev/null; pids=; }
trap stop EXIT
trap 'stop; exit 130' INT
trap 'stop; exit 143' TERM
fails=0
fail () { echo "FAIL: $*"; fails=$((fails + 1)); }

i=0
while [ $i -lt "$busy" ]; do
  sh -c 'while :; do :; done' &
  pids="$pids $!"
  i=$((i + 1))
done

# One batch of 400 launches: its time per launch, times 400, in ms.
total_ms () { # GROUPS ENV...
  groups=$1
  shift
  out=$(env "$@" "$launch" --groups "$groups" --launches 400 --batches 1) ||
    { echo "FAIL: cl_launch --groups $groups failed" >&2; return 1; }
  echo "$out" >&2
  echo "$out" | sed -n 's/.*median_us=\([0-9.]*\).*/\1/p' |
    awk '{ printf "%d\n", $1 * 400 / 1000 }'
}

for case in "1 POCL_PTHREAD_HOST_GROUPS=0" "1024 POCL_PTHREAD_HOST_GROUPS=64"; do
  set -- $case
  ms=$(total_ms "$@") || { fail "$case: the launches failed"; continue; }
  echo "beside $busy busy loops: 400 launches of $1 work-group(s) ($2) took $ms ms"
  [ -n "$ms" ] && [ "$ms" -lt 1000 ] ||
    fail "400 launches of $1 work-group(s) ($2) beside $busy busy loops took ${ms:-?} ms, want under 1000"
done
[ "$fails" = 0 ] && echo "check_contention: all checks passed"
[ "$fails" = 0 ]
