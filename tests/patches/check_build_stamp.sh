#!/bin/sh
# check_build_stamp.sh BUILD_DIR...: each PoCL build of an upstream tree
# has the stamp cmake/PoclBuildTimestamp.cmake gives it (from
# SOURCE_DATE_EPOCH below 2^28, so a date before mid-1978), not its
# configure time, so that PoCL's kernel cache, whose keys it seeds, is
# reused by the next configuration of the same PoCL (a fresh clone).  The
# first two (the main build and its linked build) must have the same one.
set -u
fails=0
fail () { echo "FAIL: $*"; fails=$((fails + 1)); }
first=
for b in "$@"; do
  h="$b/pocl_build_timestamp.h"
  stamp=$(sed -n 's/^#define POCL_BUILD_TIMESTAMP "\([0-9]*\)"$/\1/p' "$h" 2>/dev/null)
  echo "$b: POCL_BUILD_TIMESTAMP $stamp"
  case "$stamp" in
    [0-9][0-9][0-9][0-9]19[67][0-9][0-9][0-9][0-9][0-9][0-9][0-9]) ;;
    *) fail "$h: stamp '$stamp' is not the derived one (ddmmyyyyHHMMSS before 1979)" ;;
  esac
  if [ -z "$first" ]; then first=$stamp
  elif [ "$b" = "$2" ] && [ "$stamp" != "$first" ]; then
    fail "the linked build's stamp $stamp differs from the main build's $first"
  fi
done
[ "$fails" = 0 ] && echo "check_build_stamp: all checks passed"
[ "$fails" = 0 ]
