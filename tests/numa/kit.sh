#!/usr/bin/env bash
# kit.sh: prints the directory that holds the emulated NUMA guest's kernel
# and initramfs (vmlinuz, initrd.img), making it once.
#
# Runs where the tests run (the Debian 13 build root).  The kernel is
# Debian's linux-image-amd64 of the build root's release (CONFIG_NUMA,
# CONFIG_NUMA_EMU, 9p as modules), fetched with apt-get download and
# unpacked, not installed: nothing of it lands in the root.  The initramfs
# holds busybox (busybox-static, a package of the root), tests/numa/
# guest-init as /init, and the modules that mount the root over 9p, in the
# order their dependencies ask (.modinfo), uncompressed for busybox's
# insmod.  Kept in the cache directory under a key of this script, the
# init and the kernel package's name, so a new kernel or a change here
# makes a new kit; made under a temporary name and renamed when complete.
#
# Exit status 77 (skip) when the kernel cannot be fetched (no package
# registry); 1 on other failures.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../../ci/common.sh"
cache=$(ps_cache_dir)
say () { echo "numa kit: $*" >&2; }

command -v busybox >/dev/null || { say "no busybox (busybox-static)"; exit 77; }
pkg=$(apt-cache depends linux-image-amd64 2>/dev/null |
      sed -n 's/^ *Depends: \(linux-image-[^ ]*\)$/\1/p' | head -n 1)
[ -n "$pkg" ] || { say "apt-cache knows no linux-image-amd64"; exit 77; }
key=$(cat "$here/kit.sh" "$here/guest-init" | sha256sum | cut -c1-8)
kit="$cache/numa-guest/kit-$pkg-$key"
if [ -f "$kit/complete" ]; then
  echo "$kit"
  exit 0
fi

mkdir -p "$cache/numa-guest"
exec 9>"$cache/numa-guest/kit.lock"
flock 9
if [ -f "$kit/complete" ]; then
  echo "$kit"
  exit 0
fi
tmp="$kit.partial"
rm -rf "$tmp"
mkdir -p "$tmp/deb" "$tmp/seen" "$tmp/initrd/bin" "$tmp/initrd/modules"
trap 'rm -rf "$tmp"' EXIT

say "fetching $pkg"
( cd "$tmp/deb" && { apt-get download "$pkg" >/dev/null 2>&1 ||
                     { apt-get update -q >/dev/null 2>&1 &&
                       apt-get download "$pkg" >/dev/null 2>&1; }; } ) ||
  { say "could not fetch $pkg (no package registry?)"; exit 77; }
dpkg-deb -x "$tmp"/deb/*.deb "$tmp/x"
cp "$tmp"/x/boot/vmlinuz-* "$tmp/vmlinuz"
moddir=$(ls -d "$tmp"/x/lib/modules/* "$tmp"/x/usr/lib/modules/* 2>/dev/null |
         head -n 1)
[ -d "$moddir" ] || { say "no modules in $pkg"; exit 1; }

# The modules 9p over virtio-pci needs, each after its dependencies (the
# "depends=" of its .modinfo; the package has no modules.dep, which depmod
# makes at installation), uncompressed for busybox's insmod.
n=0
unpack () { # module-file destination
  case "$1" in
    *.xz) xz -dc "$1" ;;
    *.zst) zstd -qdc "$1" ;;
    *.gz) gzip -dc "$1" ;;
    *) cat "$1" ;;
  esac >"$2"
}
add_module () { # name
  local name=$1 file dest d
  [ -e "$tmp/seen/$name" ] && return 0
  : >"$tmp/seen/$name"
  file=$(find "$moddir" -name "$name.ko*" -o -name "$(echo "$name" | tr _ -).ko*" |
         head -n 1)
  if [ -z "$file" ]; then
    grep -q "/$name\.ko" "$moddir/modules.builtin" 2>/dev/null && return 0
    say "$pkg has no module $name"
    exit 1
  fi
  unpack "$file" "$tmp/$name.ko"
  for d in $(tr '\0' '\n' <"$tmp/$name.ko" | sed -n 's/^depends=//p' | tr , ' '); do
    add_module "$d"
  done
  n=$((n + 1))
  mv "$tmp/$name.ko" "$tmp/initrd/modules/$(printf '%02d' $n)-$name.ko"
}
for m in virtio_pci 9pnet_virtio 9p; do
  add_module $m
done
cp "$(command -v busybox)" "$tmp/initrd/bin/busybox"
cp "$here/guest-init" "$tmp/initrd/init"
chmod +x "$tmp/initrd/init"
( cd "$tmp/initrd" && find . | busybox cpio -o -H newc 2>/dev/null ) |
  gzip -1 >"$tmp/initrd.img"
rm -rf "$tmp/deb" "$tmp/x" "$tmp/seen" "$tmp/initrd"
echo "$pkg" >"$tmp/complete"
trap - EXIT
mv "$tmp" "$kit"
# Older kits (another kernel, another init) are of no further use.
for old in "$cache"/numa-guest/kit-*; do
  [ "$old" = "$kit" ] || rm -rf "$old"
done
say "made $kit"
echo "$kit"
