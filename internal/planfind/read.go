package planfind

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/taskresume/git-taskresume/internal/gitcmd"
	"github.com/taskresume/git-taskresume/internal/plan"
)

// files reads one place by repository path ("specs/x/plan.md"): a
// worktree's files on disk, or a commit's tree. Both follow a symbolic
// link the way a checkout does, so that a linked plan.md has the same
// content in both and is never mistaken for an uncommitted edit.
type files interface {
	// list returns the entries of a directory (nil when there is none).
	list(dir string) ([]entry, error)
	// read returns a regular file's bytes and modification time.
	read(p string) ([]byte, time.Time, bool, error)
}

type entry struct {
	name string
	dir  bool
}

type diskFiles struct{ top string }

// shared, while set (ShareDisk), remembers what the working trees'
// directories and files held, for a list that reads every run's plan
// in the same few directories.
var shared struct {
	sync.Mutex
	on    bool
	lists map[string][]entry
	reads map[string]diskRead
}

type diskRead struct {
	data []byte
	mod  time.Time
	ok   bool
}

// ShareDisk makes the reads of the working trees' plans remembered until
// the function it returns is called: a list of runs is one view of the
// files, as of their first read.
func ShareDisk() (stop func()) {
	shared.Lock()
	shared.on, shared.lists, shared.reads = true, map[string][]entry{}, map[string]diskRead{}
	shared.Unlock()
	return func() {
		shared.Lock()
		shared.on, shared.lists, shared.reads = false, nil, nil
		shared.Unlock()
	}
}

func (d diskFiles) list(dir string) ([]entry, error) {
	key := filepath.Join(d.top, filepath.FromSlash(dir))
	shared.Lock()
	on := shared.on
	out, ok := shared.lists[key]
	shared.Unlock()
	if ok {
		return out, nil
	}
	out, err := d.listDisk(dir)
	if on && err == nil {
		shared.Lock()
		if shared.on {
			shared.lists[key] = out
		}
		shared.Unlock()
	}
	return out, err
}

func (d diskFiles) listDisk(dir string) ([]entry, error) {
	ents, err := os.ReadDir(filepath.Join(d.top, filepath.FromSlash(dir)))
	if err != nil {
		return nil, nil // none here (or unreadable): no copy
	}
	out := make([]entry, 0, len(ents))
	for _, e := range ents {
		st, err := os.Stat(filepath.Join(d.top, filepath.FromSlash(dir), e.Name()))
		out = append(out, entry{name: e.Name(), dir: err == nil && st.IsDir()})
	}
	return out, nil
}

func (d diskFiles) read(p string) ([]byte, time.Time, bool, error) {
	full := filepath.Join(d.top, filepath.FromSlash(p))
	shared.Lock()
	on := shared.on
	r, ok := shared.reads[full]
	shared.Unlock()
	if ok {
		return r.data, r.mod, r.ok, nil
	}
	data, mod, found, err := d.readDisk(full)
	if on && err == nil {
		shared.Lock()
		if shared.on {
			shared.reads[full] = diskRead{data, mod, found}
		}
		shared.Unlock()
	}
	return data, mod, found, err
}

func (d diskFiles) readDisk(full string) ([]byte, time.Time, bool, error) {
	st, err := os.Stat(full)
	if err != nil || !st.Mode().IsRegular() {
		return nil, time.Time{}, false, nil
	}
	data, err := os.ReadFile(full)
	if err != nil {
		return nil, time.Time{}, false, nil
	}
	return data, st.ModTime(), true, nil
}

type commitFiles struct {
	o      *gitcmd.Objects
	commit string
	trees  map[string][]gitcmd.TreeEntry
}

func (c *commitFiles) tree(dir string) ([]gitcmd.TreeEntry, error) {
	if t, ok := c.trees[dir]; ok {
		return t, nil
	}
	t, err := c.o.Tree(c.commit + ":" + dir)
	if err != nil {
		return nil, err
	}
	if c.trees == nil {
		c.trees = map[string][]gitcmd.TreeEntry{}
	}
	c.trees[dir] = t
	return t, nil
}

func (c *commitFiles) list(dir string) ([]entry, error) {
	t, err := c.tree(dir)
	if err != nil {
		return nil, err
	}
	out := make([]entry, 0, len(t))
	for _, e := range t {
		out = append(out, entry{name: e.Name, dir: e.IsDir()})
	}
	return out, nil
}

