#!/bin/sh
# check_series.sh TOP WORKDIR [SOURCE...]: the patch series is in `git
# format-patch` form (a "From <sha>" line, a "Subject: [PATCH n/m] area:
# ..." line and a body saying why), every patch of patches/ is in series
# and every entry of series in patches/, and the series applies in order,
# without fuzz, to a fresh copy of the pristine v7.1 tree and of each PoCL
# tree or tarball SOURCE (ci/pocl-source.sh applies with --fuzz=0 and stops
# at the first that does not apply).
set -u
top=$1 work=$2
shift 2
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
for source in "" "$@"; do
  what=${source:-the v7.1 tree from Debian}
  if POCL_SOURCE=$source "$top/ci/pocl-source.sh" "$work/pocl"; then
    echo "all $n patches apply without fuzz to $what: PoCL $(cat "$work/pocl/.pocl-steal-version")"
  else
    echo "FAIL: the series does not apply without fuzz to $what"
    fails=$((fails + 1))
  fi
  rm -rf "$work"
done
[ "$fails" = 0 ] && echo "check_series: all checks passed"
[ "$fails" = 0 ]
