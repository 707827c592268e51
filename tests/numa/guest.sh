#!/usr/bin/env bash
# guest.sh TOPOLOGY OUT TIMEOUT JOB [ARG...]: boots an emulated NUMA
# machine, runs the shell script JOB with ARGs in it, and returns JOB's
# exit status; its output is OUT/guest.log, the guest's console
# OUT/console.log.
#
#   TOPOLOGY  2x2      2 nodes of 2 CPUs (one core each), 768 MiB per node
#             3node    3 nodes of 4, 2 and 2 CPUs, 2 SMT threads per core
#                      (CPUs 2k and 2k+1 are siblings), 768/512/512 MiB
#   OUT       a directory (made if missing); the guest writes into it
#   TIMEOUT   seconds for the whole guest, boot included
#   GUEST_RW  (environment) more directories, one per line, that the
#             guest may write, at their own paths (a kernel cache)
#
# Any path works: under /tmp (the guest's private /tmp shows what the root
# has there, guest-init), under a symbolic link (the shares are resolved
# here, and the root this runs in has the checkout at its resolved path,
# ci/enter.sh), and with blanks or commas in it (encoded on the kernel's
# command line, doubled in QEMU's options).
#
# QEMU in TCG mode (KVM guests hang on these hosts), Debian's kernel and a
# busybox initramfs (tests/numa/kit.sh); the guest's root is the root this
# runs in, read-only over 9p, so every path (the build, the PoCL prefixes,
# JOB) is the same inside.  JOB runs with OUT as its working directory and
# a private /tmp.  The CPU is "max", all TCG has (AVX2, no AVX-512); with
# SMT, QEMU warns that its AMD CPU family has no hyperthreading, but the
# guest's sysfs shows the siblings (asking for topoext instead hangs the
# guest).  QEMU's own messages go to OUT/qemu.log.
#
# QEMU always ends, and this script with it:
#   - the guest powers off after JOB; a guest that has written JOB's status
#     but has not powered off 30 s later is stopped (a guest kernel starved
#     of time by a busy host can stall its console and never get to
#     poweroff; the status is on the host already);
#   - a guest that has not come up (OUT/guest.up) after 180 s is given up;
#   - timeout(1) ends QEMU after TIMEOUT seconds;
#   - this script's exit and signals (trap) kill timeout(1), and QEMU gets
#     SIGKILL when timeout(1) dies (each has PR_SET_PDEATHSIG, set by
#     setpriv(1): the flag is not inherited through fork, so QEMU needs its
#     own);
#   - this script stops QEMU and exits when its parent has gone (a harness
#     killed by ctest's timeout does not run this script's trap).
#
# Exit status 77 (skip) where the guest cannot run: no QEMU, or no kernel
# to fetch; 124 when the guest ran out of time; 75 when it did not boot
# (its kernel stalled before /init, as TCG's timers once made it do:
# check_guest.sh boots it once more).
set -u
[ $# -ge 4 ] || { echo "usage: $0 TOPOLOGY OUT TIMEOUT JOB [ARG...]" >&2; exit 2; }
topology=$1 out=$2 timeout_s=$3 job=$4
shift 4
here=$(cd "$(dirname "$0")" && pwd)

qemu=$(command -v qemu-system-x86_64) ||
  { echo "SKIP: no qemu-system-x86_64 (Debian's qemu-system-x86)"; exit 77; }
kit=$("$here/kit.sh")
rc=$?
[ $rc = 0 ] || { [ $rc = 77 ] && echo "SKIP: no guest kernel (see above)"; exit $rc; }

case "$topology" in
  2x2)
    smp=4,sockets=2,cores=2,threads=1
    nodes=("0-1 768" "2-3 768") ;;
  3node)
    smp=8,sockets=4,cores=1,threads=2
    nodes=("0-3 768" "4-5 512" "6-7 512") ;;
  *) echo "unknown topology '$topology'; accepted: 2x2, 3node" >&2; exit 2 ;;
esac
numa=() mem=0 i=0
for n in "${nodes[@]}"; do
  read -r cpus mib <<<"$n"
  numa+=(-object "memory-backend-ram,id=m$i,size=${mib}M"
         -numa "node,nodeid=$i,cpus=$cpus,memdev=m$i")
  mem=$((mem + mib))
  i=$((i + 1))
done

