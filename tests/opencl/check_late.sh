#!/bin/sh
# check_late.sh CL_LIFECYCLE MODULE: a launch from the destructor of a
# module loaded after PoCL (cl_lifecycle late) runs, exactly once, and the
# process ends with status 0, while the driver prints its statistics at
# exit (POCL_PTHREAD_STATS=1, set here).  The statistics line must come
# before the late launch: otherwise the destructors ran in another order
# and this test would not exercise a launch after the driver's own
# destructor, so that fails too, naming the order seen.
set -u
prog=$1 module=$2
out=$(POCL_PTHREAD_STATS=1 "$prog" late "$module" 2>&1)
rc=$?
printf '%s\n' "$out"
fails=0
fail () { echo "FAIL: $*"; fails=$((fails + 1)); }
[ "$rc" = 0 ] || fail "cl_lifecycle late exited with $rc"
printf '%s\n' "$out" | grep -q '^late launch from a destructor: 0 of 4096 work-items wrong$' ||
  fail "the late launch did not complete exactly once"
stats=$(printf '%s\n' "$out" | grep -n '^pocl: pthread stats: schedule=' | head -n 1 | cut -d: -f1)
late=$(printf '%s\n' "$out" | grep -n '^late launch from a destructor: starting$' | cut -d: -f1)
[ -n "$stats" ] || fail "no statistics line at exit"
[ -n "$late" ] || fail "the module's destructor did not run"
if [ -n "$stats" ] && [ -n "$late" ] && [ "$stats" -gt "$late" ]; then
  fail "the statistics (line $stats) came after the late launch (line $late): the destructors ran in another order"
fi
[ "$fails" = 0 ] && echo "check_late: all checks passed"
[ "$fails" = 0 ]
