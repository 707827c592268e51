#!/bin/sh
# check_series.sh TOP WORKDIR: the patch series is in `git format-patch`
# form (a "From <sha>" line, a "Subject: [PATCH n/m] area: ..." line and a
# body saying why), and applies cleanly, in order, to a fresh copy of the
# pristine v7.1 tree (ci/pocl-source.sh stops at the first that does not).
set -u
top=$1 work=$2
fails=0
n=0
for p in $(grep -v -e '^#' -e '^$' "$top/patches/series"); do
  n=$((n + 1))
  f="$top/patches/$p"
  [ -f "$f" ] || { echo "FAIL: $p is in series but not in patches/"; fails=$((fails + 1)); continue; }
  head -n 1 "$f" | grep -q '^From [0-9a-f]\{40\} ' || { echo "FAIL: $p does not start with a format-patch 'From <sha>' line"; fails=$((fails + 1)); }
  subject=$(grep -m 1 '^Subject: ' "$f")
  echo "$subject" | grep -q '^Subject: \[PATCH[^]]*\] [a-z][a-z0-9_/-]*: ' || { echo "FAIL: $p: '$subject' is not 'Subject: [PATCH] area: ...'"; fails=$((fails + 1)); }
  body=$(sed -n '/^Subject: /,/^---$/p' "$f" | wc -l)
  [ "$body" -ge 6 ] || { echo "FAIL: $p has no body saying why"; fails=$((fails + 1)); }
  echo "$p: $subject"
done
for p in $(ls "$top/patches" | grep '\.patch$'); do
  grep -qx "$p" "$top/patches/series" || { echo "FAIL: patches/$p is not in series"; fails=$((fails + 1)); }
done
rm -rf "$work"
if "$top/ci/pocl-source.sh" "$work/pocl"; then
  echo "all $n patches apply to a fresh v7.1 tree"
else
  echo "FAIL: the series does not apply to a fresh v7.1 tree"
  fails=$((fails + 1))
fi
rm -rf "$work"
[ "$fails" = 0 ] && echo "check_series: all checks passed"
[ "$fails" = 0 ]
