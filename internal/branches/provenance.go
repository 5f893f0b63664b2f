package branches

import (
	"strings"

	"github.com/taskresume/git-taskresume/internal/plan"
)

// Provenance: which run's branch a merge brought each commit from
// (docs/DESIGN.md, "Step 2: which task a commit names"). Runs that share a
// repository share template titles ("Task 1.1: Project setup"), so on a
// branch they share a subject cannot say whose a commit is; the merge that
// brought it can, when it names a run's branch.

// runReader reads which run's branch merge subjects name, for run (this
// run: where a subject cannot say which parent a name is for, another
// run's name counts before this run's).
type runReader struct {
	run string
	// valid remembers which run ids are valid: a history names the same
	// few runs in thousands of merges.
	valid map[string]bool
}

func newRunReader(run string) *runReader { return &runReader{run: run, valid: map[string]bool{}} }

func (rr *runReader) validID(id string) bool {
	ok, seen := rr.valid[id]
	if !seen {
		ok = plan.ValidateRunID(id) == nil
		rr.valid[id] = ok
	}
	return ok
}

// branchRun is the run whose branch name is: "<id>-task-<digit>..." or
// "<id>-main", id a valid run id; "" when it is no run's. Run ids never
// hold "-task-", so the first one splits the id off.
func (rr *runReader) branchRun(name string) string {
	if i := strings.Index(name, "-task-"); i > 0 {
		rest := name[i+len("-task-"):]
		if rest != "" && rest[0] >= '0' && rest[0] <= '9' && rr.validID(name[:i]) {
			return name[:i]
		}
		return ""
	}
	if id, ok := strings.CutSuffix(name, "-main"); ok && id != "" && rr.validID(id) {
		return id
	}
	return ""
}

// runNamedIn is the run whose branch the first word of text naming one
// names ("" for none).
func (rr *runReader) runNamedIn(text string) string {
	r := ""
	eachWord(text, func(w string) bool {
		r = rr.wordRun(w)
		return r != ""
	})
	return r
}

// wordRun is the run whose branch a word names. Like MergedBranches, a
// word's "/" parts count ("origin/x-main", "owner/x-task-1-1-a"): of the
// suffixes starting after a "/", the longest that is a run's branch.
func (rr *runReader) wordRun(w string) string {
	for cand := strings.TrimRight(w, "."); cand != ""; {
		if r := rr.branchRun(cand); r != "" {
			return r
		}
		k := strings.IndexByte(cand, '/')
		if k < 0 {
			break
		}
		cand = cand[k+1:]
	}
	return ""
}

// eachWord calls fn with each of branchToken's words of text, in order,
// until fn returns true. Split by hand: this runs for every merge of a
// shared branch's history.
func eachWord(text string, fn func(string) bool) {
	for text != "" {
		i := 0
		for i < len(text) && !isBranchByte(text[i]) {
			i++
		}
		j := i
		for j < len(text) && isBranchByte(text[j]) {
			j++
		}
		if j > i && fn(text[i:j]) {
			return
		}
		text = text[j:]
	}
}

// isBranchByte: the bytes of branchToken's words.
func isBranchByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '/' || c == '-'
}

// mayNameRun is a cheap test that subject may name a run's branch: most
// merges do not, and a history with none needs no walk.
func mayNameRun(subject string) bool {
	return strings.Contains(subject, "-task-") || strings.Contains(subject, "-main")
}

// mergeRuns says, for each parent of a merge after the first, the run
// whose branch the merge's subject names for it ("" for none). Only the
// part before " into " counts: "Merge branch 'main' into x-main" brings
// main, not x-main. An octopus's "Merge branches 'a', 'b' and 'c'" names
// its parents in order; where the quoted names do not match the parents
// one to one ("Merge pull request #1 from owner/x"), the run named counts
// for every parent, another run's before this run's (work no merge can
// place is not taken for this run's).
func (rr *runReader) mergeRuns(subject string, others int) []string {
	out := make([]string, others)
	if !mayNameRun(subject) {
		return out
	}
	if i := strings.Index(subject, " into "); i >= 0 {
		subject = subject[:i]
	}
	if q := strings.Count(subject, "'"); q%2 == 0 && q/2 == others {
		rest := subject
		for k := range out {
			_, rest, _ = strings.Cut(rest, "'")
			var name string
			name, rest, _ = strings.Cut(rest, "'")
			out[k] = rr.runNamedIn(name)
		}
		return out
	}
	named := ""
	eachWord(subject, func(w string) bool {
		if r := rr.wordRun(w); r != "" && (named == "" || named == rr.run) {
			named = r
		}
		return false
	})
	for k := range out {
		out[k] = named
	}
	return out
}

