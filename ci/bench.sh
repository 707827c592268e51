#!/usr/bin/env bash
# Usage: ci/bench.sh [run_bench.py options]   (run inside ci/enter.sh;
# `make bench` does that)
# Builds everything, then runs the benchmarks; the report, CSV files and
# plots go to build/bench-report/.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd -P)
"$top/ci/build.sh"
exec python3 "$top/bench/run_bench.py" --build "$top/build" "$@"
