#!/bin/sh
# check_layers.sh DRIVER_DIR: the driver's files depend on each other one
# way.  Each file has a layer (below); a file may include its own header
# and headers of lower layers only, never one of its own layer or above.
# A file that is not in the table fails the check, so that a new file gets
# a layer when it is added.
#
#   6  pthread_device    PoCL's device ops (the glue)
#   5  pthread_host      application threads that run work-groups
#   4  pthread_worker    the worker threads
#   3  pthread_kernel    kernel launches
#   2  pthread_pool      the pool's queues, sleep and wake-up
#   1  pthread_config, pthread_stats, pthread_placement, pthread_spin,
#      pthread_share, pthread_stack, pthread_compat (the differences between PoCL versions)
#   0  wg_dispatch       the dispatcher
set -u
dir=$1
fails=0
fail () { echo "FAIL: $*"; fails=$((fails + 1)); }

layer () {
  case $1 in
    pthread_device) echo 6 ;;
    pthread_host) echo 5 ;;
    pthread_worker) echo 4 ;;
    pthread_kernel) echo 3 ;;
    pthread_pool) echo 2 ;;
    pthread_config | pthread_stats | pthread_placement | pthread_spin | pthread_share | pthread_stack | pthread_compat) echo 1 ;;
    wg_dispatch) echo 0 ;;
    *) echo "" ;;
  esac
}

checked=0
for f in "$dir"/*.c "$dir"/*.h; do
  [ -e "$f" ] || continue
  base=$(basename "$f")
  mod=${base%.*}
  me=$(layer "$mod")
  if [ -z "$me" ]; then
    fail "$base has no layer in tests/layers/check_layers.sh"
    continue
  fi
  for inc in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f"); do
    imod=${inc%.h}
    [ "$imod" = "$mod" ] && continue # its own header
    [ -e "$dir/$inc" ] || continue   # PoCL's or the system's
    them=$(layer "$imod")
    if [ -z "$them" ]; then
      fail "$base includes $inc, which has no layer"
    elif [ "$them" -ge "$me" ]; then
      fail "$base (layer $me) includes $inc (layer $them): dependencies go downwards only"
    fi
  done
  checked=$((checked + 1))
done
[ "$checked" -gt 0 ] || fail "no driver files in $dir"
echo "layers: $checked files checked"
[ "$fails" = 0 ] && echo "check_layers: all checks passed"
[ "$fails" = 0 ]
