#!/usr/bin/env bash
# Usage: ci/install.sh install --prefix DIR [--variant V] [--version V]
#                              [--register 0|1] [--vendors-dir DIR]
#                              [--build DIR]
#        ci/install.sh uninstall --prefix DIR
# (`make install PREFIX=...` and `make uninstall PREFIX=...` call it.)
#
# install copies one prefix of the build (VARIANT ours, stock, tsan, asan
# or linked, of the PoCL VERSION build/pocl-versions.txt lists; the main
# build by default) into DIR, then makes it name its new place: the ICD
# file, etc/OpenCL/vendors/pocl.icd, names DIR's libpocl and pocl.pc
# DIR's directories.  Nothing else holds a path: PoCL is built with
# ENABLE_RELOCATION, so libpocl finds its device modules (lib/pocl) and
# its kernel library and headers (share/pocl) beside itself, through the
# path it was loaded from; the build paths compiled into libpocl are read
# only with POCL_BUILDING=1 or if that lookup fails.  A build without
# ENABLE_RELOCATION would keep loading the build's files from anywhere,
# so it is refused.  --register 1 also writes pocl-steal.icd into the ICD
# loader's vendors directory (/etc/OpenCL/vendors, or --vendors-dir).
# Every file, link and directory made is listed, in the order made, in
# DIR/share/pocl-steal/installed.txt; uninstall removes exactly those
# (directories only when empty) and nothing else.  Both only copy and
# remove files: no build environment is needed.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd -P)
. "$here/common.sh"

MANIFEST_REL=share/pocl-steal/installed.txt
MANIFEST_HEAD="# pocl-steal install manifest"
VARIANTS="ours stock tsan asan linked"

usage ()
{
  ps_die "usage: ci/install.sh install --prefix DIR [--variant ours|stock|tsan|asan|linked] [--version V] [--register 0|1] [--vendors-dir DIR] [--build DIR]; ci/install.sh uninstall --prefix DIR"
}

[ $# -ge 1 ] || usage
action=$1
shift
prefix='' variant='' version='' register='' vendors='' build=''
while [ $# -gt 0 ]; do
  [ $# -ge 2 ] || usage
  case "$1" in
    --prefix) prefix=$2 ;;
    --variant) variant=$2 ;;
    --version) version=$2 ;;
    --register) register=$2 ;;
    --vendors-dir) vendors=$2 ;;
    --build) build=$2 ;;
    *) usage ;;
  esac
  shift 2
done
case "$action" in
  install | uninstall) ;;
  *) usage ;;
esac

[ -n "$prefix" ] || ps_die "no PREFIX: say where to $action, e.g. make $action PREFIX=\$HOME/opt/pocl-steal"
case "$prefix" in
  *$'\n'*) ps_die "PREFIX='$prefix' has a line break; choose a path without one" ;;
esac
# An absolute path, with the symbolic links of what exists resolved, as
# the manifest records it.
prefix=$(realpath -m -- "$prefix")
manifest="$prefix/$MANIFEST_REL"

# --- uninstall ------------------------------------------------------------

