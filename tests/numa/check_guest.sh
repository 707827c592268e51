#!/bin/sh
# check_guest.sh TOPOLOGY OUT TIMEOUT KCACHE PROBE OURS STOCK SPARSE TASKSET
#                AFFINITY EXACTLY_ONCE WALK HOST_RUN_CHECK HOST_RUN
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
#   - every pinned variant: a page lies on the node of the CPU that first
#     wrote it (the method; >= 0.99, Linux may place a page elsewhere when
#     a node is short of memory);
#   - ours: each sub-device (by counts of the nodes' sizes, and one per
#     node by CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN) ran only on its own
#     node, while the parent ran too, and the pages a NUMA sub-device first
#     wrote lie on its node;
#   - ours, with and without POCL_AFFINITY: the affinity domains offered
#     are those QEMU gives the guest (NUMA, L3, L2, L1); each domain's
#     sub-devices, as many as the guest has such domains, ran only in
#     their domain (one node, one cache as the guest's sysfs names it);
#     NEXT_PARTITIONABLE splits by node, then L3 (3node), then L2;
#   - ours without POCL_AFFINITY (and stealing off, so that every worker
#     runs part of each of its sub-devices): the workers start unpinned;
#     after the sub-devices per node each is bound to its node's CPUs,
#     and after the cache sub-devices to its own CPU (L1 and L2 are per
#     CPU here);
#   - ours static with stealing: work leaves its owner's node only through
#     takeovers and steals across nodes, which the statistics count: with
#     none counted (cross-node=0), first-touch and reuse fractions >= 0.99,
#     as with stealing off.  How much is stolen depends on how the host
#     schedules the guest's CPUs (an emulator's CPUs are host threads; a
#     loaded host gave reuse 0.80 where a quiet one gives 0.94), so the
#     fractions themselves are printed, not asserted;
#   - 2x2: cl_taskset_sparse_{static,guided} (check_sparse_cpus.sh);
#   - ours and stock: every partition type walked as the conformance tests
#     walk it (partition_walk.c) ends with CL_DEVICE_PARTITION_FAILED;
#   - 2x2: cl_host_run_domain (a launch of a node's sub-device is left to
#     its workers), which cannot run on one node;
#   - a directory under /tmp with a blank in its name, holding a file of
#     the root and a share the guest may write: the job sees the one and
#     writes the other (the private /tmp once hid both, guest-init).
# Printed: every variant's figures (make bench's table comes from them).
set -u
topology=$1 out=$2 timeout_s=$3 kcache=$4
shift 4
here=$(cd "$(dirname "$0")" && pwd)
fails=0
fail () { echo "FAIL: $*"; fails=$((fails + 1)); }

mkdir -p "$out"
rm -f "$out"/*.out "$out"/*.err "$out"/*.rc
# The share under /tmp, with a blank in its path.
tmpcheck=$(mktemp -d "/tmp/pocl-steal guest.XXXXXX") || exit 1
trap 'rm -rf "$tmpcheck"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
token="seen $(date +%s) $$"
echo "$token" >"$tmpcheck/from-root"
mkdir "$tmpcheck/rw"
boot () {
  GUEST_RW="$kcache
$tmpcheck/rw" "$here/guest.sh" "$topology" "$out" "$timeout_s" \
    "$here/guest-job.sh" "$topology" "$1" "$2" "$3" "$kcache" "$4" "$5" "$6" \
    "$7" "$8" "$9" "${10}" "$tmpcheck"
}
boot "$@"
rc=$?
# A kernel that stalled before /init (75, guest.sh) is booted once more;
# the log keeps the first attempt's console.
if [ $rc = 75 ]; then
  echo "note: the guest did not boot (console: $out/console.first.log); booting it once more"
  mv -f "$out/console.log" "$out/console.first.log" 2>/dev/null
  boot "$@"
  rc=$?
fi
[ $rc = 77 ] && exit 77
cat "$out/guest.log" 2>/dev/null
[ $rc = 0 ] || { echo "FAIL: the guest's job failed (exit $rc)"; exit 1; }

field () { # FILE LINE-KEY FIELD
  sed -n "s/^$2 .*$3=\([^ ]*\).*/\1/p" "$1" | head -n 1
}
at_least () { # VALUE MIN
  awk -v v="$1" -v m="$2" 'BEGIN { exit !(v != "" && v + 0 >= m + 0) }'
}

# Per topology: nodes, the placement of all and of half the threads, the
# number of sub-devices per domain kind, NEXT_PARTITIONABLE's chain, and
# each worker's CPUs once bound to its node.  Both guests have an L3 per
# 2 CPUs (a socket), an L2 and an L1 per CPU.
case "$topology" in
  2x2) nodes=2 full="0:0 1:0 2:1 3:1" half=""
       per_kind="numa:2 l3:2 l2:4 l1:4" chain="0x1:2,0x8:2,"
       node_bound="0-1 0-1 2-3 2-3" own_bound="0 1 2 3" ;;
  3node) nodes=3 full="0:0 1:0 2:0 3:0 4:1 5:1 6:2 7:2" half="0:0 2:0 4:1 6:2"
       per_kind="numa:3 l3:4 l2:8 l1:8" chain="0x1:3,0x4:2,0x8:2,"
       node_bound="0-3 0-3 0-3 0-3 4-5 4-5 6-7 6-7" own_bound="0 1 2 3 4 5 6 7" ;;
esac
domains_want=0x3d # NUMA | L3 | L2 | L1 | NEXT_PARTITIONABLE
bound () { # FILE STEP: each worker's allowed CPUs after STEP, in order
  sed -n "s/^bound [0-9]* after=$2 allowed=\(.*\)/\1/p" "$1" | tr '\n' ' '
}