# A path for the kernel's command line (guest-init decodes it) and for
# QEMU's comma-separated options.
cmdline_path () { local p=${1//%/%25}; p=${p// /%20}; echo "${p//,/%2C}"; }
qemu_path () { echo "${1//,/,,}"; }

mkdir -p "$out"
out=$(cd "$out" && pwd -P)
rw=$(cmdline_path "$out")
shares=(-virtfs "local,path=$(qemu_path "$out"),mount_tag=rw0,security_model=none,multidevs=remap")
i=1
while IFS= read -r d; do
  [ -n "$d" ] || continue
  mkdir -p "$d"
  d=$(cd "$d" && pwd -P)
  rw="$rw,$(cmdline_path "$d")"
  shares+=(-virtfs "local,path=$(qemu_path "$d"),mount_tag=rw$i,security_model=none,multidevs=remap")
  i=$((i + 1))
done <<<"${GUEST_RW:-}"
rm -f "$out/guest.status" "$out/guest.up" "$out/guest.log" "$out/console.log"
{
  echo "cd '$out'"
  printf 'exec /bin/sh'
  printf " '%s'" "$job" "$@"
  echo
} >"$out/job.sh"

pid=
stop () { [ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null; pid=; }
trap stop EXIT
trap 'stop; exit 130' INT
trap 'stop; exit 143' TERM

# QEMU's TCG sometimes aborts on an assertion of its own before the guest
# is up (iotlb_to_section, seen a few times in hundreds of boots): the job
# never ran, so the guest is started again, at most twice more.  A guest
# that came up, or any other failure, is not retried.
attempt=1
while :; do
  t0=$(date +%s) boot_s=180
  setpriv --pdeathsig KILL -- timeout -k 5 "$timeout_s" \
    setpriv --pdeathsig KILL -- "$qemu" \
    -accel tcg,thread=multi -cpu max -m "${mem}M" -smp "$smp" "${numa[@]}" \
    -kernel "$kit/vmlinuz" -initrd "$kit/initrd.img" \
    -append "console=ttyS0 quiet panic=-1 pocl_guest_rw=$rw" \
    -virtfs local,path=/,mount_tag=root,security_model=none,readonly=on,multidevs=remap \
    "${shares[@]}" \
    -nodefaults -display none -no-reboot \
    -serial "file:$out/console.log" </dev/null 2>"$out/qemu.log" &
  pid=$!
  parent=$PPID stopped= status_at=
  while kill -0 "$pid" 2>/dev/null; do
    now=$(date +%s)
    if ! kill -0 "$parent" 2>/dev/null; then
      echo "FAIL: the harness that started the guest has gone; QEMU stopped"
      exit 1
    fi
    # A guest that has not booted within a few minutes never will (a wrong
    # -cpu flag hangs it silently): stop waiting for the whole timeout.
    if [ $((now - t0)) -gt "$boot_s" ] && [ ! -f "$out/guest.up" ]; then
      echo "FAIL: the guest did not boot in $boot_s s; QEMU said: $(cat "$out/qemu.log")"
      tail -n 20 "$out/console.log"
      exit 75
    fi
    if [ -f "$out/guest.status" ]; then
      : "${status_at:=$now}"
      if [ $((now - status_at)) -gt 30 ]; then
        echo "note: the guest ran its job but did not power off in 30 s; QEMU stopped; its console ends:"
        tail -n 5 "$out/console.log"
        stop
        stopped=1
        break
      fi
    fi
    sleep 1
  done
  if [ -n "$stopped" ]; then
    qrc=0
  else
    wait "$pid"
    qrc=$?
    pid=
  fi
  if [ $qrc = 134 ] && [ $attempt -lt 3 ] && [ ! -f "$out/guest.up" ] &&
     [ ! -f "$out/guest.status" ]; then
    echo "note: QEMU aborted before the guest was up ($(grep -a -m 1 -i 'assert' "$out/qemu.log" || tail -n 1 "$out/qemu.log")); starting it again (try $((attempt + 1)) of 3)"
    attempt=$((attempt + 1))
    rm -f "$out/console.log" "$out/qemu.log"
    continue
  fi
  break
done
echo "guest $topology: $(($(date +%s) - t0)) s, QEMU exit $qrc; up after $(cat "$out/guest.up" 2>/dev/null || echo '?') s"
if [ $qrc = 124 ] || [ $qrc = 137 ]; then
  echo "FAIL: the guest ran out of its $timeout_s s; its console ends:"
  tail -n 20 "$out/console.log"
  exit 124
fi
if [ ! -f "$out/guest.status" ]; then
  # guest-init says on the console which share it could not see.
  unseen=$(grep -a -m 1 'cannot see' "$out/console.log" 2>/dev/null | sed 's/^guest: //')
  [ -n "$unseen" ] && echo "FAIL: $unseen"
  echo "FAIL: the guest did not run the job; QEMU said: $(cat "$out/qemu.log")"
  echo "its console ends:"
  tail -n 30 "$out/console.log"
  exit 1
fi
exit "$(cat "$out/guest.status")"
