package worktree

import (
	"bytes"
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/taskresume/git-taskresume/internal/gitcmd"
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
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	name, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "refs/heads/")
	if !ok {
		return ""
	}
	return name
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

// admMaxParents bounds the parents of one commit; more are spread over
// intermediate commits.
const admMaxParents = 5000

// SaveAdmin writes one commit that keeps reachable every object named in
// st.IDs that exists in the repository, and records st.Files (their bytes,
// read now) as its tree, at the same relative paths. Commits become parents
// of the saved commit, tags are peeled, and trees and blobs go into the tree
// as "objects/<id>". Ids naming no object are ignored: reflogs name pruned
// objects. skip lists commits already kept reachable by other means (the
// worktree's HEAD, saved with its work); they are not repeated as parents.
//
// It returns the commit id, or "" when there are no files and no object to
// keep. It runs four git processes (one more when some ids are tags).
func SaveAdmin(ctx context.Context, repo *gitcmd.Repo, st *AdminState, skip map[string]bool, msg string) (string, error) {
	parents, objects, err := admClassify(ctx, repo, st.IDs, skip)
	if err != nil {
		return "", err
	}
	if len(st.Files) == 0 && len(parents) == 0 && len(objects) == 0 {
		return "", nil
	}
	hexLen := 0 // of the ids git gives back; any of them tells
	root := &admTree{}
	if len(st.Files) > 0 {
		var in bytes.Buffer
		for _, rel := range st.Files {
			in.WriteString(admQuote(filepath.Join(st.Dir, filepath.FromSlash(rel))))
			in.WriteByte('\n')
		}
		out, err := repo.RunInput(ctx, in.Bytes(), "hash-object", "-w", "--no-filters", "--stdin-paths")
		if err != nil {
			return "", err
		}
		ids := strings.Fields(string(out))
		if len(ids) != len(st.Files) {
			return "", fmt.Errorf("hash-object: %d ids for %d files", len(ids), len(st.Files))
		}
		hexLen = len(ids[0])
		for i, rel := range st.Files {
			if err := root.add(strings.Split(rel, "/"), ids[i], false); err != nil {
				return "", err
			}
		}
	}
	for _, o := range objects {
		hexLen = len(o.id)
		if err := root.add([]string{"objects", o.id}, o.id, o.typ == "tree"); err != nil {
			return "", err
		}
	}
	tree, err := admWriteTree(ctx, repo, root, hexLen)
	if err != nil {
		return "", err
	}
	return admCommit(ctx, repo, tree, parents, msg)
}

type admObject struct{ id, typ string }

// admClassify sorts ids by what they name: commits (the parents of the saved
// commit) and trees and blobs (entries of its tree). Tags count as what they
// point to.
func admClassify(ctx context.Context, repo *gitcmd.Repo, ids []string, skip map[string]bool) (parents []string, objects []admObject, err error) {
	if len(ids) == 0 {
		return nil, nil, nil
	}
	// A partial clone would fetch what it lacks; a missing id here is a
	// pruned object, not one to download.
	env := []string{"GIT_NO_LAZY_FETCH=1"}
	check := func(suffix string, ids []string) ([]admObject, error) {
		var in bytes.Buffer
		for _, id := range ids {
			in.WriteString(id + suffix + "\n")
		}
		out, err := repo.RunEnv(ctx, env, in.Bytes(), "cat-file", "--batch-check=%(objectname) %(objecttype)")
		if err != nil {
			return nil, err
		}
		lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
		if len(lines) != len(ids) {
			return nil, fmt.Errorf("cat-file: %d answers for %d ids", len(lines), len(ids))
		}
		res := make([]admObject, len(lines))
		for i, l := range lines {
			id, typ, _ := strings.Cut(l, " ")
			res[i] = admObject{id, typ}
		}
		return res, nil
	}
	found, err := check("", ids)
	if err != nil {
		return nil, nil, err
	}
	var tags []string
	for _, o := range found {
		if o.typ == "tag" {
			tags = append(tags, o.id)
		}
	}
	if len(tags) > 0 {
		peeled, err := check("^{}", tags)
		if err != nil {
			return nil, nil, err
		}
		found = append(found, peeled...)
	}
	seen := map[string]bool{}
	for _, o := range found {
		if seen[o.id] || skip[o.id] {
			continue
		}
		seen[o.id] = true
		switch o.typ {
		case "commit":
			parents = append(parents, o.id)
		case "tree", "blob":
			objects = append(objects, o)
		}
	}
	return parents, objects, nil
}

