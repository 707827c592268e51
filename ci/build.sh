#!/usr/bin/env bash
# Usage: ci/build.sh [--demo]   (run inside ci/enter.sh)
# Configures and builds everything into build/: the dispatch module and its
# tests, PoCL (7.1 unless POCL_SOURCE says otherwise, and the versions of
# POCL_STEAL_SOURCES) with the series and driver/, the stock prefixes and
# the OpenCL tests.  With --demo, then shows the result working.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd -P)
build="$top/build"
gen=()
if [ ! -f "$build/CMakeCache.txt" ] && command -v ninja >/dev/null 2>&1; then
  gen=(-G Ninja)
fi
cmake -S "$top" -B "$build" "${gen[@]}" ${POCL_STEAL_CMAKE_ARGS:-}
cmake --build "$build"

# The versions built and those not, with why (cmake/PoclVersions.cmake).
if [ -f "$build/pocl-versions.txt" ]; then
  echo
  while read -r v what rest; do
    case $what in
      built) echo "pocl-steal: built PoCL $v (${rest%% *}) into ${rest#* }" ;;
      missing) echo "pocl-steal: did not build PoCL $v: $rest; its tests are skipped" ;;
    esac
  done <"$build/pocl-versions.txt"
fi

[ "${1:-}" = --demo ] || exit 0

vendors="$build/prefix/ours/etc/OpenCL/vendors"
echo
version=$(cut -d' ' -f1,4 "$build/pocl-src/.pocl-steal-version")
echo "== PoCL ${version% *} (${version#* }) with pocl-steal's pthread device, through the ICD loader"
echo "\$ OCL_ICD_VENDORS=$vendors clinfo -l"
OCL_ICD_VENDORS="$vendors" clinfo -l
echo "\$ OCL_ICD_VENDORS=$vendors build/tests/opencl/cl_hello"
OCL_ICD_VENDORS="$vendors" POCL_CACHE_DIR="${POCL_STEAL_CACHE:-$HOME/.cache/pocl-steal}/kcache" \
  "$build/tests/opencl/cl_hello"
cat <<MSG

Point an OpenCL application at this PoCL with the ICD loader:
  export OCL_ICD_VENDORS=$vendors             # ocl-icd (Debian's loader)
  export OCL_ICD_FILENAMES=$(cat "$vendors/pocl.icd")   # Khronos loader
Stock PoCL ${version% *}, built with the same flags, is in $build/prefix/stock.
MSG
for d in "$build"/pocl-*/prefix; do
  [ -d "$d" ] || continue
  echo "PoCL $(cut -d' ' -f1 "${d%/prefix}/pocl-src/.pocl-steal-version"): ours, stock, tsan and asan in $d."
done
if [ "${POCL_STEAL_ENV_KIND:-}" = root ]; then
  cat <<MSG
This PoCL is linked against the Debian 13 build root's LLVM 19: run
applications inside it with  ci/enter.sh <command>  (or  make shell).
MSG
fi
