#!/bin/sh
# check_smoke.sh RUN_BENCH BUILD OUT: the benchmarks in smoke mode (tiny
# sizes, one round); passes if they all ran and wrote the report, the CSV
# files and the plots, and the report's header says what was measured
# (machine, git revision, C compiler, LLVM, command line), and the launch
# cost has rows for each other PoCL version built and for PoCL's own
# floor, and section 1g (PoCL-R) ran where it can.  Figures are not
# judged.
set -u
run=$1 build=$2 out=$3
rm -rf "$out"
python3 "$run" --build "$build" --out "$out" --smoke --threads 2 || { echo "FAIL: run_bench.py failed"; exit 1; }
fails=0
fail () { echo "FAIL: $*"; fails=$((fails + 1)); }
for f in report.md launch.csv share.csv contention.csv divrem.csv waiters.csv uneven.csv locality.csv bandwidth.csv dispatch.csv simulated.csv \
         launch-stock.png launch-host.png launch-peers.png uneven.png locality-static.png dispatch.png \
         simulated.png; do
  [ -s "$out/$f" ] || fail "$f missing or empty"
done
report=$out/report.md
grep -q "^# pocl-steal benchmark report" "$report" || fail "no report title"
grep -q "not drawn\|gnuplot failed" "$report" && fail "a plot was not drawn"
# The header: the revision may be unknown (no git), the toolchain may not:
# the build that ran the benchmarks has a CMakeCache.txt and a PoCL build.
grep -q "^- machine: " "$report" || fail "no machine line in the report"
grep -Eq '^- revision: ([0-9a-f]{4,40}(-dirty)?|unknown)( \(.*\))?$' "$report" ||
  fail "no revision line in the report: $(grep '^- revision' "$report")"
grep -Eq '^- C compiler: [^ ].*\(`[^`]+`\)$' "$report" &&
  ! grep -q '^- C compiler: unknown' "$report" ||
  fail "no C compiler and version in the report: $(grep '^- C compiler' "$report")"
grep -Eq '^- LLVM: [0-9]+\.[0-9]+' "$report" ||
  fail "no LLVM version in the report: $(grep '^- LLVM' "$report")"
grep -q '^- command: `.*run_bench\.py .*--smoke' "$report" ||
  fail "no command line in the report: $(grep '^- command' "$report")"
# The launch-cost table has PoCL's own floor and OpenMP's (one thread's
# share, alone) and the ratios to them.
grep -q "| PoCL floor (work-groups / threads, alone) |" "$report" &&
  grep -q "| omp, one thread's share |" "$report" &&
  grep -q "| static / PoCL floor |" "$report" &&
  grep -q "| PoCL floor / omp, one thread's share |" "$report" ||
  fail "the launch-cost table has no PoCL floor rows"
# The launch-cost table has stock and ours of each other PoCL version built.
for tree in "$build"/pocl-*/pocl-src; do
  [ -f "$tree/.pocl-steal-version" ] || continue
  v=$(cut -d' ' -f1 "$tree/.pocl-steal-version")
  grep -q "| stock PoCL $v |" "$report" && grep -q "| static / stock (PoCL $v) |" "$report" ||
    fail "the launch-cost table has no rows for PoCL $v"
done
# Section 1g (PoCL-R) runs where there is a 7.2 build with pocld and a
# network namespace can be made (root); elsewhere it says why not.
if [ "$(id -u)" = 0 ] && { [ -x "$build/prefix/ours/bin/pocld" ] || [ -x "$build/pocl-7.2/prefix/ours/bin/pocld" ]; }; then
  for f in remote-launch.csv remote-split.csv; do
    [ -s "$out/$f" ] || fail "$f missing or empty: $(grep -A1 '^## 1g' "$report" | tail -n 1)"
  done
else
  grep -A2 '^## 1g' "$report" | grep -q '^Not measured: ' || fail "section 1g neither measured nor says why not"
fi
[ "$fails" = 0 ] && echo "bench smoke: all benchmarks ran, report and plots written"
[ "$fails" = 0 ]
