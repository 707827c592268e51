# stat_field.sh - sourced by the test scripts that read POCL_PTHREAD_STATS.
# stat_field LINE KEY: the value of KEY=VALUE in a stats line
# (driver/pthread_stats.h gives the format); prints nothing and fails if
# the key is not there.
stat_field () {
  (
    set -f
    for f in $1; do
      case $f in
        "$2"=*) printf '%s\n' "${f#*=}"; exit 0 ;;
      esac
    done
    exit 1
  )
}
