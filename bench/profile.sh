#!/usr/bin/env bash
# Where the time of `git taskresume RUN --json` goes, in one repository.
#
#   bench/profile.sh REPO [RUN]        (bench/run.sh calls it on repo-100k)
#
# 1. the git commands it runs (GIT_TASKRESUME_TRACE);
# 2. in situ: 7 runs under GIT_TRACE2_EVENT, summarised by bench/trace2sum:
#    time inside each git process, and the gaps between them (process start,
#    the program's own work);
# 3. each traced git command run alone, 9 times: median wall time (process
#    start included) and peak RSS, beside the cost of starting /bin/true,
#    git and the Go binary; commands that read --stdin are skipped (the
#    trace does not record their input: without it they walk from HEAD,
#    the whole history), except the rev-list walk, whose input is rebuilt;
# 4. perf stat and strace -c of the whole command, when they are installed.
# Needs git-taskresume and trace2sum on PATH (bench/run.sh puts them there).
set -euo pipefail
export LC_ALL=C
repo=${1:?usage: profile.sh REPO [RUN]}
run=${2:-m1b2c3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$repo"
unset GIT_TASKRESUME_TRACE GIT_TRACE2_EVENT GIT_TRACE2_PERF

median() { sort -g | awk '{v[NR] = $1} END {if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
# wall CMD... : median wall time in ms of 9 runs (stdin from $tmp/stdin if set)
wall() {
  local i t0 t1
  for ((i = 0; i < 9; i++)); do
    t0=$EPOCHREALTIME
    "$@" < "${stdin:-/dev/null}" > /dev/null 2>&1 || true
    t1=$EPOCHREALTIME
    echo $((10#${t1/./} - 10#${t0/./}))
  done | median | awk '{printf "%.1f", $1 / 1000}'
}
rss() { /usr/bin/time -f '%M' "$@" < "${stdin:-/dev/null}" 2>&1 >/dev/null | tail -1; }

echo "## profile of git taskresume $run --json in $repo"
echo
echo "### 1. git commands it runs (GIT_TASKRESUME_TRACE)"
GIT_TASKRESUME_TRACE="$tmp/trace" git taskresume "$run" --json > /dev/null
sed 's/^/    /' "$tmp/trace"
echo

echo "### 2. in situ (GIT_TRACE2_EVENT, 7 runs)"
for ((i = 1; i <= 7; i++)); do
  GIT_TRACE2_EVENT="$tmp/t2-$i" git taskresume "$run" --json > /dev/null
done
trace2sum "$tmp"/t2-* | sed 's/^/    /'
echo

echo "### 3. each alone (median of 9, ms; peak RSS KiB)"
printf '    %8s %8s  %s\n' "ms" "RSS KiB" "command"
# The walk's stdin, as the tool writes it: task tips, then ^base.
base=$(git rev-parse "$run-main")
{ git for-each-ref --format='%(objectname)' "refs/heads/$run-task-*" | sort -u; echo "^$base"; } > "$tmp/walk-stdin"
base_line() { # label, command...
  local label=$1
  shift
  printf '    %8s %8s  %s\n' "$(wall "$@")" "$(rss "$@")" "$label"
}
base_line "/bin/true (starting a process)" /bin/true
base_line "git version (starting git)" git version
base_line "git-taskresume -h (starting the Go binary)" git-taskresume -h
base_line "git taskresume $run --json (the whole command)" git taskresume "$run" --json
base_line "git-taskresume $run --json (without git's dispatcher)" git-taskresume "$run" --json
skipped=0
while IFS= read -r line; do
  read -r -a argv <<<"$line" # the trace joins arguments with spaces; these have none
  stdin=""
  if [[ $line == "git rev-list --parents --stdin" ]]; then
    stdin="$tmp/walk-stdin"
  elif [[ " $line " == *" --stdin "* ]]; then
    # Its input (revisions, or commit pairs) is not in the trace; run
    # with none, git would walk all of HEAD's history instead (800 ms
    # on repo-100k), which says nothing about the report.
    printf '    %8s %8s  %s\n' "-" "-" "${line:0:120} (skipped: reads --stdin)"
    skipped=$((skipped + 1))
    continue
  fi
  printf '    %8s %8s  %s\n' "$(wall "${argv[@]}")" "$(rss "${argv[@]}")" "${line:0:120}"
  stdin=""
done < <(grep '^git ' "$tmp/trace")
if ((skipped)); then
  echo "    ($skipped commands reading --stdin skipped: the trace does not record their input; section 2 times them in situ)"
fi
echo

if command -v perf > /dev/null && perf stat -e task-clock true > /dev/null 2>&1; then
  echo "### 4a. perf stat (whole command, 5 runs)"
  perf stat -r 5 -e task-clock,page-faults,context-switches git taskresume "$run" --json 2>&1 >/dev/null |
    grep -E 'task-clock|page-faults|context-switches|elapsed' | sed 's/^ */    /'
  perf stat -r 5 -e task-clock,page-faults /bin/true 2>&1 >/dev/null |
    grep -E 'page-faults|elapsed' | sed 's/^ */    /; s/$/   (\/bin\/true)/'
  echo
fi
if command -v strace > /dev/null; then
  echo "### 4b. strace -f -c (whole command; strace itself slows it)"
  strace -f -c -o "$tmp/strace" git taskresume "$run" --json > /dev/null
  head -2 "$tmp/strace" | sed 's/^/    /'
  sed -n '3,$p' "$tmp/strace" | grep -v -- '------' | sort -k2 -g -r | head -8 | sed 's/^/    /'
fi
