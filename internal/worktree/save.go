package worktree

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/taskresume/git-taskresume/internal/gitcmd"
)

// plainIndex are the settings of every git call on a save's index copies:
// a whole index in one file (no split or sparse index, which the proof
// cannot read), and git's own view of the files rather than a file-system
// monitor's or a cache's, which were set up for the directory before it
// was renamed aside.
var plainIndex = []string{"-c", "core.splitIndex=false", "-c", "index.sparse=false",
	"-c", "core.fsmonitor=false", "-c", "core.untrackedCache=false",
	// Every file counts, in or out of a sparse-checkout cone, with the
	// mode it has on disk (what the proof compares).
	"-c", "core.sparseCheckout=false", "-c", "core.fileMode=true"}

// SaveInput is what Save needs to know of one worktree.
type SaveInput struct {
	// Dir is where the worktree's files are now (it may have been renamed
	// aside); "" when its directory is gone and only the admin entry's
	// index and HEAD can be saved.
	Dir string
	// AdminDir is the worktree's admin entry (its index lives there).
	AdminDir string
	// Head is the commit HEAD names, "" when unborn.
	Head string
	// TmpDir receives the index copies; the caller removes it after the
	// proof, which reads them.
	TmpDir string
	// Msg is the save commit's message.
	Msg string
	// Budget bounds the ignored files saved.
	Budget Budget
	// HashLen is 20 for SHA-1 repositories, 32 for SHA-256.
	HashLen int
	// Shared is what the saves of one clean read once (the configuration
	// that decides conversion) and the writers of their commits and trees;
	// nil: everything is read, and made, for this worktree alone.
	Shared *Shared
}

// Snapshot is the saved state of a worktree: one commit whose first parent
// is the worktree's HEAD (none when HEAD is unborn). When there was
// uncommitted work it has the shape of a `git stash` entry (parents HEAD,
// index, and untracked files when there were any), so `git stash apply
// --index` also brings it back.
type Snapshot struct {
	Commit string
	// Stash is true when Commit is stash-shaped (there was uncommitted work).
	Stash bool
	// Staged, Unstaged and Untracked count what was uncommitted, as git
	// status saw it at the save (hidden edits included).
	Staged, Unstaged, Untracked int
	// Ignored is a commit whose tree holds the ignored files saved; "" when
	// there were none within the budget.
	Ignored string
	// IgnoredPlan says which ignored files were saved, which are
	// regenerated trees, and which are past the budget.
	IgnoredPlan IgnoredPlan
	// Raw is a commit whose tree holds the bytes, as they are on disk, of
	// the files git stores converted (a clean filter, line endings,
	// ident): the other trees hold what git makes of them, from which
	// those bytes cannot be got back. "" when there were none.
	Raw string
	// RawPaths are those files (the proof hashes them).
	RawPaths map[string]bool
	// Hidden counts files marked assume-unchanged or skip-worktree whose
	// marks were cleared in the copy so that their edits are saved.
	Hidden int
	// Indexes are the index files whose entries are in the save: what a
	// proof compares the worktree against.
	Indexes []string
}