if [ "$action" = uninstall ]; then
  [ -f "$manifest" ] ||
    ps_die "PREFIX=$prefix has no install manifest ($MANIFEST_REL): nothing there was installed by make install, or it was uninstalled already; nothing removed"
  [ "$(head -n 1 "$manifest")" = "$MANIFEST_HEAD" ] ||
    ps_die "$manifest is not a pocl-steal install manifest; nothing removed"
  recorded=$(sed -n 's/^# prefix //p' "$manifest")
  [ "$recorded" = "$prefix" ] ||
    ps_die "$manifest lists an install into '$recorded', not '$prefix' (was the prefix moved?); nothing removed"
  files=() dirs=()
  while IFS= read -r line; do
    kind=${line%% *} path=${line#* }
    case "$kind" in
      '#'*) continue ;;
      file | link)
        case "$path" in
          */../* | */./*) ps_die "$manifest lists '$path', which is not a plain path; nothing removed" ;;
          "$prefix"/*) ;;
          *) ps_die "$manifest lists '$path' as installed inside the prefix, which it is not; nothing removed" ;;
        esac
        files+=("$path")
        ;;
      registered)
        case "$path" in
          /*/pocl-steal.icd) ;;
          *) ps_die "$manifest lists '$path' as the registered ICD file, which it cannot be; nothing removed" ;;
        esac
        files+=("$path")
        ;;
      dir) dirs+=("$path") ;;
      *) ps_die "$manifest: unknown line '$line'; nothing removed" ;;
    esac
  done <"$manifest"
  removed=0 missing=0
  for f in "${files[@]}"; do
    if [ -L "$f" ] || [ -f "$f" ]; then
      rm -f -- "$f"
      removed=$((removed + 1))
    elif [ -e "$f" ]; then
      ps_note "kept $f: installed as a file, it is no longer one"
    else
      missing=$((missing + 1))
    fi
  done
  # The directories install made, deepest first (it made them parent
  # first); one that holds anything else stays.
  for ((i = ${#dirs[@]} - 1; i >= 0; i--)); do
    d=${dirs[i]}
    [ -d "$d" ] && [ ! -L "$d" ] || continue
    if rmdir -- "$d" 2>/dev/null; then
      removed=$((removed + 1))
    else
      ps_note "kept $d: it holds files make install did not put there"
    fi
  done
  gone=
  [ "$missing" -eq 0 ] || gone="; $missing of those listed were gone already"
  echo "pocl-steal: uninstalled from $prefix: removed $removed files, links and directories$gone"
  exit 0
fi

# --- install --------------------------------------------------------------

variant=${variant:-ours}
case " $VARIANTS " in
  *" $variant "*) ;;
  *) ps_die "VARIANT='$variant' is not a variant of the build; accepted: ours (the default: this driver), stock (PoCL's own pthread driver), tsan, asan (this driver built with a sanitizer), linked (the drivers linked into libpocl; the main build only)" ;;
esac
case "$register" in
  '' | 0) register=0 ;;
  1) ;;
  *) ps_die "REGISTER='$register'; accepted: 1 (also write pocl-steal.icd into the ICD loader's vendors directory) or 0 (the default)" ;;
esac

build=$(realpath -m -- "${build:-$here/../build}")
versions="$build/pocl-versions.txt"
[ -f "$versions" ] || ps_die "no build in $build ($versions is missing): run make first"
main_version=$(head -n 1 "$versions" | cut -d' ' -f1)
accepted=$(awk 'NR == 1 { printf "%s (the default, the main build)", $1; next }
                { printf ", %s%s", $1, ($2 == "built" ? "" : " (not built)") }' "$versions")
version=${version:-$main_version}
line=$(awk -v v="$version" '$1 == v' "$versions")
[ -n "$line" ] || ps_die "VERSION='$version' is not a PoCL version of this build; accepted: $accepted"
if [ "$(echo "$line" | cut -d' ' -f2)" != built ]; then
  ps_die "VERSION=$version was not built: $(echo "$line" | cut -d' ' -f3-)"
fi
# The prefixes and PoCL's build of each version (cmake/PoclBuild.cmake,
# cmake/PoclVersions.cmake), under this build directory.
if [ "$version" = "$main_version" ]; then
  root="$build"
else
  root="$build/pocl-$version"
fi
src="$root/prefix/$variant"
pocl_build="$root/pocl-build"
[ "$variant" != linked ] || pocl_build="$build/pocl-build-linked"
if [ ! -f "$src/etc/OpenCL/vendors/pocl.icd" ]; then
  built=
  for v in $VARIANTS; do
    [ ! -f "$root/prefix/$v/etc/OpenCL/vendors/pocl.icd" ] || built="$built $v"
  done
  ps_die "VARIANT=$variant of PoCL $version was not built (no $src/etc/OpenCL/vendors/pocl.icd); built for $version:${built:- none}"
fi
src=$(cd "$src" && pwd -P)
reloc=$(sed -n 's/^ENABLE_RELOCATION:[A-Z]*=//p' "$pocl_build/CMakeCache.txt" 2>/dev/null || true)
case "$reloc" in
  ON | on | 1 | TRUE | true) ;;
  *) ps_die "PoCL $version ($pocl_build) was not built with ENABLE_RELOCATION (it is '${reloc:-not recorded}'): copied elsewhere, it would still load its device modules and kernel library from $src, so it cannot be installed" ;;
