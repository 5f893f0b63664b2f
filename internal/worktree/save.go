package worktree

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
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
	// Index is what the save read of the worktree's own index and what it
	// holds of it: what a proof compares that index against.
	Index *IndexSave
	// Stages is a commit whose tree holds the conflict stages of the
	// index's unmerged paths, each at <stage>/<path> with its mode and
	// blob (1 the common ancestor, 2 ours, 3 theirs); "" when there are
	// none. Conflicts counts those paths.
	Stages    string
	Conflicts int
}

// Save commits a worktree's uncommitted work, its untracked files and its
// small ignored files without touching its index or files: git works on a
// copy of the index. Marks that hide edits from git (assume-unchanged,
// skip-worktree on a file that is present) are cleared in the copy, so
// those edits are saved too. It reads the worktree anew (one status): the
// caller has stopped writers first, so what it saves is what is there.
//
// The steps, each a method of saver below: copy the index; without a
// directory, save the index and HEAD alone; else write the copy whole,
// clear the hiding marks, read the status, save the ignored files, then
// save HEAD alone (nothing uncommitted) or the stash-shaped commit.
func Save(ctx context.Context, repo *gitcmd.Repo, in SaveInput) (*Snapshot, error) {
	s, err := startSave(ctx, repo, in)
	if err != nil {
		return nil, err
	}
	if in.Dir == "" {
		// The directory is gone: what is left is HEAD and the index.
		if err := s.saveIndexOnly(); err != nil {
			return nil, err
		}
		return s.snap, nil
	}
	if err := s.writeIndexWhole(); err != nil {
		return nil, err
	}
	if err := s.clearHidden(); err != nil {
		return nil, err
	}
	st, files, err := s.readStatus()
	if err != nil {
		return nil, err
	}
	// Ignored files within the budget, into a tree of their own.
	s.snap.IgnoredPlan = PlanIgnored(in.Dir, files.Ignored, in.Budget)
	s.treeAttrs = s.mayHoldAttributes(files.Untracked)
	if s.snap.Ignored, err = s.filesCommit("ignored", s.snap.IgnoredPlan.Save); err != nil {
		return nil, err
	}
	if st.Staged+st.Unstaged+st.Untracked == 0 {
		err = s.saveHeadOnly()
	} else {
		err = s.saveStash(files.Untracked)
	}
	if err != nil {
		return nil, err
	}
	return s.snap, nil
}

// saver carries the save of one worktree through its steps: the input, the
// snapshot the steps fill in, the index copy git works on, and how git and
// the clean's writers are run for this worktree. A type of its own so that
// each step is a method that reads what the earlier ones set up.
type saver struct {
	ctx  context.Context
	in   SaveInput
	snap *Snapshot
	// r runs git in the worktree's directory (or the repository's when it
	// is gone), writing objects to the repository.
	r gitcmd.Runner
	// idx is the copy of the worktree's index.
	idx string
	// writer and trees are the clean's commit and tree writers (nil: git
	// makes every commit and tree).
	writer *CommitWriter
	trees  *TreeWriter
	// headParents is HEAD as a commit's parents: none when unborn.
	headParents []string
	// attrsKnown and attrsIn: whether a .gitattributes file is among the
	// worktree's paths (tracked, untracked or ignored; git reads one that
	// is in the index but not on disk too). Unless one is, or another
	// attributes source exists, no attribute can make git convert a file.
	// An index only git can read leaves the question open (attrsKnown
	// false).
	attrsKnown, attrsIn bool
	// treeAttrs says whether the worktree may hold a .gitattributes file
	// (what saveRaw asks), set once the status is read.
	treeAttrs bool
	// ownStat is the stat data of the worktree's own index when it was
	// copied (nil when there was none).
	ownStat os.FileInfo
}

// startSave copies the worktree's index into the save's folder and sets up
// how git runs on that copy: the first step, since every other works on
// the copy and never on the worktree's own index.
func startSave(ctx context.Context, repo *gitcmd.Repo, in SaveInput) (*saver, error) {
	s := &saver{ctx: ctx, in: in, snap: &Snapshot{}, idx: filepath.Join(in.TmpDir, "index"), attrsKnown: true}
	own := filepath.Join(in.AdminDir, "index")
	// Its stat data before the copy: an index written during the copy
	// or after it differs from it (the proof compares).
	s.ownStat, _ = os.Stat(own)
	if err := copyFile(own, s.idx); err != nil && !os.IsNotExist(err) {
		return nil, s.fail("copy index", err)
	} else if err == nil && s.ownStat != nil {
		// The copy keeps the index's time: git (and the proof) tell a
		// racily clean entry, one written in the index's last second, by
		// comparing with it; a fresh time would make such an entry look
		// clean and a same-second edit go unsaved.
		os.Chtimes(s.idx, s.ownStat.ModTime(), s.ownStat.ModTime())
	}
	// Git runs in the worktree's directory with the copied index; objects
	// are written to the repository. Without a directory, from the
	// repository (only the index and HEAD are left to save).
	s.r = gitcmd.Runner{Dir: in.Dir, Worktree: true, Write: true}
	if in.Dir == "" {
		s.r = repo.Runner
		s.r.Write = true
	}
	s.writer = in.Shared.writerFor(in.AdminDir)
	s.trees = in.Shared.trees()
	if in.Head != "" {
		s.headParents = []string{in.Head}
	}
	return s, nil
}

