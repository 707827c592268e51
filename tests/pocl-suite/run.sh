#!/usr/bin/env bash
# Usage: run.sh POCL_BUILD_DIR VARIANT SCHEDULE RESULTS_DIR [VERSION]
#
# Runs PoCL's own test suite, the CPU set as tools/scripts/run_cpu_tests of
# v7.1 and v7.2 runs it (POCL_DEVICES=cpu, ctest -LE cpu_fail), from PoCL's
# build tree, without the remote driver's tests.  VERSION names the PoCL version in the report.
#   VARIANT stock: with PoCL's own pthread module, bind-mounted over ours in
#                  a private mount namespace for the duration of the run;
#   VARIANT ours:  with our driver and POCL_PTHREAD_SCHEDULE=SCHEDULE.
# Writes RESULTS_DIR/VARIANT[-SCHEDULE].txt ("test status" per line) and the
# ctest log next to it.  For ours, fails if any test that passed on stock
# (its results file must exist) did not pass; stock itself fails only if it
# could not run.  A test that passed on stock and failed on ours is run
# once more, alone; it counts as passed only if it passes then, and the
# log names it as flaky (a few of PoCL's tests time themselves).  The
# results are in build/pocl-suite/ for the main build,
# build/pocl-suite_<version>/ for the others (tests/pocl-suite/
# CMakeLists.txt).
set -uo pipefail
build=$1 variant=$2 schedule=$3 results=$4 version=${5:-}
mkdir -p "$results"
name=$variant${schedule:+-$schedule}
log="$results/$name.log"
out="$results/$name.txt"
ours_module="$build/lib/CL/devices/pthread/libpocl-devices-pthread.so"
stock_module="$build/lib/CL/devices/pthread/stock/libpocl-devices-pthread.so"
[ -f "$ours_module" ] && [ -f "$stock_module" ] || {
  echo "FAIL: PoCL's build tree $build has no pthread modules"
  exit 1
}

export POCL_DEVICES=cpu
jobs=$(nproc)
# PoCL's remote/ tests (a 7.2 build with PoCL-R) each start a pocld of
# their own on the same fixed port (12000) and so collide when ctest runs
# them side by side; tests/remote runs our device behind pocld instead.
ctest_cmd=(ctest --test-dir "$build" -LE cpu_fail -E '^remote/' -j "$jobs" --timeout 900)
case "$variant" in
  stock)
    unset POCL_PTHREAD_SCHEDULE
    # Inside the build root, / is no mount point and the namespace we are
    # in is already private: keep propagation as it is.  Natively, make the
    # new namespace private so the bind mount stays in it.
    prop=private
    [ "${POCL_STEAL_ENV_KIND:-}" = root ] && prop=unchanged
    if [ "$(id -u)" = 0 ]; then ns=(unshare --mount --propagation "$prop")
    else ns=(unshare --map-root-user --mount --propagation "$prop"); fi
    "${ns[@]}" -- /bin/sh -c 'mount --bind "$1" "$2" && shift 2 && exec "$@"' \
      sh "$stock_module" "$ours_module" "${ctest_cmd[@]}" >"$log" 2>&1
    ;;
  ours)
    export POCL_PTHREAD_SCHEDULE=$schedule
    "${ctest_cmd[@]}" >"$log" 2>&1
    ;;
  *)
    echo "FAIL: unknown variant $variant"
    exit 1
    ;;
esac

# "  12/285 Test  #85: kernel/foo_loopvec .......   Passed    3.45 sec"
sed -n 's/^ *[0-9]*\/[0-9]* Test *#[0-9]*: \([^ ]*\) \.*[ *]*\([A-Za-z]*\).*/\1 \2/p' "$log" |
  sort >"$out"
total=$(wc -l <"$out")
passed=$(grep -c ' Passed$' "$out")
skipped=$(grep -c ' Skipped$' "$out")
other=$((total - passed - skipped))
echo "PoCL ${version:+$version }suite, $name: $total tests: $passed passed, $skipped skipped, $other failed (log: $log)"
if [ "$total" -eq 0 ]; then
  echo "FAIL: no test ran"
  tail -n 20 "$log"
  exit 1
fi
grep -v -e ' Passed$' -e ' Skipped$' "$out" | sed 's/^/  not passed: /'

[ "$variant" = ours ] || exit 0
base="$results/stock.txt"
[ -f "$base" ] || { echo "FAIL: no stock results in $base to compare with"; exit 1; }
regressions=$(join "$base" "$out" | awk '$2 == "Passed" && $3 != "Passed" { print $1 " (" $3 ")" }')
missing=$(join -v 1 "$base" "$out" | awk '$2 == "Passed" { print $1 }')
if [ -n "$regressions" ] && [ -z "$missing" ]; then
  # A few of PoCL's tests time themselves or sleep; on a busy machine one
  # can fail by luck on either variant.  Run each regression once more,
  # alone, on the same variant; it counts as passed only if it passes then,
  # and the report names it.
  names=$(printf '%s\n' $regressions | grep -v '^(' | sed 's/[][\.*^$+?(){}|]/\\&/g' | paste -sd '|')
  retry_log="$results/$name-retry.log"
  ctest --test-dir "$build" -LE cpu_fail -R "^($names)\$" --timeout 900 >"$retry_log" 2>&1
  still=$(for t in $(printf '%s\n' $regressions | grep -v '^('); do
    grep -Eq "Test +#[0-9]+: $t \.+ +Passed" "$retry_log" || echo "$t"
  done)
  if [ -z "$still" ]; then
    echo "passed on stock, failed on ours, passed when run again alone (log: $retry_log):"
    printf '%s\n' $regressions | grep -v '^(' | sed 's/^/  flaky: /'
    regressions=
  fi
fi
if [ -n "$regressions$missing" ]; then
  echo "FAIL: passed on stock but not on ours ($name):"
  printf '%s\n' $regressions $missing | sed 's/^/  /'
  exit 1
fi
echo "every test that passes on stock passes on ours ($name)"
