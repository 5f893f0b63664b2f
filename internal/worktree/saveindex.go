package worktree

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// IndexSave is what a save read of a worktree's own index and what it holds
// of it: what the proof checks the save against (ProveInput.Index). The
// index is the one place where a blob may live in no file (a file staged,
// then edited again; the sides of a conflict), so a walk of the files
// cannot see it.
type IndexSave struct {
	// File is the worktree's own index file, and Stat its stat data when
	// the save copied it (nil when there was none): an index written
	// since holds what the save did not read.
	File string
	Stat os.FileInfo
	// Entries are the index's entries as the save copied them, every
	// stage; Err says why they could not be read.
	Entries []IndexEntry
	Err     error
	// Held are the entries the save holds, each at its stage, in the
	// index's order: those of stage 0 in the tree of the stash-shaped
	// commit's index parent, those of a conflict in Snapshot.Stages.
	Held []IndexEntry
}

// unmerged says whether an index holds conflict stages.
func unmerged(entries []IndexEntry) bool {
	for _, e := range entries {
		if e.Stage != 0 {
			return true
		}
	}
	return false
}

// readOwnIndex reads the index copy's entries (once: the later steps use
// them rather than read the copy again) and notes the stat data the
// worktree's own index had when it was copied.
func (s *saver) readOwnIndex(entries []IndexEntry, err error) {
	ix := &IndexSave{File: filepath.Join(s.in.AdminDir, "index"), Stat: s.ownStat}
	if os.IsNotExist(err) {
		err = nil // no index: nothing staged
	}
	ix.Entries, ix.Err = entries, err
	s.snap.Index = ix
}

// indexTree writes the tree of the index copy's stage-0 entries, as
// write-tree does. When paths are unmerged (a conflict, which no tree can
// hold: write-tree refuses), that tree leaves them out and their stages
// go to a commit of their own (Snapshot.Stages), whose tree holds each at
// <stage>/<path> with its mode and blob: 1 the common ancestor's, 2 ours,
// 3 theirs. It records what the save then holds of the index
// (IndexSave.Held). The common path, with no conflict, costs what it cost
// before: the tree writer gets the entries already read.
func (s *saver) indexTree() (string, error) {
	ix := s.snap.Index
	if ix.Err != nil {
		// Entries this reader cannot decode: git writes the tree (and
		// refuses an unmerged one, which then cannot be saved).
		tree, err := s.writeTree(s.idx)
		return tree, err
	}
	if !unmerged(ix.Entries) {
		tree, err := s.entriesTree("", ix.Entries)
		if err != nil {
			return "", err
		}
		ix.Held = heldEntries(ix.Entries)
		return tree, nil
	}
	var zero, stages []IndexEntry
	paths := 0
	for i, e := range ix.Entries {
		if e.Stage == 0 {
			zero = append(zero, e)
			continue
		}
		if i == 0 || ix.Entries[i-1].Path != e.Path {
			paths++
		}
		e.Path = strconv.Itoa(e.Stage) + "/" + e.Path
		e.Stage = 0
		stages = append(stages, e)
	}
	tree, err := s.entriesTree("index-stage0", zero)
	if err != nil {
		return "", err
	}
	stagesTree, err := s.entriesTree("index-stages", stages)
	if err != nil {
		return "", fmt.Errorf("conflict stages: %w", err)
	}
	if s.snap.Stages, err = s.commit(stagesTree, nil, "index stages on "+s.in.Msg); err != nil {
		return "", fmt.Errorf("commit conflict stages: %w", err)
	}
	s.snap.Conflicts = paths
	ix.Held = heldEntries(ix.Entries)
	return tree, nil
}

// heldEntries are the entries a save of all of entries holds: every one
// but intent-to-add entries, which hold no content (no tree git writes has
// them; the file is saved with the working tree, and comes back untracked).
// Without such entries, entries itself: no copy on the common path.
func heldEntries(entries []IndexEntry) []IndexEntry {
	ita := 0
	for i := range entries {
		if entries[i].IntentToAdd {
			ita++
		}
	}
	if ita == 0 {
		return entries
	}
	held := make([]IndexEntry, 0, len(entries)-ita)
	for _, e := range entries {
		if !e.IntentToAdd {
			held = append(held, e)
		}
	}
	return held
}

// entriesTree writes the tree of index entries (stage 0 ones): by the
// clean's tree writer, or, when there is none or it declines, by git. An
// entries list read from the index copy as it is (file "") goes to
// write-tree on the copy; made-up entries (file names the index file in
// the save's folder) to update-index --index-info, then write-tree.
func (s *saver) entriesTree(file string, entries []IndexEntry) (string, error) {
	if id, err := s.trees.EntriesTree(entries); err == nil {
		return id, nil
	}
	if file == "" {
		return s.git(s.idx, nil, "write-tree")
	}
	var b strings.Builder
	for _, e := range entries {
		if !e.IntentToAdd {
			fmt.Fprintf(&b, "%o %s 0\t%s\x00", e.Mode, e.OID, e.Path)
		}
	}
	if b.Len() == 0 {
		return s.git(s.idx, []byte{}, "mktree")
	}
	file = filepath.Join(s.in.TmpDir, file)
	if _, err := s.git(file, []byte(b.String()), "update-index", "-z", "--index-info"); err != nil {
		return "", err
	}
	return s.git(file, nil, "write-tree")
}