// fail is a step's error: which worktree's save, and what of it, failed.
func (s *saver) fail(what string, err error) error {
	return fmt.Errorf("save %s: %s: %w", s.in.Dir, what, err)
}

// indexEnv points git at an index file.
func indexEnv(file string) []string { return []string{"GIT_INDEX_FILE=" + file} }

// git runs git on the index file, with the settings of plainIndex and the
// identity of the save's commits; it returns the output trimmed.
func (s *saver) git(file string, stdin []byte, args ...string) (string, error) {
	out, err := s.r.RunEnv(s.ctx, append(indexEnv(file), Identity...), stdin, append(plainIndex[:len(plainIndex):len(plainIndex)], args...)...)
	return strings.TrimSpace(string(out)), err
}

// commit makes a commit of the save: by the clean's commit writer, or by
// commit-tree when there is none or the message is one it leaves to git.
func (s *saver) commit(tree string, parents []string, m string) (string, error) {
	if s.writer != nil {
		id, err := s.writer.Commit(tree, parents, m)
		if !errors.Is(err, errNotPlain) {
			return id, err
		}
	}
	args := []string{"commit-tree", tree, "-m", m}
	for _, p := range parents {
		args = append(args, "-p", p)
	}
	return s.git(s.idx, nil, args...)
}

// writeTree is the tree of an index file: made by the clean's tree writer,
// or by write-tree when there is none or it declines (git's error then says
// why, "unmerged" included).
func (s *saver) writeTree(file string) (string, error) {
	if id, err := s.trees.IndexTree(file); err == nil {
		return id, nil
	}
	return s.git(file, nil, "write-tree")
}

// saveIndexOnly saves a worktree whose directory is gone: HEAD alone when
// the index holds nothing else (or cannot be written as a tree), else a
// stash-shaped commit whose index and working tree are both the index's.
// A step of its own: without files there is no status, no marks, nothing
// untracked or ignored to save.
func (s *saver) saveIndexOnly() error {
	in, snap := s.in, s.snap
	if err := s.writeIndexWhole(); err != nil {
		return err
	}
	// A conflict's stages are saved beside the index's tree.
	indexTree, err := s.indexTree()
	if err != nil {
		// An index neither this reader nor git can read may hold staged
		// blobs nothing else names: the entry (and its index file) stays.
		return s.fail("index tree", err)
	}
	if snap.Stages == "" && in.Head != "" && indexTree == treeOf(s.ctx, s.r, in.Head) {
		tree := in.Head + "^{tree}"
		if in.Head == "" {
			if tree, err = s.git(s.idx, []byte{}, "mktree"); err != nil {
				return s.fail("empty tree", err)
			}
		}
		c, err := s.commit(tree, s.headParents, in.Msg)
		if err != nil {
			return s.fail("commit", err)
		}
		snap.Commit = c
		return nil
	}
	ic, err := s.commit(indexTree, s.headParents, "index on "+in.Msg)
	if err != nil {
		return s.fail("commit index", err)
	}
	if snap.Commit, err = s.commit(indexTree, append(append([]string(nil), s.headParents...), ic), in.Msg); err != nil {
		return s.fail("commit", err)
	}
	snap.Stash, snap.Staged = true, 1
	return nil
}

// writeIndexWhole writes a split or sparse index copy out whole, so that
// the proof (and ReadIndex here) can read it, and reads its entries: the
// worktree's index as the save found it.
func (s *saver) writeIndexWhole() error {
	entries, err := ReadIndex(s.idx, s.in.HashLen)
	if errors.Is(err, ErrIndexUnsupported) {
		if _, err := s.git(s.idx, nil, "update-index", "--no-split-index"); err != nil {
			return s.fail("write the index whole", err)
		}
		entries, err = ReadIndex(s.idx, s.in.HashLen)
	}
	s.readOwnIndex(entries, err)
	return nil
}

// readStatus reads the worktree's status against the index copy (its
// marks cleared): what is uncommitted, untracked and ignored. The one read
// of the worktree every later step goes by; the index copy is the first
// of the save's indexes.
func (s *saver) readStatus() (Status, Files, error) {
	out, err := s.r.RunEnv(s.ctx, indexEnv(s.idx), nil, append(plainIndex[:len(plainIndex):len(plainIndex)],
		"status", "--porcelain=v2", "-z", "--untracked-files=all", "--ignored=matching")...)
	if err != nil {
		return Status{}, Files{}, s.fail("status", err)
	}
	st := ParseStatus(out)
	files := ParseStatusFiles(out)
	s.snap.Staged, s.snap.Unstaged, s.snap.Untracked = st.Staged, st.Unstaged, st.Untracked
	s.snap.Indexes = []string{s.idx}
	return st, files, nil
}

