#!/usr/bin/env bash
# Gate a pull request (GitHub) or a merge request or branch pipeline (GitLab)
# on plan completion: exits 0 when every task of the run is complete or
# merged on the remote, or when there is no plan run to check; 1 when the run
# is not complete; 2 when the tool finds bad input, a shallow clone among
# them (a failed fetch fails with git's own code). Reads only what was
# pushed, so it needs full history (fetch-depth: 0, GIT_DEPTH: 0) but no
# local branch and no refspec of the checkout's: it fetches the branches
# itself, and works in the detached commit actions/checkout or a GitLab
# runner checks out. On GitHub Actions it also writes the run as Markdown
# (git taskresume --format markdown) to the job's summary page.
#
#   examples/ci-gate.sh [RUN] [REMOTE]
#
# RUN defaults to $TASK_RUN_ID, else to the run that the branch under test
# belongs to: the pull request's head branch ($GITHUB_HEAD_REF), else the
# merge request's source branch ($CI_MERGE_REQUEST_SOURCE_BRANCH_NAME), else
# the pipeline's branch ($CI_COMMIT_BRANCH). REMOTE defaults to origin.
# examples/github-workflow.yml and examples/gitlab-ci.yml run the lines below
# the marker unchanged.
# --- gate ---
set -euo pipefail
run=${1:-${TASK_RUN_ID:-}}
remote=${2:-origin}
# The branch under test: a GitHub pull request's head branch, a GitLab merge
# request's source branch, else a GitLab branch pipeline's branch.
head=${GITHUB_HEAD_REF:-${CI_MERGE_REQUEST_SOURCE_BRANCH_NAME:-${CI_COMMIT_BRANCH:-}}}
# Where it goes: the pull or merge request's target branch, else (a branch
# pipeline) the project's default branch.
target=${GITHUB_BASE_REF:-${CI_MERGE_REQUEST_TARGET_BRANCH_NAME:-${CI_DEFAULT_BRANCH:-}}}
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
    why="no RUN, no TASK_RUN_ID and no head branch (GITHUB_HEAD_REF, CI_MERGE_REQUEST_SOURCE_BRANCH_NAME or CI_COMMIT_BRANCH)"
  else
    why="head branch $head is neither <run>-main nor <run>-task-<id>-<slug>"
  fi
  echo "not a plan run: $why; nothing to check"
  exit 0
fi

# A CI checkout has no local branches, and may have fetched only the commit
# under test (a GitLab runner's default refspecs): fetch every branch the
# agents pushed as remote-tracking refs (harmless when they are already
# there). --prune: a reused build directory (GitLab's GIT_STRATEGY: fetch)
# still holds the branches deleted on the remote since, which would count.
git fetch --quiet --prune "$remote" "+refs/heads/*:refs/remotes/$remote/*"
if [ -z "$(git for-each-ref --count=1 --format=x "refs/remotes/$remote/$run-main" "refs/remotes/$remote/$run-task-*")" ]; then
  # A branch that only looks like a run's, or one pushed to a fork.
  echo "not a plan run: $remote has no branch $run-main or $run-task-*; nothing to check"
  exit 0
fi

# Own commits are counted against <run>-main wherever a copy of it exists
# (the tool finds it, local or $remote's, when given no --base). Counted
# against the target branch instead, a task branch cut from an advanced
# <run>-main would take the run's earlier commits for its own. Only a run
# without <run>-main needs a base: the target branch (a CI checkout has no
# local main and no origin/HEAD). Without one either, the tool tries main,
# master, origin/HEAD, origin/main and origin/master, and says so.
# (A string, not an array: under set -u an empty array is an error in the
# bash before 4.4 that macOS ships.)
base=
if [ -z "$(git for-each-ref --count=1 --format=x "refs/heads/$run-main" "refs/remotes/$remote/$run-main")" ] &&
  [ -n "$target" ]; then
  base=--base=$remote/$target
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

# --remote names the remote just fetched: the answer is read from it and no
# other. Without it the tool would find the run's remote itself (the one
# holding its branches: the same one in a plain CI checkout), but a second
# remote with other copies of them (a fork's upstream) would leave the run
# ambiguous, and the gate would exit 2. A named remote is also read live,
# with one ls-remote: the run's claims (refs/taskclaims/<run>/*), shown in
# the report, and whether a branch moved since the fetch above.
git taskresume "$run" --remote "$remote" ${base:+"$base"}
# On GitHub Actions, the same run as Markdown (a table a phase, a graph of its
# tasks coloured by status) on the job's summary page: GITHUB_STEP_SUMMARY
# names the file Actions shows there.
if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
  git taskresume "$run" --remote "$remote" ${base:+"$base"} --format markdown >> "$GITHUB_STEP_SUMMARY"
fi
git taskresume "$run" --remote "$remote" ${base:+"$base"} --exit-code > /dev/null
