package worktree

import (
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"syscall"
	"time"
)

// Unproven is an entry of a worktree that is not (provably) in a save.
// A directory's Path ends in "/"; the root itself is "./".
type Unproven struct {
	Path string // relative to the root, slash-separated
	Why  string // short: "not saved", "differs from the save", "cannot read: ...", "path too long", "embedded repository", "changed during the clean"
}

// Why values of Unproven, other than "cannot read: <error>" and
// WhyStageNotSaved's.
const (
	WhyNotSaved   = "not saved"
	WhyDiffers    = "differs from the save"
	WhyTooLong    = "path too long"
	WhyEmbedded   = "embedded repository"
	WhyChanged    = "changed during the clean"
	whyCannotRead = "cannot read: "
	// WhyStagedNotSaved: an index entry of stage 0 (what is staged) that
	// the save does not hold.
	WhyStagedNotSaved = "staged version not saved"
)

// IndexUnproven is the Path of an Unproven that is about the worktree's
// index file itself (it changed since the save read it, or cannot be
// read), not about one of its entries.
const IndexUnproven = "the index"

// WhyStageNotSaved is why a conflict stage (1, 2 or 3) of an index entry
// is Unproven.
func WhyStageNotSaved(stage int) string {
	return fmt.Sprintf("conflict stage %d (%s) not saved", stage, [...]string{"", "base", "ours", "theirs"}[stage&3])
}

// ProveInput says which directory to check against which saved indexes.
type ProveInput struct {
	Root string // the worktree's directory (it may have been renamed: its name is not relied on)
	// Indexes are index files whose stage-0 entries are in the save (the
	// entries' OIDs are what was saved). A missing file counts as empty. An
	// index ReadIndex cannot decode makes Prove fail: nothing it holds
	// could be proven.
	Indexes []string
	HashLen int // 20 (SHA-1) or 32 (SHA-256); 0 means 20
	// Drop reports entries allowed to go unsaved (regenerated ignored
	// trees such as node_modules/, ignored files the user let go). rel is
	// slash-separated; for a directory, true skips the whole subtree. May be
	// nil.
	Drop func(rel string, isDir bool) bool
	// Raw are paths git converts on the way into the index (a filter, line
	// endings, ident): an entry's stat data says nothing about their bytes
	// on disk, so they are always hashed, and only an entry holding the
	// raw bytes proves them.
	Raw map[string]bool
	// Since: a file or directory whose mtime or ctime is after Since
	// changed during the clean; it is Unproven even if its content matches
	// (a writer is active). Zero: not checked. The root itself is checked by
	// mtime only, since renaming it sets its ctime.
	Since time.Time
	// Index is what the save read of the worktree's own index and holds
	// of it (nil: not checked). Every entry, at every stage, must be held
	// with its mode and id, and the index file must be as it was when the
	// save read it. Intent-to-add entries are left out: they hold no
	// content (their file is proven with the others). A submodule's entry
	// (a gitlink) is held like any other, its commit id in the save's
	// tree; the commit itself is in the submodule's own repository, not in
	// this one, and is no more the save's to keep than it is git's (a
	// checkout of it inside the worktree is an embedded repository, which
	// keeps the worktree).
	Index *IndexSave
}

// Proof is what Prove found.
type Proof struct {
	Unproven []Unproven // sorted by path; empty means everything is in the save or dropped
	Files    int        // regular files and symlinks seen
	Hashed   int        // how many had to be hashed (stat data did not prove them)
	Dropped  []string   // top-most dropped entries, sorted (a directory ends in "/")
}

// proveCand is an index entry that may prove a path, with the mtime of the
// index file that recorded its stat data.
type proveCand struct {
	e        *IndexEntry
	indexSec int64
}

// errProveChanged: a file's size changed while it was hashed.
var errProveChanged = errors.New("changed while read")

type prover struct {
	in    ProveInput
	cands map[string][]proveCand
	proof Proof
	buf   []byte
}

