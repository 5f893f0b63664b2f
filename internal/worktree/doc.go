// Package worktree lists the linked worktrees git has registered, tells what
// state each is in, and (for git-taskclean) saves and removes them.
package worktree
