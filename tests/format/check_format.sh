#!/bin/sh
# check_format.sh CLANG_FORMAT TOP: clang-format --dry-run -Werror, with
# TOP/.clang-format as the style, over every *.c and *.h under TOP's
# driver/, tests/ and bench/; names each file it would change, with the
# first of its complaints.  With no usable CLANG_FORMAT (CMake found none),
# reports itself skipped (exit 77).  It changes no file: to fix one, run
#   clang-format -i --style=file FILE
# with the clang-format version this test names.
set -u
cf=$1 top=$2
case $cf in
  '' | *-NOTFOUND) cf= ;;
esac
if [ -z "$cf" ] || ! version=$("$cf" --version 2>/dev/null); then
  echo "SKIP: no clang-format (looked for clang-format-19, clang-format)"
  exit 77
fi
style=$top/.clang-format
[ -f "$style" ] || { echo "FAIL: no $style"; exit 1; }
echo "format: $version, style $style"

files=$(cd "$top" && find driver tests bench \( -name '*.c' -o -name '*.h' \) -type f | LC_ALL=C sort)
[ -n "$files" ] || { echo "FAIL: no C files under driver/, tests/, bench/"; exit 1; }
tmp=$(mktemp) || exit 1
trap 'rm -f "$tmp"' EXIT
total=0 bad=0
set -f # file names are split on blanks only
for f in $files; do
  total=$((total + 1))
  if ! (cd "$top" && "$cf" --style="file:$style" --dry-run -Werror "$f") >"$tmp" 2>&1; then
    bad=$((bad + 1))
    echo "FAIL: $f is not formatted ($(grep -c 'error:' "$tmp") place(s)); first:"
    grep -m 1 -A 2 'error:' "$tmp" | sed 's/^/    /'
  fi
done
echo "format: $bad of $total files need clang-format"
[ "$bad" = 0 ]