// Prove walks a worktree's directory and checks that every file and
// symbolic link in it is in a save made from in.Indexes, so that deleting
// the directory loses nothing. It trusts an index entry's stat data the way
// git does (size, times, inode, owner and file type match, and the entry is
// not racily clean) and hashes only the rest, so proving a clean worktree
// reads no file. Symbolic links are never followed. What cannot be checked
// (unreadable, too deep for a path) is reported, never skipped; the error
// is for a root or an index that cannot be read at all.
func Prove(in ProveInput) (*Proof, error) {
	if in.HashLen == 0 {
		in.HashLen = 20
	}
	p := &prover{in: in, cands: map[string][]proveCand{}}
	for _, idx := range in.Indexes {
		entries, mtime, err := idxReadFile(idx, in.HashLen)
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("prove %s: %w", in.Root, err)
		}
		for i := range entries {
			e := &entries[i]
			// Conflict stages and intent-to-add entries are not in any
			// tree git writes, so they save nothing.
			if e.Stage != 0 || e.IntentToAdd {
				continue
			}
			p.cands[e.Path] = append(p.cands[e.Path], proveCand{e, mtime.Unix()})
		}
	}

	fi, err := os.Lstat(in.Root)
	if err != nil {
		return nil, fmt.Errorf("prove: %w", err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("prove: %s is not a directory", in.Root)
	}
	if !in.Since.IsZero() && fi.ModTime().After(in.Since) {
		p.report("./", WhyChanged)
	}
	if err := p.dir(in.Root, ""); err != nil {
		return nil, fmt.Errorf("prove: %w", err)
	}
	if in.Index != nil {
		p.proof.Unproven = append(p.proof.Unproven, ProveIndex(in.Index)...)
	}
	sort.Slice(p.proof.Unproven, func(i, j int) bool { return p.proof.Unproven[i].Path < p.proof.Unproven[j].Path })
	sort.Strings(p.proof.Dropped)
	return &p.proof, nil
}

func (p *prover) report(rel, why string) {
	p.proof.Unproven = append(p.proof.Unproven, Unproven{Path: rel, Why: why})
}

// proveWhy turns a failed system call into an Unproven reason.
func proveWhy(err error) string {
	if errors.Is(err, syscall.ENAMETOOLONG) {
		return WhyTooLong
	}
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, errProveChanged) {
		// It was listed (or its size taken) a moment ago: something
		// removed, renamed or rewrote it.
		return WhyChanged
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return whyCannotRead + err.Error()
}

// dir checks the entries of the directory abs (rel "" for the root, else
// its slash-separated path with a trailing "/"). Its error is only for the
// root: below it, a directory that cannot be read is reported.
func (p *prover) dir(abs, rel string) error {
	f, err := os.Open(abs)
	if err != nil {
		if rel == "" {
			return err
		}
		p.report(rel, proveWhy(err))
		return nil
	}
	names, err := f.Readdirnames(-1)
	f.Close()
	if err != nil {
		if rel == "" {
			return err
		}
		p.report(rel, proveWhy(err))
		return nil
	}
	if rel != "" {
		for _, name := range names {
			if name == ".git" {
				// Its history cannot be in a save; the files beside it
				// belong to that repository, not to this worktree.
				p.report(rel, WhyEmbedded)
				return nil
			}
		}
	}
	for _, name := range names {
		if rel == "" && name == ".git" {
			continue // the worktree's own link to its repository
		}
		p.entry(filepath.Join(abs, name), rel+name)
	}
	return nil
}

