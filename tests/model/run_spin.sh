#!/bin/sh
# run_spin.sh [-m DEPTH] [-M MEGABYTES] [-f] [-S] MODEL WORKDIR CONFIG...
#
# Model-checks the Promela model MODEL with Spin, once per configuration:
# a safety search (assertions, invalid end states) and a non-progress cycle
# search (pan -l), side by side (two processes).  Each CONFIG is a
# comma-separated list of NAME=VALUE macros for the model, e.g.
# NT=3,G=6,NODES=2; a value A..B stands for every integer from A to B, so
# NT=2,G=0..6 is seven configurations.  The word `fair` in a CONFIG asks
# for weak fairness in its non-progress search (pan -l -f).
#
#   -m DEPTH      pan's search depth limit (default 200000)
#   -M MEGABYTES  pan's memory limit per search, -DMEMLIM (default 4096)
#   -f            weak fairness in every non-progress search
#   -S            one search at a time (half the memory, more time)
#
# Passing needs more than "errors: 0": a search cut short by the depth
# limit or the memory limit reports no error for the part it did not
# visit.  So a configuration fails when pan exits non-zero, says its
# search depth was too small, ran out of memory or hit the memory limit,
# did not complete, prints any "error:" line, or lacks the summary lines
# of a complete exhaustive search.  The message names the configuration;
# the pan output, and the replayed counterexample if there is one, stay in
# WORKDIR/<model>/<configuration>/{safety,np}/.  The other configurations
# are still checked; the exit status is 1 if any failed, 2 for bad usage.
#
# POSIX sh.  Needs spin and a C compiler (cc, or $CC).
# $defs, $flags and $fair are lists of words, split on purpose.
# shellcheck disable=SC2086
set -eu

usage() {
  echo "usage: $0 [-m DEPTH] [-M MEGABYTES] [-f] [-S] MODEL WORKDIR CONFIG..." >&2
  exit 2
}

depth=200000
memlim=4096
allfair=
serial=
while getopts m:M:fS opt; do
  case $opt in
    m) depth=$OPTARG ;;
    M) memlim=$OPTARG ;;
    f) allfair=-f ;;
    S) serial=1 ;;
    *) usage ;;
  esac
done
shift $((OPTIND - 1))
[ $# -ge 3 ] || usage
case $depth$memlim in
  *[!0-9]*) usage ;;
esac

model=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
name=$(basename "$1" .pml)
work=$2
shift 2
[ -f "$model" ] || { echo "FAIL: no model $model" >&2; exit 1; }
CC=${CC:-cc}
mkdir -p "$work/$name"
work=$(cd "$work/$name" && pwd)

# expand_config CONFIG: prints one configuration per line, ranges expanded.
expand_config() {
  case $1 in
    *..*) ;;
    *) echo "$1"; return ;;
  esac
  # The first field with a range: NAME=A..B
  head='' rest=$1 field=''
  while :; do
    field=${rest%%,*}
    case $rest in *,*) rest=${rest#*,} ;; *) rest= ;; esac
    case $field in *..*) break ;; esac
    head=$head$field,
  done
  fname=${field%%=*}
  lo=${field#*=}; lo=${lo%%..*}
  hi=${field#*..}
  case $lo$hi in
    '' | *[!0-9]*) echo "bad range in $1" >&2; return 1 ;;
  esac
  v=$lo
  while [ "$v" -le "$hi" ]; do
    # Recursion shares variables in sh: save ours around it.
    set -- "$head" "$fname" "$rest" "$v" "$hi"
    expand_config "$1$2=$4${3:+,$3}"
    head=$1 fname=$2 rest=$3 v=$(($4 + 1)) hi=$5
  done
}

# check DIR KIND CONFIG: fails unless DIR/pan.out is a complete search
# without errors.
check() {
  out=$1/pan.out kind=$2 lbl=$3 status=$(cat "$1/status")
  why=
  if grep -Eq "^State-vector .*, errors: [1-9]" "$out"; then
    why="property violated (counterexample below)"
  elif grep -q "max search depth too small" "$out"; then
    why="search depth limit reached (-m$depth): search truncated; raise -m"
  elif grep -Eq "out of memory|MEMLIM|memory limit" "$out"; then
    why="memory limit reached (-M$memlim MB): search truncated"
  elif grep -q "Search not completed" "$out"; then
    why="search not completed"
  elif [ "$status" != 0 ]; then
    why="pan exited with status $status"
  elif grep -Eq "error[:,]" "$out"; then
    why="pan reports an error"
  elif ! grep -Eq "^State-vector .*, errors: 0$" "$out"; then
    why="errors found, or no summary line"
  elif ! grep -q "^Full statespace search for:" "$out" \
    || ! grep -q " states, stored" "$out" \
    || ! grep -q "^pan: elapsed time" "$out"; then
    why="summary lines missing: not a complete exhaustive search"
  elif [ "$kind" = safety ] \
    && ! grep -Eq "^[[:space:]]*invalid end states[[:space:]]*\+" "$out"; then
    why="end states were not checked"
  elif [ "$kind" = non-progress ] \
    && ! grep -Eq "^[[:space:]]*non-progress cycles[[:space:]]*\+" "$out"; then
    why="non-progress cycles were not checked"
  fi
  [ -z "$why" ] && return 0
  echo "FAIL: $name, $lbl: $kind: $why"
  cat "$out"
  if [ -f "$1/$name.pml.trail" ]; then
    # Replay the counterexample, for the log and for WORKDIR.
    (cd "$1" && spin -t -p -g -l $defs "$name.pml" >trail.txt 2>&1) || true
    echo "--- counterexample (tail; whole replay in $(pwd)/$1/trail.txt):"
    tail -n 60 "$1/trail.txt"
  fi
  echo "FAIL: $name, $lbl: $kind: $why"
  return 1
}

