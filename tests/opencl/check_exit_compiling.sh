#!/bin/sh
# check_exit_compiling.sh CL_LIFECYCLE [ROUNDS]: exit() while a worker
# builds a kernel (cl_lifecycle exit-compiling), ROUNDS times (default 8),
# each with an empty kernel cache of its own so that the build happens in
# the worker.  The process must end with status 0: before the driver
# waited for such a build at exit, LLVM's static objects were destroyed
# under it and the program crashed (SIGSEGV, or SIGABRT from a pure
# virtual call in LLVM's option parser; 4 of 20 runs).  Now, before each
# build, the driver registers an atexit handler that waits for it, which
# exit runs before the destructors of LLVM's static objects.  A build's
# first use of a static object is still not covered.
set -u
prog=$1 rounds=${2:-8}
fails=0
fail () { echo "FAIL: $*"; fails=$((fails + 1)); }
dir=
trap '[ -n "$dir" ] && rm -rf "$dir"' EXIT INT TERM
i=0
while [ "$i" -lt "$rounds" ]; do
  i=$((i + 1))
  dir=$(mktemp -d "${TMPDIR:-/tmp}/exit_compiling.XXXXXX") || exit 1
  out=$(POCL_CACHE_DIR=$dir "$prog" exit-compiling 2>&1)
  rc=$?
  printf 'round %s: status %s\n%s\n' "$i" "$rc" "$out"
  [ "$rc" = 0 ] || fail "round $i: cl_lifecycle exit-compiling exited with $rc"
  printf '%s\n' "$out" | grep -q '^exiting while a worker builds the kernel$' ||
    fail "round $i: the program did not reach exit()"
  rm -rf "$dir"
  dir=
done
[ "$fails" = 0 ] && echo "check_exit_compiling: all checks passed"
[ "$fails" = 0 ]
