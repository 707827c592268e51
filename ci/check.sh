#!/usr/bin/env bash
# Usage: ci/check.sh   (run inside ci/enter.sh; `make check` does that)
# Builds everything, runs every test and ends with "N passed, N failed".
# A build that fails counts as one failed test.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd -P)
build="$top/build"

if ! "$top/ci/build.sh"; then
  echo "the build failed"
  echo "0 passed, 1 failed"
  exit 1
fi

log="$build/check.log"
# As many tests at once as there are CPUs: most wait on threads or on the
# kernel cache more than they compute, and none depends on timing.  The
# PoCL builds' own suites and the recipe's build run alone (RUN_SERIAL).
ctest --test-dir "$build" --output-on-failure -j "$(nproc)" ${CTEST_ARGS:-} 2>&1 | tee "$log"
summary=$(grep -E '^[0-9]+% tests passed, [0-9]+ tests? failed out of [0-9]+' "$log" | tail -n 1)
if [ -z "$summary" ]; then
  echo "ctest printed no summary"
  echo "0 passed, 1 failed"
  exit 1
fi
failed=$(echo "$summary" | sed -E 's/.* ([0-9]+) tests? failed out of ([0-9]+).*/\1/')
total=$(echo "$summary" | sed -E 's/.* failed out of ([0-9]+).*/\1/')
# ctest counts a skipped test (SKIP_RETURN_CODE) as passed; we do not.
skipped=$(sed -n '/^The following tests did not run:/,/^$/p' "$log" | grep -c '(Skipped)')
if [ "$skipped" -gt 0 ]; then
  echo "$skipped test(s) skipped, not counted as passed:"
  sed -n '/^The following tests did not run:/,/^$/p' "$log" | grep '(Skipped)'
fi
# The PoCL versions whose tests did not run (cmake/PoclVersions.cmake).
if grep -q ' missing ' "$build/pocl-versions.txt" 2>/dev/null; then
  echo "PoCL versions whose tests did not run:"
  sed -n 's/^\([^ ]*\) missing \(.*\)$/\tPoCL \1: \2/p' "$build/pocl-versions.txt"
fi
echo "$((total - failed - skipped)) passed, $failed failed"
[ "$failed" -eq 0 ]