esac
case "$prefix/" in
  "$src"/*) ps_die "PREFIX=$prefix lies inside the prefix it would be copied from, $src" ;;
esac
if [ -e "$manifest" ]; then
  ps_die "PREFIX=$prefix holds an install already ($manifest): make uninstall PREFIX=$prefix first"
fi

# writable DIR WHY: dies unless DIR, or its nearest existing parent, may
# be written.
writable ()
{
  local d=$1
  while [ ! -e "$d" ]; do d=$(dirname -- "$d"); done
  [ -d "$d" ] && [ -w "$d" ] || ps_die "cannot write into $d ($2)"
}
writable "$prefix" "PREFIX=$prefix; choose another, or run as a user who may"

icd_name=pocl-steal.icd
if [ "$register" = 1 ]; then
  vendors=$(realpath -m -- "${vendors:-/etc/OpenCL/vendors}")
  if [ -e "$vendors/$icd_name" ] || [ -L "$vendors/$icd_name" ]; then
    ps_die "$vendors/$icd_name exists already (another install registered?): make uninstall the prefix it names ($(head -c 300 "$vendors/$icd_name" 2>/dev/null)), or remove it, first"
  fi
  writable "$vendors" "REGISTER=1 writes $icd_name there: run as root, or set ICD_VENDORS_DIR"
fi

# What the ICD file names, as a path under the source prefix.
lib=$(head -n 1 "$src/etc/OpenCL/vendors/pocl.icd")
libdir=$(realpath -m -- "$(dirname -- "$lib")")
lib_rel="${libdir#"$src"/}/$(basename -- "$lib")"
if [ "$libdir" = "${lib_rel%/*}" ] || [ ! -f "$src/$lib_rel" ]; then
  ps_die "$src/etc/OpenCL/vendors/pocl.icd names '$lib', not a library in $src"
fi

# Nothing is overwritten: every path to make must be free, or be a
# directory where a directory goes.
conflicts=()
while IFS= read -r -d '' p; do
  rel=${p#"$src"}
  t="$prefix$rel"
  case "$p" in
    *$'\n'*) ps_die "$src holds a name with a line break: '$p'" ;;
  esac
  if [ -d "$p" ] && [ ! -L "$p" ]; then
    { [ ! -e "$t" ] && [ ! -L "$t" ]; } || { [ -d "$t" ] && [ ! -L "$t" ]; } || conflicts+=("$t")
  else
    [ ! -e "$t" ] && [ ! -L "$t" ] || conflicts+=("$t")
  fi
done < <(find "$src" -mindepth 1 -print0)
for t in "$prefix/share/pocl-steal" "$manifest"; do
  { [ ! -e "$t" ] && [ ! -L "$t" ]; } || { [ "$t" != "$manifest" ] && [ -d "$t" ]; } || conflicts+=("$t")
done
if [ ${#conflicts[@]} -gt 0 ]; then
  ps_die "PREFIX=$prefix already has what make install would write (${#conflicts[@]} paths, e.g. ${conflicts[*]:0:3}); nothing installed"
fi

# Everything made, in order; undone (in reverse) if the install fails.
made=()
done_ok=0
undo ()
{
  [ "$done_ok" = 0 ] || return 0
  ps_note "install failed; removing what it had made"
  for ((i = ${#made[@]} - 1; i >= 0; i--)); do
    local kind=${made[i]%% *} path=${made[i]#* }
    if [ "$kind" = dir ]; then
      rmdir -- "$path" 2>/dev/null || true
    else
      rm -f -- "$path"
    fi
  done
}
trap undo EXIT

make_dir () # DIR: makes DIR and its missing parents, recording each
{
  local d=$1
  [ -d "$d" ] && return 0
  [ "$d" = / ] || make_dir "$(dirname -- "$d")"
  mkdir -- "$d"
  made+=("dir $d")
}

make_dir "$prefix"
while IFS= read -r -d '' p; do
  rel=${p#"$src"}
  t="$prefix$rel"
  if [ -L "$p" ]; then
    cp -P -- "$p" "$t"
    made+=("link $t")
  elif [ -d "$p" ]; then
    make_dir "$t"
  else
    cp -p -- "$p" "$t"
    made+=("file $t")
  fi
done < <(find "$src" -mindepth 1 -print0 | sort -z)

# The copies name their new place.
printf '%s\n' "$prefix/$lib_rel" >"$prefix/etc/OpenCL/vendors/pocl.icd"
pc="$prefix/lib/pkgconfig/pocl.pc"
if [ -f "$pc" ]; then
  old=$(sed -n 's/^prefix=//p' "$pc")
  if [ -n "$old" ]; then
    tmp="$pc.tmp.$$"
    {
      while IFS= read -r l; do
        case "$l" in
          prefix=*) printf 'prefix=%s\n' "$prefix" ;;
          *) printf '%s\n' "${l//"$old"/\$\{prefix\}}" ;;
        esac
      done <"$pc"
    } >"$tmp"
    mv -f -- "$tmp" "$pc"
  fi
fi
# No text file installed may still name a prefix of the build (pocl.pc
# of the stock, tsan and asan copies names ours): that would tie the copy
# to it.  Binary files are left out: libpocl's build paths are not used
# (above).
pats=
for d in "$root"/prefix/*/; do
  d=$(cd "$d" && pwd -P)
  [ "$d" = "$prefix" ] || pats="$pats${pats:+|}$(printf '%s' "$d" | sed 's/[][\.*^$+?(){}|]/\\&/g')"
