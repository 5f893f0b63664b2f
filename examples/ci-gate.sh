#!/usr/bin/env bash
# Gate a pull request on plan completion: exits 0 when every task of the run
# is complete or merged on the remote, 1 when not, 2 on bad input. Reads only
# what was pushed (refs/remotes/origin/...), so it needs a full-history
# checkout (fetch-depth: 0) but no local branches.
#
#   examples/ci-gate.sh RUN [REMOTE]
set -euo pipefail
run=${1:?usage: ci-gate.sh RUN [REMOTE]}
remote=${2:-origin}

# Every branch the agents pushed, as remote-tracking refs.
git fetch --quiet "$remote" "+refs/heads/*:refs/remotes/$remote/*"

git taskresume "$run" --remote "$remote"
git taskresume "$run" --remote "$remote" --exit-code > /dev/null
