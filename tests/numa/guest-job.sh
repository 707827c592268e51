#!/bin/sh
# guest-job.sh TOPOLOGY PROBE OURS STOCK KCACHE SPARSE TASKSET AFFINITY
#              EXACTLY_ONCE WALK HOST_RUN_CHECK HOST_RUN TMPCHECK: what the
#              emulated NUMA guest runs (guest.sh
# boots it), in the run's directory.  One file pair NAME.out / NAME.err
# per run, and NAME.rc; tests/numa/check_guest.sh judges them.
#   PROBE         numa_probe;  OURS, STOCK: the PoCL prefixes
#   KCACHE        PoCL's kernel cache, kept between guests
#   SPARSE ...    tests/opencl/check_sparse_cpus.sh and its programs
# Runs, each with POCL_AFFINITY=1 and as many threads as CPUs:
#   ours-static, ours-guided, stock    the probe, sub-devices of one node
#                                      each, by counts and by NUMA node;
#                                      ours-static and stock also every
#                                      affinity domain (--domains)
#   ours-static-nosteal                the probe with POCL_PTHREAD_STEAL=0
#   ours-static-half (3node)           the probe with half as many threads
#   sparse-static, sparse-guided (2x2) check_sparse_cpus.sh
#   walk-ours, walk-stock              partition_walk (WALK)
#   host-run-domain (2x2)              check_host_run.sh HOST_RUN
#                                      expect-domain 1
# and one without POCL_AFFINITY:
#   ours-unpinned                      the probe with a sub-device per
#                                      node and every affinity domain,
#                                      stealing off, so that every
#                                      worker runs (and binds itself
#                                      for) each of its sub-devices
# Before them, the share under /tmp (TMPCHECK, check_guest.sh): the root's
# file TMPCHECK/from-root copied into the share TMPCHECK/rw.
set -u
topology=$1 probe=$2 ours=$3 stock=$4 kcache=$5 sparse=$6 taskset=$7
affinity=$8 exactly_once=$9 walk=${10} host_run_check=${11} host_run=${12}
tmpcheck=${13}

cp "$tmpcheck/from-root" "$tmpcheck/rw/from-guest" ||
  echo "guest-job: the share under /tmp, '$tmpcheck', is not seen"

cpus=$(nproc)
case "$topology" in
  2x2) subs=2,2 ;;
  3node) subs=4,2,2 ;;
  *) echo "unknown topology $topology"; exit 2 ;;
esac
echo "guest-job: $topology, $cpus CPUs, nodes: $(cat /sys/devices/system/node/online)"
for c in /sys/devices/system/cpu/cpu[0-9]*; do
  caches=
  for i in "$c"/cache/index*; do
    [ -d "$i" ] || continue
    caches="$caches L$(cat "$i/level")$(cut -c1 "$i/type" | tr DIU diu):$(cat "$i/shared_cpu_list")"
  done
  echo "  $(basename "$c"): siblings $(cat "$c/topology/thread_siblings_list");${caches:- no caches}"
done

run () { # NAME PREFIX SCHEDULE THREADS COMMAND...
  name=$1 prefix=$2 sched=$3 threads=$4
  shift 4
  t0=$(date +%s)
  env OCL_ICD_VENDORS="$prefix/etc/OpenCL/vendors" POCL_CACHE_DIR="$kcache" \
      POCL_AFFINITY=1 POCL_CPU_MAX_CU_COUNT="$threads" \
      ${sched:+POCL_PTHREAD_SCHEDULE=$sched} "$@" >"$name.out" 2>"$name.err"
  echo $? >"$name.rc"
  echo "guest-job: $name: exit $(cat "$name.rc") in $(($(date +%s) - t0)) s"
}

run ours-static "$ours" static "$cpus" env POCL_PTHREAD_STATS=1 \
  "$probe" --subdevices $subs --by-node --domains
run ours-unpinned "$ours" static "$cpus" env -u POCL_AFFINITY \
  POCL_PTHREAD_STEAL=0 "$probe" --by-node --domains
run ours-static-nosteal "$ours" static "$cpus" env POCL_PTHREAD_STATS=1 \
  POCL_PTHREAD_STEAL=0 "$probe"
run ours-guided "$ours" guided "$cpus" env POCL_PTHREAD_STATS=1 \
  "$probe" --subdevices $subs --by-node
run stock "$stock" "" "$cpus" "$probe" --subdevices $subs --by-node \
  --domains
for v in ours stock; do
  eval prefix=\$$v
  run walk-$v "$prefix" "" "$cpus" "$walk" $v
done
if [ "$topology" = 3node ]; then
  run ours-static-half "$ours" static $((cpus / 2)) env POCL_PTHREAD_STATS=1 \
    "$probe"
else
  for s in static guided; do
    run sparse-$s "$ours" $s "$cpus" "$sparse" "$taskset" "$affinity" \
      "$exactly_once"
  done
  run host-run-domain "$ours" static "$cpus" "$host_run_check" "$host_run" \
    expect-domain 1
fi
exit 0
