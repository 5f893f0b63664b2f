#!/usr/bin/env bash
# The repository of the clean benchmarks (d) and (d2): a few hundred files, a
# plan with 50 tasks in one parallel phase, none done, and 50 stale worktrees
# of them.
#
#   bench/cleanrepo.sh init DIR       create DIR (300 files of ~2 KB, a .gitignore
#                                     of node_modules/ and .env, plan, <run>-main),
#                                     and under DIR/.git/bench-template the
#                                     ignored files of (d2)
#   bench/cleanrepo.sh populate DIR [ignored]
#                                     remove what is left of a previous round, then
#                                     add the 50 worktrees; the even ones are dirty
#                                     (a staged new file, an unstaged change, an
#                                     untracked file); with "ignored" (d2) each also
#                                     holds an ignored node_modules/ of 2,000 small
#                                     files and an ignored .env
#   bench/cleanrepo.sh list DIR       print the 50 worktree paths
set -euo pipefail

run=${CLEAN_RUN:-w9x8y7}
tasks=${CLEAN_TASKS:-50}
export GIT_AUTHOR_NAME=Agent GIT_AUTHOR_EMAIL=agent@example.com
export GIT_COMMITTER_NAME=Agent GIT_COMMITTER_EMAIL=agent@example.com

init() {
  local dir=$1 d f line body
  git init -q -b main "$dir"
  cd "$dir"
  git config gc.auto 0
  echo ".worktrees/" >> .git/info/exclude
  # 300 files of ~2 KB in 15 directories, written with shell builtins only.
  printf -v line '%s\n' "// generated line of the benchmark repository, long enough to weigh"
  body=""
  for ((i = 0; i < 28; i++)); do body+=$line; done
  for ((d = 0; d < 15; d++)); do
    mkdir -p "src/pkg$d"
    for ((f = 0; f < 20; f++)); do
      printf 'package pkg%d\n\n// file %d\n%s' "$d" "$f" "$body" > "src/pkg$d/file$f.go"
    done
  done
  mkdir -p "specs/$run"
  {
    printf '# Implementation Plan\n\nRun ID: %s\n\n## Phase 1: Workers (Parallel)\n' "$run"
    for ((i = 1; i <= tasks; i++)); do
      printf '\n### Task 1.%d: Worker %d (S - 1h)\n- Files: `src/pkg%d/file%d.go`\n' "$i" "$i" $((i % 15)) $((i % 20))
    done
  } > "specs/$run/plan.md"
  # What agents' worktrees hold and git ignores: dependencies and secrets.
  # (d)'s worktrees hold neither, so nothing in them is ignored.
  printf 'node_modules/\n.env\n' > .gitignore
  git add -A
  git commit -qm "Add plan for run $run"
  git branch "$run-main"
  git commit-graph write --reachable
  template
}

# template writes (d2)'s ignored files once, inside .git (no status sees
# them): node_modules/ of 100 packages x 20 files of ~200 bytes, and a .env.
# populate copies them into each worktree with one cp -r.
template() {
  local t=.git/bench-template p f line
  rm -rf "$t"
  mkdir -p "$t/node_modules"
  printf -v line '%s\n' "module.exports = function () { return 'a file of a generated dependency tree, ignored by git, about 200 bytes'; };"
  for ((p = 0; p < 100; p++)); do
    mkdir "$t/node_modules/pkg-$p"
    for ((f = 0; f < 20; f++)); do
      printf '// pkg-%d/file-%d.js\n%s// padding it to about two hundred bytes\n' "$p" "$f" "$line" > "$t/node_modules/pkg-$p/file-$f.js"
    done
  done
  printf 'API_KEY=bench-not-a-secret\nDATABASE_URL=postgres://localhost:5432/bench\nDEBUG=1\n' > "$t/env"
}

paths() {
  for ((i = 1; i <= tasks; i++)); do echo ".worktrees/$run-task-1-$i"; done
}

populate() {
  cd "$1"
  ignored=${2:-}
  local i wt
  # Whatever a previous round left: worktrees, directories, saved states.
  if [ -d .worktrees ]; then
    for wt in .worktrees/*; do
      [ -e "$wt" ] && git worktree remove --force "$wt" 2>/dev/null || true
    done
    rm -rf .worktrees
  fi
  git worktree prune
  git for-each-ref --format='delete %(refname)' refs/taskclean/ | git update-ref --stdin
  # One at a time: in parallel it was slower on the 2-core benchmark VM.
  for ((i = 1; i <= tasks; i++)); do one "$i"; done
  if [ "$ignored" = ignored ]; then
    # Two copies at a time (the 2 cores): creating 100,000 files is all
    # system time on the benchmark VM (0.4-1.5 s per worktree's 2,000).
    local p1 p2
    ignored_files 1 &
    p1=$!
    ignored_files 2 &
    p2=$!
    wait "$p1"
    wait "$p2"
  fi
  # A crashed agent's worktree is minutes old and its index was written after
  # its files (git add, git status). Fresh from checkout, every entry would be
  # "racily clean" (same second as the index) and each status would re-read
  # all 300 files: wait for the next second, then refresh each index once.
  sleep 1
  for ((i = 1; i <= tasks; i++)); do
    git -C ".worktrees/$run-task-1-$i" update-index -q --refresh >/dev/null 2>&1 || true
  done
  [ "$(git worktree list --porcelain | grep -c '^worktree ')" -eq $((tasks + 1)) ] || {
    echo "cleanrepo: populate made $(git worktree list | wc -l) worktrees" >&2; exit 1; }
}

one() {
  local i=$1 wt=".worktrees/$run-task-1-$1"
  git worktree add -q --detach "$wt" "$run-main"
  if ((i % 2 == 0)); then
    echo "staged work of task 1.$i" > "$wt/staged-$i.txt"
    git -C "$wt" add "staged-$i.txt"
    echo "// unstaged change of task 1.$i" >> "$wt/src/pkg$((i % 15))/file$((i % 20)).go"
    echo "notes of task 1.$i" > "$wt/NOTES-$i.md"
  fi
}

# ignored_files FIRST: (d2)'s ignored files into every other worktree from
# FIRST on, one cp -r each.
ignored_files() {
  local i wt
  for ((i = $1; i <= tasks; i += 2)); do
    wt=".worktrees/$run-task-1-$i"
    cp -r .git/bench-template/node_modules "$wt/"
    cp .git/bench-template/env "$wt/.env"
  done
}

case "${1:-}" in
  init) init "$2" ;;
  populate) populate "$2" "${3:-}" ;;
  list) paths ;;
  *) echo "usage: $0 init DIR | populate DIR [ignored] | list" >&2; exit 2 ;;
esac
