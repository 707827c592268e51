#!/bin/sh
# check_stack_limit.sh STACK_LIMIT: the stack our workers get, seen through
# the work-group size limit PoCL's stack-size check derives from it
# (HOST_CPU_ENABLE_STACK_SIZE_CHECK; the Yggdrasil recipe turns it on).  A
# thread's default stack follows the soft stack limit (ulimit -s), so:
#   - 4 MiB: the workers are raised to 8 MiB, the same limit as at 8 MiB;
#   - 64 MiB: the workers keep the larger default, a larger limit (they
#     were shrunk to 8 MiB before).
# Each run has an empty kernel cache of its own, and its kernel must run
# at the limit it got.
set -u
prog=$1
fails=0
fail () { echo "FAIL: $*"; fails=$((fails + 1)); }
dir=$(mktemp -d "${TMPDIR:-/tmp}/stack_limit.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT INT TERM

limit_at () # KIB: the work-group limit with a stack limit of KIB KiB
{
  mkdir -p "$dir/$1"
  out=$(ulimit -s "$1" && POCL_CACHE_DIR="$dir/$1" "$prog" 2>&1)
  rc=$?
  printf 'ulimit -s %s: status %s\n%s\n' "$1" "$rc" "$out" >&2
  [ "$rc" = 0 ] || { echo "FAIL: the kernel did not run correctly with ulimit -s $1" >&2; return; }
  printf '%s\n' "$out" | sed -n 's/^work-group limit \([0-9]*\) of \([0-9]*\)$/\1 \2/p'
}

set -- $(limit_at 8192); at8=${1:-0} max=${2:-0}
set -- $(limit_at 4096); at4=${1:-0}
set -- $(limit_at 65536); at64=${1:-0}
echo "work-group limits: $at4 at 4 MiB, $at8 at 8 MiB, $at64 at 64 MiB (device: $max)"
[ "$at8" -gt 0 ] && [ "$at8" -lt "$max" ] ||
  fail "the kernel's limit at 8 MiB ($at8) is not below the device's ($max): no stack-size check in this PoCL?"
[ "$at4" = "$at8" ] || fail "with a 4 MiB default the workers did not get 8 MiB ($at4 vs $at8)"
[ "$at64" -gt "$at8" ] || fail "with a 64 MiB default the workers got no more than 8 MiB ($at64 vs $at8)"
[ "$fails" = 0 ] && echo "check_stack_limit: all checks passed"
[ "$fails" = 0 ]
