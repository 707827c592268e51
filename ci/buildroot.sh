#!/usr/bin/env bash
# Creates (once) and prints the path of the Debian 13 build root that builds
# PoCL 7.1, 7.2 and main on hosts without an LLVM that all three accept
# (18-21).  The root lives in the cache directory (POCL_STEAL_CACHE), is
# named after a hash of its package list and of this script, and is reused
# until either changes.  It is assembled under
# a temporary name and renamed only when complete, so an interrupted run
# leaves nothing half-made behind that a later run would use.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"

[ "$(id -u)" = 0 ] || ps_die "the Debian 13 build root needs root (debootstrap, chroot, mounts); run as root, or install LLVM $PS_LLVM_MIN..$PS_LLVM_MAX and use POCL_STEAL_ENV=native"

cache=$(ps_cache_dir)
pkgs=$(grep -v -e '^#' -e '^$' "$here/buildroot-packages.txt" | tr '\n' ' ')
key=$(cat "$here/buildroot-packages.txt" "$here/buildroot.sh" | sha256sum | cut -c1-12)
root="$cache/root-trixie-$key"

if [ -f "$root/.pocl-steal-complete" ]; then
  echo "$root"
  exit 0
fi

mkdir -p "$cache"
exec 9>"$cache/root.lock"
flock 9
if [ -f "$root/.pocl-steal-complete" ]; then
  echo "$root"
  exit 0
fi

if ! command -v debootstrap >/dev/null 2>&1; then
  ps_note "installing debootstrap on the host"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends debootstrap >&2 ||
    { apt-get update -q >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends debootstrap >&2; } ||
    ps_die "could not install debootstrap"
fi

mirror=$(ps_debian_mirror)
tmp="$root.partial"
rm -rf "$tmp"
ps_note "creating the Debian 13 build root in $root (about 2 minutes)"
t0=$(date +%s)
debootstrap --variant=minbase trixie "$tmp" "$mirror" >"$cache/debootstrap.log" 2>&1 ||
  { tail -n 20 "$cache/debootstrap.log" >&2; ps_die "debootstrap failed; the whole log is $cache/debootstrap.log"; }
cp /etc/resolv.conf "$tmp/etc/resolv.conf" 2>/dev/null || true

# Install the packages with /proc, /sys and /dev mounted in a private mount
# namespace: the mounts vanish with it, whatever happens to this script.
unshare --mount --propagation private -- /bin/sh -c '
  set -e
  r="$1"; shift
  mount --rbind /proc "$r/proc"
  mount --rbind /sys "$r/sys"
  mount --rbind /dev "$r/dev"
  chroot "$r" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
    DEBIAN_FRONTEND=noninteractive /bin/sh -c "apt-get update -q && apt-get install -y -q --no-install-recommends $*"
' sh "$tmp" $pkgs >"$cache/buildroot-apt.log" 2>&1 ||
  { tail -n 20 "$cache/buildroot-apt.log" >&2; ps_die "installing the build root's packages failed; the whole log is $cache/buildroot-apt.log"; }
rm -rf "$tmp/var/cache/apt/archives"/*.deb
echo "$pkgs" >"$tmp/.pocl-steal-complete"
mv "$tmp" "$root"
ps_note "build root ready in $(($(date +%s) - t0)) s"
echo "$root"