func (c *commitFiles) read(p string) ([]byte, time.Time, bool, error) {
	for hops := 0; hops < 8; hops++ {
		t, err := c.tree(path.Dir(p))
		if err != nil {
			return nil, time.Time{}, false, err
		}
		var e *gitcmd.TreeEntry
		for i := range t {
			if t[i].Name == path.Base(p) {
				e = &t[i]
			}
		}
		if e == nil || e.IsDir() || e.Mode == "160000" {
			return nil, time.Time{}, false, nil
		}
		obj, err := c.o.Get(e.OID)
		if err != nil || obj.Type != "blob" {
			return nil, time.Time{}, false, err
		}
		if e.Mode != "120000" {
			return obj.Data, time.Time{}, true, nil
		}
		// A symbolic link: its target, relative to its directory, inside
		// the repository (a checkout would resolve it the same way).
		target := string(obj.Data)
		if path.IsAbs(target) {
			return nil, time.Time{}, false, nil
		}
		p = path.Join(path.Dir(p), target)
		if p == ".." || strings.HasPrefix(p, "../") {
			return nil, time.Time{}, false, nil
		}
	}
	return nil, time.Time{}, false, nil
}

// candidate is one plan in one place: its directory under specs/ and its
// files, relative to the top of the repository. problem says why it cannot
// be read as it stands (two plans in one directory, a phase file missing).
type candidate struct {
	dir     string
	paths   []string
	data    [][]byte
	mtime   time.Time
	problem string
}

