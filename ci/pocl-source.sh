#!/usr/bin/env bash
# Usage: ci/pocl-source.sh [--pristine] DEST
#        ci/pocl-source.sh --version
#
# Makes DEST a PoCL source tree with patches/series applied (with
# --pristine: without them), and writes DEST/.pocl-steal-version: the
# version's name (7.1, 7.2 or main), the lowest and highest LLVM major
# version it builds with, and where the tree came from.  With --version it
# prints that line and prepares nothing.
#
# Where the tree comes from:
#  - POCL_SOURCE unset: Debian's pocl-source 7.1-9 binary package (the whole
#    tree with Debian's patches applied) and the source package's
#    debian.tar.xz, from the Debian mirror this machine uses.  Debian's
#    patches are reversed, which gives upstream's v7.1 tree.  Both downloads
#    and the resulting tree are checked against ci/pocl-source.lock; the
#    downloads and the pristine tree are kept in the cache directory, so later
#    runs need no network.
#  - POCL_SOURCE=DIR or POCL_SOURCE=TARBALL: your own PoCL tree (a git
#    checkout of tag v7.1 or v7.2, or of main) or a tarball of one.  Its
#    version is read from its CMakeLists.txt; 7.1, 7.2 and main (8.0-pre)
#    are accepted.  A tree whose digest is not one of the upstream trees
#    in ci/pocl-source.lock is used as it is, with a note.
#
# DEST is only rebuilt when the source or a patch changes, so a PoCL build
# tree using it stays valid.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd -P)
. "$here/common.sh"
top=$(cd "$here/.." && pwd -P)

apply_series=1
only_version=0
case "${1:-}" in
  --pristine) apply_series=0; shift ;;
  --version) only_version=1; shift; set -- none ;;
esac
[ $# -eq 1 ] || ps_die "usage: ci/pocl-source.sh [--pristine] DEST, or ci/pocl-source.sh --version"
dest=$1
lock="$here/pocl-source.lock"
cache=$(ps_cache_dir)

lock_field () # KIND FIELD(2..4): of the first line of that kind
{
  awk -v k="$1" -v f="$2" '$1 == k { print $f; exit }' "$lock"
}

# The name of the upstream tree in the lock file with this digest, if any.
known_tree () # DIGEST
{
  awk -v d="$1" '$1 == "tree" && $4 == d { print $2; exit }' "$lock"
}

# Digest of a source tree, independent of timestamps and of dot-files (git
# metadata, CI settings) that the Debian tarball does not carry.
tree_digest ()
{
  (
    cd "$1"
    {
      find . -type f ! -path './.*' -print0 | LC_ALL=C sort -z | xargs -0 -r sha256sum
      find . -type l ! -path './.*' -print0 | LC_ALL=C sort -z |
        xargs -0 -r -I{} sh -c 'printf "link %s %s\n" "$1" "$(readlink "$1")"' _ {}
    } | sha256sum | cut -c1-64
  )
}

# Prints "NAME LLVM_MIN LLVM_MAX" for the PoCL version of tree DIR (WHAT
# names it in errors): 7.1 builds with LLVM 17-21, 7.2 and main with 18-23
# (cmake/LLVM.cmake of each).  Other versions are refused.
tree_version () # DIR WHAT
{
  local cm="$1/CMakeLists.txt" major minor suffix
  if [ ! -f "$cm" ]; then
    # A folder of tarballs, such as the shared source folder: name them.
    if ls "$1"/pocl-*.tar.* >/dev/null 2>&1; then
      ps_die "$2, a folder with no CMakeLists.txt at its top but PoCL tarballs in it; name the tarballs themselves (e.g. $(ls "$1"/pocl-*.tar.* | head -n 1)), or a source tree"
    fi
    ps_die "$2, which has no CMakeLists.txt at its top; expected a PoCL source tree"
  fi
  major=$(sed -n 's/^set(MAJOR_VERSION \([0-9]*\))$/\1/p' "$cm" | head -n 1)
  minor=$(sed -n 's/^set(MINOR_VERSION \([0-9]*\))$/\1/p' "$cm" | head -n 1)
  suffix=$(sed -n 's/^set(VERSION_SUFFIX_FIXED_TEXT "\(.*\)")$/\1/p' "$cm" | head -n 1)
  case "$major.$minor$suffix" in
    7.1) echo "7.1 17 21" ;;
    7.2) echo "7.2 18 23" ;;
    8.0-pre) echo "main 18 23" ;;
    *) ps_die "$2, which is PoCL '$major.$minor$suffix' (from its CMakeLists.txt); this project builds PoCL 7.1, 7.2 and main (8.0-pre)" ;;
  esac
}

