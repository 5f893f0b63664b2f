#!/usr/bin/env bash
# What an old run costs: a report of a run forked far back on a long main.
#
#   bench/oldrun.sh [build|measure|all]     (default: all)
#
# build: copies $BENCH_DIR/repo-100k (bench/run.sh builds it: 100,000
# commits on main, 2,800 finished runs, ~22,000 refs, a commit-graph) to
# $OLD_DIR and adds two runs of the seven-task plan:
#
#   o50k1a: the plan committed on o50k1a-main, a commit on main~50000;
#           tasks 1.1, 1.2, 2.1 done, stacked on it, one commit each;
#           2.1 squash-merged into main near its tip ("Add user service
#           (#77)": a subject that names no task, a change equal to the
#           task's own); 2.2 to 3.2 not started. Its files are the demo
#           plan's (db/schema.sql, package.json, src/services/...), as
#           L6's: src/ is the directory every commit of main changes;
#   o25k1a: the same, forked at main~25000, its 2.1 squashed as "(#78)",
#           its files under apps/o25k1a/ (as L5's): a directory no other
#           commit of main touches;
#
# then 20 more commits on main, and two commit-graphs of the whole
# repository kept aside: one plain, one with changed-path Bloom filters
# (`git commit-graph write --reachable --changed-paths`).
#
# measure: for each run and each commit-graph, interleaved, $ROUNDS rounds:
#
#   (a) git taskresume <run> --json, for each binary of $BINS (the report;
#       its answer checked first: 1.1 and 1.2 completed, 2.1 landed by the
#       squash, the same JSON from every binary but for its process count)
#   (l) git log --format=%H%x00%s <run>-main main --not <start> >/dev/null,
#       the one log the target is set against (start: the commit that
#       added the plan, <run>-main's tip here)
#
# and prints medians, the ratio (a)/(l) (median of per-round ratios), the
# peak RSS of (a) (/usr/bin/time: the largest of the program and its git
# children), and, from one more run of each, the git processes of (a) with
# their times (GIT_TASKRESUME_TIMING).
#
# Environment: BENCH_DIR (/tmp/taskresume-bench), OLD_DIR
# (/tmp/taskresume-bench/repo-old), ROUNDS (11), BINS ("name=dir ...",
# directories holding git-taskresume; default "this=<built from this
# checkout into $OLD_DIR.bin>").
set -euo pipefail
export LC_ALL=C
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
unset GIT_TASKRESUME_TRACE GIT_TRACE2_EVENT GIT_TRACE2_PERF GIT_TRACE GIT_TASKRESUME_TIMING

here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/bench/lib.sh"
BENCH_DIR=${BENCH_DIR:-/tmp/taskresume-bench}
OLD_DIR=${OLD_DIR:-$BENCH_DIR/repo-old}
ROUNDS=${ROUNDS:-11}
runs=(o50k1a o25k1a)
declare -A back_of=([o50k1a]=50000 [o25k1a]=25000)
declare -A pr_of=([o50k1a]=77 [o25k1a]=78)
declare -A dir_of=([o50k1a]="" [o25k1a]=apps/o25k1a/)
log() { printf '== %s\n' "$*" >&2; }

ids=(1.1 1.2 2.1 2.2 2.3 3.1 3.2)
declare -A slug_of=([1.1]=create-database-schema [1.2]=install-dependencies [2.1]=user-service
  [2.2]=product-service [2.3]=order-service [3.1]=api-integration-tests [3.2]=e2e-tests)
declare -A title_of=([1.1]="Create database schema (M - 1h)" [1.2]="Install dependencies (S - 0.5h)"
  [2.1]="User service (M - 2h)" [2.2]="Product service (M - 2h)" [2.3]="Order service (M - 2.5h)"
  [3.1]="API integration tests (L - 3h)" [3.2]="E2E tests (L - 3h)")
declare -A file_of=([1.1]=db/schema.sql [1.2]=package.json [2.1]=src/services/user-service.ts
  [2.2]=src/services/product-service.ts [2.3]=src/services/order-service.ts
  [3.1]=tests/integration/api.test.ts [3.2]=tests/e2e/workflows.test.ts)

plan_text() { # run: the demo plan, its files under ${dir_of[run]}
  local run=$1 ph id
  printf '# Implementation Plan\n\nRun ID: %s\n' "$run"
  for ph in "1 Setup Sequential" "2 Core-Logic Parallel" "3 Integration Sequential"; do
    set -- $ph
    printf '\n## Phase %s: %s (%s)\n' "$1" "${2//-/ }" "$3"
    for id in "${ids[@]}"; do
      [ "${id%%.*}" = "$1" ] || continue
      printf '\n### Task %s: %s\n- Files: `%s%s`\n' "$id" "${title_of[$id]}" "${dir_of[$run]}" "${file_of[$id]}"
    done
  done
}

