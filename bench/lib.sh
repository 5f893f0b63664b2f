# Helpers the benchmark scripts share; sourced, after `here` (the module
# root) is set.

# median: the median of the numbers on stdin, one a line.
median() { sort -g | awk '{v[NR] = $1} END {if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

# time_us VAR CMD...: runs CMD in this shell, VAR = wall time in microseconds.
time_us() {
  local __v=$1 t0 t1
  shift
  t0=$EPOCHREALTIME
  "$@"
  t1=$EPOCHREALTIME
  printf -v "$__v" '%d' $((10#${t1/./} - 10#${t0/./}))
}
