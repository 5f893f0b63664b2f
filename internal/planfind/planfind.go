// Package planfind finds a run's plan where orchestrators leave it, and
// picks the newest of its copies.
//
// A plan has several copies in a repository at once: the user's checkout,
// the run's shared worktree (.worktrees/<run>-main, where the orchestrator
// writes and commits it), the <run>-main branch and its remote-tracking
// copies, the base branch. They differ when the plan was edited during the
// run, and reading an old one makes the report wrong. The copy in whichever
// worktree the command happens to run in is never read on purpose: a task
// worktree made before the plan changed holds an old one.
package planfind

import (
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/taskresume/git-taskresume/internal/gitcmd"
	"github.com/taskresume/git-taskresume/internal/plan"
)

// Place is somewhere a plan may be: the files of a worktree, or a commit.
type Place struct {
	// Label names the place for people: a worktree path relative to the
	// main worktree ("." for the main worktree itself), or a revision
	// usable in --plan REV:PATH ("x1y2z3-main", "origin/x1y2z3-main").
	Label string
	// Dir is the worktree whose files are read; "" for a commit.
	Dir string
	// Commit is the commit to read; for a worktree, its HEAD (what its
	// files are compared with to tell an uncommitted edit).
	Commit string
}

// Copy is one copy of the plan.
type Copy struct {
	Place Place
	// Name is how messages and the report name it: a file path, or
	// REV:PATH, which --plan accepts.
	Name string
	// RepoPaths are the plan's files inside the repository: one plan.md,
	// or the phase files of a split plan in phase order.
	RepoPaths []string
	// Uncommitted: a worktree's file that differs from its HEAD's.
	Uncommitted bool
	// Commit the copy was read from ("" for files).
	Commit string
	Plan   *plan.Plan
	Warns  []plan.Warning
	// Err is the parse error of a copy that does not parse.
	Err    error
	digest [32]byte
	mtime  time.Time
}

// Found is the result of a search.
type Found struct {
	// Copy is the copy to read; nil when none was found.
	Copy *Copy
	// Differs are copies whose content differs from Copy's.
	Differs []*Copy
	// Looked names every place searched, for a message when none is found.
	Looked []string
}

// Patterns are the paths searched in each place, as users read them.
func Patterns(run string) []string {
	return []string{"specs/" + run + "/plan.md", "specs/" + run + "-*/plan.md", "specs/" + run + "-*/plan/plan-phase<N>.md"}
}

// Error is a search that cannot pick a plan (several in one place, a plan
// whose run id disagrees with its directory). It is bad input: exit 2.
type Error struct{ Msg string }

func (e *Error) Error() string { return e.Msg }

// RunOfDir is the run a plan directory names when the plan itself names
// none: its first dash-separated field when that is six hexadecimal digits
// (how orchestrators name runs: "a1b2c3-user-auth"), else the whole name.
func RunOfDir(dir string) string {
	first, _, _ := strings.Cut(dir, "-")
	if len(first) == 6 && isHex(first) {
		return first
	}
	return dir
}

// DirAgrees says whether a plan directory may hold run id's plan: it is the
// id, or starts with "<id>-".
func DirAgrees(dir, id string) bool { return dir == id || strings.HasPrefix(dir, id+"-") }

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// Find searches places, in order of preference (the order breaks ties
// between equal copies, and names the one reported), for run's plan. objs
// reads commits' trees; nil starts a reader when a commit must be read (a
// caller that starts one early, beside other work, saves its start-up).
func Find(ctx context.Context, repo *gitcmd.Repo, objs *gitcmd.Objects, run string, places []Place) (*Found, error) {
	f := &Found{}
	objects := func() (*gitcmd.Objects, error) {
		if objs != nil {
			return objs, nil
		}
		var err error
		objs, err = repo.ObjectReader(ctx)
		return objs, err
	}
	own := objs == nil
	defer func() {
		if own {
			objs.Close()
		}
	}()

	byCommit := map[string]*Copy{} // a commit's copy, read once
	readCommit := func(pl Place) (*Copy, error) {
		if c, ok := byCommit[pl.Commit]; ok {
			return c, nil
		}
		o, err := objects()
		if err != nil {
			return nil, err
		}
		c, err := fromCommit(o, run, pl)
		if err != nil {
			return nil, err
		}
		byCommit[pl.Commit] = c
		return c, nil
	}

	var copies []*Copy
	seen := map[string]bool{}
	for _, pl := range places {
		key := pl.Dir + "\x00" + pl.Commit
		if pl.Dir == "" && pl.Commit == "" || seen[key] {
			continue
		}
		seen[key] = true
		f.Looked = append(f.Looked, pl.Label)
		var c *Copy
		var err error
		if pl.Dir != "" {
			c, err = fromDir(run, pl)
			if err == nil && c != nil {
				head := (*Copy)(nil)
				if pl.Commit != "" {
					if head, err = readCommit(pl); err != nil {
						return nil, err
					}
				}
				c.Uncommitted = head == nil || head.digest != c.digest || !samePaths(head.RepoPaths, c.RepoPaths)
				if !c.Uncommitted {
					c.Commit = pl.Commit
				}
			}
		} else {
			c, err = readCommit(pl)
			if c != nil {
				c = c.at(pl)
			}
		}
		if err != nil {
			return nil, err
		}
		if c != nil {
			copies = append(copies, c)
		}
	}
	if len(copies) == 0 {
		return f, nil
	}
	chosen, err := newest(ctx, repo, copies)
	if err != nil {
		return nil, err
	}
	f.Copy = chosen
	differs := map[[32]byte]bool{chosen.digest: true}
	for _, c := range copies {
		if !differs[c.digest] {
			differs[c.digest] = true
			f.Differs = append(f.Differs, c)
		}
	}
	return f, nil
}