# commit PARENT TIME MSG PATH BLOB: a commit on PARENT's tree with PATH set
# to BLOB (a temporary index; nothing checked out moves).
commit() {
  local parent=$1 when=$2 msg=$3 path=$4 blob=$5 tree
  GIT_INDEX_FILE="$OLD_DIR/.git/oldrun-index" git -C "$OLD_DIR" read-tree "$parent"
  GIT_INDEX_FILE="$OLD_DIR/.git/oldrun-index" git -C "$OLD_DIR" update-index --add --cacheinfo "100644,$blob,$path"
  tree=$(GIT_INDEX_FILE="$OLD_DIR/.git/oldrun-index" git -C "$OLD_DIR" write-tree)
  GIT_AUTHOR_NAME=Agent GIT_AUTHOR_EMAIL=agent@example.com GIT_AUTHOR_DATE="$when +0000" \
    GIT_COMMITTER_NAME=Agent GIT_COMMITTER_EMAIL=agent@example.com GIT_COMMITTER_DATE="$when +0000" \
    git -C "$OLD_DIR" commit-tree "$tree" -p "$parent" -m "$msg"
}

blob() { printf '%s' "$1" | git -C "$OLD_DIR" hash-object -w --stdin; }

build() {
  local src=$BENCH_DIR/repo-100k run back fork when c tip id b n main_tip
  [ -d "$src/.git" ] || { echo "oldrun: $src missing (bench/run.sh builds it)" >&2; exit 1; }
  rm -rf "$OLD_DIR"
  log "copying $src to $OLD_DIR"
  cp -a "$src" "$OLD_DIR"
  main_tip=$(git -C "$OLD_DIR" rev-parse main)
  when=$(git -C "$OLD_DIR" log -1 --format=%ct main)
  declare -A squash_blob=()
  for run in "${runs[@]}"; do
    back=${back_of[$run]}
    fork=$(git -C "$OLD_DIR" rev-parse "main~$back")
    c=$(git -C "$OLD_DIR" log -1 --format=%ct "$fork")
    tip=$(commit "$fork" $((c + 60)) "Add plan for run $run" "specs/$run/plan.md" "$(blob "$(plan_text "$run")")")
    git -C "$OLD_DIR" update-ref "refs/heads/$run-main" "$tip"
    for id in 1.1 1.2 2.1; do
      c=$((c + 60))
      b=$(blob "// $run task $id
")
      tip=$(commit "$tip" "$c" "task $id: ${slug_of[$id]}" "${dir_of[$run]}${file_of[$id]}" "$b")
      git -C "$OLD_DIR" update-ref "refs/heads/$run-task-${id//./-}-${slug_of[$id]}" "$tip"
      squash_blob[$run]=$b
    done
  done
  # The squashes near main's tip, then 20 more commits on main.
  for run in "${runs[@]}"; do
    when=$((when + 600))
    main_tip=$(commit "$main_tip" "$when" "Add user service (#${pr_of[$run]})" "${dir_of[$run]}${file_of[2.1]}" "${squash_blob[$run]}")
  done
  for ((n = 1; n <= 20; n++)); do
    when=$((when + 600))
    main_tip=$(commit "$main_tip" "$when" "Change 1000$n: touch src/d0$((n % 10))/extra.go" "src/d0$((n % 10))/extra.go" "$(blob "// $n
")")
  done
  git -C "$OLD_DIR" update-ref refs/heads/main "$main_tip"
  git -C "$OLD_DIR" reset -q --hard main
  rm -f "$OLD_DIR/.git/oldrun-index"
  log "writing the commit-graphs (plain, and with changed-path Bloom filters)"
  git -C "$OLD_DIR" commit-graph write --reachable --changed-paths
  cp "$OLD_DIR/.git/objects/info/commit-graph" "$OLD_DIR/.git/commit-graph.bloom"
  rm -f "$OLD_DIR/.git/objects/info/commit-graph"
  # Rewriting without --changed-paths over a graph that has them keeps
  # them: written from nothing.
  git -C "$OLD_DIR" commit-graph write --reachable
  cp "$OLD_DIR/.git/objects/info/commit-graph" "$OLD_DIR/.git/commit-graph.plain"
  for run in "${runs[@]}"; do
    [ "$(git -C "$OLD_DIR" rev-list --count main --not "$run-main")" = $((back_of[$run] + 22)) ] ||
      { echo "oldrun: $run is not forked ${back_of[$run]} commits back" >&2; exit 1; }
  done
  echo "$OLD_DIR: $(git -C "$OLD_DIR" rev-list --all --count) commits, $(git -C "$OLD_DIR" for-each-ref --format=x | wc -l) refs"
}

graph() { # plain|bloom: puts that commit-graph in place (git writes it read-only)
  rm -f "$OLD_DIR/.git/objects/info/commit-graph"
  cp "$OLD_DIR/.git/commit-graph.$1" "$OLD_DIR/.git/objects/info/commit-graph"
}

case_a() { "$1/git-taskresume" "$2" --json >/dev/null; }
case_l() { git log --format=%H%x00%s "$1-main" main --not "$1-main" >/dev/null; }


measure() {
  local res=$OLD_DIR.results run g round us ua json got b k order
  if [ -z "${BINS:-}" ]; then
    BINS="this=$OLD_DIR.bin"
    (cd "$here" && go build -o "$OLD_DIR.bin" ./cmd/git-taskresume)
  fi
  local -a names=()
  local -A dir=()
  for b in $BINS; do
    names+=("${b%%=*}")
    dir[${b%%=*}]=${b#*=}
  done
  rm -rf "$res"
  mkdir -p "$res"
  cd "$OLD_DIR"
  for g in plain bloom; do
    graph $g
    for run in "${runs[@]}"; do
      for b in "${names[@]}"; do
        json=$res/$run-$g-$b.json
        "${dir[$b]}/git-taskresume" "$run" --json > "$json"
        got=$(jq -r '[.phases[].tasks[] | select(.status != "pending") | "\(.id)=\(.status)"] | join(" ")' "$json")
        [ "$got" = "1.1=completed 1.2=completed 2.1=landed" ] || { echo "oldrun: $run ($g, $b): $got" >&2; exit 1; }
        [ "$(jq -S 'del(.git_processes)' "$json")" = "$(jq -S 'del(.git_processes)' "$res/$run-$g-${names[0]}.json")" ] ||
          { echo "oldrun: $run ($g): $b's report differs from ${names[0]}'s" >&2; exit 1; }
        "${dir[$b]}/git-taskresume" "$run" --json >/dev/null # warm
      done
      case_l "$run"
    done
  done
  log "$ROUNDS rounds, interleaved"
  for ((round = 1; round <= ROUNDS; round++)); do
    for g in plain bloom; do
      graph $g
      for run in "${runs[@]}"; do
        # The log first or last, the binaries in turn.
        k=$((round % ${#names[@]}))
        order=("${names[@]:k}" "${names[@]:0:k}")
        ((round % 2)) || time_us us case_l "$run"
        for b in "${order[@]}"; do
          time_us ua case_a "${dir[$b]}" "$run"
          echo "$ua" >> "$res/a-$run-$g-$b"
        done
        ((round % 2 == 0)) || time_us us case_l "$run"
        echo "$us" >> "$res/l-$run-$g"
        for b in "${names[@]}"; do
          tail -1 "$res/a-$run-$g-$b" | awk -v l="$us" '{print $1 / l}' >> "$res/ratio-$run-$g-$b"
          /usr/bin/time -f %M -a -o "$res/rss-$run-$g-$b" "${dir[$b]}/git-taskresume" "$run" --json >/dev/null
        done
      done
    done
    printf '.' >&2
  done
  echo >&2
  printf '| run | commit-graph | binary | (a) report | (l) one log | (a)/(l) | peak RSS of (a) | git processes |\n'
  printf '|---|---|---|---:|---:|---:|---:|---:|\n'
  for run in "${runs[@]}"; do
    for g in plain bloom; do
      for b in "${names[@]}"; do
        printf '| %s (main~%s) | %s | %s | %.0f ms | %.0f ms | %.2fx | %.1f MiB | %s |\n' "$run" "${back_of[$run]}" \
          "$([ $g = bloom ] && echo "with Bloom filters" || echo "without")" "$b" \
          "$(median < "$res/a-$run-$g-$b" | awk '{print $1 / 1000}')" \
          "$(median < "$res/l-$run-$g" | awk '{print $1 / 1000}')" \
          "$(median < "$res/ratio-$run-$g-$b")" \
          "$(median < "$res/rss-$run-$g-$b" | awk '{print $1 / 1024}')" \
          "$(jq -r .git_processes "$res/$run-$g-$b.json")"
      done
    done
  done
  for run in "${runs[@]}"; do
    for g in plain bloom; do
      graph $g
      for b in "${names[@]}"; do
        printf '\n%s, %s commit-graph, %s: the git processes of (a) (start, end in ms since the program started)\n' "$run" $g "$b"
        GIT_TASKRESUME_TIMING=$res/timing-$run-$g-$b "${dir[$b]}/git-taskresume" "$run" --json >/dev/null
        cat "$res/timing-$run-$g-$b"
      done
    done
  done
  graph bloom
}

case ${1:-all} in
  build) build ;;
  measure) measure ;;
  all)
    build
    measure
    ;;
  *)
    echo "usage: bench/oldrun.sh [build|measure|all]" >&2
    exit 2
    ;;
esac
