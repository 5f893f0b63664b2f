#!/usr/bin/env bash
# What reading a remote's claims costs the report:
#
#   bench/claims.sh            (after bench/run.sh has built its repositories)
#
# In the repositories of bench/run.sh (20k and 100k commits, 22,405 refs), with
# every runnable task of run m1b2c3 claimed on the "remote", times, interleaved round by round:
#   (a) git taskresume m1b2c3 --json
#   (r) the same with --remote bench, a remote whose URL is the repository
#       itself (file transport: git starts upload-pack, as over ssh)
#   (l) git ls-remote of the claim refs alone: what git itself pays to ask
# and prints medians and the median of the per-round differences (r)-(a).
# Environment: BENCH_DIR (/tmp/taskresume-bench), ROUNDS (15).
set -euo pipefail
export LC_ALL=C
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/bench/lib.sh"
BENCH_DIR=${BENCH_DIR:-/tmp/taskresume-bench}
ROUNDS=${ROUNDS:-15}
run=m1b2c3
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
unset GIT_TASKRESUME_TRACE

bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
(cd "$here" && go build -o "$bin/" ./cmd/git-taskresume ./cmd/git-taskclean)
export PATH="$bin:$PATH"

time_us() { local s=$EPOCHREALTIME; "$@" >/dev/null; local e=$EPOCHREALTIME; echo $(( (${e/./} - ${s/./}) )); }

for name in repo-20k repo-100k; do
  repo="$BENCH_DIR/$name"
  [ -d "$repo" ] || { echo "no $repo: run bench/run.sh first" >&2; exit 2; }
  cd "$repo"
  # Every runnable task claimed (two in these repositories).
  n=0
  while git -c remote.bench.url="$repo" taskresume "$run" --remote bench --claim --as "bench-$n" >/dev/null 2>&1; do
    n=$((n + 1))
  done
  a=() r=() l=()
  for ((i = 0; i < ROUNDS; i++)); do
    a+=("$(time_us git taskresume "$run" --json)")
    r+=("$(time_us git -c remote.bench.url="$repo" taskresume "$run" --json --remote bench)")
    l+=("$(time_us git ls-remote --refs "$repo" "refs/taskclaims/$run/*")")
  done
  git -c remote.bench.url="$repo" taskresume "$run" --json --remote bench | grep -c '"holder": "bench-' | grep -qx "$n" ||
    { echo "the report with --remote does not show the $n claims" >&2; exit 1; }
  git for-each-ref --format='delete %(refname)' "refs/taskclaims/$run/" | git update-ref --stdin
  ma=$(printf '%s\n' "${a[@]}" | median) mr=$(printf '%s\n' "${r[@]}" | median) ml=$(printf '%s\n' "${l[@]}" | median)
  md=$(for ((i = 0; i < ROUNDS; i++)); do echo $(( r[i] - a[i] )); done | median)
  awk -v n="$name" -v a="$ma" -v r="$mr" -v d="$md" -v l="$ml" -v k="$ROUNDS" -v c="$n" 'BEGIN {
    printf "%s (%d claims): report %.1f ms, with --remote %.1f ms (+%.1f ms, median of per-round differences), ls-remote alone %.1f ms; %d rounds\n", n, c, a / 1000, r / 1000, d / 1000, l / 1000, k }'
done
