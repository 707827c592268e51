#!/usr/bin/env bash
# check_install.sh TOP BUILD CL_HELLO WORK: `make install` and `make
# uninstall` (ci/install.sh), as a user runs them.  Checks that
#  - bad settings (no PREFIX, an unknown VARIANT or VERSION, a variant or
#    version not built, a PoCL without ENABLE_RELOCATION, REGISTER=yes)
#    fail with a message naming the bad value, and make nothing;
#  - the installed prefix works from its new place: cl_hello through the
#    ICD loader with OCL_ICD_VENDORS set to the line install prints, and
#    through the ICD file REGISTER=1 wrote (into an ICD_VENDORS_DIR of the
#    test, not /etc); libpocl, its device modules and the kernel library
#    it compiles with (a fresh kernel cache) are all the installed ones,
#    none from the build, and it is our driver (its statistics line);
#  - no installed text file names the build's prefixes;
#  - uninstall removes exactly what install made: the prefix and the
#    registered ICD file are gone, files of the user's inside the prefix,
#    beside it and in the vendors directory stay, with the directories
#    that hold them; without a manifest it refuses and removes nothing;
#  - install refuses to overwrite a file it did not make.
# Why: an installed PoCL that quietly kept loading the build's modules
# or kernel library would pass a run in the build tree and break once the
# build is removed; an uninstall that removes more than it installed
# loses the user's files.
set -u
top=$1 build=$2 hello=$3 work_parent=$4
command -v make >/dev/null || {
  echo "SKIPPED: no make to run make install with"
  exit 77
}
mkdir -p "$work_parent"
work=$(mktemp -d "$work_parent/install.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
fails=0
fail () { echo "FAIL: $*"; fails=$((fails + 1)); }

# mk TARGET VAR=VALUE...: make TARGET in the checkout with this build (or
# the BUILD given); output in $work/out.
mk ()
{
  make -s -C "$top" BUILD="$build" "$@" >"$work/out" 2>&1
}

# expect_error WHAT PATTERN VAR=VALUE...: install fails, saying PATTERN,
# and makes nothing.
expect_error ()
{
  local what=$1 pattern=$2
  shift 2
  rm -rf "$work/p"
  if mk install "$@"; then
    fail "$what: install succeeded"
  elif ! grep -qE -- "$pattern" "$work/out"; then
    fail "$what: the message does not say /$pattern/: $(cat "$work/out")"
  fi
  [ ! -e "$work/p" ] || fail "$what: install made $work/p"
}

# --- bad settings --------------------------------------------------------

expect_error "no PREFIX" "no PREFIX" PREFIX=
expect_error "VARIANT=nosuch" "VARIANT='nosuch'.*accepted: ours.*stock.*tsan.*asan" \
  PREFIX="$work/p" VARIANT=nosuch
expect_error "VERSION=9.9" "VERSION='9.9'.*accepted: $(head -n 1 "$build/pocl-versions.txt" | cut -d' ' -f1)" \
  PREFIX="$work/p" VERSION=9.9
expect_error "REGISTER=yes" "REGISTER='yes'.*accepted: 1" PREFIX="$work/p" REGISTER=yes
# A build of the main version only, with ours alone, and no relocation.
fake="$work/fake-build"
mkdir -p "$fake/prefix/ours/etc/OpenCL/vendors" "$fake/prefix/ours/lib" "$fake/pocl-build"
echo "$fake/prefix/ours/lib/libpocl.so.2" >"$fake/prefix/ours/etc/OpenCL/vendors/pocl.icd"
: >"$fake/prefix/ours/lib/libpocl.so.2"
printf '7.1 built v7.1 %s\nmain missing no PoCL main tree\n' "$fake/prefix" >"$fake/pocl-versions.txt"
echo "ENABLE_RELOCATION:BOOL=OFF" >"$fake/pocl-build/CMakeCache.txt"
expect_error "a variant not built" "VARIANT=stock of PoCL 7.1 was not built.*built for 7.1: ours" \
  PREFIX="$work/p" VARIANT=stock BUILD="$fake"
expect_error "a version not built" "VERSION=main was not built: no PoCL main tree" \
  PREFIX="$work/p" VERSION=main BUILD="$fake"
expect_error "no ENABLE_RELOCATION" "not built with ENABLE_RELOCATION" \
  PREFIX="$work/p" BUILD="$fake"

# Uninstall where nothing was installed: refused, nothing removed.
mkdir -p "$work/p"
echo mine >"$work/p/mine.txt"
if mk uninstall PREFIX="$work/p"; then
  fail "uninstall without a manifest succeeded"
else
  grep -q "no install manifest" "$work/out" ||
    fail "uninstall without a manifest: $(cat "$work/out")"
fi
[ -f "$work/p/mine.txt" ] || fail "uninstall without a manifest removed a file"

# Install over a file it did not make: refused, the file untouched.
mkdir -p "$work/p/lib"
echo mine >"$work/p/lib/libpocl.so"
if mk install PREFIX="$work/p"; then
  fail "install over an existing lib/libpocl.so succeeded"
else
  grep -q "already has what make install would write.*lib/libpocl.so" "$work/out" ||
    fail "install over a file: $(cat "$work/out")"
fi
[ "$(cat "$work/p/lib/libpocl.so")" = mine ] || fail "install changed a file it did not make"
[ "$(find "$work/p" | wc -l)" = 4 ] || fail "a refused install made files: $(find "$work/p")"

# --- install, use, uninstall ---------------------------------------------

# run_hello NAME VENDORS [VAR=VALUE...]: cl_hello through the ICD files of
# VENDORS; output in $work/NAME.out, $work/NAME.err.
run_hello ()
{
  local name=$1 vendors=$2
  shift 2
  env -u OCL_ICD_FILENAMES OCL_ICD_VENDORS="$vendors" "$@" "$hello" \
    >"$work/$name.out" 2>"$work/$name.err"
}

# One install into a prefix whose parents do not exist yet, beside a file
# of the user's, registered into a vendors directory of the test.
mkdir -p "$work/opt"
echo mine >"$work/opt/keep.txt"
prefix="$work/opt/a/pocl-steal"
vendors="$work/vendors"
if ! mk install PREFIX="$prefix" REGISTER=1 ICD_VENDORS_DIR="$vendors"; then
  fail "install: $(cat "$work/out")"
  exit 1
fi
line="export OCL_ICD_VENDORS=$prefix/etc/OpenCL/vendors"
[ "$(tail -n 1 "$work/out")" = "$line" ] ||
  fail "install's last line is not '$line': $(tail -n 1 "$work/out")"
manifest="$prefix/share/pocl-steal/installed.txt"
[ -f "$manifest" ] || fail "no manifest $manifest"
cp "$manifest" "$work/manifest"
lib=$(cat "$prefix/etc/OpenCL/vendors/pocl.icd")
case "$lib" in
  "$prefix"/lib/libpocl.so*) [ -f "$lib" ] || fail "the installed ICD file names $lib, which is missing" ;;
  *) fail "the installed ICD file names $lib, not a libpocl in $prefix" ;;
