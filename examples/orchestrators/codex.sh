#!/usr/bin/env bash
# The resume step of the spectacular-codex server, done with git taskresume
# and git taskclean: which tasks of a run still need an agent, and the
# worktrees that crashed agents left, cleared out of the way with their
# work saved. It prints the arguments of the server's spectacular_execute
# call that runs exactly those tasks.
#
#   examples/orchestrators/codex.sh [-n] RUN
#
# Run it in the checkout the codex server works in. It prints one JSON
# object on stdout,
#
#   {"plan_path":"specs/RUN-feature/plan.md","tasks":[{"id":"2-2"},{"id":"2-3"}]}
#
# (the tasks of the first phase not complete that can run now: the next one
# of a sequential phase, every one not done of a parallel phase), and
# nothing when the run is complete. Before that it saves and removes the
# run's stale worktrees, so that the server's `git worktree add` finds
# .worktrees/RUN-task-ID free; what the clean did goes to stderr, with the
# command that undoes it. The shared worktree .worktrees/RUN-main is never
# touched. Reads git taskresume's JSON with jq.
#
#   -n   say what the clean would do, change nothing
#   -h   this help
#
# Exit codes: 0 done (no output: the run is complete; the tasks' object,
# its list empty when none can start now: each one left waits for a
# dependency, is claimed or is at work); 2 bad usage, no jq,
# or input the tools refuse (unknown run, no plan, a plan error, another
# clean of the run at work, the run's remote moved on since the last fetch
# or not readable), with a one-line error and nothing changed; 3 a clean
# that failed part way (what it did is printed; run the script again).
set -euo pipefail

run_hint="the **Run ID:** line of its plan"
args=$(dirname "$0")/args.sh
if [ ! -r "$args" ]; then
  echo "error: $args not found: copy args.sh beside this script" >&2
  exit 2
fi
# shellcheck source=args.sh
. "$args"
if ! command -v jq >/dev/null; then
  echo "error: jq not found: install jq (this script reads git taskresume --json with it)" >&2
  exit 2
fi

# Ask first: a run the tools cannot read stops here, before anything is
# removed. A task counts as done only when its work is on a branch (commits
# of its own, wherever the branch is checked out) or has landed on the
# base (main when there is no RUN-main branch, as in the server's runs).
report=$(git taskresume "$run" --json)
if [ "$(jq -r .status <<<"$report")" = unknown ]; then
  # --json still answers without a plan (it lists the branches); a
  # resume needs one.
  echo "error: no plan found for run $run (looked in $(jq -r '.plan_searched // [] | join(", ")' <<<"$report")); run it where the plan is, or see git taskresume -h for --plan" >&2
  exit 2
fi
# The tasks handed out are --next's, not the report's. In a clone whose
# run's branches are on a remote, --json reads that remote as last
# fetched; --next, which hands out work, reads it live: it leaves out the
# tasks claimed there, and exits 2 (saying to fetch) when a branch of the
# run moved there since the fetch (a task finished on another machine),
# rather than let this script hand that task out again.
# Empty with exit 1: not complete, but nothing may start now (the object
# below then lists no task); only the report's null resume is complete.
status=0
next=$(git taskresume "$run" --next) || status=$?
if [ "$status" -gt 1 ]; then
  exit "$status"
fi

# The stale worktrees: those of tasks not done (a crashed agent's, with its
# uncommitted work). Each is saved under refs/taskclean/RUN/ before it goes.
git taskclean --run="$run" ${dry:+"$dry"} >&2

if [ "$(jq -r '.resume == null' <<<"$report")" = true ]; then
  echo "run $run is complete: no task to run" >&2
  exit 0
fi
tasks=$(jq -Rnc '[inputs | select(. != "")]' <<<"$next")
jq -r --argjson tasks "$tasks" '"resume at phase \(.resume.phase) (\(.resume.mode)): \(if $tasks == [] then "no task can start now (the others wait for a dependency, are claimed, or at work)" else $tasks | join(" ") end)"' <<<"$report" >&2
jq -c --argjson tasks "$tasks" '{plan_path: .plan, tasks: [$tasks[] | {id: .}]}' <<<"$report"