// mayHoldAttributes says whether the worktree may hold a .gitattributes
// file, given its untracked files and the ignored files planned: the index
// entries seen before, and the files saved or too big. Files in a
// regenerated tree are not saved, and the attributes files in there say
// nothing of files outside it. Unreadable ignored files leave it open.
func (s *saver) mayHoldAttributes(untracked []string) bool {
	seeAttrs := func(paths []string) {
		for _, p := range paths {
			s.attrsIn = s.attrsIn || isAttrFile(p)
		}
	}
	seeAttrs(untracked)
	seeAttrs(s.snap.IgnoredPlan.Save)
	seeAttrs(s.snap.IgnoredPlan.TooBig)
	if len(s.snap.IgnoredPlan.Unreadable) > 0 {
		s.attrsKnown = false
	}
	return s.attrsIn || !s.attrsKnown
}

// filesCommit commits paths of the worktree (the untracked or the ignored
// files, what names them) in a tree of their own, through an index file of
// that name, and adds that index to the save's: "" when there are none.
// The same step for both kinds, with the same error words.
func (s *saver) filesCommit(what string, paths []string) (string, error) {
	if len(paths) == 0 {
		return "", nil
	}
	file := filepath.Join(s.in.TmpDir, what)
	if _, err := s.git(file, []byte(strings.Join(paths, "\x00")+"\x00"), "update-index", "--add", "-z", "--stdin"); err != nil {
		return "", s.fail("add "+what+" files", err)
	}
	tree, err := s.writeTree(file)
	if err != nil {
		return "", s.fail(what+" tree", err)
	}
	c, err := s.commit(tree, nil, what+" files on "+s.in.Msg)
	if err != nil {
		return "", s.fail("commit "+what+" files", err)
	}
	s.snap.Indexes = append(s.snap.Indexes, file)
	return c, nil
}

// saveHeadOnly saves a worktree with nothing uncommitted: HEAD says it all
// (and keeps a detached HEAD's commits reachable). An unborn HEAD with an
// empty index saves the empty tree. (A worktree on a branch gets this save
// too: it is what --restore brings back as the newest state.) Files git
// converts are still saved as they are on disk.
func (s *saver) saveHeadOnly() error {
	if err := s.saveRaw(); err != nil {
		return s.fail("raw bytes", err)
	}
	// Nothing staged: the status found the index's entries those of
	// HEAD's tree (an unborn HEAD's is the index's own, below), and no
	// conflict.
	if ix := s.snap.Index; ix.Err == nil && !unmerged(ix.Entries) {
		ix.Held = heldEntries(ix.Entries)
	}
	tree := s.in.Head + "^{tree}"
	var err error
	if s.in.Head == "" {
		if tree, err = s.writeTree(s.idx); err != nil {
			return s.fail("tree", err)
		}
	}
	if s.snap.Commit, err = s.commit(tree, s.headParents, s.in.Msg); err != nil {
		return s.fail("commit", err)
	}
	return nil
}

// saveStash saves uncommitted work as a commit shaped like a `git stash`
// entry: the working tree, with parents HEAD (when born), the index and
// the untracked files (when there are any); the raw bytes beside it.
func (s *saver) saveStash(untracked []string) error {
	indexTree, workTree, err := s.indexAndWorkTrees()
	if err != nil {
		return err
	}
	untrackedCommit, err := s.filesCommit("untracked", untracked)
	if err != nil {
		return err
	}
	if err := s.saveRaw(); err != nil {
		return s.fail("raw bytes", err)
	}
	indexCommit, err := s.commit(indexTree, s.headParents, "index on "+s.in.Msg)
	if err != nil {
		return s.fail("commit index", err)
	}
	parents := append(append([]string(nil), s.headParents...), indexCommit)
	if untrackedCommit != "" {
		parents = append(parents, untrackedCommit)
	}
	if s.snap.Commit, err = s.commit(workTree, parents, s.in.Msg); err != nil {
		return s.fail("commit", err)
	}
	s.snap.Stash = true
	return nil
}

// indexAndWorkTrees writes the index copy's tree (with a conflict, its
// stage-0 entries', and the stages beside it: see indexTree), then adds the
// tracked files' changes to the copy and writes the working tree's (a
// conflicted file as it is on disk, its markers included).
func (s *saver) indexAndWorkTrees() (indexTree, workTree string, err error) {
	if indexTree, err = s.indexTree(); err != nil {
		return "", "", s.fail("index tree", err)
	}
	if _, err := s.git(s.idx, nil, "add", "--update", "--", "."); err != nil {
		return "", "", s.fail("add changes", err)
	}
	if workTree, err = s.writeTree(s.idx); err != nil {
		return "", "", s.fail("working tree", err)
	}
	return indexTree, workTree, nil
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