states() {
  sed -n 's/^ *\([0-9.e+]*\) states, stored.*/\1/p' "$1" | head -n 1
}

# run_config CONFIG: both searches of one configuration; non-zero if
# either fails.
run_config() {
  cfg=$1 label='' defs='' fair=$allfair
  for d in $(echo "$cfg" | tr ',' ' '); do
    case $d in
      fair) fair=-f ;;
      [A-Z_]*=[0-9]*)
        case $d in
          *=*[!0-9]* | *[!A-Z0-9_]*=*) echo "bad field '$d' in '$cfg'" >&2; exit 2 ;;
        esac
        defs="$defs -D$d" ;;
      *) echo "bad field '$d' in '$cfg'" >&2; exit 2 ;;
    esac
    label="${label:+$label }$d"
  done
  dir=$work/$(echo "$cfg" | tr ',=' '_-')
  rm -rf "$dir"
  mkdir -p "$dir"
  cd "$dir"
  start=$(date +%s)
  # A copy of the model, so that a trail file can be replayed here.
  cp "$model" "$name.pml"
  if ! spin -a $defs "$name.pml" >spin.out 2>&1; then
    echo "FAIL: $name, $label: spin -a:"
    cat spin.out
    return 1
  fi
  # Compile and search, both kinds at once, each in its own directory
  # (pan writes its trail file where it runs).  Most configurations are
  # small, and for them compiling pan.c is most of the time: -O0 compiles
  # three times as fast as -O1, which searches half as fast again.  So
  # -O1 (as fast as -O2) only after a configuration that stored many
  # states: ranges of configurations grow, so the last one predicts the
  # next.  The exit status of each search is kept in a file, for check.
  if [ "$last_states" -ge 200000 ]; then opt=-O1; else opt=-O0; fi
  flags="$opt -w -DMEMLIM=$memlim -DVECTORSZ=2048"
  mkdir safety np
  cp "$name.pml" safety/
  cp "$name.pml" np/
  ( cd safety
    $CC $flags -DSAFETY -o pan ../pan.c >cc.out 2>&1 \
      || { echo cc >status; exit 0; }
    st=0; ./pan -m"$depth" >pan.out 2>&1 || st=$?
    echo $st >status ) &
  [ -z "$serial" ] || wait
  ( cd np
    $CC $flags -DNP -o pan ../pan.c >cc.out 2>&1 \
      || { echo cc >status; exit 0; }
    st=0; ./pan -l $fair -m"$depth" >pan.out 2>&1 || st=$?
    echo $st >status ) &
  wait
  for kind in safety np; do
    if [ "$(cat $kind/status)" = cc ]; then
      echo "FAIL: $name, $label: compiling pan ($kind):"
      cat $kind/cc.out
      return 1
    fi
  done
  ok=1
  check safety safety "$label" || ok=
  check np non-progress "$label" || ok=
  [ -n "$ok" ] || return 1
  echo "$name, $label: no errors ($(states safety/pan.out) states, \
$(states np/pan.out) in the non-progress search, $(($(date +%s) - start)) s)"
  last_states=$(states np/pan.out | awk '{ printf "%d", $1 }')
}

configs=$(for c in "$@"; do expand_config "$c" || exit 1; done) || usage
checked=0 failed=0 failures=
last_states=0
total_start=$(date +%s)
# Every configuration is checked, also after a failure, so that one run
# tells all that fail.
for cfg in $configs; do
  checked=$((checked + 1))
  if ! run_config "$cfg"; then
    failed=$((failed + 1))
    failures="$failures  $label
"
  fi
done
elapsed=$(($(date +%s) - total_start))
if [ "$failed" -gt 0 ]; then
  echo "FAIL: spin: $name: $failed of $checked configurations failed \
($elapsed s):"
  printf '%s' "$failures"
  exit 1
fi
echo "spin: $name: $checked configurations checked, no errors ($elapsed s)"
