package worktree

import (
	"io/fs"
	"path"
	"path/filepath"
	"strings"
)

// BranchAliases lists every local branch that is a symbolic ref, full ref
// name -> the ref it points to directly (what `git symbolic-ref` wrote).
// A symbolic ref is always a loose file in the files backend (packed-refs
// cannot hold one), so the walk reads refs/heads of the common directory
// and nothing else (readSymref: a file, or a symbolic link by its text,
// core.preferSymlinkRefs). No git process: one `for-each-ref` would read
// every branch, packed ones included, to find the few that are aliases.
func BranchAliases(commonDir string) map[string]string {
	out := map[string]string{}
	root := filepath.Join(commonDir, "refs", "heads")
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(p, ".lock") {
			return nil // an unreadable directory hides no alias git can read either
		}
		rel, rerr := filepath.Rel(root, p)
		if rerr != nil {
			return nil
		}
		ref := path.Join("refs/heads", filepath.ToSlash(rel))
		target := readSymref(p)
		if target != "" && safeRefName(target) {
			out[ref] = target
		}
		return nil
	})
	return out
}
