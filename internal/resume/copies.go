package resume

import (
	"bytes"
	"context"
	"strings"

	"github.com/taskresume/git-taskresume/internal/branches"
	"github.com/taskresume/git-taskresume/internal/gitcmd"
)

// copyFinder tells whether a task's detached worktree, or a save of one,
// sits on copies of its task branch's own commits (docs/DESIGN.md,
// "Attempts that stopped mid-way: interrupted"): an orchestrator that
// restacks a branch copies its commits onto another parent and leaves the
// worktree at the old ones, and a restack does not move a worktree off its
// branch. Asked only for a task's worktree detached where no branch of its
// task is at or below HEAD, so only there does it read anything: commits
// and trees through the running cat-file, and, only when those cannot
// decide for a worktree holding changes, one diff-tree | patch-id.
type copyFinder struct {
	ctx  context.Context
	repo *gitcmd.Repo
	objs *gitcmd.Objects
	// walk are the run's commits above the base; byOID indexes it, built
	// on the first question.
	walk  []gitcmd.LogEntry
	byOID map[string]*gitcmd.LogEntry
	// tips are the run's branch tips and bounds: a branch's own commits
	// stop at the first other tip below it.
	tips    map[string]bool
	commits map[string]*rawCommit
	changes map[string]map[string]string
	ids     map[string]string // stable patch-ids asked so far
}

// rawCommit is what a commit says of itself: its tree and parents, and
// what a copy keeps whatever else changed (its author line, the author
// date included: a rebase or a cherry-pick keeps it, a reworded copy too,
// while work done again has a date of its own).
type rawCommit struct {
	tree    string
	parents []string
	author  string
}

// maxCopies bounds the search: a branch adding more commits than this,
// or a worktree that went on by more than copySlack commits past the
// copies, is not looked at (it counts as before: not on the branch).
const (
	maxCopies = 64
	copySlack = 16
)

// onCopies says whether the commits below head, from its top or up to
// copySlack commits under it, are one for one, in order, copies (equal
// patches) of the own commits of the branch at tip: what the branch adds
// beyond the run's other branches below it. slow allows the patch-id
// process where the commits and trees read cannot decide.
func (f *copyFinder) onCopies(head, tip string, slow bool) bool {
	if f == nil || f.objs == nil || head == "" || tip == "" || head == tip {
		return false
	}
	own := f.ownCommits(tip)
	if len(own) == 0 {
		return false
	}
	chain := f.firstParents(head, len(own)+copySlack)
	type pair struct{ a, b string }
	var open [][]pair // alignments only patch-ids can decide
	for k := 0; k+len(own) <= len(chain); k++ {
		var unsure []pair
		ok := true
		for j, o := range own {
			switch f.samePatch(chain[k+j], o) {
			case no:
				ok = false
			case unknown:
				unsure = append(unsure, pair{chain[k+j], o})
			}
			if !ok {
				break
			}
		}
		if ok && len(unsure) == 0 {
			return true
		}
		if ok {
			open = append(open, unsure)
		}
	}
	if len(open) == 0 || !slow || f.repo == nil {
		return false
	}
	var in bytes.Buffer
	for _, ps := range open {
		for _, p := range ps {
			for _, c := range []string{p.a, p.b} {
				if _, asked := f.ids[c]; !asked {
					f.ids[c] = ""
					in.WriteString(c + "\n")
				}
			}
		}
	}
	if in.Len() > 0 {
		ids, err := patchIDs(f.ctx, f.repo, in.Bytes())
		if err != nil {
			return false
		}
		for c, id := range ids {
			f.ids[c] = id
		}
	}
	for _, ps := range open {
		all := true
		for _, p := range ps {
			all = all && f.ids[p.a] != "" && f.ids[p.a] == f.ids[p.b]
		}
		if all {
			return true
		}
	}
	return false
}

// ownCommits are the commits the branch at tip adds, newest first: its
// first-parent line down to the base or to another branch's tip (or a
// bound). None when that line holds a merge or passes maxCopies: a
// restack copies single commits, and a long line is not looked through.
func (f *copyFinder) ownCommits(tip string) []string {
	if f.byOID == nil {
		f.byOID = make(map[string]*gitcmd.LogEntry, len(f.walk))
		for i := range f.walk {
			f.byOID[f.walk[i].OID] = &f.walk[i]
		}
	}
	var own []string
	for c := tip; ; {
		e := f.byOID[c]
		if e == nil || c != tip && f.tips[c] {
			return own
		}
		if len(e.Parents) != 1 || len(own) == maxCopies {
			return nil
		}
		own = append(own, c)
		c = e.Parents[0]
	}
}

