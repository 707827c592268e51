#!/bin/sh
# check_smoke.sh RUN_BENCH BUILD OUT: the benchmarks in smoke mode (tiny
# sizes, one round); passes if they all ran and wrote the report, the CSV
# files and the plots.  Figures are not judged.
set -u
run=$1 build=$2 out=$3
rm -rf "$out"
python3 "$run" --build "$build" --out "$out" --smoke --threads 2 || { echo "FAIL: run_bench.py failed"; exit 1; }
fails=0
for f in report.md launch.csv uneven.csv locality.csv bandwidth.csv dispatch.csv \
         launch.png uneven.png locality-static.png dispatch.png; do
  [ -s "$out/$f" ] || { echo "FAIL: $f missing or empty"; fails=$((fails + 1)); }
done
grep -q "^# pocl-steal benchmark report" "$out/report.md" || { echo "FAIL: no report title"; fails=$((fails + 1)); }
grep -q "not drawn\|gnuplot failed" "$out/report.md" && { echo "FAIL: a plot was not drawn"; fails=$((fails + 1)); }
[ "$fails" = 0 ] && echo "bench smoke: all benchmarks ran, report and plots written"
[ "$fails" = 0 ]
