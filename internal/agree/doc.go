// Package agree holds only tests: one run, one answer. Every mode of both
// commands (the report, --json, --exit-code, --next, --list, and the
// clean's choice of stale worktrees) is run through the real binaries on
// the same repository state, and their answers are compared task by task:
// a fresh clone whose run is only on origin, local branches and remote
// copies that differ, several remotes (equal, differing, chosen by
// checkout.defaultRemote), and a remote whose name holds a "/". Where one
// mode refuses (exit 2), the report and --json must carry the problem that
// says why.
package agree