// firstParents is head's first-parent line, newest first, at most n
// commits, ending before a merge or a commit that cannot be read.
func (f *copyFinder) firstParents(head string, n int) []string {
	var chain []string
	for c := head; c != "" && len(chain) < n; {
		rc := f.commit(c)
		if rc == nil || len(rc.parents) != 1 {
			break
		}
		chain = append(chain, c)
		c = rc.parents[0]
	}
	return chain
}

// commit reads commit oid through the running reader; nil when it cannot.
func (f *copyFinder) commit(oid string) *rawCommit {
	if rc, ok := f.commits[oid]; ok {
		return rc
	}
	obj, err := f.objs.Get(oid)
	var rc *rawCommit
	if err == nil {
		rc = parseRawCommit(obj)
	}
	f.commits[oid] = rc
	return rc
}

// prefetch reads the commits of oids not read yet in one round trip (a
// few hundred commits asked one by one cost as many round trips).
func (f *copyFinder) prefetch(oids []string) {
	var ask []string
	for _, oid := range oids {
		if _, ok := f.commits[oid]; !ok {
			ask = append(ask, oid)
		}
	}
	if len(ask) == 0 {
		return
	}
	objs, err := f.objs.GetMany(ask)
	if err != nil {
		return // read one by one, as before
	}
	for i, obj := range objs {
		f.commits[ask[i]] = parseRawCommit(obj)
	}
}

// parseRawCommit is what copies compare of a commit object; nil for
// another object.
func parseRawCommit(obj gitcmd.Object) *rawCommit {
	e, ok := gitcmd.ParseCommit(obj)
	if !ok {
		return nil
	}
	return &rawCommit{tree: e.Tree, parents: e.Parents, author: e.Author}
}

// verdict is what the commits and trees read say of two patches.
type verdict int

const (
	no verdict = iota
	yes
	unknown
)

// samePatch compares the patches of commits a and b (each against its one
// parent) from what the reader gives. Equal changes, path by path the same
// blob before and after, are equal patches. Different paths, or the same
// blobs before and different after, are different ones. Otherwise (the
// same paths from other blobs: a patch re-applied on a parent that moved)
// only patch-id can tell, and it is worth asking only for a copy: a commit
// with the other's author and author date, which a rebase keeps. Work done
// again from a moved parent has a date of its own, and asking patch-id
// about it on every report would cost two processes each time.
func (f *copyFinder) samePatch(a, b string) verdict {
	if a == b {
		return yes
	}
	ra, rb := f.commit(a), f.commit(b)
	if ra == nil || rb == nil || len(ra.parents) != 1 || len(rb.parents) != 1 {
		return no
	}
	ca, cb := f.change(a, ra), f.change(b, rb)
	if ca == nil || cb == nil || len(ca) != len(cb) {
		return no
	}
	same, before := true, true
	for p, x := range ca {
		y, ok := cb[p]
		if !ok {
			return no
		}
		same = same && x == y
		xb, _, _ := strings.Cut(x, ">")
		yb, _, _ := strings.Cut(y, ">")
		before = before && xb == yb
	}
	switch {
	case same:
		return yes
	case before || ra.author != rb.author:
		return no
	}
	return unknown
}

// change is what commit oid (read as rc) changes against its parent: per
// path, "mode blob>mode blob" before and after (the all-zero id for a
// side without the file). nil when the trees cannot be read.
func (f *copyFinder) change(oid string, rc *rawCommit) map[string]string {
	if ch, ok := f.changes[oid]; ok {
		return ch
	}
	var ch map[string]string
	parent := f.commit(rc.parents[0])
	if parent != nil {
		after, err1 := f.objs.DiffTrees(parent.tree, rc.tree)
		before, err2 := f.objs.DiffTrees(rc.tree, parent.tree)
		if err1 == nil && err2 == nil {
			ch = map[string]string{}
			was := map[string]string{}
			for _, l := range splitLines(before) {
				if mb, p, ok := cutChange(l); ok {
					was[p] = mb
				}
			}
			for _, l := range splitLines(after) {
				if mb, p, ok := cutChange(l); ok {
					ch[p] = was[p] + ">" + mb
				}
			}
		}
	}
	f.changes[oid] = ch
	return ch
}

