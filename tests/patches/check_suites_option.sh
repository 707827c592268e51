#!/bin/sh
# check_suites_option.sh TOP WORKDIR: configuring with a POCL_STEAL_SUITES
# that names anything but 7.1, 7.2, main or none stops at once with a
# message naming the value and what is accepted.
set -u
top=$1 work=$2
fails=0
fail () { echo "FAIL: $*"; fails=$((fails + 1)); }
for bad in 7.3 "7.2 8.0" guided; do
  rm -rf "$work"
  out=$(cmake -S "$top" -B "$work" "-DPOCL_STEAL_SUITES=$bad" 2>&1)
  rc=$?
  bad_word=${bad##* }
  echo "POCL_STEAL_SUITES='$bad': status $rc"
  [ "$rc" != 0 ] || fail "'$bad' was accepted"
  printf '%s\n' "$out" | tr -s ' \n' ' ' | grep -q "names '$bad_word'; accepted: versions among 7.1, 7.2 and main" ||
    { fail "no message naming '$bad_word' and the accepted values"; printf '%s\n' "$out" | tail -n 8; }
done
rm -rf "$work"
[ "$fails" = 0 ] && echo "check_suites_option: all checks passed"
[ "$fails" = 0 ]