// Save commits a worktree's uncommitted work, its untracked files and its
// small ignored files without touching its index or files: git works on a
// copy of the index. Marks that hide edits from git (assume-unchanged,
// skip-worktree on a file that is present) are cleared in the copy, so
// those edits are saved too. It reads the worktree anew (one status): the
// caller has stopped writers first, so what it saves is what is there.
func Save(ctx context.Context, repo *gitcmd.Repo, in SaveInput) (*Snapshot, error) {
	snap := &Snapshot{}
	fail := func(what string, err error) (*Snapshot, error) {
		return nil, fmt.Errorf("save %s: %s: %w", in.Dir, what, err)
	}
	idx := filepath.Join(in.TmpDir, "index")
	if err := copyFile(filepath.Join(in.AdminDir, "index"), idx); err != nil && !os.IsNotExist(err) {
		return fail("copy index", err)
	} else if err == nil {
		// The copy keeps the index's time: git (and the proof) tell a
		// racily clean entry, one written in the index's last second, by
		// comparing with it; a fresh time would make such an entry look
		// clean and a same-second edit go unsaved.
		if fi, err := os.Stat(filepath.Join(in.AdminDir, "index")); err == nil {
			os.Chtimes(idx, fi.ModTime(), fi.ModTime())
		}
	}
	// Git runs in the worktree's directory with the copied index; objects
	// are written to the repository. Without a directory, from the
	// repository (only the index and HEAD are left to save).
	r := gitcmd.Runner{Dir: in.Dir, Worktree: true, Write: true}
	if in.Dir == "" {
		r = repo.Runner
		r.Write = true
	}
	env := func(file string) []string { return []string{"GIT_INDEX_FILE=" + file} }
	run := func(file string, stdin []byte, args ...string) (string, error) {
		out, err := r.RunEnv(ctx, append(env(file), Identity...), stdin, append(plainIndex[:len(plainIndex):len(plainIndex)], args...)...)
		return strings.TrimSpace(string(out)), err
	}
	writer := in.Shared.writerFor(in.AdminDir)
	commit := func(tree string, parents []string, m string) (string, error) {
		if writer != nil {
			id, err := writer.Commit(tree, parents, m)
			if !errors.Is(err, errNotPlain) {
				return id, err
			}
		}
		args := []string{"commit-tree", tree, "-m", m}
		for _, p := range parents {
			args = append(args, "-p", p)
		}
		return run(idx, nil, args...)
	}
	// The tree of an index file: made by the clean's tree writer, or by
	// write-tree when there is none or it declines (git's error then says
	// why, "unmerged" included).
	trees := in.Shared.trees()
	writeTree := func(file string) (string, error) {
		if id, err := trees.IndexTree(file); err == nil {
			return id, nil
		}
		return run(file, nil, "write-tree")
	}
	var headParents []string
	if in.Head != "" {
		headParents = []string{in.Head}
	}

	if in.Dir == "" {
		// The directory is gone: what is left is HEAD and the index.
		indexTree, err := run(idx, nil, "write-tree")
		if err != nil || in.Head != "" && indexTree == treeOf(ctx, r, in.Head) {
			tree := in.Head + "^{tree}"
			if in.Head == "" {
				if tree, err = run(idx, []byte{}, "mktree"); err != nil {
					return fail("empty tree", err)
				}
			}
			c, err := commit(tree, headParents, in.Msg)
			if err != nil {
				return fail("commit", err)
			}
			snap.Commit = c
			return snap, nil
		}
		ic, err := commit(indexTree, headParents, "index on "+in.Msg)
		if err != nil {
			return fail("commit index", err)
		}
		if snap.Commit, err = commit(indexTree, append(append([]string(nil), headParents...), ic), in.Msg); err != nil {
			return fail("commit", err)
		}
		snap.Stash, snap.Staged = true, 1
		return snap, nil
	}

	// A split or sparse index is written out whole, so that the proof can
	// read the copy.
	if _, err := ReadIndex(idx, in.HashLen); errors.Is(err, ErrIndexUnsupported) {
		if _, err := run(idx, nil, "update-index", "--no-split-index"); err != nil {
			return fail("write the index whole", err)
		}
	}
	// Whether a .gitattributes file is among the worktree's paths (tracked,
	// untracked or ignored; git reads one that is in the index but not on
	// disk too): unless one is, or another attributes source exists, no
	// attribute can make git convert a file. An index only git can read
	// leaves the question open.
	attrsKnown, attrsIn := true, false
	seeAttrs := func(paths []string) {
		for _, p := range paths {
			attrsIn = attrsIn || isAttrFile(p)
		}
	}
	// Clear the marks that hide edits, on files that are there (a
	// skip-worktree file that is absent is a sparse checkout's, not an
	// edit).
	if entries, err := ReadIndex(idx, in.HashLen); err == nil {
		var hidden []string
		for _, e := range entries {
			attrsIn = attrsIn || isAttrFile(e.Path)
			if !e.AssumeUnchanged && !e.SkipWorktree {
				continue
			}
			if _, err := os.Lstat(filepath.Join(in.Dir, filepath.FromSlash(e.Path))); err == nil {
				hidden = append(hidden, e.Path)
			}
		}
		if len(hidden) > 0 {
			if err := clearMarks(run, idx, hidden); err != nil {
				return fail("clear hidden marks", err)
			}
			snap.Hidden = len(hidden)
		}
	} else if !os.IsNotExist(err) {
		attrsKnown = false
		// An index we cannot read ourselves: ask git which entries are
		// marked (ls-files -v: lower case is assume-unchanged, S is
		// skip-worktree).
		out, lerr := run(idx, nil, "ls-files", "-z", "-v")
		if lerr != nil {
			return fail("list index", lerr)
		}
		var hidden []string
		for _, rec := range strings.Split(out, "\x00") {
			if len(rec) < 3 {
				continue
			}
			tag, path := rec[0], rec[2:]
			if tag == 'S' || tag >= 'a' && tag <= 'z' {
				if _, err := os.Lstat(filepath.Join(in.Dir, filepath.FromSlash(path))); err == nil {
					hidden = append(hidden, path)
				}
			}
		}
		if len(hidden) > 0 {
			if err := clearMarks(run, idx, hidden); err != nil {
				return fail("clear hidden marks", err)
			}
			snap.Hidden = len(hidden)
		}
	}

	out, err := r.RunEnv(ctx, env(idx), nil, append(plainIndex[:len(plainIndex):len(plainIndex)],
		"status", "--porcelain=v2", "-z", "--untracked-files=all", "--ignored=matching")...)
	if err != nil {
		return fail("status", err)
	}
	st := ParseStatus(out)
	files := ParseStatusFiles(out)
	snap.Staged, snap.Unstaged, snap.Untracked = st.Staged, st.Unstaged, st.Untracked
	snap.Indexes = []string{idx}

	// Ignored files within the budget, into a tree of their own.
	snap.IgnoredPlan = PlanIgnored(in.Dir, files.Ignored, in.Budget)
	// Files in a regenerated tree are not saved, and the attributes files
	// in there say nothing of files outside it.
	seeAttrs(files.Untracked)
	seeAttrs(snap.IgnoredPlan.Save)
	seeAttrs(snap.IgnoredPlan.TooBig)
	if len(snap.IgnoredPlan.Unreadable) > 0 {
		attrsKnown = false
	}
	treeAttrs := attrsIn || !attrsKnown
	if len(snap.IgnoredPlan.Save) > 0 {
		iidx := filepath.Join(in.TmpDir, "ignored")
		if _, err := run(iidx, []byte(strings.Join(snap.IgnoredPlan.Save, "\x00")+"\x00"), "update-index", "--add", "-z", "--stdin"); err != nil {
			return fail("add ignored files", err)
		}
		tree, err := writeTree(iidx)
		if err != nil {
			return fail("ignored tree", err)
		}
		if snap.Ignored, err = commit(tree, nil, "ignored files on "+in.Msg); err != nil {
			return fail("commit ignored files", err)
		}
		snap.Indexes = append(snap.Indexes, iidx)
	}

	if st.Staged+st.Unstaged+st.Untracked == 0 {
		if err := saveRaw(in, snap, treeAttrs, run, writeTree, commit); err != nil {
			return fail("raw bytes", err)
		}
		// Nothing uncommitted: HEAD says it all (and keeps a detached
		// HEAD's commits reachable). An unborn HEAD with an empty index
		// saves the empty tree. (A worktree on a branch gets this save
		// too: it is what --restore brings back as the newest state.)
		tree := in.Head + "^{tree}"
		if in.Head == "" {
			if tree, err = writeTree(idx); err != nil {
				return fail("tree", err)
			}
		}
		if snap.Commit, err = commit(tree, headParents, in.Msg); err != nil {
			return fail("commit", err)
		}
		return snap, nil
	}

	// An index with conflicts has no tree of its own; the working tree's
	// then stands for it (the conflict's sides are commits the admin save
	// keeps).
	indexTree, ierr := writeTree(idx)
	if ierr != nil && !strings.Contains(ierr.Error(), "unmerged") {
		return fail("index tree", ierr)
	}
	if _, err := run(idx, nil, "add", "--update", "--", "."); err != nil {
		return fail("add changes", err)
	}
	workTree, err := writeTree(idx)
	if err != nil {
		return fail("working tree", err)
	}
	if ierr != nil {
		indexTree = workTree
	}
	untrackedCommit := ""
	if len(files.Untracked) > 0 {
		uidx := filepath.Join(in.TmpDir, "untracked")
		if _, err := run(uidx, []byte(strings.Join(files.Untracked, "\x00")+"\x00"), "update-index", "--add", "-z", "--stdin"); err != nil {
			return fail("add untracked files", err)
		}
		tree, err := writeTree(uidx)
		if err != nil {
			return fail("untracked tree", err)
		}
		if untrackedCommit, err = commit(tree, nil, "untracked files on "+in.Msg); err != nil {
			return fail("commit untracked files", err)
		}
		snap.Indexes = append(snap.Indexes, uidx)
	}
	if err := saveRaw(in, snap, treeAttrs, run, writeTree, commit); err != nil {
		return fail("raw bytes", err)
	}
	indexCommit, err := commit(indexTree, headParents, "index on "+in.Msg)
	if err != nil {
		return fail("commit index", err)
	}
	parents := append(append([]string(nil), headParents...), indexCommit)
	if untrackedCommit != "" {
		parents = append(parents, untrackedCommit)
	}
	if snap.Commit, err = commit(workTree, parents, in.Msg); err != nil {
		return fail("commit", err)
	}
	snap.Stash = true
	return snap, nil
}