// cutChange splits a "mode blob path" line of a change list.
func cutChange(l string) (modeBlob, path string, ok bool) {
	f := strings.SplitN(l, " ", 3)
	if len(f) != 3 {
		return "", "", false
	}
	return f[0] + " " + f[1], f[2], true
}

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// maxCopyCandidates bounds the search for copies among the task
// branches' own commits: past it, none are looked for (docs/DESIGN.md,
// "What this costs").
const maxCopyCandidates = 512

// restackCopies finds which own commits of the run's task branches are
// copies of each other (docs/DESIGN.md, "Step 4: whose work each commit
// is"): it maps each to the id of its first copy in the walk. Only commits
// of several branches' own commits can matter, and a copy a rebase made
// keeps the subject, the author and the author date: commits are grouped
// by subject in process (nothing read when no two of them share one), then
// by author line through the running reader, and only within those groups
// are patches compared (samePatch), with one patch-id pipeline for what
// the trees cannot decide.
func (f *copyFinder) restackCopies(in branches.Input) map[string]string {
	if f == nil || f.objs == nil || len(in.Branches) < 2 {
		return nil
	}
	walk := in.Walk
	bySubject := map[string][]int{}
	dup := false
	for c := range walk {
		if len(walk[c].Parents) != 1 {
			continue
		}
		s := walk[c].Subject
		bySubject[s] = append(bySubject[s], c)
		dup = dup || len(bySubject[s]) > 1
	}
	if !dup {
		return nil
	}
	holders := branches.OwnHolders(in)
	var groups [][]int
	n := 0
	for _, cs := range bySubject {
		if len(cs) < 2 {
			continue
		}
		// Worth comparing only when the group's commits are on two
		// branches' own commits, not all on one.
		var mine []int
		seen := map[int]bool{}
		for _, c := range cs {
			if len(holders[c]) == 0 {
				continue
			}
			mine = append(mine, c)
			for _, b := range holders[c] {
				seen[b] = true
			}
		}
		if len(mine) < 2 || len(seen) < 2 {
			continue
		}
		if n += len(mine); n > maxCopyCandidates {
			return nil
		}
		groups = append(groups, mine)
	}
	// One piece of work per class of copies: parent links to the class's
	// first commit in the walk.
	root := map[int]int{}
	find := func(c int) int {
		for {
			r, ok := root[c]
			if !ok || r == c {
				return c
			}
			c = r
		}
	}
	union := func(a, b int) {
		ra, rb := find(a), find(b)
		if ra > rb {
			ra, rb = rb, ra
		}
		root[ra], root[rb] = ra, ra
	}
	type pair struct{ a, b int }
	var open []pair
	// The candidates and their parents, each read once, in two round
	// trips. (Reading their trees ahead level by level measured slower
	// than letting the comparisons read them.)
	var ask, parents []string
	for _, cs := range groups {
		for _, c := range cs {
			ask = append(ask, walk[c].OID)
			parents = append(parents, walk[c].Parents...)
		}
	}
	f.prefetch(ask)
	f.prefetch(parents)
	for _, cs := range groups {
		byAuthor := map[string][]int{}
		for _, c := range cs {
			if rc := f.commit(walk[c].OID); rc != nil {
				byAuthor[rc.author] = append(byAuthor[rc.author], c)
			}
		}
		for _, same := range byAuthor {
			for k, a := range same {
				for _, b := range same[:k] {
					if find(a) == find(b) {
						continue
					}
					switch f.samePatch(walk[a].OID, walk[b].OID) {
					case yes:
						union(a, b)
					case unknown:
						open = append(open, pair{a, b})
					}
				}
			}
		}
	}
	if len(open) > 0 && f.repo != nil {
		var buf bytes.Buffer
		for _, p := range open {
			for _, c := range []int{p.a, p.b} {
				if _, asked := f.ids[walk[c].OID]; !asked {
					f.ids[walk[c].OID] = ""
					buf.WriteString(walk[c].OID + "\n")
				}
			}
		}
		if buf.Len() > 0 {
			if ids, err := patchIDs(f.ctx, f.repo, buf.Bytes()); err == nil {
				for c, id := range ids {
					f.ids[c] = id
				}
			}
		}
		for _, p := range open {
			if id := f.ids[walk[p.a].OID]; id != "" && id == f.ids[walk[p.b].OID] {
				union(p.a, p.b)
			}
		}
	}
	var out map[string]string
	for c := range root {
		if out == nil {
			out = map[string]string{}
		}
		out[walk[c].OID] = walk[find(c)].OID
	}
	return out
}