esac
[ "$(cat "$vendors/pocl-steal.icd" 2>/dev/null)" = "$lib" ] ||
  fail "the registered ICD file does not name $lib: $(cat "$vendors/pocl-steal.icd" 2>&1)"
grep -q "^registered $vendors/pocl-steal.icd\$" "$manifest" ||
  fail "the manifest does not list the registered ICD file"
# (The manifest says where the files came from.)
stale=$(grep -rlIF --exclude=installed.txt "$build/prefix/" "$prefix")
[ -z "$stale" ] || fail "installed files name the build's prefixes: $stale"

# A fresh kernel cache, so that the kernel is compiled with the kernel
# library and headers PoCL finds; LD_DEBUG lists every library loaded.
if run_hello installed "$prefix/etc/OpenCL/vendors" POCL_CACHE_DIR="$work/kcache" \
  POCL_DEBUG=llvm POCL_PTHREAD_STATS=1 LD_DEBUG=files; then
  grep -q "correct" "$work/installed.out" ||
    fail "cl_hello through the installed prefix: $(cat "$work/installed.out")"
else
  fail "cl_hello through the installed prefix failed: $(tail -n 20 "$work/installed.err")"
fi
grep -q "pocl: pthread stats:" "$work/installed.err" ||
  fail "no statistics line: not our driver from the installed prefix"
