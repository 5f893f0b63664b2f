package worktree

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// AdminState is what a linked worktree's admin directory
// (<common dir>/worktrees/<id>/) holds beyond its checkout: per-worktree
// refs and reflogs, the state of a stopped operation, submodule
// repositories.
type AdminState struct {
	Dir string
	// Op and Branch are as InProgress returns them.
	Op, Branch string
	// Modules are the submodule repositories under Dir/modules/, as paths
	// relative to Dir ("modules/lib"): directories holding a HEAD file.
	Modules []string
	// Files are the files worth saving, relative to Dir with slashes: all
	// of them except the index (and split-index parts), *.lock files,
	// commondir, gitdir, modules/ and objects/ (see admSkip).
	Files []string
	// IDs are the full object ids found in Files, deduplicated, in the
	// order first seen.
	IDs []string
}

// admSkip says whether a file of an admin directory is left out of the
// saved files. The index is the uncommitted work, which is saved on its own
// (and can be large); locks are transient; commondir and gitdir only tie the
// entry to its repository and directory; modules/ holds whole repositories,
// which are reported rather than copied. objects/ is the name the saved tree
// uses for the objects it keeps (git never writes objects into a linked
// worktree's admin directory).
func admSkip(rel string) bool {
	first, _, _ := strings.Cut(rel, "/")
	switch first {
	case "index", "commondir", "gitdir", "modules", "objects":
		return true
	}
	return strings.HasPrefix(first, "sharedindex.") || strings.HasSuffix(rel, ".lock")
}

// ReadAdmin reads a linked worktree's admin directory. It must not be called
// on the common dir, whose files are the whole repository's. hexLen is the
// length of the repository's object ids in hex (40 for SHA-1, 64 for
// SHA-256).
func ReadAdmin(adminDir string, hexLen int) (*AdminState, error) {
	if hexLen != 40 && hexLen != 64 {
		return nil, fmt.Errorf("object id length %d: want 40 or 64", hexLen)
	}
	st := &AdminState{Dir: adminDir}
	st.Op, st.Branch = InProgress(adminDir)
	seen := map[string]bool{}
	err := filepath.WalkDir(adminDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return admVanished(path, adminDir, err)
		}
		rel, err := filepath.Rel(adminDir, path)
		if err != nil || rel == "." {
			return err
		}
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel == "modules" {
				mods, err := admModules(path, rel)
				st.Modules = mods
				if err != nil {
					return err
				}
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || admSkip(rel) {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return admVanished(path, adminDir, err)
		}
		st.Files = append(st.Files, rel)
		ids := admIDs(data, hexLen)
		if admTodo(rel) {
			// A to-do list names the commits still to pick by abbreviated
			// ids; git resolves them when the ids are checked.
			ids = append(ids, admShortIDs(data, hexLen)...)
		}
		for _, id := range ids {
			if !seen[id] {
				seen[id] = true
				st.IDs = append(st.IDs, id)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return st, nil
}

// admVanished ignores a file that went away while the directory was read
// (git finishing a step): what is not there is not saved. The directory
// itself must exist.
func admVanished(path, adminDir string, err error) error {
	if path != adminDir && errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

// admModules lists the repositories under a modules/ directory. A submodule
// name may contain slashes, so directories without a HEAD are searched
// further; a repository's own modules/ (nested submodules) goes with it.
func admModules(dir, rel string) ([]string, error) {
	var mods []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if fi, err := os.Stat(filepath.Join(path, "HEAD")); err == nil && fi.Mode().IsRegular() {
			r, err := filepath.Rel(dir, path)
			if err != nil {
				return err
			}
			mods = append(mods, rel+"/"+filepath.ToSlash(r))
			return fs.SkipDir
		}
		return nil
	})
	return mods, err
}

// admIDs returns the runs of exactly hexLen lower-case hex digits in data,
// except the null id (reflogs use it for "no value"). Anything that only
// looks like an id is harmless: ids that name no object are dropped when
// saving.
func admIDs(data []byte, hexLen int) []string {
	var ids []string
	for i := 0; i < len(data); {
		if !admHexByte(data[i]) {
			i++
			continue
		}
		j := i
		for j < len(data) && admHexByte(data[j]) {
			j++
		}
		if j-i == hexLen {
			if id := string(data[i:j]); strings.Trim(id, "0") != "" {
				ids = append(ids, id)
			}
		}
		i = j
	}
	return ids
}

func admIsHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if !admHexByte(s[i]) {
			return false
		}
	}
	return true
}

// admHexByte is true for the digits git writes object ids with (lower case).
func admHexByte(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' }

// admTodo says whether a file of an admin directory is a to-do list of a
// stopped cherry-pick, revert or rebase sequence.
func admTodo(rel string) bool {
	switch rel {
	case "sequencer/todo", "sequencer/done", "rebase-merge/git-rebase-todo", "rebase-merge/done",
		"rebase-merge/git-rebase-todo.backup":
		return true
	}
	return false
}

// admShortIDs returns the abbreviated object ids a to-do list names: the
// word after the command ("pick 1a2b3c4 subject"), and after "-C"/"-c" of
// a merge line, when it is 4 or more hex digits and shorter than a full id.
func admShortIDs(data []byte, hexLen int) []string {
	var ids []string
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		for i := 1; i < len(f) && i < 3; i++ {
			w := f[i]
			if len(w) < 4 || len(w) >= hexLen || !admIsHex(w) {
				continue
			}
			ids = append(ids, w)
		}
	}
	return ids
}
