#!/usr/bin/env bash
# The performance benchmark of git-taskresume and git-taskclean (issue 5).
#
#   bench/run.sh
#
# Builds (once; cached in $BENCH_DIR, default /tmp/taskresume-bench) two large
# repositories with bench/mkrepo (20k and 100k commits on main, 2,800 finished
# runs of the seven-task plan: 22,405 refs, packed, with a commit-graph) and
# the small one of the clean benchmark (bench/cleanrepo.sh), builds both
# commands, then times, interleaved round by round:
#
#   (a) git taskresume m1b2c3 --json
#   (b) the earlier tools' pipeline: per task, git branch --list, then
#       git rev-list --count main..<branch> for the branch found
#   (c) the least git can do: one for-each-ref, one rev-list --parents of the
#       task tips --not m1b2c3-main, one worktree list
#   (d) git taskclean --run w9x8y7 on 50 stale worktrees (25 dirty) against
#       git worktree remove --force of the same 50
#
# and prints medians, the median of the per-round ratios and PASS/MISS per
# target. Environment: BENCH_DIR, ROUNDS (15), CLEAN_ROUNDS (5; fewer, but at
# least 3, when the run passes BUDGET seconds, 420), RUNS (2800 runs per
# repository), PROFILE=0 to skip the profiles at the end (PROFILE=full: the
# clean's profile even past BUDGET).
set -euo pipefail
export LC_ALL=C # EPOCHREALTIME with a "." and awk with "." decimals

here=$(cd "$(dirname "$0")/.." && pwd)
BENCH_DIR=${BENCH_DIR:-/tmp/taskresume-bench}
ROUNDS=${ROUNDS:-15}
CLEAN_ROUNDS=${CLEAN_ROUNDS:-5}
RUNS=${RUNS:-2800}
run=m1b2c3
crun=w9x8y7
mkdir -p "$BENCH_DIR"
BENCH_DIR=$(cd "$BENCH_DIR" && pwd)
res="$BENCH_DIR/results"
rm -rf "$res"
mkdir -p "$res"
# No user or system git config may change what is measured.
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
unset GIT_TASKRESUME_TRACE GIT_TRACE2_EVENT GIT_TRACE2_PERF GIT_TRACE

log() { printf '== %s\n' "$*" >&2; }
started=$EPOCHREALTIME

# GNU time for the peak memory; CI machines are fresh.
if [ ! -x /usr/bin/time ]; then
  log "installing GNU time (apt-get install -y time)"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get install -y -qq time >/dev/null 2>&1 ||
    { $sudo apt-get update -qq >/dev/null && $sudo apt-get install -y -qq time >/dev/null; }
fi

# --- repositories (cached; rebuilt when their generator changes) -----------
gen_id() { cat "$@" | sha256sum | cut -c1-16; }
mkrepo_id=$(gen_id "$here/bench/mkrepo/main.go")-$RUNS
cleanrepo_id=$(gen_id "$here/bench/cleanrepo.sh")
for n in 20000 100000; do
  dir="$BENCH_DIR/repo-$((n / 1000))k"
  if [ "$(cat "$dir/.git/bench-id" 2>/dev/null)" != "$mkrepo_id" ]; then
    log "building $dir ($n commits on main, $RUNS runs)"
    rm -rf "$dir"
    (cd "$here" && go run ./bench/mkrepo -dir "$dir" -commits "$n" -runs "$RUNS")
    echo "$mkrepo_id" > "$dir/.git/bench-id"
  fi
done
cdir="$BENCH_DIR/clean-repo"
if [ "$(cat "$cdir/.git/bench-id" 2>/dev/null)" != "$cleanrepo_id" ]; then
  log "building $cdir"
  rm -rf "$cdir"
  "$here/bench/cleanrepo.sh" init "$cdir"
  echo "$cleanrepo_id" > "$cdir/.git/bench-id"
fi
r20="$BENCH_DIR/repo-20k"
r100="$BENCH_DIR/repo-100k"

