#!/usr/bin/env bash
# Start-up cost of binaries, measured in one run, round by round in turn
# so that the machine's state weighs on each alike:
#
#   bench/startup.sh ROUNDS BIN...
#
# Runs `BIN --version` (the commands answer it before reading anything; an
# empty Go program, `func main() {}`, ignores it and is the floor) and
# prints each binary's median wall time in microseconds, and its init
# trace's total for the packages named in $TRACE (a regular expression of
# package paths, e.g. 'semver'), from GODEBUG=inittrace=1.
set -euo pipefail
if [ $# -lt 2 ]; then
  echo "usage: bench/startup.sh ROUNDS BIN..." >&2
  exit 2
fi
n=$1
shift
declare -A times
once() { # once BIN: microseconds of one start
  local s=$EPOCHREALTIME e
  "$1" --version > /dev/null
  e=$EPOCHREALTIME
  echo $((10#${e/./} - 10#${s/./}))
}
for ((i = 0; i < n; i++)); do
  # Each round starts with another binary, so none always runs first.
  for ((k = 0; k < $#; k++)); do
    j=$(( (i + k) % $# + 1 ))
    b=${!j}
    times[$b]+="$(once "$b") "
  done
done
median() { printf '%s\n' $1 | sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
for b in "$@"; do
  line="$b: median $(median "${times[$b]}") us over $n starts"
  if [ -n "${TRACE:-}" ]; then
    ms=$(GODEBUG=inittrace=1 "$b" --version 2>&1 >/dev/null | awk -v re="$TRACE" '$1 == "init" && $2 ~ re {t += $5; b += $8; a += $10} END {printf "%.2f ms, %d bytes, %d allocs", t, b, a}')
    line+="; init of /$TRACE/: $ms"
  fi
  echo "$line"
done
