#!/bin/sh
# check_module_at.sh BUILD: bench/module_at.sh, which makes the "before"
# prefix of a before/after table from a git revision, builds what the
# build builds: its module of HEAD has the same code, function by
# function, as the installed module of the main PoCL version (when
# driver/ has no uncommitted change; else that check is left out, and
# said), its prefix runs a launch under bench/compare_prefixes.py beside
# ours, and a revision or PoCL version it cannot build from is refused
# with a message naming it.  Skipped (77) outside a git checkout.
set -u
here=$(cd "$(dirname "$0")" && pwd -P)
top=$(cd "$here/.." && pwd -P)
build=$(cd "$1" && pwd -P)
fails=0
fail ()
{
  echo "FAIL: $*"
  fails=$((fails + 1))
}

if ! git -C "$top" rev-parse --git-dir >/dev/null 2>&1; then
  echo "SKIP: $top is not a git checkout, so there is no revision to build"
  exit 77
fi
sha=$(git -C "$top" rev-parse --short=7 HEAD)
version=$(head -n 1 "$build/pocl-versions.txt" | cut -d' ' -f1)
root=$build/revs/$sha-$version
cleanup ()
{
  rm -rf "$root"
}
trap cleanup EXIT

out=$("$here/module_at.sh" --build "$build" HEAD 2>&1)
rc=$?
prefix=$(printf '%s\n' "$out" | tail -n 1)
if [ $rc -ne 0 ] || [ "$prefix" != "$root/prefix" ]; then
  fail "module_at.sh HEAD failed ($rc) or named no prefix: $out"
else
  # Today's module, installed in the main build's prefix.
  ours=$build/prefix/ours/lib/pocl/libpocl-devices-pthread.so
  built=$prefix/lib/pocl/libpocl-devices-pthread.so
  [ -f "$built" ] || fail "no module in $prefix"
  if git -C "$top" diff --quiet HEAD -- driver &&
     [ -z "$(git -C "$top" ls-files --others --exclude-standard driver)" ]; then
    # The code, addresses and the file name left out: the link leaves
    # RUNPATH out where the install strips it, which moves every address.
    code ()
    {
      objdump -d --no-addresses --no-show-raw-insn "$1" |
        sed -e '1,/^Disassembly/d' -e 's/[0-9a-f]\{3,\}//g'
    }
    code "$ours" >"$root/ours.dis"
    code "$built" >"$root/built.dis"
    if [ ! -s "$root/ours.dis" ]; then
      fail "objdump read no code from $ours"
    elif ! cmp -s "$root/ours.dis" "$root/built.dis"; then
      fail "the module of HEAD differs from the build's: $(diff "$root/ours.dis" "$root/built.dis" | head -n 5)"
    fi
  else
    echo "note: driver/ differs from HEAD, so the module of HEAD is not compared with the build's"
  fi
  # The prefix runs a launch beside ours, alternated.
  table=$(python3 "$here/compare_prefixes.py" --build "$build" --threads 2 \
    --sizes 64 --schedules static --rounds 1 --launches 5 --batches 1 \
    "ours=$build/prefix/ours:static" "head=$prefix:static" 2>&1) ||
    fail "compare_prefixes.py with the prefix failed: $table"
  printf '%s\n' "$table" | grep -Eq '^\| 2 \| static \| 64 \| [0-9.]+ \| [0-9.]+ \|' ||
    fail "no launch-cost row for ours and HEAD's prefix: $table"
fi

# Refused, naming what: a revision that is not a commit, a version not built.
out=$("$here/module_at.sh" --build "$build" no-such-revision 2>&1) &&
  fail "a revision that does not exist was accepted"
printf '%s\n' "$out" | grep -q "REV 'no-such-revision' is not a commit" ||
  fail "no message naming the bad revision: $out"
out=$("$here/module_at.sh" --build "$build" --version 0.0 HEAD 2>&1) &&
  fail "a PoCL version not built was accepted"
printf '%s\n' "$out" | grep -q "VERSION '0.0' is not a PoCL version this build built; built: $version" ||
  fail "no message naming the bad version and the built ones: $out"

[ $fails -eq 0 ] && echo "module_at.sh: HEAD's module built as the build builds it, and runs"
exit $((fails > 0))
