#!/bin/sh
# run_spin.sh MODEL WORKDIR: checks the dispatch model with Spin for 2 and 3
# threads and 0..6 work-groups: safety (assertions, end states) and
# non-progress cycles.  Fails on any error Spin reports.
set -eu
model=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
work=$2
mkdir -p "$work"
cd "$work"
checked=0
for nt in 2 3; do
  for g in 0 1 2 3 4 5 6; do
    spin -a -DNT=$nt -DG=$g "$model" >spin.out 2>&1 || { echo "FAIL: spin -a, $nt threads, $g work-groups:"; cat spin.out; exit 1; }
    gcc -O2 -w -DSAFETY -DVECTORSZ=2048 -o pan_safety pan.c
    ./pan_safety -m200000 >safety.out 2>&1 || true
    if ! grep -q "errors: 0" safety.out; then
      echo "FAIL: safety, $nt threads, $g work-groups:"
      cat safety.out
      exit 1
    fi
    gcc -O2 -w -DNP -DVECTORSZ=2048 -o pan_np pan.c
    ./pan_np -l -m200000 >np.out 2>&1 || true
    if ! grep -q "errors: 0" np.out; then
      echo "FAIL: non-progress cycle, $nt threads, $g work-groups:"
      cat np.out
      exit 1
    fi
    states=$(sed -n 's/^ *\([0-9.e+]*\) states, stored.*/\1/p' safety.out | head -n 1)
    echo "$nt threads, $g work-groups: no errors ($states states)"
    checked=$((checked + 1))
  done
done
echo "spin: $checked configurations checked, no errors"