// at is the copy as found in place pl (several refs may name one commit).
func (c *Copy) at(pl Place) *Copy {
	d := *c
	d.Place = pl
	d.Name = pl.Label + ":" + c.RepoPaths[0]
	return &d
}

func samePaths(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// newest picks the copy to read: an uncommitted edit first (the most
// recently written when several differ), then the copy of the commit that
// the others' histories lead to; where histories diverged, the side that
// changed the plan last. Equal copies go to the first place in preference
// order, so the name reported is the friendliest.
func newest(ctx context.Context, repo *gitcmd.Repo, copies []*Copy) (*Copy, error) {
	var edits []*Copy
	for _, c := range copies {
		if c.Uncommitted {
			edits = append(edits, c)
		}
	}
	if len(edits) > 0 {
		best := edits[0]
		for _, c := range edits[1:] {
			if c.digest != best.digest && c.mtime.After(best.mtime) {
				best = c
			}
		}
		return first(copies, best.digest), nil
	}
	digestOf := map[string][32]byte{}
	var oids []string
	for _, c := range copies {
		if _, ok := digestOf[c.Commit]; !ok {
			digestOf[c.Commit] = c.digest
			oids = append(oids, c.Commit)
		}
	}
	if distinct(copies) == 1 {
		return copies[0], nil
	}
	tips, err := repo.Independent(ctx, oids)
	if err != nil {
		return nil, fmt.Errorf("compare the plan's copies: %w", err)
	}
	win := digestOf[tips[0]]
	same := true
	for _, t := range tips[1:] {
		same = same && digestOf[t] == win
	}
	if same {
		return first(copies, win), nil
	}
	// Diverged: the side whose own commits changed the plan last.
	var bestTime int64 = -1
	for _, t := range tips {
		var others []string
		for _, o := range tips {
			if o != t {
				others = append(others, o)
			}
		}
		c := firstAt(copies, t)
		when, err := repo.LastChange(ctx, t, others, c.RepoPaths)
		if err != nil {
			return nil, fmt.Errorf("compare the plan's copies: %w", err)
		}
		if when > bestTime {
			bestTime, win = when, digestOf[t]
		}
	}
	return first(copies, win), nil
}

func distinct(copies []*Copy) int {
	d := map[[32]byte]bool{}
	for _, c := range copies {
		d[c.digest] = true
	}
	return len(d)
}

// first is the first copy in preference order with that content.
func first(copies []*Copy, digest [32]byte) *Copy {
	for _, c := range copies {
		if c.digest == digest {
			return c
		}
	}
	return nil
}

func firstAt(copies []*Copy, commit string) *Copy {
	for _, c := range copies {
		if c.Commit == commit {
			return c
		}
	}
	return nil
}

// candidate is one plan in one place: its directory under specs/ and its
// files, relative to the top of the repository.
type candidate struct {
	dir   string
	paths []string
	data  [][]byte
	mtime time.Time
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

// ownDir says whether a specs/ entry may hold run's plan.
func ownDir(name, run string) bool { return DirAgrees(name, run) }

// fromDir reads the plan in a worktree's files.
func fromDir(run string, pl Place) (*Copy, error) {
	specs := filepath.Join(pl.Dir, "specs")
	ents, err := os.ReadDir(specs)
	if err != nil {
		return nil, nil // no specs/ here (or unreadable): no copy
	}
	var cands []candidate
	for _, e := range ents {
		if !ownDir(e.Name(), run) {
			continue
		}
		dir := filepath.Join(specs, e.Name())
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			continue
		}
		c := candidate{dir: e.Name()}
		if data, st, ok := readFile(filepath.Join(dir, "plan.md")); ok {
			c.paths, c.data, c.mtime = []string{"specs/" + e.Name() + "/plan.md"}, [][]byte{data}, st
		} else if parts, err := os.ReadDir(filepath.Join(dir, "plan")); err == nil {
			type part struct {
				n    int
				name string
			}
			var ps []part
			for _, p := range parts {
				if n, ok := phaseFile(p.Name()); ok {
					ps = append(ps, part{n, p.Name()})
				}
			}
			sort.Slice(ps, func(i, j int) bool { return ps[i].n < ps[j].n })
			for _, p := range ps {
				data, st, ok := readFile(filepath.Join(dir, "plan", p.name))
				if !ok {
					continue
				}
				c.paths = append(c.paths, "specs/"+e.Name()+"/plan/"+p.name)
				c.data = append(c.data, data)
				if st.After(c.mtime) {
					c.mtime = st
				}
			}
		}
		if len(c.paths) > 0 {
			cands = append(cands, c)
		}
	}
	name := func(p string) string { return filepath.Join(pl.Label, filepath.FromSlash(p)) }
	c, err := pick(run, pl, cands, name)
	if c != nil {
		c.Name = name(c.RepoPaths[0])
	}
	return c, err
}

// readFile reads a regular file (a plan is never a directory or a device).
func readFile(path string) ([]byte, time.Time, bool) {
	st, err := os.Stat(path)
	if err != nil || !st.Mode().IsRegular() {
		return nil, time.Time{}, false
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, time.Time{}, false
	}
	return data, st.ModTime(), true
}

// fromCommit reads the plan in a commit's tree.
func fromCommit(o *gitcmd.Objects, run string, pl Place) (*Copy, error) {
	ents, err := o.Tree(pl.Commit + ":specs")
	if err != nil {
		return nil, err
	}
	var cands []candidate
	for _, e := range ents {
		if !e.IsDir() || !ownDir(e.Name, run) {
			continue
		}
		c := candidate{dir: e.Name}
		obj, err := o.Get(e.OID + ":plan.md")
		if err != nil {
			return nil, err
		}
		if obj.Type == "blob" {
			c.paths, c.data = []string{"specs/" + e.Name + "/plan.md"}, [][]byte{obj.Data}
		} else {
			parts, err := o.Tree(e.OID + ":plan")
			if err != nil {
				return nil, err
			}
			sort.Slice(parts, func(i, j int) bool {
				a, _ := phaseFile(parts[i].Name)
				b, _ := phaseFile(parts[j].Name)
				return a < b
			})
			for _, p := range parts {
				if _, ok := phaseFile(p.Name); !ok || p.Mode == "120000" || p.IsDir() {
					continue
				}
				obj, err := o.Get(p.OID)
				if err != nil {
					return nil, err
				}
				if obj.Type == "blob" {
					c.paths = append(c.paths, "specs/"+e.Name+"/plan/"+p.Name)
					c.data = append(c.data, obj.Data)
				}
			}
		}
		if len(c.paths) > 0 {
			cands = append(cands, c)
		}
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
	where := pl.Label
	switch {
	case pl.Label == ".":
		where = "the main worktree"
	case pl.Dir != "":
		where = "the worktree " + pl.Label
	}
	return nil, &Error{fmt.Sprintf("several plans for run %s in %s: %s (pass --plan with the one to read)", run, where, strings.Join(names, ", "))}
}

// Runs lists the runs whose plans are in a worktree's specs/ folder, each
// with its plan's path: the run id the plan names, else the one its
// directory names. A plan that does not parse is listed under the run its
// directory names, so that --list can show the error in its row.
func Runs(worktreeDir string) map[string]string {
	runs := map[string]string{}
	ents, err := os.ReadDir(filepath.Join(worktreeDir, "specs"))
	if err != nil {
		return runs
	}
	for _, e := range ents {
		dir := filepath.Join(worktreeDir, "specs", e.Name())
		path := filepath.Join(dir, "plan.md")
		data, _, ok := readFile(path)
		if !ok {
			split, _ := filepath.Glob(filepath.Join(dir, "plan", "plan-phase*.md"))
			if len(split) == 0 {
				continue
			}
			sort.Strings(split)
			path = split[0]
			data, _, ok = readFile(path)
			if !ok {
				continue
			}
		}
		run := RunOfDir(e.Name())
		if p, _, err := plan.Parse(path, data); err == nil && p.RunID != "" {
			run = p.RunID
		}
		if plan.ValidateRunID(run) == nil {
			runs[run] = filepath.Join("specs", e.Name(), filepath.Base(path))
		}
	}
	return runs
}
