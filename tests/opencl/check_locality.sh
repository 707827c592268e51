#!/bin/sh
# check_locality.sh CL_WHERE THREADS: the static schedule maps the same
# work-groups to the same threads, launch after launch.
#
# Asserted exactly, whatever else the machine runs: with stealing off
# (POCL_PTHREAD_STEAL=0) every work-group of every launch runs on its home
# thread, so each one runs on the same thread as in the launch before
# (same_as_previous=1.0000), THREADS threads are seen, and the statistics
# count every work-group as home, no takeover, no steal.  This proves the
# split, its thread numbering and cl_where's way of telling threads (the
# address of a __local variable: each worker has its own local memory).
#
# Printed only: the same figure with stealing on, the default.  A thread
# that is descheduled rightly loses part of its block to stealing, so it
# depends on the machine's load: a benchmark figure (make bench's locality
# table), not a test.  The dispatcher's exact behaviour under scripted
# orders of claims is tests/dispatch/test_interleave.c.
set -u
where=$1 threads=$2
groups=256 launches=8
fails=0
fail () { echo "FAIL: $*"; fails=$((fails + 1)); }

. "$(dirname "$0")/stat_field.sh"

out=$(POCL_PTHREAD_STEAL=0 POCL_PTHREAD_STATS=1 "$where" --groups $groups \
  --launches $launches --spins 2000 2>"${TMPDIR:-/tmp}/locality.$$") ||
  fail "cl_where failed"
err=$(cat "${TMPDIR:-/tmp}/locality.$$")
rm -f "${TMPDIR:-/tmp}/locality.$$"
echo "stealing off: $out"
line=$(printf '%s\n' "$err" | grep '^pocl: pthread stats: ' | grep 'schedule=static')
echo "stealing off: $line"
same=$(printf '%s\n' "$out" | sed -n 's/.*same_as_previous=\([0-9.]*\).*/\1/p')
seen=$(printf '%s\n' "$out" | sed -n 's/.*threads_seen=\([0-9]*\).*/\1/p')
[ "$same" = 1.0000 ] || fail "stealing off: same_as_previous=$same, want 1.0000"
[ "$seen" = "$threads" ] || fail "stealing off: $seen threads seen, want $threads"
wg=$(stat_field "$line" work-groups) || fail "no work-groups in: $line"
home=$(stat_field "$line" home) || fail "no home in: $line"
tk=$(stat_field "$line" takeovers) || fail "no takeovers in: $line"
st=$(stat_field "$line" steals) || fail "no steals in: $line"
[ "${wg:-0}" -ge $((groups * launches)) ] && [ "${home:-x}" = "${wg:-y}" ] &&
  [ "${tk:-x}" = 0 ] && [ "${st:-x}" = 0 ] ||
  fail "stealing off: want every work-group at home and no takeover or steal: $line"
printf '%s\n' "$err" | grep -q warning && fail "a warning: $err"

out=$("$where" --groups $groups --launches $launches --spins 50000) ||
  fail "cl_where failed with stealing on"
echo "stealing on (printed, not asserted): $out"

[ "$fails" = 0 ] && echo "check_locality: all checks passed"
[ "$fails" = 0 ]
