#!/bin/sh
# check_docs_settings.sh TEST_CONFIG SETTINGS_MD: the table of
# docs/settings.md's section "## The settings table" is, line for line,
# what `TEST_CONFIG --markdown` prints from the driver's settings table
# (driver/pthread_config.c), and it is one table (no blank line or other
# text between its lines).  To update docs/settings.md after changing a
# row, replace that table with the output of `test_config --markdown`.
set -u
test_config=$1 page=$2
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

"$test_config" --markdown >"$tmp/generated" ||
  { echo "FAIL: $test_config --markdown exited with $?"; exit 1; }

# The section: from its heading to the next heading.
awk '
  /^## The settings table[[:space:]]*$/ { found = 1; on = 1; next }
  on && /^#/ { on = 0 }
  on { print }
  END { if (!found) exit 3 }
' "$page" >"$tmp/section" ||
  { echo "FAIL: $page has no section '## The settings table'"; exit 1; }

# Its table: the lines from the first to the last that start with '|';
# every line between them must be a table line too.
awk '/^\|/ { if (!first) first = NR; last = NR }
     END { print first + 0, last + 0 }' "$tmp/section" >"$tmp/range"
read -r first last <"$tmp/range"
if [ "$first" = 0 ]; then
  echo "FAIL: the section '## The settings table' of $page has no table"
  exit 1
fi
sed -n "${first},${last}p" "$tmp/section" >"$tmp/page_table"
if grep -qv '^|' "$tmp/page_table"; then
  echo "FAIL: the settings table in $page is split; a line between its rows is not a row:"
  grep -nv '^|' "$tmp/page_table" | sed 's/^/    line /'
  exit 1
fi

if ! diff -u "$tmp/generated" "$tmp/page_table" >"$tmp/diff"; then
  echo "FAIL: the settings table in $page differs from test_config --markdown"
  echo "(- the driver's table, + $page); replace it with that output:"
  cat "$tmp/diff"
  exit 1
fi
echo "docs_settings: $(($(wc -l <"$tmp/generated") - 2)) rows, as the driver's table"
echo "check_docs_settings: all checks passed"
