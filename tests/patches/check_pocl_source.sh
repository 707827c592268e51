#!/bin/sh
# check_pocl_source.sh TOP WORKDIR: ci/pocl-source.sh with POCL_SOURCE, the
# way someone with their own PoCL tree uses the build, offline:
#   - a v7.1 tree (the pristine one from the cache) and a tarball of it are
#     accepted and give the same patched tree as the default route;
#   - the version is read from the tree: one that says 7.2 is taken as 7.2
#     (LLVM 18-23), with a note that it is no upstream tree we know;
#   - a tree of a version not built (7.3), a missing path and a file that
#     is not a tarball are refused with a message naming them;
#   - a folder of tarballs named in POCL_STEAL_SOURCES (the shared source
#     folder itself, say) is refused with a message that names that
#     setting, not POCL_SOURCE, and asks for the tarballs.
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

[ "$(POCL_SOURCE=$pristine "$top/ci/pocl-source.sh" --version)" = "7.1 17 21 v7.1" ] &&
  echo "POCL_SOURCE=<v7.1 tree> --version: 7.1 17 21 v7.1" ||
  fail "--version of the v7.1 tree says '$(POCL_SOURCE=$pristine "$top/ci/pocl-source.sh" --version 2>&1)'"

for minor in 2 3; do
  mkdir -p "$work/v7$minor"
  tar -C "$pristine" -cf - . | tar -C "$work/v7$minor" -xf -
  sed -i "s/^set(MINOR_VERSION 1)/set(MINOR_VERSION $minor)/" "$work/v7$minor/CMakeLists.txt"
done
if POCL_SOURCE=$work/v72 "$top/ci/pocl-source.sh" "$work/x" 2>"$work/v72.err"; then
  got=$(cat "$work/x/.pocl-steal-version")
  [ "$got" = "7.2 18 23 own-tree" ] && echo "POCL_SOURCE=<tree saying 7.2>: $got" || fail "a tree saying 7.2 gave the version line '$got'"
  grep -q "which is PoCL 7.2 but not an upstream tree recorded" "$work/v72.err" && echo "  with the note: $(head -n 1 "$work/v72.err")" || fail "a tree saying 7.2 was taken without a note: $(cat "$work/v72.err")"
else
  fail "a tree saying 7.2 was refused: $(cat "$work/v72.err")"
fi
if POCL_SOURCE=$work/v73 "$top/ci/pocl-source.sh" "$work/x" 2>"$work/v73.err"; then
  fail "a 7.3 tree was accepted"
else
  grep -q "is PoCL '7.3' .*this project builds PoCL 7.1, 7.2 and main" "$work/v73.err" && echo "POCL_SOURCE=<7.3 tree>: $(cat "$work/v73.err")" || fail "a 7.3 tree was refused without saying why: $(cat "$work/v73.err")"
fi

if POCL_SOURCE=$work/nonexistent "$top/ci/pocl-source.sh" "$work/x" 2>"$work/none.err"; then
  fail "a missing POCL_SOURCE was accepted"
else
  grep -q "nonexistent', which is neither a directory nor a file" "$work/none.err" && echo "POCL_SOURCE=<missing>: $(cat "$work/none.err")" || fail "a missing POCL_SOURCE was refused without saying why: $(cat "$work/none.err")"
fi

echo "not a tarball" >"$work/junk.tar"
if POCL_SOURCE=$work/junk.tar POCL_STEAL_CACHE=$work/cache "$top/ci/pocl-source.sh" "$work/x" 2>"$work/junk.err"; then
  fail "a junk tarball was accepted"
else
  grep -q "could not be unpacked" "$work/junk.err" && echo "POCL_SOURCE=<junk file>: $(tail -n 1 "$work/junk.err")" || fail "a junk tarball was refused without saying why: $(cat "$work/junk.err")"
fi

mkdir -p "$work/tarballs"
echo "not used" >"$work/tarballs/pocl-7.2-x.tar.xz"
if POCL_SOURCE_SETTING=POCL_STEAL_SOURCES POCL_SOURCE=$work/tarballs "$top/ci/pocl-source.sh" --version 2>"$work/folder.err"; then
  fail "a folder of tarballs was accepted as a tree"
else
  grep -q "POCL_STEAL_SOURCES names '$work/tarballs', a folder .*name the tarballs themselves" "$work/folder.err" && echo "POCL_STEAL_SOURCES=<folder of tarballs>: $(cat "$work/folder.err")" || fail "a folder of tarballs in POCL_STEAL_SOURCES was refused without naming the setting and the way out: $(cat "$work/folder.err")"
fi

rm -rf "$work"
[ "$fails" = 0 ] && echo "check_pocl_source: all checks passed"
[ "$fails" = 0 ]