// broughtBy says, for each commit of cs (indexed like cs), the run whose
// branch the merge that brought it named; "" when none did. index maps
// cs's ids to their positions (nil: built here).
//
// cs is split into first-parent lines. Each commit that no commit of cs
// has as a parent (a tip) starts a line that no merge brought: its
// first-parent chain within cs. Each line is walked oldest to newest; a
// merge's other parents each start a line of their own (the commits no
// line holds yet), brought by the run that merge names for that parent,
// else by the line's own run, and that line is walked at once. So the
// oldest merge that brought a commit claims it, and the innermost merge
// naming a run's branch decides: this run's task branch merged into
// another run's branch, then into main, keeps its commits this run's.
//
// Each commit joins one line and each parent is looked at once: linear in
// the commits, whatever the merges.
func broughtBy(cs []CommitInfo, index map[string]int, run string) []string {
	by := make([]string, len(cs))
	any := false
	for i := range cs {
		if isMerge(&cs[i]) && mayNameRun(cs[i].Subject) {
			any = true
			break
		}
	}
	if !any {
		return by
	}
	if index == nil {
		index = make(map[string]int, len(cs))
		for i := range cs {
			index[cs[i].OID] = i
		}
	}
	// first[i] is the position of commit i's first parent, -1 when it is
	// outside cs: each parent is looked up once here, the other parents
	// of merges once more below.
	first := make([]int32, len(cs))
	hasChild := newBitset(len(cs))
	for i := range cs {
		first[i] = -1
		for k, p := range cs[i].Parents {
			if j, ok := index[p]; ok {
				hasChild.set(j)
				if k == 0 {
					first[i] = int32(j)
				}
			}
		}
	}
	rr := newRunReader(run)
	visited := newBitset(len(cs))
	// lines holds every line, newest commit first, one after another.
	lines := make([]int, 0, len(cs))
	addLine := func(i int, owner string) (lo, hi int) {
		lo = len(lines)
		for {
			visited.set(i)
			by[i] = owner
			lines = append(lines, i)
			j := int(first[i])
			if j < 0 || visited.has(j) {
				break
			}
			i = j
		}
		return lo, len(lines)
	}
	// frame is a line being walked: lines[lo:at+1] are still to walk,
	// oldest (at) first; k is the next parent of lines[at] to look at,
	// runs what the merge there names for its parents after the first.
	type frame struct {
		lo, at, k int
		owner     string
		runs      []string
	}
	var stack []frame
	// Every tip's line first: a commit on a tip's own first-parent line
	// came by no merge, whatever merge elsewhere also holds it.
	for i := range cs {
		if !hasChild.has(i) && !visited.has(i) {
			lo, hi := addLine(i, "")
			stack = append(stack, frame{lo: lo, at: hi - 1})
		}
	}
	// The first tip's line is walked first.
	for l, r := 0, len(stack)-1; l < r; l, r = l+1, r-1 {
		stack[l], stack[r] = stack[r], stack[l]
	}
	for len(stack) > 0 {
		f := &stack[len(stack)-1]
		if f.at < f.lo {
			stack = stack[:len(stack)-1]
			continue
		}
		c := &cs[lines[f.at]]
		if f.k == 0 {
			if !isMerge(c) {
				f.at--
				continue
			}
			f.k = 1
			f.runs = rr.mergeRuns(c.Subject, len(c.Parents)-1)
		}
		if f.k >= len(c.Parents) {
			f.at, f.k = f.at-1, 0
			continue
		}
		k := f.k
		f.k++
		j, ok := index[c.Parents[k]]
		if !ok || visited.has(j) {
			continue
		}
		owner := f.owner
		if r := f.runs[k-1]; r != "" {
			owner = r
		}
		lo, hi := addLine(j, owner)
		stack = append(stack, frame{lo: lo, at: hi - 1, owner: owner}) // f is stale from here
	}
	return by
}
