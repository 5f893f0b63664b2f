package worktree

// State is the condition of a task's worktree, as the report shows it.
type State string

// The states of a worktree. A worktree may be several at once (locked and
// dirty); the report (internal/resume) picks the one that matters most to
// a resumer.
const (
	Clean    State = "clean"
	Dirty    State = "dirty"
	Missing  State = "missing" // directory gone; `git worktree prune` material
	Locked   State = "locked"
	Orphaned State = "detached_with_commits"
)
