#!/bin/sh
# check_sparse_cpus.sh TASKSET AFFINITY EXACTLY_ONCE: under a CPU set with a
# hole (the first and third CPU this process may use), pinned workers stay
# on those two CPUs and kernels run correctly, pinned and unpinned.  Needs
# three allowed CPUs; with fewer there is no such set, and the test reports
# itself skipped (exit 77): the placement unit test covers sets with holes
# on made-up machines.
set -u
taskset=$1 affinity=$2 exactly_once=$3
cpus=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status |
       tr ',' '\n' | awk -F- '{ hi = ($2 == "") ? $1 : $2; for (c = $1; c <= hi; c++) print c }')
first=$(printf '%s\n' $cpus | sed -n 1p)
third=$(printf '%s\n' $cpus | sed -n 3p)
if [ -z "$third" ]; then
  echo "SKIP: $(printf '%s\n' $cpus | wc -l) allowed CPU(s); a set with a hole needs 3"
  exit 77
fi
set_="$first,$third"
fails=0
out=$(POCL_AFFINITY=1 "$taskset" -c "$set_" "$affinity" pinned 2>&1) || fails=$((fails + 1))
printf '%s\n' "$out" | tail -n 3
printf '%s\n' "$out" | grep -q "workers pinned to 2 distinct CPUs of 2 allowed" ||
  { echo "FAIL: workers not pinned to the two allowed CPUs $set_"; fails=$((fails + 1)); }
for a in 0 1; do
  POCL_AFFINITY=$a "$taskset" -c "$set_" "$exactly_once" >/dev/null 2>&1 ||
    { echo "FAIL: exactly_once under taskset -c $set_, POCL_AFFINITY=$a"; fails=$((fails + 1)); }
done
[ "$fails" = 0 ] && echo "check_sparse_cpus: all checks passed on CPUs $set_"
[ "$fails" = 0 ]
