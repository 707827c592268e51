#!/usr/bin/env bash
# Usage: POCL_SOURCE=<PoCL 7.2 tree or tarball> ci/yggdrasil/shim.sh WORKDIR
#        (run inside ci/enter.sh)
#
# Runs the build script of ci/yggdrasil/build_tarballs.jl for
# x86_64-linux-gnu the way BinaryBuilder would, without BinaryBuilder
# (which cannot run on these machines):
#   - the script is extracted from the recipe file, not copied;
#   - the sources are laid out as the recipe declares them: the pristine
#     PoCL 7.2 tree POCL_SOURCE names in srcdir/pocl, standing in for the
#     recipe's GitSource (tag v7.2, which cannot be obtained here; v7.2-RC1
#     can), bundled/ copied into srcdir (the DirectorySource) with our
#     exported patches in srcdir/patches/pocl.  Yggdrasil's own patches,
#     the SPIR-V translator's GitSource and SLEEF_jll are not available
#     here: the script builds without them, as it is written to;
#   - the variables BinaryBuilder sets ($WORKSPACE, $prefix, $target,
#     $MACHTYPE, $nproc, $bindir, $libdir, $includedir, $host_prefix,
#     $CMAKE_TARGET_TOOLCHAIN, the last a native toolchain file), `clang` on
#     PATH, and the helpers the script calls (atomic_patch, install_license);
#   - LLVM is the build root's LLVM, linked statically as the recipe asks
#     (Debian's llvm-19-dev, libclang-19-dev and libpolly-19-dev carry the
#     static libraries): its llvm-config as the host copy's, its CMake
#     package in ${prefix}/lib/cmake/llvm as the target copy's (removed
#     after the build, as BinaryBuilder drops build dependencies).
# Leaves WORKDIR/vendors/pocl.icd naming the built libpocl.  Skips the build
# when neither the recipe, bundled/, the series, the driver nor the PoCL
# tree changed since the last one here, or since the last one kept in the
# cache directory (yggdrasil/<key>.tar, the installation).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd -P)
top=$(cd "$here/../.." && pwd -P)
. "$top/ci/common.sh"

