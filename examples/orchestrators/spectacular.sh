#!/usr/bin/env bash
# The resume step of the spectacular Claude Code plugin, done with
# git taskresume and git taskclean: which tasks of a run still need an
# agent, and the worktrees that crashed agents left, cleared out of the way
# with their work saved.
#
#   examples/orchestrators/spectacular.sh [-n] RUN
#
# Run it anywhere in the run's repository. It prints the ids of the tasks to
# run next, one per line, as the plan writes them (the next task of a
# sequential phase, or every task of a parallel phase that is not done),
# and nothing when the run is complete. Before that it saves and removes
# the run's stale worktrees, so that `git worktree add .worktrees/RUN-task-ID`
# finds the path free; what the clean did goes to stderr, with the command
# that undoes it. The shared worktree .worktrees/RUN-main is never touched.
#
#   -n   say what the clean would do, change nothing
#   -h   this help
#
# Exit codes: 0 done (no output: the run is complete); 1 the run is not
# complete but no task may start now (each one left waits for a dependency,
# is claimed or is at work; run the script again later); 2 bad usage, or input
# the tools refuse (unknown run, no plan, a plan error, another clean of the
# run at work), with their one-line error and nothing changed; 3 a clean
# that failed part way (what it did is printed; run the script again).
set -euo pipefail

run_hint="the first field of its specs/<run>-<feature>/ directory"
args=$(dirname "$0")/args.sh
if [ ! -r "$args" ]; then
  echo "error: $args not found: copy args.sh beside this script" >&2
  exit 2
fi
# shellcheck source=args.sh
. "$args"

# Ask first: a run the tools cannot read (no plan, a plan error) stops here,
# before anything is removed. --next reads the plan wherever the plugin put
# it (often only on RUN-main and in its worktree) and counts a task as done
# only when its work is on a branch or has landed.
# Empty with exit 0 is a complete run; empty with exit 1 is a run whose
# remaining tasks cannot start yet: never read that as complete.
status=0
next=$(git taskresume "$run" --next) || status=$?
if [ "$status" -gt 1 ]; then
  exit "$status"
fi

# The stale worktrees: those of tasks not done (a crashed agent's, with its
# uncommitted work). Each is saved under refs/taskclean/RUN/ before it goes.
# The clean's report goes to stderr: stdout is the list of tasks.
git taskclean --run="$run" ${dry:+"$dry"} >&2

if [ "$status" -eq 1 ]; then
  echo "run $run is not complete, but no task can start now (the others wait for a dependency, are claimed, or at work)" >&2
  exit 1
fi
if [ -z "$next" ]; then
  echo "run $run is complete: no task to run" >&2
  exit 0
fi
printf '%s\n' "$next"