runs=$(cd "$out" && ls *.rc | sed 's/\.rc$//')
printf '%-22s %8s %8s %8s %8s %10s\n' run first-touch runner reuse home cross-node
for r in $runs; do
  f="$out/$r.out" e="$out/$r.err"
  [ "$(cat "$out/$r.rc")" = 0 ] || { fail "$r exited $(cat "$out/$r.rc"): $(tail -n 3 "$e")"; continue; }
  # Runs of a test program of their own: its verdict line.
  case "$r" in
    sparse-*) verdict="check_sparse_cpus: all checks passed" ;;
    walk-*) verdict="partition_walk: all checks passed" ;;
    host-run-domain) verdict="check_host_run expect-domain: passed" ;;
    *) verdict= ;;
  esac
  if [ -n "$verdict" ]; then
    grep -q "$verdict" "$f" || fail "$r: $(tail -n 3 "$f") $(tail -n 3 "$e")"
    continue
  fi
  owner=$(field "$f" first_touch owner) runner=$(field "$f" first_touch runner)
  reuse=$(field "$f" reuse local) home=$(field "$f" home exact)
  cross=$(sed -n 's/.*cross-node=\([0-9]*\).*/\1/p' "$e" | head -n 1)
  printf '%-22s %8s %8s %8s %8s %10s\n' "$r" "$owner" "$runner" "$reuse" "$home" "${cross:--}"
  [ "$(field "$f" where invalid)" = 0 ] || fail "$r: TSC_AUX readings invalid: $(grep '^where' "$f")"
  [ "$(field "$f" machine nodes)" = "$nodes" ] || fail "$r: $(grep '^machine' "$f"), want nodes=$nodes"
  # Unpinned threads may move between writing a page and reading TSC_AUX.
  [ "$r" = ours-unpinned ] || at_least "$runner" 0.99 || fail "$r: pages on their first writer's node: $runner, want >= 0.99"
  [ "$(field "$f" first_touch untouched)" = 0 ] || fail "$r: pages never written: $(grep '^first_touch' "$f")"
  case "$r" in
    ours-*)
      grep -qi warning "$e" && fail "$r: a warning: $(grep -i warning "$e")"
      want=$full
      [ "$r" = ours-static-half ] && want=$half
      got=$(sed -n 's/^worker \([0-9]*\) cpu=\([0-9-]*\) node=\([0-9-]*\)/\2:\3/p' "$f" | tr '\n' ' ')
      kinds="counts numa"
      if [ "$r" = ours-unpinned ]; then
        kinds=numa
        [ "$(field "$f" machine pinning)" = index ] || fail "$r: workers pinned before any sub-device: $(grep '^worker' "$f" | tr '\n' ' ')"
        [ "$(bound "$f" by-node)" = "$node_bound " ] || fail "$r: after the node sub-devices, workers bound to '$(bound "$f" by-node)', want '$node_bound'"
      else
        [ "$got" = "$want " ] || fail "$r: workers on cpu:node '$got', want '$want'"
      fi
      if grep -q '^domains ' "$f"; then
        [ "$(field "$f" domains affinity_domain)" = $domains_want ] || fail "$r: $(grep '^domains' "$f"), want affinity_domain=$domains_want"
        for kn in $per_kind; do
          kind=${kn%:*} n=0
          for w in $(sed -n "s/^subdevice .* kind=$kind .* within=\([^ ]*\).*/\1/p" "$f"); do
            [ "$w" = 1 ] || fail "$r: $kind sub-device $n ran in $w domains, want 1"
            n=$((n + 1))
          done
          [ "$kind:$n" = "$kn" ] || fail "$r: $n $kind sub-devices, want ${kn#*:}"
        done
        got_chain=$(field "$f" next chain)
        case "$got_chain" in "$chain"end=*) ;; *)
          fail "$r: NEXT_PARTITIONABLE chain $got_chain, want ${chain}end=ERROR" ;;
        esac
        [ "$(bound "$f" domains)" = "$own_bound " ] || fail "$r: after the cache sub-devices, workers bound to '$(bound "$f" domains)', want '$own_bound'"
      fi
      for kind in $kinds; do
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
      [ -n "$cross" ] || fail "$r: no cross-node count in its statistics"
      if [ "${cross:-1}" = 0 ]; then
        at_least "$owner" 0.99 || fail "$r: no cross-node takeover or steal, but first-touch fraction $owner, want >= 0.99"
        at_least "$reuse" 0.99 || fail "$r: no cross-node takeover or steal, but reuse fraction $reuse, want >= 0.99"
      fi ;;
  esac
done
want_runs="ours-static ours-static-nosteal ours-guided ours-unpinned stock walk-ours walk-stock"
[ "$topology" = 2x2 ] && want_runs="$want_runs host-run-domain"
for r in $want_runs; do
  [ -f "$out/$r.rc" ] || fail "no run $r"
done
[ "$(cat "$tmpcheck/rw/from-guest" 2>/dev/null)" = "$token" ] ||
  fail "the guest did not see its share under /tmp, '$tmpcheck': it wrote '$(cat "$tmpcheck/rw/from-guest" 2>/dev/null)', want '$token'"
# The walks' answers at the root and at the first level, for the record.
grep -h '^[a-z0-9]* level [01]:' "$out/walk-ours.out" 2>/dev/null | sed 's/^/walk-ours: /'
[ "$fails" = 0 ] && echo "check_guest $topology: all checks passed"
[ "$fails" = 0 ]
