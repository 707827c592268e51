#!/bin/sh
# check_locality.sh CL_WHERE MIN: balanced launches repeated run at least
# MIN of their work-groups on the same thread as in the launch before (best
# of three rounds, since a preempted thread rightly loses part of its block
# to stealing).  cl_where (bench/) tells the thread by the address of a
# __local variable.  The launches are long (about 10 ms per thread) against
# the time a woken thread takes to start, up to a millisecond in a VM.
set -u
where=$1 min=$2
best=0
for round in 1 2 3; do
  out=$("$where" --groups 256 --launches 8 --spins 50000) || { echo "FAIL: cl_where failed"; exit 1; }
  f=$(printf '%s\n' "$out" | sed -n 's/.*same_as_previous=\([0-9.]*\).*/\1/p')
  echo "round $round: $out"
  best=$(awk -v a="$best" -v b="$f" 'BEGIN { print (b > a) ? b : a }')
  awk -v b="$best" -v m="$min" 'BEGIN { exit !(b >= m) }' && break
done
echo "locality: $best (best round), want at least $min"
awk -v b="$best" -v m="$min" 'BEGIN { exit !(b >= m) }' || { echo "FAIL: locality $best is below $min"; exit 1; }
echo "check_locality: all checks passed"
