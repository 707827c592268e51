#!/bin/sh
# check_settings.sh HELLO EXACTLY_ONCE: the driver's environment variables.
#   - POCL_PTHREAD_SCHEDULE picks the schedule (case and blanks ignored);
#   - a value not accepted gets exactly one warning naming it and the
#     accepted values, and the default is used; kernels stay correct;
#   - POCL_PTHREAD_STATS=1 prints the counters at exit, and they add up
#     (cl_hello: one launch of 1024 work-groups; with
#     POCL_PTHREAD_HOST_GROUPS=64 none of them run by the application
#     thread, whatever the machine: it is above the limit).
set -u
hello=$1 exactly_once=$2
fails=0
fail () { echo "FAIL: $*"; fails=$((fails + 1)); }

# run VAR=VALUE... PROGRAM: stderr into $err, stdout into $out
run () {
  err=$(env "$@" 2>&1 >/dev/null) || fail "$* exited with $?"
}

stats_line () { printf '%s\n' "$err" | grep '^pocl: pthread stats: ' ; }

. "$(dirname "$0")/stat_field.sh"

# is_count VALUE...: every VALUE is a non-negative decimal integer.
is_count () {
  for v in "$@"; do
    case $v in
      ''|*[!0-9]*) return 1 ;;
    esac
  done
}

# one_line: $line holds exactly one stats line (cl_hello runs one launch,
# under one schedule).
one_line () {
  [ -n "$line" ] && [ "$(printf '%s\n' "$line" | wc -l)" -eq 1 ]
}

run POCL_PTHREAD_STATS=1 POCL_PTHREAD_SCHEDULE=" GuIdEd " "$hello"
line=$(stats_line)
echo "schedule ' GuIdEd ': $line"
one_line || fail "POCL_PTHREAD_SCHEDULE=' GuIdEd ' did not give one stats line: $line"
[ "$(stat_field "$line" schedule)" = guided ] &&
  [ "$(stat_field "$line" launches)" = 1 ] &&
  [ "$(stat_field "$line" work-groups)" = 1024 ] ||
  fail "POCL_PTHREAD_SCHEDULE=' GuIdEd ' did not give one guided launch of 1024 work-groups"
printf '%s\n' "$err" | grep -q warning && fail "a valid value gave a warning"

run POCL_PTHREAD_STATS=1 "$hello"
line=$(stats_line)
echo "default: $line"
one_line || fail "the default schedule did not give one stats line: $line"
sched=$(stat_field "$line" schedule)
launches=$(stat_field "$line" launches)
groups=$(stat_field "$line" work-groups)
home=$(stat_field "$line" home)
takeovers=$(stat_field "$line" takeovers)
steals=$(stat_field "$line" steals)
cross=$(stat_field "$line" cross-node)
claims=$(stat_field "$line" claims)
gave_back=$(stat_field "$line" gave-back)
hungry=$(stat_field "$line" hungry)
joins=$(stat_field "$line" joins)
fruitless=$(stat_field "$line" fruitless-joins)
host=$(stat_field "$line" host)
threads=$(stat_field "$line" threads)
[ "$sched" = static ] && [ "$launches" = 1 ] && [ "$groups" = 1024 ] ||
  fail "the default is not static, or the counts are off: $line"
if is_count "$home" "$takeovers" "$steals" "$cross" "$joins" "$fruitless" \
     "$host" "$threads" "$claims" "$gave_back" "$hungry"; then
  # Every claim hands out at least one work-group; a range given back was
  # claimed first.
  [ "$claims" -ge 1 ] && [ "$claims" -le 1024 ] &&
    [ "$gave_back" -le "$claims" ] ||
    fail "claims or ranges given back do not add up: $line"
  [ "$home" -le 1024 ] && [ "$cross" -le $((takeovers + steals)) ] &&
    [ "$joins" -ge 1 ] && [ "$fruitless" -le "$joins" ] ||
    fail "home work-groups, cross-node steals, joins or fruitless joins do not add up: $line"
  [ "$host" -le 1024 ] ||
    fail "the application thread ran more work-groups than there are: $line"
  [ "$threads" -ge 1 ] || fail "the pool has no threads: $line"
else
  fail "a counter is missing or not a number: $line"
fi

# 1024 work-groups: above POCL_PTHREAD_HOST_GROUPS=64, which applies on
# every machine (unset, a device on one NUMA node lets the waiting thread
# run launches of any size).
run POCL_PTHREAD_STATS=1 POCL_PTHREAD_HOST_GROUPS=64 "$hello"
line=$(stats_line)
echo "POCL_PTHREAD_HOST_GROUPS=64: $line"
one_line && [ "$(stat_field "$line" work-groups)" = 1024 ] &&
  [ "$(stat_field "$line" host)" = 0 ] ||
  fail "the application thread ran work-groups of a launch above POCL_PTHREAD_HOST_GROUPS=64: $line"

run POCL_PTHREAD_STATS=1 POCL_PTHREAD_SCHEDULE=dynamic "$hello"
n=$(printf '%s\n' "$err" | grep -c "warning: POCL_PTHREAD_SCHEDULE='dynamic' is not accepted (accepted: static, guided); using static")
line=$(stats_line)
echo "schedule 'dynamic': $n warning(s); $line"
[ "$n" = 1 ] || fail "POCL_PTHREAD_SCHEDULE=dynamic gave $n warnings, want 1: $err"
one_line && [ "$(stat_field "$line" schedule)" = static ] &&
  [ "$(stat_field "$line" launches)" = 1 ] &&
  [ "$(stat_field "$line" work-groups)" = 1024 ] ||
  fail "POCL_PTHREAD_SCHEDULE=dynamic did not fall back to static"

run POCL_PTHREAD_SCHEDULE= "$exactly_once"
n=$(printf '%s\n' "$err" | grep -c "POCL_PTHREAD_SCHEDULE='' is not accepted")
echo "schedule '': $n warning(s), exactly_once ran"
[ "$n" = 1 ] || fail "POCL_PTHREAD_SCHEDULE='' gave $n warnings, want 1"

for v in yes 2 -1; do
  run POCL_PTHREAD_STATS=$v "$hello"
  n=$(printf '%s\n' "$err" | grep -c "POCL_PTHREAD_STATS='$v' is not accepted (accepted: 0, 1); using 0")
  [ "$n" = 1 ] || fail "POCL_PTHREAD_STATS=$v gave $n warnings, want 1"
  stats_line >/dev/null && fail "POCL_PTHREAD_STATS=$v printed statistics"
done
echo "POCL_PTHREAD_STATS=yes/2/-1: one warning each, no statistics"

run POCL_PTHREAD_STATS=0 "$hello"
[ -z "$(stats_line)" ] || fail "POCL_PTHREAD_STATS=0 printed statistics"

[ "$fails" = 0 ] && echo "check_settings: all checks passed"
[ "$fails" = 0 ]
