#!/bin/sh
# POCL_SOURCE=TREE check_export.sh TOP WORKDIR: ci/yggdrasil/export.sh
# writes the series plus the driver as Yggdrasil patches: numbered after
# Yggdrasil's series (0022 on) or after the patches already in a directory
# (--after), in format-patch form, and they apply with `patch -p1` in file
# order to the pristine tree POCL_SOURCE names, after which the driver is
# in lib/CL/devices/pthread-steal exactly as in driver/.
set -u
top=$1 work=$2
fails=0
fail () { echo "FAIL: $*"; fails=$((fails + 1)); }
rm -rf "$work"
mkdir -p "$work/existing"
: >"$work/existing/0006-some-fix.patch"
: >"$work/existing/0017-another-fix.patch"
"$top/ci/yggdrasil/export.sh" "$work/out" --after "$work/existing" >"$work/list" 2>"$work/err" ||
  { fail "export failed: $(cat "$work/err")"; exit 1; }
first=$(basename "$(head -n 1 "$work/list")")
n=$(wc -l <"$work/list")
want=$(( $(grep -cv -e '^#' -e '^$' "$top/patches/series") + 1 ))
echo "exported $n patches, the first $first"
case "$first" in 0018-pocl-steal-*) ;; *) fail "numbering does not follow 0017: $first" ;; esac
[ "$n" = "$want" ] || fail "$n patches, want the $((want - 1)) of the series plus the driver"
"$top/ci/yggdrasil/export.sh" "$work/default" >"$work/list0" 2>"$work/err" ||
  { fail "export without --after failed: $(cat "$work/err")"; exit 1; }
first0=$(basename "$(head -n 1 "$work/list0")")
case "$first0" in 0022-pocl-steal-*) ;; *) fail "default numbering does not follow Yggdrasil's 0021: $first0" ;; esac
for f in $(cat "$work/list"); do
  head -n 1 "$f" | grep -q '^From 0\{40\} ' || fail "$(basename "$f") is not in format-patch form"
done
"$top/ci/pocl-source.sh" --pristine "$work/pocl" 2>/dev/null || { fail "no pristine tree"; exit 1; }
for f in $(cat "$work/list"); do
  patch -p1 -s --batch --forward -d "$work/pocl" <"$f" || fail "$(basename "$f") does not apply with patch -p1"
done
for f in "$top"/driver/*; do
  cmp -s "$f" "$work/pocl/lib/CL/devices/pthread-steal/$(basename "$f")" ||
    fail "lib/CL/devices/pthread-steal/$(basename "$f") differs from driver/"
done
rm -rf "$work"
[ "$fails" = 0 ] && echo "check_export: all checks passed"
[ "$fails" = 0 ]