done
stale=$(printf '%s\n' "${made[@]}" | sed -n 's/^file //p' | tr '\n' '\0' |
  xargs -0 grep -lIE "($pats)(/|\$|[^A-Za-z0-9._+-])" -- 2>/dev/null || true)
[ -z "$stale" ] || ps_die "installed files still name a prefix of the build: $stale"

if [ "$register" = 1 ]; then
  make_dir "$vendors"
  printf '%s\n' "$prefix/$lib_rel" >"$vendors/$icd_name"
  made+=("registered $vendors/$icd_name")
fi

make_dir "$prefix/share/pocl-steal"
made+=("file $manifest")
{
  echo "$MANIFEST_HEAD"
  echo "# What make install put here, in the order made; make uninstall"
  echo "# PREFIX=$prefix removes exactly these (directories only when empty)."
  echo "# prefix $prefix"
  echo "# variant $variant"
  echo "# version $version"
  echo "# from $src"
  printf '%s\n' "${made[@]}"
} >"$manifest"
done_ok=1

count=$(printf '%s\n' "${made[@]}" | grep -c -v '^dir ')
echo "pocl-steal: installed $variant (PoCL $version) into $prefix: $count files and links, listed in $manifest"
if [ "$register" = 1 ]; then
  echo "pocl-steal: registered with the ICD loader: $vendors/$icd_name (programs find it with OCL_ICD_VENDORS unset)"
fi
echo "export OCL_ICD_VENDORS=$prefix/etc/OpenCL/vendors"
