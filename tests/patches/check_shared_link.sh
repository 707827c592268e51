#!/bin/sh
# check_shared_link.sh TOP WORKDIR: the default PoCL sources (the shared
# source folder ../shared/pocl-src beside the checkout) are found the same
# way when ../shared is a symbolic link, and when only its real path is
# known (POCL_STEAL_SHARED_SOURCES, which ci/enter.sh passes into the build
# root, where only the real path is mounted).  Before, the build root's
# configure step globbed the unresolved path, found nothing, and quietly
# built no 7.2 and no main.  A machine with no shared source folder
# reports the test skipped.
set -u
top=$1 work=$2
fails=0
fail () { echo "FAIL: $*"; fails=$((fails + 1)); }
list () { # TOP: the list SharedSources.cmake gives for checkout TOP
  cmake "-DTOP=$1" -P "$top/cmake/SharedSources.cmake" 2>&1
}

unset POCL_STEAL_SHARED_SOURCES
real=$(list "$top")
if [ -z "$real" ]; then
  echo "SKIPPED: no shared source folder ../shared/pocl-src beside $top"
  exit 0
fi
sources=$(dirname "$(printf '%s\n' "$real" | head -n 1)")
shared=$(dirname "$sources")
echo "shared source folder: $sources ($(printf '%s\n' "$real" | wc -l) tarballs)"

rm -rf "$work"
mkdir -p "$work/co/cmake" "$work/elsewhere/co"
# A checkout beside a link to the shared folder.
cp "$top/cmake/SharedSources.cmake" "$work/co/cmake/"
ln -s "$shared" "$work/shared"
got=$(list "$work/co")
echo "through the link:"
printf '%s\n' "$got"
[ "$got" = "$real" ] || fail "a symbolic link ../shared gave another list than the folder itself"

# Only the real path known, as inside the build root.
got=$(POCL_STEAL_SHARED_SOURCES=$sources list "$work/elsewhere/co")
[ "$got" = "$real" ] || fail "POCL_STEAL_SHARED_SOURCES gave another list than the folder itself: $got"

# ci/enter.sh passes the real path of the link.
got=$(sed -n 's/^  shared=\$(realpath "\$top\/..\/shared\/pocl-src")$/found/p' "$top/ci/enter.sh")
[ "$got" = found ] || fail "ci/enter.sh no longer passes the real path of ../shared/pocl-src"

# Nothing there: an empty list, no error.
got=$(list "$work/elsewhere/co")
[ -z "$got" ] || fail "a checkout with no shared folder beside it found: $got"

rm -rf "$work"
[ "$fails" = 0 ] && echo "check_shared_link: all checks passed"
