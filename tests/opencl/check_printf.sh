#!/bin/sh
# check_printf.sh PROGRAM GROUPS: runs PROGRAM GROUPS and checks that its
# output holds "pocl-steal printf group i of GROUPS" exactly once for each
# i in 0..GROUPS-1, each on a line of its own.
set -u
prog=$1 groups=$2
out=$("$prog" "$groups") || { echo "FAIL: $prog exited with $?"; exit 1; }
lines=$(printf '%s\n' "$out" | grep -c "pocl-steal printf")
whole=$(printf '%s\n' "$out" | grep -cx "pocl-steal printf group [0-9]* of $groups")
distinct=$(printf '%s\n' "$out" | grep -x "pocl-steal printf group [0-9]* of $groups" | sort -u | wc -l)
echo "printf: $lines lines, $whole whole, $distinct distinct, $groups expected"
if [ "$lines" -ne "$groups" ] || [ "$whole" -ne "$groups" ] || [ "$distinct" -ne "$groups" ]; then
  echo "FAIL: printf output lost, repeated or broken"
  exit 1
fi
echo "printf_groups: all checks passed"
