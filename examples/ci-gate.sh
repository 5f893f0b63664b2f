#!/usr/bin/env bash
# Gate a pull request on plan completion: exits 0 when every task of the run
# is complete or merged on the remote, or when there is no plan run to check;
# 1 when the run is not complete; 2 when the tool finds bad input (a failed
# fetch fails with git's own code). Reads only what was pushed, so it needs
# full history (fetch-depth: 0) but no local branch: it works in the detached
# merge commit actions/checkout checks out for a pull request.
#
#   examples/ci-gate.sh [RUN] [REMOTE]
#
# RUN defaults to $TASK_RUN_ID, else to the run that the pull request's head
# branch ($GITHUB_HEAD_REF) belongs to. REMOTE defaults to origin.
# examples/github-workflow.yml runs the lines below the marker unchanged.
# --- gate ---
set -euo pipefail
run=${1:-${TASK_RUN_ID:-}}
remote=${2:-origin}
head=${GITHUB_HEAD_REF:-}
if [ -z "$run" ]; then
  # A run's branches are <run>-main and <run>-task-<id>-<slug>. A run id never
  # contains "-task", so the first "-task-<digit>" ends it.
  case $head in
    ?*-task-[0-9]*) run=${head%%-task-[0-9]*} ;;
    ?*-main) run=${head%-main} ;;
  esac
fi
if [ -z "$run" ]; then
  if [ -z "$head" ]; then
    why="no RUN, no TASK_RUN_ID and no pull request head branch (GITHUB_HEAD_REF)"
  else
    why="head branch $head is neither <run>-main nor <run>-task-<id>-<slug>"
  fi
  echo "not a plan run: $why; nothing to check"
  exit 0
fi

# A CI checkout has no local branches: fetch every branch the agents pushed
# as remote-tracking refs (harmless when they are already there).
git fetch --quiet "$remote" "+refs/heads/*:refs/remotes/$remote/*"
if [ -z "$(git for-each-ref --count=1 --format=x "refs/remotes/$remote/$run-main" "refs/remotes/$remote/$run-task-*")" ]; then
  # A branch that only looks like a run's, or one pushed to a fork.
  echo "not a plan run: $remote has no branch $run-main or $run-task-*; nothing to check"
  exit 0
fi

# Own commits are counted against <run>-main wherever a copy of it exists
# (the tool finds it, local or $remote's, when given no --base). Counted
# against the target branch instead, a task branch cut from an advanced
# <run>-main would take the run's earlier commits for its own. Only a run
# without <run>-main needs a base: the pull request's target branch (a CI
# checkout has no local main and no origin/HEAD). Without one either, the tool
# tries main, master, origin/HEAD, origin/main and origin/master, and says so.
# (A string, not an array: under set -u an empty array is an error in the
# bash before 4.4 that macOS ships.)
base=
if [ -z "$(git for-each-ref --count=1 --format=x "refs/heads/$run-main" "refs/remotes/$remote/$run-main")" ] &&
  [ -n "${GITHUB_BASE_REF:-}" ]; then
  base=--base=$remote/$GITHUB_BASE_REF
fi

# A branch that ends in -main but has no task branch and no plan (sync-main,
# release-main) is no run's either.
if [ -z "$(git for-each-ref --count=1 --format=x "refs/remotes/$remote/$run-task-*")" ]; then
  json=$(git taskresume "$run" --remote "$remote" ${base:+"$base"} --json 2>/dev/null || true)
  case $json in *'"plan": null'*)
    echo "not a plan run: $run has no task branch and no plan; nothing to check"
    exit 0 ;;
  esac
fi

# With --remote the tool reads the run's claims (refs/taskclaims/<run>/*)
# live from the remote, with one ls-remote: no need to fetch them here.
git taskresume "$run" --remote "$remote" ${base:+"$base"}
git taskresume "$run" --remote "$remote" ${base:+"$base"} --exit-code > /dev/null
