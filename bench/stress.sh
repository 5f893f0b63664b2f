#!/usr/bin/env bash
# The long runs of the stress loops (internal/stress): git-taskclean's
# no-loss promise, and the task claims of git-taskresume.
#
#   bench/stress.sh [kills] [writers] [claim-rounds] [clean-renew]
#                                      (defaults 500, 100, 10 and 40)
#
# kills: a clean SIGKILLed (its whole process group) at a random moment and
# rerun; afterwards every file byte and commit that existed before must be in
# a kept worktree or reachable from a ref, the rerun must exit 0, and no git
# ref lock, taskclean-* temporary entry or *.taskclean-removing folder may be
# left. writers: a new file written into a stale worktree during a clean, by
# absolute path or from a process working inside it; every write that
# reported success must survive.
#
# claim-rounds: rounds of each claim race, 32 claimers started at once: in
# one repository, through a bare origin from three clones, and over four
# claims expired on the origin (takeover); each round exactly one winner
# per task, every other claimer exits 1 saying nothing is free, no other
# error, and the claims afterwards name the winners. clean-renew: tries of a
# clean against the renewal of a claim that has just expired, each of local
# claims and claims through the origin; a renewal that exits 0 must find the
# worktree, its uncommitted file and its claim still there.
#
# STRESS_RUN=REGEXP runs only the matching tests (go test -run), e.g.
# STRESS_RUN='TestClaim|TestCleanVersusRenew' for the claim loops alone.
# Prints the summary lines; the full log is kept in a file named at the end.
# Exits as go test does.
set -uo pipefail

kills=${1:-500}
writers=${2:-100}
claims=${3:-10}
renews=${4:-40}
here=$(cd "$(dirname "$0")/.." && pwd)
log=$(mktemp "${TMPDIR:-/tmp}/taskclean-stress.XXXXXX")

cd "$here" || exit 1
STRESS_KILLS=$kills STRESS_WRITERS=$writers \
  STRESS_CLAIM_ROUNDS=$claims STRESS_CLONE_ROUNDS=$claims STRESS_TAKEOVER_ROUNDS=$claims \
  STRESS_CLEAN_RENEW=$renews \
  go test ./internal/stress -count=1 -v -timeout 120m -run "${STRESS_RUN:-.}" >"$log" 2>&1
rc=$?
grep -E 'summary|^ *(--- |ok|FAIL)' "$log" | sed 's/^ *//'
echo "full log: $log"
exit $rc