# Downloads NAME from Debian's pool into the cache, unless a copy with the
# recorded size and SHA-256 is there already.
fetch_checked ()
{
  local kind=$1 name size sum file mirror url
  name=$(lock_field "$kind" 2)
  size=$(lock_field "$kind" 3)
  sum=$(lock_field "$kind" 4)
  file="$cache/downloads/$name"
  mkdir -p "$cache/downloads"
  if [ -f "$file" ] && [ "$(sha256sum <"$file" | cut -c1-64)" = "$sum" ]; then
    echo "$file"
    return
  fi
  mirror=$(ps_debian_mirror)
  url="$mirror/pool/main/p/pocl/$name"
  ps_note "downloading $name"
  curl -fsSL --retry 3 -o "$file.partial" "$url" ||
    ps_die "could not download $url (no network? a cached copy would be at $file)"
  local got_size got_sum
  got_size=$(stat -c %s "$file.partial")
  got_sum=$(sha256sum <"$file.partial" | cut -c1-64)
  if [ "$got_size" != "$size" ] || [ "$got_sum" != "$sum" ]; then
    rm -f "$file.partial"
    ps_die "$url changed: got $got_size bytes, sha256 $got_sum; ci/pocl-source.lock expects $size bytes, sha256 $sum. Debian may have replaced the package; check it and update the lock file, or use POCL_SOURCE=<your v7.1 tree>"
  fi
  mv "$file.partial" "$file"
  echo "$file"
}

# The pristine v7.1 tree from Debian's packages, made once in the cache.
debian_pristine ()
{
  local want out tmp deb debtar
  want=$(lock_field tree 4)
  out="$cache/pocl-v7.1-$(echo "$want" | cut -c1-12)"
  if [ -f "$out/.pocl-steal-tree" ]; then
    echo "$out"
    return
  fi
  deb=$(fetch_checked deb)
  debtar=$(fetch_checked debian)
  tmp="$out.partial"
  rm -rf "$tmp"
  mkdir -p "$tmp/pkg" "$tmp/debian-dir"
  dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$tmp/pkg" ./usr/src/pocl.tar.xz
  tar -xJf "$tmp/pkg/usr/src/pocl.tar.xz" -C "$tmp"
  tar -xJf "$debtar" -C "$tmp/debian-dir"
  [ -d "$tmp/pocl" ] || ps_die "the pocl-source package did not hold a pocl/ tree"
  local p
  for p in $(grep -v '^#' "$tmp/debian-dir/debian/patches/series" | tac); do
    patch -R -p1 -s -d "$tmp/pocl" <"$tmp/debian-dir/debian/patches/$p" ||
      ps_die "reversing Debian's patch $p failed"
  done
  local got
  got=$(tree_digest "$tmp/pocl")
  [ "$got" = "$want" ] ||
    ps_die "the tree made from Debian's packages has digest $got, not the $want of upstream v7.1 recorded in ci/pocl-source.lock"
  mv "$tmp/pocl" "$out"
  echo "$want" >"$out/.pocl-steal-tree"
  rm -rf "$tmp"
  echo "$out"
}

# The setting a user tree came from, for messages: POCL_SOURCE, or
# POCL_STEAL_SOURCES when cmake/PoclVersions.cmake prepares one of its
# items (it sets POCL_SOURCE_SETTING).
setting=${POCL_SOURCE_SETTING:-POCL_SOURCE}

