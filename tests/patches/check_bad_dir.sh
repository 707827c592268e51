#!/bin/sh
# check_bad_dir.sh SRC WORKDIR LLVM_CONFIG: configuring the patched PoCL
# with a POCL_PTHREAD_DEVICE_DIR that is not a driver directory fails at
# configure time, with a message naming the value.
set -u
src=$1 work=$2 llvm=$3
fails=0
try () { # DIR EXPECTED-TEXT
  rm -rf "$work"
  out=$(cmake -S "$src" -B "$work" -G Ninja -DLLVM_CONFIG="$llvm" \
          -DENABLE_ICD=OFF -DENABLE_TESTS=OFF -DENABLE_EXAMPLES=OFF \
          -DPOCL_PTHREAD_DEVICE_DIR="$1" 2>&1)
  rc=$?
  if [ "$rc" -eq 0 ]; then
    echo "FAIL: POCL_PTHREAD_DEVICE_DIR=$1 configured without error"
    fails=$((fails + 1))
  elif ! printf '%s\n' "$out" | tr '\n' ' ' | tr -s ' ' | grep -qF "$2"; then
    echo "FAIL: POCL_PTHREAD_DEVICE_DIR=$1 failed without saying '$2':"
    printf '%s\n' "$out" | tail -n 15
    fails=$((fails + 1))
  else
    echo "POCL_PTHREAD_DEVICE_DIR=$1: configure stops: $(printf '%s\n' "$out" | grep -m1 -A3 'CMake Error' | tr '\n' ' ' | tr -s ' ' | cut -c1-200)"
  fi
}
try /nonexistent/driver "POCL_PTHREAD_DEVICE_DIR is '/nonexistent/driver'"
mkdir -p "$work.empty" && printf '# defines nothing\n' >"$work.empty/CMakeLists.txt"
try "$work.empty" "does not define the pocl-devices-pthread target"
rm -rf "$work" "$work.empty"
[ "$fails" = 0 ] && echo "check_bad_dir: all checks passed"
[ "$fails" = 0 ]