loaded=$(sed -n 's/.*calling init: \(.*libpocl.*\)$/\1/p' "$work/installed.err")
for f in lib/libpocl.so lib/pocl/libpocl-devices-pthread.so lib/pocl/libpocl-devices-basic.so; do
  echo "$loaded" | grep -q "^$prefix/${f%/*}/${f##*/}" ||
    fail "$prefix/$f was not loaded; PoCL's libraries loaded: $loaded"
done
echo "$loaded" | grep -v "^$prefix/" | grep . &&
  fail "libraries loaded from outside the installed prefix"
grep -q "Using $prefix/.*kernel-.*\.bc as the built-in lib" "$work/installed.err" ||
  fail "the kernel library is not the installed one: $(grep -i 'built-in lib' "$work/installed.err")"

# Through the ICD file REGISTER=1 wrote, as a system-wide install is found.
run_hello registered "$vendors" ||
  fail "cl_hello through the registered ICD file failed: $(tail -n 20 "$work/registered.err")"
grep -q "correct" "$work/registered.out" || fail "cl_hello through the registered ICD file"

# Files of the user's in the prefix and the vendors directory.
echo mine >"$prefix/lib/pocl/notes.txt"
echo other >"$vendors/other.icd"
if ! mk uninstall PREFIX="$prefix"; then
  fail "uninstall: $(cat "$work/out")"
fi
[ ! -e "$vendors/pocl-steal.icd" ] || fail "the registered ICD file is still there"
[ -f "$vendors/other.icd" ] || fail "uninstall removed another ICD file"
[ -f "$work/opt/keep.txt" ] || fail "uninstall removed a file beside the prefix"
[ -f "$prefix/lib/pocl/notes.txt" ] || fail "uninstall removed a file of the user's in the prefix"
left=$(cd "$work/opt" && find . | sort | tr '\n' ' ')
want=". ./a ./a/pocl-steal ./a/pocl-steal/lib ./a/pocl-steal/lib/pocl ./a/pocl-steal/lib/pocl/notes.txt ./keep.txt "
[ "$left" = "$want" ] || fail "after uninstall, $work/opt holds '$left', not '$want'"
sed -n 's/^\(file\|link\|registered\) //p' "$work/manifest" | while IFS= read -r f; do
  [ ! -e "$f" ] && [ ! -L "$f" ] || echo "FAIL: $f is still there"
done | grep . && fails=$((fails + 1))
# Once more: there is no manifest any more.
if mk uninstall PREFIX="$prefix"; then
  fail "a second uninstall succeeded"
fi
[ -f "$prefix/lib/pocl/notes.txt" ] || fail "a second uninstall removed a file"

# Another variant, into a fresh prefix, registered: after uninstall,
# nothing of it is left, the directories it made included.
prefix2="$work/opt/b/c"
vendors2="$work/vendors2"
if mk install PREFIX="$prefix2" VARIANT=stock REGISTER=1 ICD_VENDORS_DIR="$vendors2"; then
  run_hello stock "$prefix2/etc/OpenCL/vendors" POCL_PTHREAD_STATS=1 ||
    fail "cl_hello through the installed stock prefix failed: $(tail -n 20 "$work/stock.err")"
  grep -q "correct" "$work/stock.out" || fail "cl_hello through the installed stock prefix"
  grep -q "pocl: pthread stats:" "$work/stock.err" &&
    fail "VARIANT=stock installed our driver"
  stale=$(grep -rlIF --exclude=installed.txt "$build/prefix/" "$prefix2")
  [ -z "$stale" ] || fail "installed stock files name the build's prefixes: $stale"
  mk uninstall PREFIX="$prefix2" || fail "uninstall of stock: $(cat "$work/out")"
  [ ! -e "$work/opt/b" ] || fail "uninstall left $(cd "$work/opt" && find b)"
  [ ! -e "$vendors2" ] || fail "uninstall left the vendors directory it made"
else
  fail "install VARIANT=stock: $(cat "$work/out")"
fi

[ "$fails" = 0 ] && echo "install: installed prefixes work from their place; uninstall removes exactly what install made"
[ "$fails" = 0 ]
