#!/usr/bin/env bash
# Compares two builds of git-taskresume on one run, alternating them round
# by round so that the machine's state weighs on both alike:
#
#   bench/ab.sh REPO RUN ROUNDS DIR_A DIR_B
#
# DIR_A and DIR_B hold a git-taskresume binary each (go build -o DIR/
# ./cmd/...). Prints the median wall time, in ms, of
# `git taskresume RUN --json` in REPO with each.
set -euo pipefail
export LC_ALL=C GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
if [ $# -ne 5 ]; then
  echo "usage: bench/ab.sh REPO RUN ROUNDS DIR_A DIR_B" >&2
  exit 2
fi
repo=$1 run=$2 n=$3 a=$4 b=$5
cd "$repo"
once() { # once DIR: microseconds of one report
  local s=$EPOCHREALTIME e
  PATH=$1:$PATH git taskresume "$run" --json > /dev/null
  e=$EPOCHREALTIME
  echo $((10#${e/./} - 10#${s/./}))
}
ta=() tb=()
for ((i = 0; i < n; i++)); do
  if ((i % 2)); then ta+=("$(once "$a")"); tb+=("$(once "$b")")
  else tb+=("$(once "$b")"); ta+=("$(once "$a")"); fi
done
median() { printf '%s\n' "$@" | sort -n | awk '{v[NR] = $1} END {printf "%.1f", v[int((NR + 1) / 2)] / 1000}'; }
echo "$run: A $(median "${ta[@]}") ms, B $(median "${tb[@]}") ms ($n rounds each, alternating)"
