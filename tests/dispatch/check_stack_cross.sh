#!/bin/sh
# check_stack_cross.sh DRIVER_DIR TEST_C ARCH: builds test_stack.c (the
# switch to the driver's stack, rules K1-K5 of pthread_stack.h) for
# another architecture with Debian's cross compiler and runs it under
# QEMU's user-mode emulator; passes if it passes there.  ARCH: aarch64.
# Built with -mbranch-protection=standard, as distributions build for
# AArch64, so the switch's landing pad (bti c) is exercised too.
# Why: the switch is a few lines of assembly per architecture, and the
# project's machines are x86-64; AArch64 is the other Yggdrasil platform
# that matters most.  The emulator checks what the code does, not how
# fast.  Exit 77 (skipped) without the cross compiler or the emulator.
set -u
driver=$1 test_c=$2 arch=$3
case $arch in
  aarch64) triple=aarch64-linux-gnu flags=-mbranch-protection=standard ;;
  *) echo "FAIL: no cross set-up for '$arch' (accepted: aarch64)"; exit 1 ;;
esac
cc=$triple-gcc qemu=qemu-$arch sysroot=/usr/$triple
for tool in "$cc" "$qemu"; do
  command -v "$tool" >/dev/null 2>&1 ||
    { echo "skipped: $tool not found (Debian: gcc-$triple, libc6-dev-arm64-cross, qemu-user)"; exit 77; }
done
[ -d "$sysroot" ] || { echo "skipped: no $sysroot (libc6-dev-arm64-cross)"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
"$cc" -std=gnu11 -O2 -g -Wall -Wextra $flags -rdynamic -I"$driver" \
  "$test_c" "$driver/pthread_stack.c" -o "$tmp/test_stack" -lpthread -lm ||
  { echo "FAIL: $cc could not build test_stack"; exit 1; }
# The children that K3 kills make QEMU print "uncaught target signal 11";
# that is expected.
out=$("$qemu" -L "$sysroot" "$tmp/test_stack" 2>&1)
rc=$?
echo "$out" | grep -v 'uncaught target signal 11'
[ $rc = 0 ] && echo "$out" | grep -q 'test_stack: all checks passed' ||
  { echo "FAIL: test_stack under $qemu exited with $rc"; exit 1; }
echo "check_stack_cross $arch: passed"
