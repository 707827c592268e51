#!/bin/sh
# check_host_run.sh PROGRAM MODE HOST: runs `PROGRAM MODE` (host_run.c; MODE
# "-" runs PROGRAM without arguments, host_share.c) with
# POCL_PTHREAD_STATS=1; passes if it passes and its statistics say that
# application threads ran exactly HOST work-groups (the `host` field,
# summed over the schedules' lines), or between MIN and MAX where HOST is
# MIN..MAX, no more than were run in all.  Exit 77 (skipped) where the
# program says it cannot run here.
set -u
prog=$1 mode=$2 want=$3
case $want in
  *..*) min=${want%..*} max=${want#*..} ;;
  *) min=$want max=$want ;;
esac
if [ "$mode" = - ]; then set --; else set -- "$mode"; fi
err=$(mktemp) || exit 1
trap 'rm -f "$err"' EXIT
POCL_PTHREAD_STATS=1 "$prog" "$@" 2>"$err"
rc=$?
cat "$err" >&2
[ $rc = 77 ] && exit 77 # the program reports itself skipped
[ $rc = 0 ] || { echo "FAIL: $prog $mode exited with $rc"; exit 1; }

. "$(dirname "$0")/stat_field.sh"
host=0 groups=0 lines=0
while IFS= read -r line; do
  h=$(stat_field "$line" host) && g=$(stat_field "$line" work-groups) ||
    { echo "FAIL: no host or work-groups field: $line"; exit 1; }
  host=$((host + h)) groups=$((groups + g)) lines=$((lines + 1))
done <<LINES
$(grep '^pocl: pthread stats: ' "$err")
LINES
[ $lines -ge 1 ] || { echo "FAIL: no statistics line"; exit 1; }
echo "application threads ran $host of $groups work-groups (want $want)"
[ "$host" -ge "$min" ] && [ "$host" -le "$max" ] && [ "$host" -le "$groups" ] ||
  { echo "FAIL: application threads ran $host work-groups, want $want"; exit 1; }
echo "check_host_run $mode: passed"
