#!/bin/sh
# check_device_uuid.sh PROGRAM: the CPU device of our prefix (OCL_ICD_VENDORS,
# .../<root>/ours/etc/OpenCL/vendors) reports the same cl_khr_device_uuid as
# stock PoCL of the same build (.../<root>/stock/...): the extension on
# both or on neither, and the same device and driver UUIDs, which PoCL
# 7.2 derives from the device's index (pocl_cpu_init_common).  PoCL 7.2
# and main have the extension, 7.1 has not.
set -u
prog=$1
ours=$OCL_ICD_VENDORS
stock=$(printf '%s\n' "$ours" | sed 's|/ours/etc/OpenCL/vendors$|/stock/etc/OpenCL/vendors|')
[ "$stock" != "$ours" ] && [ -d "$stock" ] || { echo "FAIL: no stock prefix beside $ours"; exit 1; }
got_ours=$("$prog") || { echo "FAIL: $prog failed on ours"; exit 1; }
got_stock=$(OCL_ICD_VENDORS=$stock "$prog") || { echo "FAIL: $prog failed on stock"; exit 1; }
echo "ours:  $got_ours" | tr '\n' ' '; echo
echo "stock: $got_stock" | tr '\n' ' '; echo
if [ "$got_ours" != "$got_stock" ]; then
  echo "FAIL: our device reports another cl_khr_device_uuid than stock's"
  exit 1
fi
echo "check_device_uuid: ours reports what stock reports"
