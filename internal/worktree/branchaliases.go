package worktree

import (
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// maxRefFile is the size above which a file under refs/heads is not read:
// a symbolic ref's file is "ref: " and a ref name, a plain branch's a
// hash; anything larger is neither.
const maxRefFile = 4096

// BranchAliases lists every local branch that is a symbolic ref, full ref
// name -> the ref it points to directly (what `git symbolic-ref` wrote).
// A symbolic ref is always a loose file in the files backend (packed-refs
// cannot hold one), so the walk reads refs/heads of the common directory
// and nothing else: of each file only its first bytes, and a symbolic
// link (core.preferSymlinkRefs) by its text. No git process: one
// `for-each-ref` would read every branch, packed ones included, to find
// the few that are aliases.
func BranchAliases(commonDir string) map[string]string {
	out := map[string]string{}
	root := filepath.Join(commonDir, "refs", "heads")
	buf := make([]byte, maxRefFile)
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil // an unreadable directory hides no alias git can read either
		}
		rel, rerr := filepath.Rel(root, p)
		if rerr != nil {
			return nil
		}
		ref := path.Join("refs/heads", filepath.ToSlash(rel))
		var target string
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			if t, lerr := os.Readlink(p); lerr == nil && strings.HasPrefix(t, "refs/") {
				target = t
			}
		case d.Type().IsRegular():
			target = readSmallSymref(p, buf)
		}
		if target != "" && safeRefName(target) && !strings.HasSuffix(ref, ".lock") {
			out[ref] = target
		}
		return nil
	})
	return out
}

// readSmallSymref reads the ref a symbolic ref's file names, reading at
// most len(buf) bytes, or "" when the file holds something else.
func readSmallSymref(p string, buf []byte) string {
	f, err := os.Open(p)
	if err != nil {
		return ""
	}
	defer f.Close()
	n, err := io.ReadFull(f, buf)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF || n == len(buf) {
		return ""
	}
	rest, ok := strings.CutPrefix(string(buf[:n]), "ref: ")
	if !ok {
		return ""
	}
	return strings.TrimSpace(rest)
}
