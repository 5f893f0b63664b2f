package worktree

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
)

// InProgress reads which operation is under way in a worktree whose private
// git directory is gitDir (for the main worktree that is the common dir). It
// only looks at the state files git leaves while an operation is stopped, so
// it costs a few stats and reads and never looks at objects.
//
// op is "" or one of "rebase", "am", "merge", "cherry-pick", "revert",
// "bisect". branch is the short name of the branch the operation will update
// when it finishes, when that is known: the branch being rebased, or the
// branch a bisect started from (and returns to).
func InProgress(gitDir string) (op, branch string) {
	at := func(name string) string { return filepath.Join(gitDir, name) }
	// A rebase is checked first: its steps leave MERGE_HEAD or
	// CHERRY_PICK_HEAD behind too, and finishing the rebase is what matters.
	if admExists(at("rebase-merge")) {
		return "rebase", admHeadName(at("rebase-merge/head-name"))
	}
	if admExists(at("rebase-apply")) {
		if admExists(at("rebase-apply/applying")) {
			return "am", ""
		}
		return "rebase", admHeadName(at("rebase-apply/head-name"))
	}
	switch {
	case admExists(at("MERGE_HEAD")):
		return "merge", ""
	case admExists(at("CHERRY_PICK_HEAD")):
		return "cherry-pick", ""
	case admExists(at("REVERT_HEAD")):
		return "revert", ""
	}
	if data, err := os.ReadFile(at("BISECT_START")); err == nil {
		return "bisect", admBranchName(strings.TrimSpace(string(data)))
	}
	// A sequence of picks whose last conflict was resolved and committed
	// has no *_HEAD file left, only its todo list.
	if data, err := os.ReadFile(at("sequencer/todo")); err == nil {
		if bytes.HasPrefix(bytes.TrimSpace(data), []byte("revert")) {
			return "revert", ""
		}
		return "cherry-pick", ""
	}
	return "", ""
}

func admExists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// admHeadName reads a rebase's head-name file: "refs/heads/x" for a branch,
// "detached HEAD" otherwise.
func admHeadName(path string) string {
	return fileAfter(path, "refs/heads/")
}

// fileAfter is what follows prefix in the one-line file at path, "" when
// the file is unreadable or does not start with prefix.
func fileAfter(path, prefix string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	rest, ok := strings.CutPrefix(strings.TrimSpace(string(data)), prefix)
	if !ok {
		return ""
	}
	return rest
}

// admBranchName returns s when it looks like a branch name. BISECT_START
// holds the branch a bisect started on, or a commit id when HEAD was
// detached.
func admBranchName(s string) string {
	if s == "" || admIsHex(s) && (len(s) == 40 || len(s) == 64) {
		return ""
	}
	if strings.ContainsAny(s, " \t\n~^:?*[\\") || strings.Contains(s, "..") ||
		strings.HasPrefix(s, "-") || strings.HasPrefix(s, "/") || strings.HasSuffix(s, "/") {
		return ""
	}
	return s
}
