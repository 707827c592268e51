#!/usr/bin/env bash
# Usage: ci/enter.sh COMMAND [ARG...]
#
# Runs COMMAND where PoCL can be built: directly on a host that has an LLVM
# that every version accepts (18-21), otherwise inside the Debian 13 build
# root (ci/buildroot.sh), with this checkout and the cache directory
# bind-mounted at their own paths so that every absolute path (ICD files,
# build trees) is the same inside and outside.  The PoCL sources named by
# POCL_SOURCE and POCL_STEAL_SOURCES (unset: the shared source folder
# ../shared/pocl-src beside the checkout) are mounted read-only at their own
# paths too, when they lie elsewhere.  The mounts are made in a private
# mount namespace: they are unmounted when COMMAND ends, fails or is
# interrupted, and the kernel drops them even if this script is killed.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd -P)
. "$here/common.sh"

[ $# -gt 0 ] || ps_die "usage: ci/enter.sh COMMAND [ARG...]"

if [ -n "${POCL_STEAL_IN_ENV:-}" ]; then
  exec "$@"
fi
export POCL_STEAL_IN_ENV=1

if [ "$(ps_env_kind)" = native ]; then
  export POCL_STEAL_ENV_KIND=native
  exec "$@"
fi

root=$("$here/buildroot.sh")
top=$(cd "$here/.." && pwd -P)
cache=$(ps_cache_dir)
cwd=$(pwd -P)
case "$cwd/" in
  "$top"/* | "$cache"/*) ;;
  *) cwd="$top" ;;
esac

# PoCL sources outside the checkout and the cache, to be seen inside.
sources=()
more=${POCL_STEAL_SOURCES-$top/../shared/pocl-src}
for s in ${POCL_SOURCE:-} ${more//;/ }; do
  [ -e "$s" ] || continue
  s=$(realpath "$s")
  case "$s/" in
    "$top"/* | "$cache"/*) ;;
    *) sources+=("$s") ;;
  esac
done

# The shared source folder by its real path: only that is mounted inside,
# so a symbolic link ../shared would lead nowhere there
# (cmake/PoclVersions.cmake globs this path instead).
shared=
if [ -z "${POCL_STEAL_SOURCES+set}" ] && [ -d "$top/../shared/pocl-src" ]; then
  shared=$(realpath "$top/../shared/pocl-src")
fi

# Only these variables cross into the root; the host's PATH, library paths
# and tool settings would not fit a Debian 13 userland.
envs=(PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
  HOME=/root LANG=C.UTF-8 POCL_STEAL_IN_ENV=1 POCL_STEAL_ENV_KIND=root
  "POCL_STEAL_CACHE=$cache")
[ -z "$shared" ] || envs+=("POCL_STEAL_SHARED_SOURCES=$shared")
while IFS= read -r -d '' kv; do
  case "$kv" in
    POCL_STEAL_CACHE=* | POCL_STEAL_IN_ENV=* | POCL_STEAL_ENV_KIND=* | POCL_STEAL_SHARED_SOURCES=*) ;;
    POCL_* | OCL_* | CTEST_* | CCACHE_* | TERM=* | VERBOSE=* | JOBS=*) envs+=("$kv") ;;
  esac
done < <(env -0)

exec unshare --mount --propagation private -- /bin/bash -c '
  set -eu
  root="$1" top="$2" cache="$3" cwd="$4"
  shift 4
  n="$1"; shift
  sources=("${@:1:$n}"); shift "$n"
  cleanup () {
    for s in "${sources[@]}"; do umount "$root$s" 2>/dev/null || true; done
    umount -R "$root$cache" "$root$top" "$root/dev" "$root/sys" "$root/proc" 2>/dev/null || true
  }
  trap cleanup EXIT
  trap "exit 130" INT
  trap "exit 143" TERM
  mount --rbind /proc "$root/proc"
  mount --rbind /sys "$root/sys"
  mount --rbind /dev "$root/dev"
  mkdir -p "$root$top" "$root$cache"
  mount --bind "$top" "$root$top"
  mount --bind "$cache" "$root$cache"
  for s in "${sources[@]}"; do
    if [ -d "$s" ]; then mkdir -p "$root$s"
    else mkdir -p "$root$(dirname "$s")" && touch "$root$s"; fi
    mount --bind "$s" "$root$s"
    mount -o remount,bind,ro "$root$s"
  done
  n="$1"; shift
  envs=("${@:1:$n}"); shift "$n"
  rc=0
  chroot "$root" /usr/bin/env -i "${envs[@]}" /bin/bash -c "cd \"\$0\" && exec \"\$@\"" "$cwd" "$@" || rc=$?
  exit $rc
 ' enter "$root" "$top" "$cache" "$cwd" "${#sources[@]}" "${sources[@]}" \
  "${#envs[@]}" "${envs[@]}" "$@"