log "building git-taskresume and git-taskclean"
mkdir -p "$BENCH_DIR/bin"
(cd "$here" && go build -o "$BENCH_DIR/bin" ./cmd/... && go build -o "$BENCH_DIR/bin/trace2sum" ./bench/trace2sum)
export PATH="$BENCH_DIR/bin:$PATH"

size() { # repo: commits, refs, .git size
  printf '%s commits, %s refs, .git %s' "$(git -C "$1" rev-list --all --count)" \
    "$(git -C "$1" for-each-ref --format=x | wc -l)" "$(du -sh "$1/.git" | cut -f1)"
}
{
  echo "machine: $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)), $(free -g | awk '/^Mem:/ {print $2}') GiB RAM, kernel $(uname -r); $(git version); $(go version | cut -d' ' -f3-4)"
  echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg) (other processes share the $(nproc) cores)"
  echo "repo-20k:  $(size "$r20")"
  echo "repo-100k: $(size "$r100")"
  echo "clean-repo: $(git -C "$cdir" ls-files | wc -l) files, $(du -sh --exclude=.git --exclude=.worktrees "$cdir" | cut -f1) checked out; 50 worktrees of it per round"
} | tee "$res/sizes.txt" >&2

# --- the timed cases --------------------------------------------------------
tasks=(1.1 1.2 2.1 2.2 2.3 3.1 3.2)

case_a() { git taskresume "$run" --json >/dev/null; }

