#!/bin/sh
# check_bad_env.sh HELLO EXACTLY_ONCE: every variable the driver reads, set
# to values a user might get wrong: empty, garbage, negative, huge, mixed
# case, blanks around.  Each value not accepted gets exactly one warning
# naming the variable; accepted ones get none; the kernels give correct
# results either way and the thread count is what the value asks for, or
# the default.  The schedule under test comes from the environment
# (POCL_PTHREAD_SCHEDULE), except where the case sets it.
set -u
hello=$1 exactly_once=$2
fails=0
fail () { echo "FAIL: $*"; fails=$((fails + 1)); }
cpus=$(nproc)
default_cus=${POCL_CPU_MAX_CU_COUNT:-$cpus}

# case VAR VALUE ACCEPTED WANT_CUS: runs both programs with VAR=VALUE (and,
# for the thread-count variables, nothing else setting the count).
case_ () {
  var=$1 value=$2 accepted=$3 want_cus=$4
  set -- env
  case $var in
    POCL_MAX_PTHREAD_COUNT|POCL_CPU_MAX_CU_COUNT|POCL_MAX_COMPUTE_UNITS)
      set -- env -u POCL_MAX_PTHREAD_COUNT -u POCL_CPU_MAX_CU_COUNT \
                 -u POCL_MAX_COMPUTE_UNITS ;;
  esac
  out=$("$@" "$var=$value" "$hello" 2>&1) || fail "$var='$value': cl_hello exited with $?"
  out2=$("$@" "$var=$value" "$exactly_once" 2>&1) ||
    fail "$var='$value': cl_exactly_once exited with $?: $(printf '%s\n' "$out2" | grep FAIL | head -3)"
  warnings=$(printf '%s\n' "$out" | grep -c "warning: $var='")
  cus=$(printf '%s\n' "$out" | sed -n 's/.*, \([0-9]*\) compute units$/\1/p')
  printf "%-24s %-24s -> %s warning(s), %s compute units\n" "$var" "'$value'" "$warnings" "$cus"
  if [ "$accepted" = yes ]; then
    [ "$warnings" = 0 ] || fail "$var='$value' is accepted but warned: $out"
  else
    [ "$warnings" = 1 ] || fail "$var='$value' gave $warnings warnings, want 1: $out"
    printf '%s\n' "$out" | grep "warning: $var='" | grep -q "accepted:" ||
      fail "$var='$value': the warning does not say what is accepted"
  fi
  [ "$cus" = "$want_cus" ] || fail "$var='$value': $cus compute units, want $want_cus"
  printf '%s\n' "$out" | grep -q "axpy over .*: correct" || fail "$var='$value': cl_hello's result is wrong"
}

huge=99999999999999999999
for v in "" garbage -1 $huge "dyn amic"; do
  case_ POCL_PTHREAD_SCHEDULE "$v" no "$default_cus"
done
case_ POCL_PTHREAD_SCHEDULE "GuIdEd" yes "$default_cus"
case_ POCL_PTHREAD_SCHEDULE "static " yes "$default_cus"
case_ POCL_PTHREAD_SCHEDULE " STATIC" yes "$default_cus"

for var in POCL_AFFINITY POCL_PTHREAD_STATS POCL_PTHREAD_SKIP_CLAIMED POCL_PTHREAD_STEAL; do
  for v in "" garbage -1 $huge "On" "1x"; do
    case_ $var "$v" no "$default_cus"
  done
  case_ $var "1 " yes "$default_cus"
  case_ $var " 0" yes "$default_cus"
done

for v in "" garbage -1 $huge "5ms" "1e3"; do
  case_ POCL_PTHREAD_SPIN_US "$v" no "$default_cus"
done
case_ POCL_PTHREAD_SPIN_US "100 " yes "$default_cus"
case_ POCL_PTHREAD_SPIN_US "0" yes "$default_cus"

# Thread counts: a bad value leaves the allowed CPUs' count; PoCL alone
# would give 1 thread for "0" and 4294967295 for "-1" in
# POCL_MAX_COMPUTE_UNITS.
for var in POCL_MAX_PTHREAD_COUNT POCL_CPU_MAX_CU_COUNT POCL_MAX_COMPUTE_UNITS; do
  for v in "" garbage 0 -1 $huge "3x" "2.5"; do
    case_ $var "$v" no "$cpus"
  done
  case_ $var " 3 " yes 3
done
case_ POCL_CPU_MAX_CU_COUNT 100000 no 1024

[ "$fails" = 0 ] && echo "check_bad_env: all checks passed"
[ "$fails" = 0 ]
