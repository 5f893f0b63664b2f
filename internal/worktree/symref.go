package worktree

import (
	"os"
	"path/filepath"
	"strings"
)

// MaxSymrefDepth is how many symbolic refs git follows before it gives up
// (SYMREF_MAXDEPTH).
const MaxSymrefDepth = 5

// SymrefTarget is the ref a symbolic ref of the common directory points to
// directly ("ref: <target>" in its file), or "" when ref is not a symbolic
// ref there. for-each-ref's %(symref) names the last ref of a chain
// (alias2 -> alias1 -> main gives main); this gives alias1, which is what
// `git symbolic-ref` wrote. Files only, no git process: a symbolic ref is
// always a loose file in the files backend (packed-refs cannot hold one).
func SymrefTarget(commonDir, ref string) string {
	if !safeRefName(ref) {
		return ""
	}
	return readSymref(filepath.Join(commonDir, filepath.FromSlash(ref)))
}

// HeadAliases lists the symbolic refs a worktree's HEAD goes through before
// the ref it ends at: HEAD -> refs/heads/alias -> refs/heads/main gives
// [refs/heads/alias]; a HEAD on a plain branch, or detached, gives none.
// `git worktree list` names only the end of the chain (main), yet deleting
// any alias on it leaves that worktree on a branch that does not exist.
// gitDir is the worktree's own git directory (the common directory for the
// main worktree). Files only, as SymrefTarget.
//
// A link of the chain may be a per-worktree ref (refs/worktree/,
// refs/bisect/, refs/rewritten/): git keeps those in the worktree's own
// git directory, so they are read there (HEAD -> refs/worktree/a ->
// refs/heads/alias -> main holds alias too).
func HeadAliases(gitDir, commonDir string) []string {
	var out []string
	name := readSymref(filepath.Join(gitDir, "HEAD"))
	for i := 0; i < MaxSymrefDepth && safeRefName(name); i++ {
		dir := commonDir
		if perWorktreeRef(name) {
			dir = gitDir
		}
		next := SymrefTarget(dir, name)
		if next == "" {
			break
		}
		out = append(out, name)
		name = next
	}
	return out
}

// perWorktreeRef: git stores ref in each worktree's own git directory
// (is_per_worktree_ref in git's refs.c).
func perWorktreeRef(ref string) bool {
	for _, p := range []string{"refs/worktree/", "refs/bisect/", "refs/rewritten/"} {
		if strings.HasPrefix(ref, p) {
			return true
		}
	}
	return false
}

// readSymref reads a symbolic ref's file: "ref: <name>", or a symbolic
// link whose text is the name (what git writes with core.preferSymlinkRefs,
// and still reads): read as a file, the link would give the content of the
// ref it names, one link further down the chain. "" for anything else.
func readSymref(path string) string {
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		name, err := os.Readlink(path)
		if err != nil || !strings.HasPrefix(name, "refs/") {
			return ""
		}
		return name
	}
	return fileAfter(path, "ref: ")
}

// safeRefName accepts a ref name that stays inside the directory it is read
// from: git refuses ".." and names outside refs/ for the refs followed here.
func safeRefName(name string) bool {
	// No space or control character either: a file holding more than one
	// line, or a stray byte, names no ref git would read.
	return strings.HasPrefix(name, "refs/") && !strings.Contains(name, "..") && !strings.Contains(name, "\\") &&
		!strings.ContainsFunc(name, func(r rune) bool { return r <= ' ' || r == 0x7f })
}
