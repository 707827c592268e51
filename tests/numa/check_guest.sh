#!/bin/sh
# check_guest.sh TOPOLOGY OUT TIMEOUT KCACHE PROBE OURS STOCK SPARSE TASKSET
#                AFFINITY EXACTLY_ONCE
# Boots the emulated NUMA guest (guest.sh) with TOPOLOGY (2x2 or 3node),
# runs guest-job.sh in it and judges what it left in OUT.  Skipped (77)
# where the guest cannot run.
#
# Asserted, because it cannot depend on the host's load:
#   - every run ended well; the probe's TSC_AUX readings are valid;
#   - ours: the worker -> CPU placement is exactly the documented one
#     (proportional over nodes, consecutive threads on one node, cores
#     before SMT siblings), with no warning (libnuma saw the nodes);
#   - ours with stealing off: every work-group ran on its static owner's
#     CPU, and (first touch) every page lies on that CPU's node;
#   - every variant: a page lies on the node of the CPU that first wrote
#     it (the method; >= 0.99, Linux may place a page elsewhere when a
#     node is short of memory);
#   - ours: each sub-device (by counts of the nodes' sizes, and one per
#     node by CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN) ran only on its own
#     node, while the parent ran too, and the pages a NUMA sub-device first
#     wrote lie on its node;
#   - ours static with stealing: first-touch and reuse fractions >= 0.8,
#     where a random assignment gives 1 / nodes (0.5 or less).  Stealing
#     moves work from a descheduled thread, never most of it;
#   - 2x2: cl_taskset_sparse_{static,guided} (check_sparse_cpus.sh).
# Printed: every variant's figures (make bench's table comes from them).
set -u
topology=$1 out=$2 timeout_s=$3 kcache=$4
shift 4
here=$(cd "$(dirname "$0")" && pwd)
fails=0
fail () { echo "FAIL: $*"; fails=$((fails + 1)); }

mkdir -p "$out"
rm -f "$out"/*.out "$out"/*.err "$out"/*.rc
GUEST_RW=$kcache "$here/guest.sh" "$topology" "$out" "$timeout_s" \
  "$here/guest-job.sh" "$topology" "$1" "$2" "$3" "$kcache" "$4" "$5" "$6" "$7"
rc=$?
[ $rc = 77 ] && exit 77
cat "$out/guest.log" 2>/dev/null
[ $rc = 0 ] || { echo "FAIL: the guest's job failed (exit $rc)"; exit 1; }

field () { # FILE LINE-KEY FIELD
  sed -n "s/^$2 .*$3=\([^ ]*\).*/\1/p" "$1" | head -n 1
}
at_least () { # VALUE MIN
  awk -v v="$1" -v m="$2" 'BEGIN { exit !(v != "" && v + 0 >= m + 0) }'
}

case "$topology" in
  2x2) nodes=2 full="0:0 1:0 2:1 3:1" half="" ;;
  3node) nodes=3 full="0:0 1:0 2:0 3:0 4:1 5:1 6:2 7:2" half="0:0 2:0 4:1 6:2" ;;
esac

runs=$(cd "$out" && ls *.rc | sed 's/\.rc$//')
printf '%-22s %8s %8s %8s %8s %10s\n' run first-touch runner reuse home cross-node
for r in $runs; do
  f="$out/$r.out" e="$out/$r.err"
  [ "$(cat "$out/$r.rc")" = 0 ] || { fail "$r exited $(cat "$out/$r.rc"): $(tail -n 3 "$e")"; continue; }
  case "$r" in sparse-*)
    grep -q "check_sparse_cpus: all checks passed" "$f" || fail "$r: $(tail -n 3 "$f")"
    continue ;;
  esac
  owner=$(field "$f" first_touch owner) runner=$(field "$f" first_touch runner)
  reuse=$(field "$f" reuse local) home=$(field "$f" home exact)
  cross=$(sed -n 's/.*cross-node=\([0-9]*\).*/\1/p' "$e" | head -n 1)
  printf '%-22s %8s %8s %8s %8s %10s\n' "$r" "$owner" "$runner" "$reuse" "$home" "${cross:--}"
  [ "$(field "$f" where invalid)" = 0 ] || fail "$r: TSC_AUX readings invalid: $(grep '^where' "$f")"
  [ "$(field "$f" machine nodes)" = "$nodes" ] || fail "$r: $(grep '^machine' "$f"), want nodes=$nodes"
  at_least "$runner" 0.99 || fail "$r: pages on their first writer's node: $runner, want >= 0.99"
  [ "$(field "$f" first_touch untouched)" = 0 ] || fail "$r: pages never written: $(grep '^first_touch' "$f")"
  case "$r" in
    ours-*)
      grep -qi warning "$e" && fail "$r: a warning: $(grep -i warning "$e")"
      want=$full
      [ "$r" = ours-static-half ] && want=$half
      got=$(sed -n 's/^worker \([0-9]*\) cpu=\([0-9-]*\) node=\([0-9-]*\)/\2:\3/p' "$f" | tr '\n' ' ')
      [ "$got" = "$want " ] || fail "$r: workers on cpu:node '$got', want '$want'"
      for kind in counts numa; do
        k=0
        for n in $(sed -n "s/^subdevice .* kind=$kind .* nodes=\([^ ]*\).*/\1/p" "$f"); do
          [ "$n" = "$k" ] || fail "$r: $kind sub-device $k ran on nodes $n, want $k"
          k=$((k + 1))
        done
        case "$r" in ours-static-nosteal|ours-static-half) ;; *)
          [ "$k" = "$nodes" ] || fail "$r: $k $kind sub-devices, want $nodes" ;;
        esac
      done
      for ft in $(sed -n 's/^subdevice .* kind=numa .* first_touch=\([0-9.]*\).*/\1/p' "$f"); do
        at_least "$ft" 0.99 || fail "$r: a NUMA sub-device's pages on its node: $ft, want >= 0.99"
      done ;;
  esac
  case "$r" in
    ours-static-nosteal)
      [ "$home" = 1.0000 ] || fail "$r: work-groups on their owner's CPU: $home, want 1.0000"
      at_least "$owner" 0.99 || fail "$r: pages on their owner's node: $owner, want >= 0.99" ;;
    ours-static)
      at_least "$owner" 0.8 || fail "$r: first-touch fraction $owner, want >= 0.8"
      at_least "$reuse" 0.8 || fail "$r: reuse fraction $reuse, want >= 0.8" ;;
  esac
done
for r in ours-static ours-static-nosteal ours-guided stock; do
  [ -f "$out/$r.rc" ] || fail "no run $r"
done
[ "$fails" = 0 ] && echo "check_guest $topology: all checks passed"
[ "$fails" = 0 ]