[ $# -eq 1 ] || ps_die "usage: POCL_SOURCE=<PoCL 7.2 tree> ci/yggdrasil/shim.sh WORKDIR"
[ -n "${POCL_SOURCE:-}" ] || ps_die "POCL_SOURCE must name a PoCL 7.2 tree or tarball: the recipe builds PoCL 7.2"
read -r pocl_version _ _ upstream < <("$top/ci/pocl-source.sh" --version)
[ "$pocl_version" = 7.2 ] ||
  ps_die "POCL_SOURCE=$POCL_SOURCE is PoCL $pocl_version; the recipe builds PoCL 7.2"
mkdir -p "$1"
work=$(cd "$1" && pwd -P)
ws="$work/workspace"
llvm_config=$(ps_native_llvm_config)
[ -n "$llvm_config" ] || ps_die "no llvm-config of LLVM $PS_LLVM_MIN..$PS_LLVM_MAX (run inside ci/enter.sh)"

# The build's inputs.  An upstream tree is named by its digest (the lock
# file's name for it); another by where it is.
tree_id=$upstream
[ "$upstream" != own-tree ] || tree_id="own-tree $(realpath "$POCL_SOURCE")"
key=$( { echo "$tree_id"
         cat "$here/build_tarballs.jl" "$here/shim.sh" "$here/export.sh" \
             $(find "$here/bundled" -type f | sort) "$top/patches/series" \
             "$top"/patches/*.patch "$top"/driver/*; } | sha256sum | cut -c1-16)
if [ -f "$work/built" ] && [ "$(cat "$work/built")" = "$key" ] \
   && [ -e "$ws/destdir/lib/libpocl.so" ]; then
  echo "yggdrasil shim: recipe build up to date ($key)"
  exit 0
fi
rm -f "$work/built"
rm -rf "$ws"

# installed_lib: the libpocl installed in $ws/destdir, or nothing.
installed_lib ()
{
  ls "$ws"/destdir/lib/libpocl.so.*.*.* 2>/dev/null | head -n 1
}

# use_lib LIB: the tests' ICD file names LIB, built from these inputs.
use_lib ()
{
  mkdir -p "$work/vendors"
  echo "$1" >"$work/vendors/pocl.icd"
  echo "$key" >"$work/built"
}

# The installation of the last build is kept in the cache directory under
# its key: a fresh clone with the same inputs (CI) takes it from there.
# PoCL's installation is relocatable (ENABLE_RELOCATION), as JLLs need.
kept="$(ps_cache_dir)/yggdrasil/$key.tar"
if [ -f "$kept" ]; then
  mkdir -p "$ws/destdir"
  tar -C "$ws/destdir" -xf "$kept"
  lib=$(installed_lib)
  if [ -n "$lib" ]; then
    use_lib "$lib"
    echo "yggdrasil shim: the recipe's build of these inputs ($key) taken from $kept"
    exit 0
  fi
  rm -rf "$ws" "$kept"
fi
mkdir -p "$ws/srcdir" "$ws/destdir" "$ws/host/tools" "$ws/bin"

# Sources, as declared: DirectorySource, GitSource (pristine 7.2).
"$top/ci/pocl-source.sh" --pristine "$ws/srcdir/pocl"
cp -a "$here/bundled/." "$ws/srcdir/"
"$here/export.sh" "$ws/srcdir/patches/pocl" >/dev/null

# The host copy of LLVM, where bundled/llvm-config looks for it; the
# target copy's CMake package where the script points LLVM_DIR (LLVM's
# CMake package resolves its real path, so the link finds the rest).
ln -s "$llvm_config" "$ws/host/tools/llvm-config"
mkdir -p "$ws/destdir/lib/cmake"
ln -s "$("$llvm_config" --cmakedir)" "$ws/destdir/lib/cmake/llvm"
# The target's compiler driver on PATH, as in BinaryBuilder.
ln -s "$("$llvm_config" --bindir)/clang" "$ws/bin/clang"

# BinaryBuilder's helpers, as commands.
cat >"$ws/bin/atomic_patch" <<'SH'
#!/bin/bash
# atomic_patch [patch options] FILE: apply all of FILE or nothing.
set -e
[ $# -ge 1 ] || { echo "usage: atomic_patch [options] FILE" >&2; exit 1; }
opts=("${@:1:$#-1}") file=${!#}
[ -f "$file" ] || { echo "atomic_patch: no patch file '$file'" >&2; exit 1; }
patch --dry-run --batch --forward "${opts[@]}" -i "$file" >/dev/null ||
  { echo "atomic_patch: $file does not apply" >&2; exit 1; }
echo "atomic_patch: applying $(basename "$file")"
exec patch --batch --forward --quiet "${opts[@]}" -i "$file"
SH
cat >"$ws/bin/install_license" <<'SH'
#!/bin/bash
set -e
mkdir -p "${prefix}/share/licenses/pocl"
cp "$@" "${prefix}/share/licenses/pocl/"
SH
chmod +x "$ws/bin/atomic_patch" "$ws/bin/install_license"

# A native toolchain file for $CMAKE_TARGET_TOOLCHAIN (ccache when there is
# one: the shim rebuilds from scratch whenever an input changes).
{
  echo "set(CMAKE_SYSTEM_NAME Linux)"
  echo "set(CMAKE_SYSTEM_PROCESSOR x86_64)"
  echo "set(CMAKE_C_COMPILER gcc)"
  echo "set(CMAKE_CXX_COMPILER g++)"
  if command -v ccache >/dev/null 2>&1; then
    cache=$(ps_cache_dir)
    echo "set(CMAKE_C_COMPILER_LAUNCHER \"$(command -v cmake);-E;env;CCACHE_DIR=$cache/ccache;CCACHE_BASEDIR=$ws;ccache\")"
    echo "set(CMAKE_CXX_COMPILER_LAUNCHER \"$(command -v cmake);-E;env;CCACHE_DIR=$cache/ccache;CCACHE_BASEDIR=$ws;ccache\")"
  fi
} >"$ws/toolchain.cmake"

# The build script, extracted from the recipe.
python3 - "$here/build_tarballs.jl" "$ws/script.sh" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
m = re.search(r'^script = raw"""\n(.*?)^"""', text, re.S | re.M)
if not m:
    sys.exit("no script = raw\"\"\"...\"\"\" in " + sys.argv[1])
open(sys.argv[2], "w").write(m.group(1))
PY

echo "yggdrasil shim: running the recipe's script for x86_64-linux-gnu"
t0=$(date +%s)
env -i PATH="$ws/bin:/usr/local/bin:/usr/bin:/bin" HOME="${HOME:-/root}" LANG=C.UTF-8 \
  WORKSPACE="$ws" prefix="$ws/destdir" target=x86_64-linux-gnu MACHTYPE=x86_64-linux-gnu \
  nproc="$(nproc)" bindir="$ws/destdir/bin" libdir="$ws/destdir/lib" \
  includedir="$ws/destdir/include" host_prefix="$ws/host" \
  CMAKE_TARGET_TOOLCHAIN="$ws/toolchain.cmake" \
  bash -eo pipefail "$ws/script.sh" </dev/null >"$work/build.log" 2>&1 ||
  { tail -n 40 "$work/build.log"; ps_die "the recipe's script failed; the whole log is $work/build.log"; }
rm "$ws/destdir/lib/cmake/llvm"
lib=$(installed_lib)
[ -n "$lib" ] || ps_die "the recipe's script installed no libpocl in $ws/destdir/lib"
# Our driver is in there: its settings are (PoCL's own driver has none of
# them), and the configuration used POCL_PTHREAD_DEVICE_DIR.
grep -q POCL_PTHREAD_SCHEDULE "$lib" ||
  ps_die "$lib does not contain pocl-steal's pthread driver (were the patches applied?)"
if grep -A2 "Manually-specified variables were not used" "$work/build.log" | grep -q POCL_PTHREAD_DEVICE_DIR; then
  ps_die "PoCL's configuration ignored POCL_PTHREAD_DEVICE_DIR (were the patches applied?)"
fi
# The NUMA topology for POCL_AFFINITY=1 (NUMA_jll in the recipe).
readelf -d "$lib" | grep -q 'NEEDED.*libnuma' ||
  ps_die "$lib is not linked with libnuma: POCL_AFFINITY=1 would not know the NUMA nodes"
if ls "$ws"/destdir/lib/pocl/libpocl-devices-* >/dev/null 2>&1; then
  ps_die "loadable driver modules were installed; the recipe asks for ENABLE_LOADABLE_DRIVERS=OFF"
fi
use_lib "$lib"
echo "yggdrasil shim: built $lib in $(( $(date +%s) - t0 )) s"
mkdir -p "$(dirname "$kept")"
rm -f "$(dirname "$kept")"/*.tar
tar -C "$ws/destdir" -cf "$kept.partial" . && mv "$kept.partial" "$kept"