// entry checks one directory entry: one lstat, and a read only when the
// stat data does not prove it.
func (p *prover) entry(abs, rel string) {
	fi, err := os.Lstat(abs)
	if err != nil {
		p.report(rel, proveWhy(err))
		return
	}
	st, _ := fi.Sys().(*syscall.Stat_t)
	mode := fi.Mode()
	isDir := mode.IsDir()
	if !p.in.Since.IsZero() && st != nil && p.changed(st) {
		p.report(proveDirSlash(rel, isDir), WhyChanged)
		// A directory's times change with its list of names only: its
		// files are still checked, so that the report names the new ones.
		if !isDir {
			return
		}
	}
	if p.in.Drop != nil && p.in.Drop(rel, isDir) {
		p.proof.Dropped = append(p.proof.Dropped, proveDirSlash(rel, isDir))
		return
	}
	switch {
	case isDir:
		for _, c := range p.cands[rel] {
			if c.e.Mode == 0o160000 {
				// A submodule's checkout: only its commit is in the save.
				// An empty directory (not checked out) holds nothing.
				if !proveEmptyDir(abs) {
					p.report(rel+"/", WhyEmbedded)
				}
				return
			}
		}
		p.dir(abs, rel+"/")
	case mode.IsRegular() || mode&fs.ModeSymlink != 0:
		p.proof.Files++
		p.file(abs, rel, fi, st)
	}
	// Fifos, sockets and devices hold no data to lose.
}

func proveDirSlash(rel string, isDir bool) string {
	if isDir {
		return rel + "/"
	}
	return rel
}

func (p *prover) changed(st *syscall.Stat_t) bool {
	since := p.in.Since
	ms, mn, cs, cn := statTimes(st)
	return time.Unix(ms, mn).After(since) || time.Unix(cs, cn).After(since)
}

// proveEmptyDir is true for a directory with no entries; one that cannot be
// read counts as not empty.
func proveEmptyDir(abs string) bool {
	f, err := os.Open(abs)
	if err != nil {
		return false
	}
	defer f.Close()
	names, err := f.Readdirnames(1)
	return len(names) == 0 && err == io.EOF
}

func (p *prover) file(abs, rel string, fi fs.FileInfo, st *syscall.Stat_t) {
	cands := p.cands[rel]
	if len(cands) == 0 {
		p.report(rel, WhyNotSaved)
		return
	}
	for _, c := range cands {
		if st != nil && !p.in.Raw[rel] && proveStatClean(c, fi, st) {
			return
		}
	}
	p.proof.Hashed++
	oid, err := p.hash(abs, fi)
	if err != nil {
		p.report(rel, proveWhy(err))
		return
	}
	for _, c := range cands {
		if c.e.OID == oid && proveModeMatches(c.e.Mode, fi.Mode()) {
			return
		}
	}
	p.report(rel, WhyDiffers)
}

// proveModeMatches compares an entry's mode with a file's type and, for a
// regular file, its executable bit: a save that would bring a file back as
// another type or with another exec bit does not hold it.
func proveModeMatches(entry uint32, mode fs.FileMode) bool {
	switch entry {
	case 0o120000:
		return mode&fs.ModeSymlink != 0
	case 0o100755:
		return mode.IsRegular() && mode&0o100 != 0
	case 0o100644:
		return mode.IsRegular() && mode&0o100 == 0
	}
	return false
}

// proveStatClean is git's "stat data matches" test (ie_match_stat with
// core.checkStat=default, ctime trusted): the entry's recorded size, times,
// inode, owner and type match the file, its flags do not tell git to stop
// looking, and it is not racily clean. Dev is not compared, as git does
// not by default.
func proveStatClean(c proveCand, fi fs.FileInfo, st *syscall.Stat_t) bool {
	e := c.e
	if e.AssumeUnchanged || e.SkipWorktree || !proveModeMatches(e.Mode, fi.Mode()) {
		return false
	}
	if e.Size != uint32(st.Size) || e.Ino != uint32(st.Ino) || e.UID != st.Uid || e.GID != st.Gid {
		return false
	}
	ms, mn, cs, cn := statTimes(st)
	if int64(e.MtimeSec) != int64(uint32(ms)) || int64(e.MtimeNsec) != mn ||
		int64(e.CtimeSec) != int64(uint32(cs)) || int64(e.CtimeNsec) != cn {
		return false
	}
	// Racy git: a file changed in the same second the index was written
	// may still show the stat data recorded before the change. Only an
	// entry whose mtime is in an earlier second than its index file's is
	// trusted (whole seconds, in case the index and the worktree are on
	// file systems with different time granularity).
	return int64(e.MtimeSec) < c.indexSec
}

