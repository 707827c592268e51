#!/usr/bin/env bash
# Usage (inside ci/enter.sh, after make):
#   bench/module_at.sh [--build DIR] [--version V] REV
#
# The "before" of a before/after table: builds the pthread driver of git
# revision REV (any name git accepts: a commit, a tag, HEAD~3) against
# this build's PoCL VERSION (one of build/pocl-versions.txt; the main
# build by default), and makes a prefix that runs it, so that
# bench/compare_prefixes.py can alternate it with today's driver:
#
#   bench/module_at.sh --version 7.2 c9bc9cc
#   bench/compare_prefixes.py --build build \
#     static=build/pocl-7.2/prefix/ours:static \
#     before=build/revs/c9bc9cc-7.2/prefix:static
#
# REV's driver/ is taken from git (git archive, so the working tree is
# left alone) into DIR/revs/SHA-VERSION/src, compiled with the very
# commands PoCL's build compiles and links today's driver with (ninja -t
# commands), its own driver/ in place of ours, and the module put into a
# copy of the version's prefix (cmake/MakeStockPrefix.cmake).  So the two
# differ in the driver only: same PoCL, same compiler and flags.  A
# revision whose driver needs PoCL interfaces the build's patches do not
# have, or files outside driver/, fails to compile, and says so.  Prints
# the prefix's path last.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd -P)
top=$(cd "$here/.." && pwd -P)
die ()
{
  echo "module_at.sh: $*" >&2
  exit 1
}
usage ()
{
  die "usage: bench/module_at.sh [--build DIR] [--version V] REV"
}
build='' version='' rev=''
while [ $# -gt 0 ]; do
  case "$1" in
    --build | --version)
      [ $# -ge 2 ] || usage
      if [ "$1" = --build ]; then build=$2; else version=$2; fi
      shift 2
      ;;
    -*) usage ;;
    *)
      [ -z "$rev" ] || usage
      rev=$1
      shift
      ;;
  esac
done
[ -n "$rev" ] || usage

git -C "$top" rev-parse --git-dir >/dev/null 2>&1 ||
  die "$top is not a git checkout: there is no revision to build"
sha=$(git -C "$top" rev-parse --short=7 --verify --quiet "$rev^{commit}") ||
  die "REV '$rev' is not a commit of this repository"
git -C "$top" cat-file -e "$sha:driver" 2>/dev/null ||
  die "revision $sha has no driver/ directory"

build=$(realpath -m -- "${build:-$top/build}")
versions="$build/pocl-versions.txt"
[ -f "$versions" ] || die "no build in $build ($versions is missing): run make first"
main_version=$(head -n 1 "$versions" | cut -d' ' -f1)
version=${version:-$main_version}
line=$(awk -v v="$version" '$1 == v' "$versions")
if [ -z "$line" ] || [ "$(echo "$line" | cut -d' ' -f2)" != built ]; then
  die "VERSION '$version' is not a PoCL version this build built; built: $(awk '$2 == "built" { printf "%s ", $1 }' "$versions")"
fi
# Where each version's prefixes and PoCL build are (as ci/install.sh).
if [ "$version" = "$main_version" ]; then
  root="$build"
else
  root="$build/pocl-$version"
fi
ours="$root/prefix/ours"
pocl_build="$root/pocl-build"
target=lib/CL/devices/pthread/libpocl-devices-pthread.so
[ -f "$ours/etc/OpenCL/vendors/pocl.icd" ] && [ -f "$pocl_build/build.ninja" ] ||
  die "PoCL $version has no prefix $ours or no build $pocl_build: run make first"

out="$build/revs/$sha-$version"
rm -rf "$out"
mkdir -p "$out/src" "$out/obj"
git -C "$top" archive "$sha" driver | tar -x -C "$out/src"

# Today's commands for the module: one compile per driver source, then
# the link (the last command).  Any compile of ours serves as the
# template: the target's sources share their flags.
commands=$(cd "$pocl_build" && ninja -t commands "$target") ||
  die "ninja knows no $target in $pocl_build"
template=$(grep -m 1 -- " -c $top/driver/[^ ]*\.c" <<<"$commands") ||
  die "no compile of $top/driver in the commands for $target"
link=$(tail -n 1 <<<"$commands")
case "$link" in
  *" -o $target "*) ;;
  *) die "the last command for $target does not link it: $link" ;;
esac

# In the order the link names today's objects (the code's layout, as
# ours), then REV's sources that today's driver does not have.
order=$(grep -o '/pocl-devices-pthread\.dir/[^ ]*\.c\.o' <<<"$link" |
  sed 's#.*/\([^/]*\)\.o$#\1#' | tr '\n' ' ')
sources=''
for name in $order; do
  [ ! -f "$out/src/driver/$name" ] || sources="$sources $out/src/driver/$name"
done
for src in "$out/src/driver/"*.c; do
  case " $order " in
    *" $(basename "$src") "*) ;;
    *) sources="$sources $src" ;;
  esac
done
objects=''
for src in $sources; do
  obj="$out/obj/$(basename "$src").o"
  # Our driver/ becomes REV's (sources and includes); no dependency file.
  cmd=$(printf '%s\n' "$template" |
    sed -e "s# -MD -MT [^ ]* -MF [^ ]*##" -e "s# -o [^ ]*# -o $obj#" \
        -e "s# -c [^ ]*# -c $src#" -e "s#$top/driver#$out/src/driver#g")
  (cd "$pocl_build" && eval "$cmd") ||
    die "revision $sha: $(basename "$src") does not compile against PoCL $version"
  objects="$objects $obj"
done
# The link, with REV's objects in place of ours, into $out, with no
# RUNPATH into PoCL's build tree: installed, ours has none either.
cmd=$(printf '%s\n' "$link" |
  sed -e 's#^: && ##' -e 's# && :$##' -e 's# -Wl,--dependency-file=[^ ]*##' \
      -e "s# -o $target # -o $out/libpocl-devices-pthread.so #" \
      -e 's# [^ ]*/pocl-devices-pthread\.dir/[^ ]*\.o##g' -e 's# -Wl,-rpath,[^ ]*##g' \
      -e "s# -shared # -shared$objects #")
(cd "$pocl_build" && eval "$cmd") || die "revision $sha: the module does not link"

cmake -DOURS="$ours" -DSTOCK="$out/prefix" \
  -DSTOCK_MODULE="$out/libpocl-devices-pthread.so" \
  -P "$top/cmake/MakeStockPrefix.cmake"
echo "module_at.sh: the pthread driver of $sha on PoCL $version:"
echo "$out/prefix"
