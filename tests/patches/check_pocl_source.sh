#!/bin/sh
# check_pocl_source.sh TOP WORKDIR: ci/pocl-source.sh with POCL_SOURCE, the
# way someone with their own PoCL tree uses the build, offline:
#   - a v7.1 tree (the pristine one from the cache) and a tarball of it are
#     accepted and give the same patched tree as the default route;
#   - a tree of another version, a missing path and a file that is not a
#     tarball are refused with a message naming them.
set -u
top=$1 work=$2
fails=0
fail () { echo "FAIL: $*"; fails=$((fails + 1)); }
rm -rf "$work"
mkdir -p "$work"
cache=${POCL_STEAL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pocl-steal}
pristine=$(ls -d "$cache"/pocl-v7.1-* 2>/dev/null | grep -v partial | head -n 1)
[ -n "$pristine" ] || { echo "FAIL: no pristine v7.1 tree in $cache (run make first)"; exit 1; }

digest () { (cd "$1" && find . -type f ! -name '.pocl-steal-*' -print0 | LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum); }

unset POCL_SOURCE
"$top/ci/pocl-source.sh" "$work/default" 2>/dev/null || fail "the default route failed"
want=$(digest "$work/default")

POCL_SOURCE=$pristine "$top/ci/pocl-source.sh" "$work/dir" 2>"$work/dir.err" || fail "POCL_SOURCE=<v7.1 tree> was refused: $(cat "$work/dir.err")"
[ "$(digest "$work/dir")" = "$want" ] && echo "POCL_SOURCE=<v7.1 tree>: same patched tree" || fail "POCL_SOURCE=<v7.1 tree> gave another tree"

tar -C "$(dirname "$pristine")" -czf "$work/pocl-7.1.tar.gz" "$(basename "$pristine")"
POCL_SOURCE=$work/pocl-7.1.tar.gz POCL_STEAL_CACHE=$work/cache "$top/ci/pocl-source.sh" "$work/tar" 2>"$work/tar.err" || fail "POCL_SOURCE=<tarball> was refused: $(cat "$work/tar.err")"
[ "$(digest "$work/tar")" = "$want" ] && echo "POCL_SOURCE=<tarball>: same patched tree" || fail "POCL_SOURCE=<tarball> gave another tree"

mkdir -p "$work/v72"
tar -C "$pristine" -cf - . | tar -C "$work/v72" -xf -
sed -i 's/^set(MINOR_VERSION 1)/set(MINOR_VERSION 2)/' "$work/v72/CMakeLists.txt"
if POCL_SOURCE=$work/v72 "$top/ci/pocl-source.sh" "$work/x" 2>"$work/v72.err"; then
  fail "a 7.2 tree was accepted"
else
  grep -q "is not PoCL 7.1" "$work/v72.err" && echo "POCL_SOURCE=<7.2 tree>: $(cat "$work/v72.err")" || fail "a 7.2 tree was refused without saying why: $(cat "$work/v72.err")"
fi

if POCL_SOURCE=$work/nonexistent "$top/ci/pocl-source.sh" "$work/x" 2>"$work/none.err"; then
  fail "a missing POCL_SOURCE was accepted"
else
  grep -q "nonexistent' is neither a directory nor a file" "$work/none.err" && echo "POCL_SOURCE=<missing>: $(cat "$work/none.err")" || fail "a missing POCL_SOURCE was refused without saying why: $(cat "$work/none.err")"
fi

echo "not a tarball" >"$work/junk.tar"
if POCL_SOURCE=$work/junk.tar POCL_STEAL_CACHE=$work/cache "$top/ci/pocl-source.sh" "$work/x" 2>"$work/junk.err"; then
  fail "a junk tarball was accepted"
else
  grep -q "could not be unpacked" "$work/junk.err" && echo "POCL_SOURCE=<junk file>: $(tail -n 1 "$work/junk.err")" || fail "a junk tarball was refused without saying why: $(cat "$work/junk.err")"
fi

rm -rf "$work"
[ "$fails" = 0 ] && echo "check_pocl_source: all checks passed"
[ "$fails" = 0 ]