// clearMarks clears assume-unchanged and skip-worktree on paths of an
// index. Two calls: update-index applies only one such option to the paths
// it reads from stdin.
func clearMarks(run func(string, []byte, ...string) (string, error), idx string, paths []string) error {
	in := []byte(strings.Join(paths, "\x00") + "\x00")
	for _, opt := range []string{"--no-assume-unchanged", "--no-skip-worktree"} {
		if _, err := run(idx, in, "update-index", opt, "-z", "--stdin"); err != nil {
			return err
		}
	}
	return nil
}

func treeOf(ctx context.Context, r gitcmd.Runner, commit string) string {
	out, err := r.Run(ctx, "rev-parse", "--verify", "--end-of-options", commit+"^{tree}")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// saveRaw finds the saved files whose bytes on disk are not what git
// stored for them (git converted them: a clean filter, line endings,
// ident) and saves those bytes as they are, hashed without filters, in a
// tree of their own. It reads only files that attributes or configuration
// say git may convert. treeAttrs says whether the worktree may hold a
// .gitattributes file.
func saveRaw(in SaveInput, snap *Snapshot, treeAttrs bool, run func(string, []byte, ...string) (string, error),
	writeTree func(string) (string, error), commit func(string, []string, string) (string, error)) error {
	entries := map[string]IndexEntry{}
	for _, idx := range snap.Indexes {
		es, err := ReadIndex(idx, in.HashLen)
		if err != nil {
			if os.IsNotExist(err) {
				continue
			}
			return err
		}
		for _, e := range es {
			if e.Stage != 0 || e.Mode == 0o160000 || e.Mode == 0o120000 {
				continue
			}
			entries[e.Path] = e
		}
	}
	if len(entries) == 0 {
		return nil
	}
	paths := make([]string, 0, len(entries))
	for p := range entries {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	// What converts is read where git reads it for this worktree: its own
	// configuration (system, global, the repository's, the worktree's,
	// included files) and every attributes file (the worktree's, the
	// repository's, the global and system ones). The clean has read once
	// what every worktree without a configuration of its own shares.
	all, check := false, true
	if conv, ok := in.Shared.forWorktree(in.AdminDir); ok {
		all = conv.all
		// Without an attributes file that could say something, check-attr
		// would answer "unspecified" for every path.
		check = conv.outside || treeAttrs || present(filepath.Join(in.AdminDir, "info", "attributes"))
	} else {
		cfg, _ := run(filepath.Join(in.TmpDir, "index"), nil, "config", "-z", "--get-regexp", `^core\.(autocrlf|eol)$`)
		for _, kv := range strings.Split(cfg, "\x00") {
			k, v, _ := strings.Cut(kv, "\n")
			switch strings.ToLower(k) {
			case "core.autocrlf":
				all = all || v != "false"
			case "core.eol":
				all = true
			}
		}
		// GIT_CONFIG makes git config read that one file, not the ones
		// the other commands read: what they convert is unknown.
		if _, set := os.LookupEnv("GIT_CONFIG"); set {
			all = true
		}
	}
	cands := paths
	if !all && !check {
		cands = nil
	} else if !all {
		out, err := run(filepath.Join(in.TmpDir, "index"), []byte(strings.Join(paths, "\x00")+"\x00"),
			"check-attr", "-z", "--stdin", "filter", "ident", "text", "eol", "crlf", "working-tree-encoding")
		if err != nil {
			return err
		}
		cands = nil
		seen := map[string]bool{}
		f := strings.Split(out, "\x00")
		for i := 0; i+2 < len(f); i += 3 {
			p, attr, val := f[i], f[i+1], f[i+2]
			if val == "unspecified" || val == "unset" || attr == "text" && val == "" {
				continue
			}
			if !seen[p] {
				seen[p] = true
				cands = append(cands, p)
			}
		}
	}
	var differ []string
	snap.RawPaths = map[string]bool{}
	for _, p := range cands {
		data, err := os.ReadFile(filepath.Join(in.Dir, filepath.FromSlash(p)))
		if err != nil {
			continue // the proof reports what cannot be read
		}
		differ = append(differ, p)
		if BlobID(data, in.HashLen) != entries[p].OID {
			snap.RawPaths[p] = true
		}
	}
	if len(differ) == 0 {
		return nil
	}
	var list strings.Builder
	for _, p := range differ {
		list.WriteString(cQuote(p) + "\n")
	}
	out, err := run(filepath.Join(in.TmpDir, "index"), []byte(list.String()),
		"hash-object", "-w", "--no-filters", "--stdin-paths")
	if err != nil {
		return err
	}
	oids := strings.Fields(out)
	if len(oids) != len(differ) {
		return fmt.Errorf("hash-object gave %d ids for %d files", len(oids), len(differ))
	}
	var info strings.Builder
	for i, p := range differ {
		fmt.Fprintf(&info, "%o %s\t%s\x00", entries[p].Mode, oids[i], p)
	}
	ridx := filepath.Join(in.TmpDir, "raw")
	if _, err := run(ridx, []byte(info.String()), "update-index", "--add", "-z", "--index-info"); err != nil {
		return err
	}
	tree, err := writeTree(ridx)
	if err != nil {
		return err
	}
	if snap.Raw, err = commit(tree, nil, "raw bytes on "+in.Msg); err != nil {
		return err
	}
	snap.Indexes = append(snap.Indexes, ridx)
	return nil
}