// hash returns the blob id of a file's content or of a symbolic link's
// target.
func (p *prover) hash(abs string, fi fs.FileInfo) (string, error) {
	if fi.Mode()&fs.ModeSymlink != 0 {
		target, err := os.Readlink(abs)
		if err != nil {
			return "", err
		}
		return BlobID([]byte(target), p.in.HashLen), nil
	}
	// O_NOFOLLOW: a symbolic link put in its place since the lstat is not
	// read through.
	f, err := os.OpenFile(abs, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return "", err
	}
	defer f.Close()
	ofi, err := f.Stat()
	if err != nil {
		return "", err
	}
	size := ofi.Size()
	h := idxNewHash(p.in.HashLen)
	h.Write([]byte("blob " + strconv.FormatInt(size, 10) + "\x00"))
	if p.buf == nil {
		p.buf = make([]byte, 128<<10)
	}
	n, err := io.CopyBuffer(h, io.LimitReader(f, size), p.buf)
	if err != nil {
		return "", err
	}
	if n != size {
		return "", errProveChanged // shorter than its size a moment ago
	}
	if k, _ := f.Read(p.buf[:1]); k > 0 {
		return "", errProveChanged // grown while read
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// ProveIndex checks that a save holds every entry of the worktree's own
// index (every stage; intent-to-add entries aside, see ProveInput.Index)
// with its mode and id, and that the index file is still what the save
// read: it returns what is not so. It compares in memory the entries the
// save read with those it holds, both in the index's order (by path, then
// stage), and takes one stat of the index file.
func ProveIndex(ix *IndexSave) []Unproven {
	if ix.Err != nil {
		return []Unproven{{Path: IndexUnproven, Why: proveWhy(ix.Err)}}
	}
	var out []Unproven
	now, err := os.Stat(ix.File)
	if err != nil && !os.IsNotExist(err) {
		return []Unproven{{Path: IndexUnproven, Why: proveWhy(err)}}
	}
	if !proveSameFile(ix.Stat, now) {
		out = append(out, Unproven{Path: IndexUnproven, Why: WhyChanged})
	}
	held := ix.Held
	for i := range ix.Entries {
		e := &ix.Entries[i]
		if e.IntentToAdd {
			continue
		}
		// Skip the held entries that sort before e (none, when the save
		// holds exactly the index).
		for len(held) > 0 && proveIndexLess(&held[0], e) {
			held = held[1:]
		}
		if len(held) > 0 && held[0].Path == e.Path && held[0].Stage == e.Stage &&
			held[0].Mode == e.Mode && held[0].OID == e.OID {
			held = held[1:]
			continue
		}
		why := WhyStagedNotSaved
		if e.Stage != 0 {
			why = WhyStageNotSaved(e.Stage)
		}
		out = append(out, Unproven{Path: e.Path, Why: why})
	}
	return out
}

// proveIndexLess is the index's order: by path (bytes), then stage.
func proveIndexLess(a, b *IndexEntry) bool {
	if a.Path != b.Path {
		return a.Path < b.Path
	}
	return a.Stage < b.Stage
}

// proveSameFile says whether two stats (nil: no file) are of the same,
// unchanged file: size, modification and change times, and inode (git
// writes an index anew and renames it into place).
func proveSameFile(a, b os.FileInfo) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	if a.Size() != b.Size() || !a.ModTime().Equal(b.ModTime()) {
		return false
	}
	sa, okA := a.Sys().(*syscall.Stat_t)
	sb, okB := b.Sys().(*syscall.Stat_t)
	if !okA || !okB {
		return okA == okB
	}
	_, _, acs, acn := statTimes(sa)
	_, _, bcs, bcn := statTimes(sb)
	return sa.Ino == sb.Ino && sa.Dev == sb.Dev && acs == bcs && acn == bcn
}