# A user-supplied tree or tarball, unpacked into the cache when a tarball.
user_pristine ()
{
  local src=$POCL_SOURCE
  if [ -d "$src" ]; then
    (cd "$src" && pwd -P)
    return
  fi
  [ -f "$src" ] || ps_die "$setting names '$src', which is neither a directory nor a file (give a PoCL 7.1, 7.2 or main source tree or a tarball of one)"
  local sum out tmp inner
  sum=$(sha256sum <"$src" | cut -c1-12)
  out="$cache/pocl-user-$sum"
  if [ -f "$out/CMakeLists.txt" ]; then
    echo "$out"
    return
  fi
  tmp="$out.partial"
  rm -rf "$tmp"
  mkdir -p "$tmp"
  tar -xf "$src" -C "$tmp" || ps_die "$setting names '$src', which could not be unpacked with tar"
  inner=$(find "$tmp" -maxdepth 2 -name CMakeLists.txt -printf '%h\n' | sort | head -n 1)
  [ -n "$inner" ] || ps_die "$setting names '$src', which holds no CMakeLists.txt at its top or one level down"
  mv "$inner" "$out"
  rm -rf "$tmp"
  echo "$out"
}

if [ -n "${POCL_SOURCE:-}" ]; then
  pristine=$(user_pristine)
  version=$(tree_version "$pristine" "$setting names '$POCL_SOURCE'")
  digest=$(tree_digest "$pristine")
  upstream=$(known_tree "$digest")
  if [ -z "$upstream" ]; then
    ps_note "$setting names '$POCL_SOURCE', which is PoCL ${version%% *} but not an upstream tree recorded in ci/pocl-source.lock (tree digest $digest); using it as it is"
    upstream=own-tree
  fi
  origin="user:$pristine:$digest"
else
  pristine=$(debian_pristine)
  version=$(tree_version "$pristine" "the Debian-derived tree")
  upstream=v7.1
  origin="debian:$(lock_field tree 4)"
fi
if [ "$only_version" = 1 ]; then
  echo "$version $upstream"
  exit 0
fi
series="$top/patches/series"
if [ "$apply_series" = 0 ]; then
  # The unpatched tree, e.g. for exporting the series (ci/yggdrasil).
  rm -rf "$dest"
  mkdir -p "$dest"
  tar -C "$pristine" --exclude=./.git --exclude=./.pocl-steal-tree -cf - . | tar -C "$dest" -xf -
  echo "$version $upstream" >"$dest/.pocl-steal-version"
  exit 0
fi
patch_sum=$(
  cat "$series"
  grep -v -e '^#' -e '^$' "$series" | while read -r p; do cat "$top/patches/$p"; done
)
key=$(printf '%s\n%s\n' "$origin" "$patch_sum" | sha256sum | cut -c1-64)

if [ -f "$dest/.pocl-steal-source" ] && [ "$(cat "$dest/.pocl-steal-source")" = "$key" ]; then
  exit 0
fi

ps_note "preparing PoCL ${version%% *} ($upstream) with patches/series in $dest"
rm -rf "$dest.partial"
mkdir -p "$dest.partial"
tar -C "$pristine" --exclude=./.git -cf - . | tar -C "$dest.partial" -xf -
grep -v -e '^#' -e '^$' "$series" | while read -r p; do
  [ -f "$top/patches/$p" ] || ps_die "patches/series names $p, which is not in patches/"
  # No fuzz: a patch whose context does not match exactly is not applied.
  patch -p1 -s --batch --fuzz=0 -d "$dest.partial" <"$top/patches/$p" ||
    ps_die "patches/$p does not apply without fuzz to the PoCL ${version%% *} tree from $origin"
done
rm -f "$dest.partial/.pocl-steal-tree"
echo "$version $upstream" >"$dest.partial/.pocl-steal-version"
echo "$key" >"$dest.partial/.pocl-steal-source"
rm -rf "$dest"
mv "$dest.partial" "$dest"
