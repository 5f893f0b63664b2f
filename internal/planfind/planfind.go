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
	"fmt"
	"slices"
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
	// Head is the worktree HEAD's copy of an uncommitted one (nil: HEAD
	// has none): what the edit changes.
	Head  *Copy
	Plan  *plan.Plan
	Warns []plan.Warning
	// Err is the parse error of a copy that does not parse.
	Err    error
	digest [32]byte
	mtime  time.Time
}

// Found is the result of a search.
type Found struct {
	// Copy is the copy to read; nil when none was found.
	Copy *Copy
	// SameCommitted is a commit holding the files of Copy as they are,
	// when Copy is a worktree's files ("" when none of the places does).
	SameCommitted string
	// Differs are copies whose content differs from Copy's.
	Differs []*Copy
	// Looked names every place searched, for a message when none is found.
	Looked []string
	// Why says how Copy was chosen among copies that differ ("" when all
	// are equal).
	Why string
	// Diverged: copies on histories that diverged differ, and Copy won
	// only by the date of its last change: a guess the caller should doubt.
	Diverged bool
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

// HexRun says whether id has the orchestrators' form of a run id: six
// hexadecimal digits.
func HexRun(id string) bool { return len(id) == 6 && isHex(id) }

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
				c.Uncommitted = head == nil || head.digest != c.digest || !slices.Equal(head.RepoPaths, c.RepoPaths)
				if !c.Uncommitted {
					c.Commit = pl.Commit
				} else if head != nil && head.Err == nil {
					c.Head = head
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
	chosen, why, err := newest(ctx, repo, copies)
	if err != nil {
		return nil, err
	}
	f.Copy, f.Why, f.Diverged = chosen, why, why == whyDiverged
	if chosen.Commit == "" {
		// Files a commit holds as they are: committed there.
		for _, c := range copies {
			if c.Commit != "" && c.digest == chosen.digest && slices.Equal(c.RepoPaths, chosen.RepoPaths) {
				f.SameCommitted = c.Commit
				break
			}
		}
	}
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

// newest picks the copy to read: an uncommitted edit first (the most
// recently written when several differ), then the copy of the commit that
// the others' histories lead to; where histories diverged, the side that
// changed the plan last. Equal copies go to the first place in preference
// order, so the name reported is the friendliest.
func newest(ctx context.Context, repo *gitcmd.Repo, copies []*Copy) (*Copy, string, error) {
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
		// An edit is the newest copy only if no commit changed the plan
		// after it was written: a file left over from long ago (an
		// untracked copy, a worktree nobody touched) must not hide a task
		// the orchestrator added since.
		var committed []*Copy
		stale := false
		for _, c := range copies {
			if c.Uncommitted {
				continue
			}
			committed = append(committed, c)
			if c.digest == best.digest || stale {
				continue
			}
			when, err := repo.LastChangeSince(ctx, c.Commit, best.mtime.Unix(), c.RepoPaths)
			if err != nil {
				return nil, "", fmt.Errorf("compare the plan's copies: %w", err)
			}
			stale = when > best.mtime.Unix()
		}
		if !stale || len(committed) == 0 {
			return first(copies, best.digest), "an uncommitted edit, newer than every commit of the plan", nil
		}
		copies = committed
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
		return copies[0], "", nil
	}
	tips, err := repo.Independent(ctx, oids)
	if err != nil {
		return nil, "", fmt.Errorf("compare the plan's copies: %w", err)
	}
	win := digestOf[tips[0]]
	same := true
	for _, t := range tips[1:] {
		same = same && digestOf[t] == win
	}
	if same {
		return first(copies, win), "the newest commit of the plan (the others' histories lead to it)", nil
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
			return nil, "", fmt.Errorf("compare the plan's copies: %w", err)
		}
		if when > bestTime {
			bestTime, win = when, digestOf[t]
		}
	}
	return first(copies, win), whyDiverged, nil
}

const whyDiverged = "on diverged histories, the side that changed the plan last"

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

// Runs lists the runs whose plans are in a worktree's specs/ folder: the
// run id the plan names, else the one its directory names. A plan that
// cannot be read or parsed is listed under the run its directory names, so
// that --list can show the error in its row.
func Runs(worktreeDir string) []string {
	var runs []string
	f := diskFiles{top: worktreeDir}
	ents, _ := f.list("specs")
	for _, e := range ents {
		if !e.dir {
			continue
		}
		c, err := readCandidate(f, e.name)
		if err != nil || len(c.paths) == 0 && c.problem == "" {
			continue
		}
		run := RunOfDir(e.name)
		if c.problem == "" {
			var p *plan.Plan
			if len(c.paths) == 1 {
				p, _, _ = plan.Parse(c.paths[0], c.data[0])
			} else {
				fs := make([]plan.File, len(c.paths))
				for i := range c.paths {
					fs[i] = plan.File{Path: c.paths[i], Data: c.data[i]}
				}
				p, _, _ = plan.ParseFiles(fs)
			}
			if p != nil && p.RunID != "" {
				run = p.RunID
			}
		}
		if plan.ValidateRunID(run) == nil {
			runs = append(runs, run)
		}
	}
	return runs
}