// admQuote quotes a path the way hash-object --stdin-paths unquotes it, so
// that a newline in a name (or in the repository's path) cannot split it.
func admQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20 || c == 0x7f:
			fmt.Fprintf(&b, "\\%03o", c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// admTree is a directory of the tree being built: entries are blob or tree
// ids, or subdirectories still to be written.
type admTree struct {
	names []string
	ids   map[string]string // name -> object id, for blobs and ready trees
	trees map[string]bool   // name -> is a tree (ready or in subs)
	subs  map[string]*admTree
}

func (t *admTree) add(path []string, id string, isTree bool) error {
	if t.ids == nil {
		t.ids, t.trees, t.subs = map[string]string{}, map[string]bool{}, map[string]*admTree{}
	}
	name := path[0]
	if len(path) == 1 {
		if _, dup := t.ids[name]; dup || t.subs[name] != nil {
			return fmt.Errorf("saving admin files: %q twice", name)
		}
		t.names = append(t.names, name)
		t.ids[name], t.trees[name] = id, isTree
		return nil
	}
	if _, dup := t.ids[name]; dup {
		return fmt.Errorf("saving admin files: %q is a file and a directory", name)
	}
	sub := t.subs[name]
	if sub == nil {
		sub = &admTree{}
		t.subs[name], t.trees[name] = sub, true
		t.names = append(t.names, name)
	}
	return sub.add(path[1:], id, isTree)
}

// admWriteTree writes root and its subdirectories with one `git mktree
// --batch`. A tree's input names its subtrees' ids, which are only known
// once they are written, so the ids are computed here (a tree object is
// its sorted entries, hashed) and the trees fed deepest first. mktree
// refuses an entry whose object does not exist, so a wrong computation
// fails instead of writing a broken tree.
func admWriteTree(ctx context.Context, repo *gitcmd.Repo, root *admTree, hexLen int) (string, error) {
	newHash := sha1.New
	if hexLen == 64 {
		newHash = sha256.New
	}
	if len(root.names) == 0 {
		// mktree --batch writes nothing for an empty input; without
		// --batch it writes the empty tree.
		out, err := repo.RunInput(ctx, []byte{}, "mktree", "-z")
		return strings.TrimSpace(string(out)), err
	}
	var in bytes.Buffer
	var walk func(t *admTree) (string, error)
	walk = func(t *admTree) (string, error) {
		for _, name := range t.names {
			if sub := t.subs[name]; sub != nil {
				id, err := walk(sub)
				if err != nil {
					return "", err
				}
				t.ids[name] = id
			}
		}
		sort.Slice(t.names, func(i, j int) bool { return admSortKey(t, t.names[i]) < admSortKey(t, t.names[j]) })
		var raw bytes.Buffer
		for _, name := range t.names {
			id := t.ids[name]
			bin, err := hex.DecodeString(id)
			if err != nil {
				return "", fmt.Errorf("object id %q: %v", id, err)
			}
			mode, typ := "100644", "blob"
			if t.trees[name] {
				mode, typ = "40000", "tree"
			}
			fmt.Fprintf(&raw, "%s %s\x00", mode, name)
			raw.Write(bin)
			fmt.Fprintf(&in, "%s %s %s\t%s\x00", mode, typ, id, name)
		}
		in.WriteByte(0) // ends this tree in --batch -z input
		h := newHash()
		fmt.Fprintf(h, "tree %d\x00", raw.Len())
		raw.WriteTo(h)
		return admHex(h), nil
	}
	rootID, err := walk(root)
	if err != nil {
		return "", err
	}
	out, err := repo.RunInput(ctx, in.Bytes(), "mktree", "-z", "--batch")
	if err != nil {
		return "", err
	}
	ids := strings.Fields(string(out))
	if len(ids) == 0 || ids[len(ids)-1] != rootID {
		return "", fmt.Errorf("mktree wrote %v, expected root tree %s", ids, rootID)
	}
	return rootID, nil
}

// admSortKey orders tree entries as git does: a directory sorts as if its
// name ended with "/".
func admSortKey(t *admTree, name string) string {
	if t.trees[name] {
		return name + "/"
	}
	return name
}

func admHex(h hash.Hash) string { return hex.EncodeToString(h.Sum(nil)) }

// admCommit makes the saved commit. More parents than admMaxParents are
// first gathered into intermediate commits (same tree), so no command line
// or commit grows without bound.
func admCommit(ctx context.Context, repo *gitcmd.Repo, tree string, parents []string, msg string) (string, error) {
	commit := func(ps []string, m string) (string, error) {
		args := []string{"commit-tree", tree, "-m", m}
		for _, p := range ps {
			args = append(args, "-p", p)
		}
		out, err := repo.RunEnv(ctx, Identity, nil, args...)
		return strings.TrimSpace(string(out)), err
	}
	for len(parents) > admMaxParents {
		var next []string
		for i := 0; i < len(parents); i += admMaxParents {
			end := min(i+admMaxParents, len(parents))
			c, err := commit(parents[i:end], fmt.Sprintf("%s\n\nparents %d to %d of %d", msg, i+1, end, len(parents)))
			if err != nil {
				return "", err
			}
			next = append(next, c)
		}
		parents = next
	}
	return commit(parents, msg)
}
