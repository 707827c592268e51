#!/usr/bin/env bash
# Usage: [POCL_SOURCE=TREE] ci/yggdrasil/export.sh OUT_DIR [--start N | --after DIR]
#
# Writes pocl-steal as a drop-in set of patches for Yggdrasil's PoCL
# recipe: patches/series, then one patch that adds driver/ to PoCL's tree
# as lib/CL/devices/pthread-steal, all in `git format-patch` form, made on
# the pristine tree POCL_SOURCE names (as ci/pocl-source.sh takes it; a
# 7.2 tree for Yggdrasil's 7.2 recipe) and applying to it with
# `atomic_patch -p1` (or `patch -p1`) in this order.  Files are named
# NNNN-*.patch starting at N; with --after DIR, just after the highest NNNN
# of the patches already in DIR (Yggdrasil's bundled/patches/pocl), so that
# they apply after those.  The default N follows Yggdrasil's P/pocl series
# as last read (0001 to 0021, 2026-12).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd -P)
top=$(cd "$here/../.." && pwd -P)
. "$top/ci/common.sh"

[ $# -ge 1 ] || ps_die "usage: ci/yggdrasil/export.sh OUT_DIR [--start N | --after DIR]"
out=$1
shift
start=22
case "${1:-}" in
  --start)
    start=${2:?--start needs a number}
    [[ "$start" =~ ^[0-9]+$ ]] || ps_die "--start '$start' is not a number"
    ;;
  --after)
    dir=${2:?--after needs a directory}
    [ -d "$dir" ] || ps_die "--after '$dir' is not a directory"
    last=$(ls "$dir" | sed -n 's/^\([0-9][0-9]*\)-.*\.patch$/\1/p' | sort -n | tail -n 1)
    start=$((10#${last:-0} + 1))
    ;;
  '') ;;
  *) ps_die "unknown option '$1' (accepted: --start N, --after DIR)" ;;
esac

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$top/ci/pocl-source.sh" --pristine "$work/pocl" >&2
read -r version _ <"$work/pocl/.pocl-steal-version"
[ "$version" = 7.2 ] ||
  echo "note: exporting on PoCL $version; ci/yggdrasil/build_tarballs.jl builds 7.2 (set POCL_SOURCE to a 7.2 tree)" >&2
cd "$work/pocl"
export GIT_AUTHOR_NAME="pocl-steal developers" GIT_AUTHOR_EMAIL="pocl-steal@example.invalid"
export GIT_COMMITTER_NAME="$GIT_AUTHOR_NAME" GIT_COMMITTER_EMAIL="$GIT_AUTHOR_EMAIL"
export GIT_AUTHOR_DATE="2026-01-01T00:00:00Z" GIT_COMMITTER_DATE="2026-01-01T00:00:00Z"
git init -q
git add -A
git commit -q -m "PoCL $version"
base=$(git rev-parse HEAD)
for p in $(grep -v -e '^#' -e '^$' "$top/patches/series"); do
  git am -q --committer-date-is-author-date "$top/patches/$p" ||
    ps_die "patches/$p does not apply to PoCL $version with git am"
done

mkdir -p lib/CL/devices/pthread-steal
for f in "$top"/driver/*.c "$top"/driver/*.h "$top"/driver/CMakeLists.txt; do
  cp "$f" lib/CL/devices/pthread-steal/
done
git add lib/CL/devices/pthread-steal
git commit -q -F - <<'MSG'
pthread: add pocl-steal's pthread device as lib/CL/devices/pthread-steal

The cpu device's work-group scheduler from pocl-steal: each thread of the
(sub)device gets one contiguous static block of work-groups and claims
one work-group of it at a time; a thread that runs out takes over a
block not yet started or steals the back half of another, so launches of
the same size run the same work-groups on the same threads (NUMA
first-touch placement works) while imbalance is still evened out.
Claims are lock-free, idle threads spin briefly before sleeping, and
POCL_AFFINITY=1 pins the threads to the allowed CPUs spread over the
NUMA nodes.  POCL_PTHREAD_SCHEDULE=guided restores the previous schedule.

Build it with -DPOCL_PTHREAD_DEVICE_DIR=<source>/lib/CL/devices/pthread-steal
(the first patch of the series); without that option nothing changes.
MSG

mkdir -p "$out"
rm -f "$out"/*-pocl-steal-*.patch
n=$start
for f in $(git format-patch --zero-commit -o "$work/out" "$base"..HEAD); do
  name=$(basename "$f" | sed 's/^[0-9]*-//')
  dest=$(printf '%s/%04d-pocl-steal-%s' "$out" "$n" "$name")
  cp "$f" "$dest"
  echo "$dest"
  n=$((n + 1))
done
