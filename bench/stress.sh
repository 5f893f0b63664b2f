#!/usr/bin/env bash
# The long runs of the two stress loops of git-taskclean's no-loss promise
# (internal/stress):
#
#   bench/stress.sh [kills] [writers]      (defaults 500 and 100)
#
# kills: a clean SIGKILLed (its whole process group) at a random moment and
# rerun; afterwards every file byte and commit that existed before must be in
# a kept worktree or reachable from a ref, the rerun must exit 0, and no git
# ref lock, taskclean-* temporary entry or *.taskclean-removing folder may be
# left. writers: a new file written into a stale worktree during a clean, by
# absolute path or from a process working inside it; every write that
# reported success must survive. Prints the summary lines; the full log is
# kept in a file named at the end. Exits as go test does.
set -uo pipefail

kills=${1:-500}
writers=${2:-100}
here=$(cd "$(dirname "$0")/.." && pwd)
log=$(mktemp "${TMPDIR:-/tmp}/taskclean-stress.XXXXXX")

cd "$here" || exit 1
STRESS_KILLS=$kills STRESS_WRITERS=$writers \
  go test ./internal/stress -count=1 -v -timeout 60m >"$log" 2>&1
rc=$?
grep -E 'summary|^(--- |ok|FAIL)' "$log" | sed 's/^ *//'
echo "full log: $log"
exit $rc