# The anchors' pipeline (spectacular and friends), with the parsing done in
# bash so that only git's share is paid: per task, list its branch, then
# count its commits against main.
case_b() {
  local id out br
  for id in "${tasks[@]}"; do
    out=$(git branch --list "$run-task-${id//./-}-*")
    br=${out#??}
    br=${br%%$'\n'*}
    if [ -n "$br" ]; then
      out=$(git rev-list --count "main..$br")
    fi
  done
}

# The least git can do for the same answer: three processes.
case_c() {
  local out ref tips=() line
  out=$(git for-each-ref --format='%(objectname) %(refname)' "refs/heads/$run-*")
  while read -r line; do
    ref=${line#* }
    [[ $ref == "refs/heads/$run-task-"* ]] && tips+=("${line%% *}")
  done <<<"$out"
  git rev-list --parents "${tips[@]}" --not "$run-main" >/dev/null
  git worktree list --porcelain -z >/dev/null
}

# time_us VAR CMD...: runs CMD in this shell, VAR = wall time in microseconds.
time_us() {
  local __v=$1 t0 t1
  shift
  t0=$EPOCHREALTIME
  "$@"
  t1=$EPOCHREALTIME
  printf -v "$__v" '%d' $((10#${t1/./} - 10#${t0/./}))
}

# Sanity: the three cases see the same run.
(cd "$r20" && git taskresume "$run" --json | grep -q '"completed_tasks": 3') ||
  { echo "bench: git taskresume does not report 3 done tasks of $run" >&2; exit 1; }
[ "$(git -C "$r100" rev-list --count "$run-task-2-1-user-service" --not "$run-main")" = 3 ] ||
  { echo "bench: unexpected history for $run" >&2; exit 1; }

log "(a) (b) (c): $ROUNDS rounds, interleaved, on repo-20k and repo-100k"
for dir in "$r20" "$r100"; do # warm the page cache
  (cd "$dir" && case_a && case_b && case_c)
done
for ((round = 1; round <= ROUNDS; round++)); do
  repos=("$r20" "$r100")
  ((round % 2)) || repos=("$r100" "$r20")
  for dir in "${repos[@]}"; do
    cd "$dir"
    name=${dir##*/repo-}
    # Rotate the order so that no case always runs first.
    case $((round % 3)) in
      0) order=(a b c) ;;
      1) order=(b c a) ;;
      2) order=(c a b) ;;
    esac
    for c in "${order[@]}"; do
      time_us us "case_$c"
      echo "$us" >> "$res/$c-$name"
    done
  done
  printf '.' >&2
done
echo >&2
cd "$here"

log "(d) clean of 50 worktrees: $CLEAN_ROUNDS rounds (each: rebuild the 50, time one; rebuild, time the other)"
clean_taskclean() { git taskclean --run "$crun" >/dev/null; }
clean_plain() {
  local wt
  for wt in $("$here/bench/cleanrepo.sh" list); do git worktree remove --force "$wt"; done
}
check_cleaned() { # all 50 gone; after taskclean, each saved (25 with work)
  local left saved
  left=$(git -C "$cdir" worktree list --porcelain | grep -c "^worktree .*/$crun-task-" || true)
  saved=$(git -C "$cdir" for-each-ref --format='%(refname)' "refs/taskclean/$crun/" | grep -c '/worktree/' || true)
  [ "$left" = 0 ] || { echo "bench: $left worktrees left after $1" >&2; exit 1; }
  if [ "$1" = taskclean ] && [ "$saved" != 50 ]; then
    echo "bench: taskclean saved $saved worktrees, not 50" >&2
    exit 1
  fi
}
for ((round = 1; round <= CLEAN_ROUNDS; round++)); do
  # Past 3 rounds, stop when the whole run nears its budget (a slow VM).
  now=$EPOCHREALTIME
  if ((round > 3 && (10#${now/./} - 10#${started/./}) / 1000000 > ${BUDGET:-420})); then
    log "(d): stopping after $((round - 1)) rounds (BUDGET=${BUDGET:-420}s reached)"
    break
  fi
  if ((round % 2)); then order=(taskclean plain); else order=(plain taskclean); fi
  for c in "${order[@]}"; do
    "$here/bench/cleanrepo.sh" populate "$cdir"
    cd "$cdir"
    time_us us "clean_$c"
    cd "$here"
    check_cleaned "$c"
    echo "$us" >> "$res/d-$c"
    printf '.' >&2
  done
done
echo >&2

log "peak memory of (a): /usr/bin/time -v, 5 runs on repo-100k"
for ((i = 0; i < 5; i++)); do
  (cd "$r100" && /usr/bin/time -v git taskresume "$run" --json 2>&1 >/dev/null) |
    awk -F': ' '/Maximum resident set size/ {print $2}' >> "$res/rss-a"
  (cd "$r100" && /usr/bin/time -v git-taskresume "$run" --json 2>&1 >/dev/null) |
    awk -F': ' '/Maximum resident set size/ {print $2}' >> "$res/rss-a-direct"
done

# --- figures ----------------------------------------------------------------
median() { sort -g | awk '{v[NR] = $1} END {if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
ms() { median < "$1" | awk '{printf "%.1f", $1 / 1000}'; }
ratios() { paste "$1" "$2" | awk '{printf "%.4f\n", $1 / $2}' | median; }
verdict() { awk -v r="$1" -v t="$2" 'BEGIN {print (r <= t) ? "PASS" : "MISS"}'; }

{
  echo "rounds: $ROUNDS for (a)-(c), $(wc -l < "$res/d-plain") for (d); times are medians in ms; ratios are medians of per-round ratios"
  echo "load average now: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores (above $(nproc), other processes were competing: figures are noisier)"
  echo
  printf '| %-58s | %9s | %9s |\n' "case" "repo-20k" "repo-100k"
  printf '|%s|%s|%s|\n' "$(printf -- '-%.0s' {1..60})" "$(printf -- '-%.0s' {1..11})" "$(printf -- '-%.0s' {1..11})"
  printf '| %-58s | %9s | %9s |\n' "(a) git taskresume $run --json" "$(ms "$res/a-20k")" "$(ms "$res/a-100k")"
  printf '| %-58s | %9s | %9s |\n' "(b) anchors: 7x git branch --list + rev-list --count" "$(ms "$res/b-20k")" "$(ms "$res/b-100k")"
  printf '| %-58s | %9s | %9s |\n' "(c) least git: for-each-ref + rev-list + worktree list" "$(ms "$res/c-20k")" "$(ms "$res/c-100k")"
  printf '| %-58s | %9s | %9s |\n' "(a)/(b)" "$(ratios "$res/a-20k" "$res/b-20k")" "$(ratios "$res/a-100k" "$res/b-100k")"
  printf '| %-58s | %9s | %9s |\n' "(a)/(c)" "$(ratios "$res/a-20k" "$res/c-20k")" "$(ratios "$res/a-100k" "$res/c-100k")"
  printf '| %-58s | %9s | %9s |\n' "(c)/(b): the 3-process floor against the anchors" "$(ratios "$res/c-20k" "$res/b-20k")" "$(ratios "$res/c-100k" "$res/b-100k")"
  echo
  printf '| %-58s | %9s |\n' "(d) clean of 50 stale worktrees (25 dirty), clean-repo" "ms"
  printf '|%s|%s|\n' "$(printf -- '-%.0s' {1..60})" "$(printf -- '-%.0s' {1..11})"
  printf '| %-58s | %9s |\n' "git taskclean --run $crun" "$(ms "$res/d-taskclean")"
  printf '| %-58s | %9s |\n' "50x git worktree remove --force" "$(ms "$res/d-plain")"
  printf '| %-58s | %9s |\n' "taskclean / plain ($(wc -l < "$res/d-plain") rounds)" "$(ratios "$res/d-taskclean" "$res/d-plain")"
  echo
  rss=$(sort -n "$res/rss-a" | tail -1)
  rssd=$(sort -n "$res/rss-a-direct" | tail -1)
  printf 'peak RSS of (a) on repo-100k (largest process of the tree, max of 5): %s KiB via git taskresume, %s KiB via git-taskresume\n' "$rss" "$rssd"
  echo
  echo "targets:"
  r=$(ratios "$res/a-100k" "$res/b-100k"); r2=$(ratios "$res/a-20k" "$res/b-20k")
  worst=$(printf '%s\n%s\n' "$r" "$r2" | sort -g | tail -1)
  printf '  %-4s (a)/(b) <= 0.2       : %s (20k %s, 100k %s)\n' "$(verdict "$worst" 0.2)" "$worst" "$r2" "$r"
  r=$(ratios "$res/a-100k" "$res/c-100k"); r2=$(ratios "$res/a-20k" "$res/c-20k")
  worst=$(printf '%s\n%s\n' "$r" "$r2" | sort -g | tail -1)
  printf '  %-4s (a)/(c) <= 1.5       : %s (20k %s, 100k %s)\n' "$(verdict "$worst" 1.5)" "$worst" "$r2" "$r"
  r=$(ratios "$res/a-100k" "$res/a-20k")
  printf '  %-4s (a 100k)/(a 20k) <= 1.2: %s\n' "$(verdict "$r" 1.2)" "$r"
  r=$(ratios "$res/d-taskclean" "$res/d-plain")
  printf '  %-4s clean/plain <= 2.0   : %s\n' "$(verdict "$r" 2.0)" "$r"
  mib=$(awk -v k="$rss" 'BEGIN {printf "%.1f", k / 1024}')
  printf '  %-4s peak RSS of (a) < 50 MiB: %s MiB\n' "$(awk -v k="$rss" 'BEGIN {print (k < 50 * 1024) ? "PASS" : "MISS"}')" "$mib"
} | tee "$res/table.txt"

if [ "${PROFILE:-1}" != 0 ]; then
  echo
  "$here/bench/profile.sh" "$r100" "$run" | tee "$res/profile.txt"
  now=$EPOCHREALTIME
  if [ "${PROFILE:-1}" = full ] || (((10#${now/./} - 10#${started/./}) / 1000000 < ${BUDGET:-420})); then
    {
      echo
      echo "## profile of git taskclean --run $crun (50 stale worktrees, 25 dirty; one run, GIT_TRACE2_EVENT)"
      "$here/bench/cleanrepo.sh" populate "$cdir"
      (cd "$cdir" && GIT_TRACE2_EVENT="$res/clean-trace2" git taskclean --run "$crun" >/dev/null)
      trace2sum -group "$res/clean-trace2" | sed 's/^/    /'
    } | tee "$res/profile-clean.txt"
  else
    printf '\n(profile of git taskclean skipped: past BUDGET=%ss; PROFILE=full runs it)\n' "${BUDGET:-420}"
  fi
fi
t1=$EPOCHREALTIME
printf '\n(bench/run.sh took %ds; raw figures in %s)\n' $(((10#${t1/./} - 10#${started/./}) / 1000000)) "$res"
