#!/bin/sh
# check_settings.sh HELLO EXACTLY_ONCE: the driver's environment variables.
#   - POCL_PTHREAD_SCHEDULE picks the schedule (case and blanks ignored);
#   - a value not accepted gets exactly one warning naming it and the
#     accepted values, and the default is used; kernels stay correct;
#   - POCL_PTHREAD_STATS=1 prints the counters at exit, and they add up
#     (cl_hello: one launch of 1024 work-groups).
set -u
hello=$1 exactly_once=$2
fails=0
fail () { echo "FAIL: $*"; fails=$((fails + 1)); }

# run VAR=VALUE... PROGRAM: stderr into $err, stdout into $out
run () {
  err=$(env "$@" 2>&1 >/dev/null) || fail "$* exited with $?"
}

stats_line () { printf '%s\n' "$err" | grep '^pocl: pthread stats: ' ; }

run POCL_PTHREAD_STATS=1 POCL_PTHREAD_SCHEDULE=" GuIdEd " "$hello"
line=$(stats_line)
echo "schedule ' GuIdEd ': $line"
case "$line" in
  "pocl: pthread stats: guided 1 1024 "*) ;;
  *) fail "POCL_PTHREAD_SCHEDULE=' GuIdEd ' did not give one guided launch of 1024 work-groups" ;;
esac
printf '%s\n' "$err" | grep -q warning && fail "a valid value gave a warning"

run POCL_PTHREAD_STATS=1 "$hello"
line=$(stats_line)
echo "default: $line"
set -- $line
# fields: pocl: pthread stats: SCHED LAUNCHES GROUPS HOME TAKEOVERS STEALS
#         CROSS-NODE JOINS FRUITLESS
[ "${4:-}" = static ] && [ "${5:-}" = 1 ] && [ "${6:-}" = 1024 ] ||
  fail "the default is not static, or the counts are off: $line"
[ "${7:-0}" -le 1024 ] && [ "${10:-1}" -le $((${8:-0} + ${9:-0})) ] &&
  [ "${11:-0}" -ge 1 ] && [ "${12:-1}" -le "${11:-0}" ] ||
  fail "home work-groups, cross-node steals, joins or fruitless joins do not add up: $line"

run POCL_PTHREAD_STATS=1 POCL_PTHREAD_SCHEDULE=dynamic "$hello"
n=$(printf '%s\n' "$err" | grep -c "warning: POCL_PTHREAD_SCHEDULE='dynamic' is not accepted (accepted: static, guided); using static")
echo "schedule 'dynamic': $n warning(s); $(stats_line)"
[ "$n" = 1 ] || fail "POCL_PTHREAD_SCHEDULE=dynamic gave $n warnings, want 1: $err"
stats_line | grep -q "stats: static 1 1024 " || fail "POCL_PTHREAD_SCHEDULE=dynamic did not fall back to static"

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