// phaseFile tells the number N of "plan-phase<N>.md".
func phaseFile(name string) (int, bool) {
	s, ok := strings.CutPrefix(name, "plan-phase")
	if !ok {
		return 0, false
	}
	s, ok = strings.CutSuffix(s, ".md")
	if !ok || s == "" || len(s) > 9 {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	return n, err == nil && s[0] >= '0' && s[0] <= '9'
}

// candidates lists the plans of directories under specs/ that may be run's.
func candidates(f files, run string) ([]candidate, error) {
	ents, err := f.list("specs")
	if err != nil {
		return nil, err
	}
	var out []candidate
	for _, e := range ents {
		if !e.dir || !DirAgrees(e.name, run) {
			continue
		}
		c, err := readCandidate(f, e.name)
		if err != nil {
			return nil, err
		}
		if len(c.paths) > 0 || c.problem != "" {
			out = append(out, c)
		}
	}
	return out, nil
}

// readCandidate reads specs/<name>/plan.md, or the phase files of
// specs/<name>/plan/. A plan split into phase files must be whole: a file
// missing from the numbering, or one whose name is almost a phase file's,
// would drop a phase's tasks without a word and make an unfinished run look
// complete.
func readCandidate(f files, name string) (candidate, error) {
	c := candidate{dir: name}
	base := "specs/" + name
	single, mtime, ok, err := f.read(base + "/plan.md")
	if err != nil {
		return c, err
	}
	parts, err := f.list(base + "/plan")
	if err != nil {
		return c, err
	}
	type part struct {
		n    int
		name string
	}
	var ps []part
	for _, p := range parts {
		if p.dir || !strings.HasPrefix(strings.ToLower(p.name), "plan-phase") {
			continue
		}
		n, isPhase := phaseFile(p.name)
		if !isPhase {
			c.problem = fmt.Sprintf("%s/plan/%s is not named plan-phase<N>.md: rename it, or move it out of %s/plan/", base, p.name, base)
			return c, nil
		}
		ps = append(ps, part{n, p.name})
	}
	switch {
	case ok && len(ps) > 0:
		c.problem = fmt.Sprintf("%s/plan.md and %s/plan/plan-phase*.md are two plans for one run: keep one", base, base)
		return c, nil
	case ok:
		c.paths, c.data, c.mtime = []string{base + "/plan.md"}, [][]byte{single}, mtime
		return c, nil
	}
	sort.Slice(ps, func(i, j int) bool { return ps[i].n < ps[j].n })
	for i, p := range ps {
		want := ps[0].n + i
		if i == 0 && p.n > 1 {
			want = 1
		}
		if p.n != want {
			c.problem = fmt.Sprintf("%s/plan/plan-phase%d.md is missing (a plan split by phase must have every phase file)", base, want)
			return c, nil
		}
		data, mt, ok, err := f.read(base + "/plan/" + p.name)
		if err != nil {
			return c, err
		}
		if !ok {
			c.problem = fmt.Sprintf("%s/plan/%s is not a readable file", base, p.name)
			return c, nil
		}
		c.paths = append(c.paths, base+"/plan/"+p.name)
		c.data = append(c.data, data)
		if mt.After(c.mtime) {
			c.mtime = mt
		}
	}
	return c, nil
}

// fromDir reads the plan in a worktree's files.
func fromDir(run string, pl Place) (*Copy, error) {
	cands, err := candidates(diskFiles{top: pl.Dir}, run)
	if err != nil {
		return nil, err
	}
	name := func(p string) string { return filepath.Join(pl.Label, filepath.FromSlash(p)) }
	c, err := pick(run, pl, cands, name)
	if c != nil {
		c.Name = name(c.RepoPaths[0])
	}
	return c, err
}

// fromCommit reads the plan in a commit's tree.
func fromCommit(o *gitcmd.Objects, run string, pl Place) (*Copy, error) {
	cands, err := candidates(&commitFiles{o: o, commit: pl.Commit}, run)
	if err != nil {
		return nil, err
	}
	c, err := pick(run, pl, cands, func(p string) string { return pl.Label + ":" + p })
	if c != nil {
		c.Commit = pl.Commit
		c.Name = pl.Label + ":" + c.RepoPaths[0]
	}
	return c, err
}

// pick keeps the candidates that are run's plan and refuses a place that
// holds several. A directory "<run>-x" may be another run's ("feature-2"
// beside "feature"): the plan's own run id, or the run its directory names
// when it has none, decides.
func pick(run string, pl Place, cands []candidate, name func(string) string) (*Copy, error) {
	var mine []*Copy
	for _, cd := range cands {
		if cd.problem != "" {
			if RunOfDir(cd.dir) == run || cd.dir == run {
				return nil, &Error{cd.problem + " (in " + where(pl) + ")"}
			}
			continue
		}
		files := make([]plan.File, len(cd.paths))
		h := sha256.New()
		for i := range cd.paths {
			files[i] = plan.File{Path: name(cd.paths[i]), Data: cd.data[i]}
			h.Write([]byte(cd.paths[i][len("specs/")+len(cd.dir):]))
			h.Write([]byte{0})
			h.Write([]byte(strings.ReplaceAll(string(cd.data[i]), "\r\n", "\n")))
			h.Write([]byte{0})
		}
		var p *plan.Plan
		var warns []plan.Warning
		var err error
		if len(files) == 1 {
			p, warns, err = plan.Parse(files[0].Path, files[0].Data)
		} else {
			p, warns, err = plan.ParseFiles(files)
		}
		c := &Copy{Place: pl, RepoPaths: cd.paths, Plan: p, Warns: warns, Err: err, mtime: cd.mtime}
		copy(c.digest[:], h.Sum(nil))
		switch {
		case p != nil && p.RunID != "":
			if !DirAgrees(cd.dir, p.RunID) {
				return nil, &Error{fmt.Sprintf("%s:%d: the plan names run %q but its directory is specs/%s (rename one so the directory is the run id or starts with \"%s-\")",
					files[0].Path, p.RunIDLine, p.RunID, cd.dir, p.RunID)}
			}
			if p.RunID != run {
				continue // another run's plan in a directory that starts like ours
			}
		case RunOfDir(cd.dir) != run && cd.dir != run:
			continue // no id in the plan (or it does not parse): the directory names another run
		}
		mine = append(mine, c)
	}
	switch len(mine) {
	case 0:
		return nil, nil
	case 1:
		return mine[0], nil
	}
	var names []string
	for _, c := range mine {
		names = append(names, name(c.RepoPaths[0]))
	}
	return nil, &Error{fmt.Sprintf("several plans for run %s in %s: %s (pass --plan with the one to read)", run, where(pl), strings.Join(names, ", "))}
}

// where names a place in a message.
func where(pl Place) string {
	switch {
	case pl.Label == ".":
		return "the main worktree"
	case pl.Dir != "":
		return "the worktree " + pl.Label
	}
	return pl.Label
}
