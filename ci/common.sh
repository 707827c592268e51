# Shared helpers for the ci/ scripts.  Source it; do not run it.
# shellcheck shell=bash

# LLVM versions that every PoCL version built here accepts (cmake/LLVM.cmake
# of each: 7.1 17-21, 7.2 and main 18-23), and those that at least one does.
PS_LLVM_MIN=18
PS_LLVM_MAX=21
PS_LLVM_ANY_MIN=17
PS_LLVM_ANY_MAX=23

ps_die ()
{
  echo "pocl-steal: error: $*" >&2
  exit 1
}

ps_note ()
{
  echo "pocl-steal: $*" >&2
}

# Everything downloaded or built outside the checkout lives here, so that a
# fresh clone reuses it.  POCL_STEAL_CACHE moves it.
ps_cache_dir ()
{
  local d="${POCL_STEAL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pocl-steal}"
  mkdir -p "$d" || ps_die "cannot create the cache directory '$d' (set POCL_STEAL_CACHE)"
  (cd "$d" && pwd -P)
}

# The Debian mirror this machine already uses: the first URI of an apt source
# that is not a security or updates suite.  POCL_STEAL_MIRROR overrides it.
ps_debian_mirror ()
{
  if [ -n "${POCL_STEAL_MIRROR:-}" ]; then
    echo "${POCL_STEAL_MIRROR%/}"
    return
  fi
  local uri
  uri=$(
    {
      cat /etc/apt/sources.list.d/*.sources 2>/dev/null |
        awk '/^URIs:/ { for (i = 2; i <= NF; i++) print $i }'
      cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
        awk '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i ~ /:\/\//) { print $i; break } }'
    } | grep -v -e security -e nodesource -e '/apt$' | grep '/debian' | head -n 1
  )
  [ -n "$uri" ] || ps_die "no Debian mirror found in /etc/apt/sources*; set POCL_STEAL_MIRROR to one (e.g. the URL ending in /debian)"
  echo "${uri%/}"
}

# Prints the llvm-config of a native LLVM MIN..MAX (default: one that every
# version accepts), or nothing.
ps_native_llvm_config () # [MIN MAX]
{
  local c v min=${1:-$PS_LLVM_MIN} max=${2:-$PS_LLVM_MAX}
  if [ -n "${LLVM_CONFIG:-}" ]; then
    set -- "$LLVM_CONFIG"
  else
    set --
    for v in $(seq "$max" -1 "$min"); do
      set -- "$@" "llvm-config-$v"
    done
    set -- "$@" llvm-config
  fi
  for c in "$@"; do
    command -v "$c" >/dev/null 2>&1 || continue
    v=$("$c" --version 2>/dev/null | cut -d. -f1)
    case "$v" in
      '' | *[!0-9]*) continue ;;
    esac
    if [ "$v" -ge "$min" ] && [ "$v" -le "$max" ]; then
      command -v "$c"
      return
    fi
  done
}

# "root" (Debian 13 build root) or "native", from POCL_STEAL_ENV
# (auto, root, native) and what the host has.
ps_env_kind ()
{
  case "${POCL_STEAL_ENV:-auto}" in
    root) echo root ;;
    native)
      [ -n "$(ps_native_llvm_config "$PS_LLVM_ANY_MIN" "$PS_LLVM_ANY_MAX")" ] ||
        ps_die "POCL_STEAL_ENV=native, but no llvm-config of LLVM $PS_LLVM_ANY_MIN..$PS_LLVM_ANY_MAX was found (set LLVM_CONFIG)"
      echo native
      ;;
    auto)
      if [ -n "$(ps_native_llvm_config)" ]; then echo native; else echo root; fi
      ;;
    *) ps_die "POCL_STEAL_ENV='${POCL_STEAL_ENV}' is not one of: auto, root, native" ;;
  esac
}
