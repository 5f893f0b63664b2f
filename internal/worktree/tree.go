package worktree

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
)

// TreeWriter makes the tree of an index file, as `git write-tree` would
// make it, without a process per tree: the index is read here and each of
// its directories goes to one `git mktree --batch` kept open for the whole
// clean. Git still writes every tree (its format and order are git's), and
// mktree checks, as write-tree does, that every entry but a submodule's
// commit is there. A directory already written in this clean (the same
// entries: most directories of most worktrees) is not sent again.
//
// Whatever it does not handle exactly as write-tree does (a split or sparse
// index, conflicts, an odd mode or path, an entry mktree refuses) it
// declines with errTreeDeclined, and the caller runs write-tree: the result
// is git's either way. A mktree that dies is started again on the next
// tree; one that keeps dying is no longer used.
type TreeWriter struct {
	mu        sync.Mutex
	ctx       context.Context
	commonDir string
	env       []string
	hashLen   int
	p         *lineProc
	deaths    int
	memo      map[string]string
	// Written counts the trees mktree wrote; Indexes the index files
	// turned into trees here.
	Written, Indexes int
}

// errTreeDeclined: this index is left to write-tree.
var errTreeDeclined = errors.New("left to write-tree")

// maxTreeDeaths is how many times mktree may die before the writer gives
// up and every tree goes to write-tree.
const maxTreeDeaths = 3

func newTreeWriter(ctx context.Context, commonDir string, hashLen int, env []string) *TreeWriter {
	return &TreeWriter{ctx: ctx, commonDir: commonDir, env: env, hashLen: hashLen, memo: map[string]string{}}
}

// Close stops mktree.
func (w *TreeWriter) Close() error {
	if w == nil {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.deaths = maxTreeDeaths
	err := w.p.close()
	w.p = nil
	return err
}

// IndexTree returns the id of the tree of the index file at path, written
// to the repository. An error wrapping errTreeDeclined asks for write-tree.
func (w *TreeWriter) IndexTree(path string) (string, error) {
	if w == nil {
		return "", errTreeDeclined
	}
	entries, err := ReadIndex(path, w.hashLen)
	if err != nil {
		return "", fmt.Errorf("%w: %v", errTreeDeclined, err)
	}
	return w.EntriesTree(entries)
}

// EntriesTree returns the id of the tree of index entries already read (an
// index file's, or entries made up as one: a conflict's stages under
// folders of their own), written to the repository as IndexTree writes
// it. An error wrapping errTreeDeclined asks for write-tree.
func (w *TreeWriter) EntriesTree(entries []IndexEntry) (string, error) {
	if w == nil {
		return "", errTreeDeclined
	}
	root, err := buildTree(entries, w.hashLen)
	if err != nil {
		return "", err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.deaths >= maxTreeDeaths {
		return "", errTreeDeclined
	}
	id, err := w.write(root)
	if err != nil {
		return "", err
	}
	w.Indexes++
	return id, nil
}

// treeDir is one directory of an index: its files and subdirectories.
type treeDir struct {
	files map[string]IndexEntry
	dirs  map[string]*treeDir
}

func newTreeDir() *treeDir {
	return &treeDir{files: map[string]IndexEntry{}, dirs: map[string]*treeDir{}}
}

// buildTree sorts an index's entries into directories, as write-tree
// sees them: stage-0 entries but intent-to-add ones (which no tree holds,
// so that a directory of only those is no tree at all). It declines an
// index with conflicts, and entries git would not have written (a null id,
// an odd mode, an empty, "." or ".." path component, a name that is both a
// file and a directory), whose tree only write-tree can say.
func buildTree(entries []IndexEntry, hashLen int) (*treeDir, error) {
	root := newTreeDir()
	null := strings.Repeat("0", 2*hashLen)
	for _, e := range entries {
		if e.Stage != 0 {
			return nil, fmt.Errorf("%w: unmerged entry %q", errTreeDeclined, e.Path)
		}
		if e.IntentToAdd {
			continue
		}
		switch e.Mode {
		case 0o100644, 0o100755, 0o120000, 0o160000:
		default:
			return nil, fmt.Errorf("%w: mode %o of %q", errTreeDeclined, e.Mode, e.Path)
		}
		if e.OID == null || len(e.OID) != 2*hashLen {
			return nil, fmt.Errorf("%w: id %q of %q", errTreeDeclined, e.OID, e.Path)
		}
		parts := strings.Split(e.Path, "/")
		d := root
		for i, name := range parts {
			if name == "" || name == "." || name == ".." {
				return nil, fmt.Errorf("%w: path %q", errTreeDeclined, e.Path)
			}
			if i == len(parts)-1 {
				if _, dup := d.files[name]; dup || d.dirs[name] != nil {
					return nil, fmt.Errorf("%w: %q is there twice", errTreeDeclined, e.Path)
				}
				d.files[name] = e
				break
			}
			if _, clash := d.files[name]; clash {
				return nil, fmt.Errorf("%w: %q is a file and a directory", errTreeDeclined, e.Path)
			}
			sub := d.dirs[name]
			if sub == nil {
				sub = newTreeDir()
				d.dirs[name] = sub
			}
			d = sub
		}
	}
	return root, nil
}

// write writes a directory's tree (its subdirectories first) and returns
// its id.
func (w *TreeWriter) write(d *treeDir) (string, error) {
	names := make([]string, 0, len(d.files)+len(d.dirs))
	for n := range d.files {
		names = append(names, n)
	}
	for n := range d.dirs {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		if e, ok := d.files[n]; ok {
			typ := "blob"
			if e.Mode == 0o160000 {
				typ = "commit"
			}
			fmt.Fprintf(&b, "%o %s %s\t%s\x00", e.Mode, typ, e.OID, n)
			continue
		}
		id, err := w.write(d.dirs[n])
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "40000 tree %s\t%s\x00", id, n)
	}
	b.WriteByte(0) // an empty record ends a tree
	in := b.String()
	if id, ok := w.memo[in]; ok {
		return id, nil
	}
	id, err := w.mktree(in)
	if err != nil {
		return "", err
	}
	w.memo[in] = id
	return id, nil
}

// mktree sends one tree to mktree and reads its id. A mktree that fails
// (it dies on an entry it refuses) is started again next time; the tree
// goes to write-tree.
func (w *TreeWriter) mktree(in string) (string, error) {
	if w.p == nil {
		p, err := startLineProc(w.ctx, w.commonDir, w.env, "mktree", "-z", "--batch")
		if err != nil {
			w.deaths++
			return "", fmt.Errorf("%w: %v", errTreeDeclined, err)
		}
		w.p = p
	}
	id, err := w.p.send(in)
	if err == nil && len(id) != 2*w.hashLen {
		err = fmt.Errorf("git mktree: unexpected answer %q", id)
		w.p.close()
	}
	if err != nil {
		w.p = nil
		w.deaths++
		return "", fmt.Errorf("%w: %v", errTreeDeclined, err)
	}
	w.Written++
	return id, nil
}

// send writes data as it is and reads one line of answer.
func (p *lineProc) send(data string) (string, error) {
	if _, err := io.WriteString(p.in, data); err != nil {
		return "", p.fail(err)
	}
	ans, err := p.out.ReadString('\n')
	if err != nil {
		return "", p.fail(err)
	}
	return strings.TrimSuffix(ans, "\n"), nil
}
