package gitcmd

import (
	"cmp"
	"container/heap"
	"context"
	"slices"
	"strings"
	"sync"
)

// EvidenceFilter says which of the commits a branch gained since a run
// started a search for landed work can read anything from. A list asks
// this of every run: most of a default branch's commits are other work,
// and listing them for each run costs the runs times the history.
type EvidenceFilter struct {
	// Keep is a commit the search may read (its first parent is kept
	// too: whether it changes anything is read from the parent's tree).
	Keep func(c *LogEntry) bool
	// Points is the subject of the older commit that c names (a revert
	// by subject): every commit of that subject is kept.
	Points func(c *LogEntry) (subject string, ok bool)
	// Whole is a commit that needs every commit of the list around it (a
	// merge: what it brought is read along its parents); where one is
	// among a run's kept commits, the shared walk does not answer.
	Whole func(c *LogEntry) bool
}

// landedIndex is what answers LandedSince for one set of tips: which
// commits the tips hold, and for each commit of the newest tip's history,
// the first commit of that tip's first-parent line whose history holds
// it. The history of the k-th commit of that line holds the history of
// the ones before it, so "x is in the history of the line's k-th commit"
// is "line position of x <= k": no walk per run.
type landedIndex struct {
	held []bool
	// line[k] is the k-th commit of the first-parent line, oldest first;
	// at[i] is the first k whose history holds commit i, -1 outside it.
	line []int32
	at   []int32
	// kept are the commits of held that the filter keeps (and the first
	// parents of those it keeps for their own sake), in the log's order.
	kept []int32
	// rank is each held commit's place in `git log --date-order` of the
	// tips: what any log of the tips without some history lists, it
	// lists in this order (dateRanks).
	rank []int32
}

// exitBudget bounds the commits of an excluded tip's own history (not the
// tips') walked to find where it meets the tips' history: a run's own base
// holds a few; a branch of its own long history goes to the plain walk.
const exitBudget = 4096

type landedMemo struct {
	once sync.Once
	idx  *landedIndex
}

// LandedSince is LogRevs(include, exclude) without the commits f does not
// keep, in the same order, and holds, which says whether a commit is among
// all of LogRevs's. ok is false when the shared walk cannot say so at the
// cost of what it keeps: no shared walk, a revision it did not read, an
// excluded tip that meets the included history off its first-parent line
// or far below, a kept commit f wants the whole list for. Then LogRevs.
//
// One filter per Shared: the index built for a set of tips is kept.
func (r *Repo) LandedSince(include, exclude []string, f EvidenceFilter) (cs []LogEntry, holds func(oid string) bool, ok bool) {
	if r.shared == nil || len(include) == 0 {
		return nil, nil, false
	}
	return r.shared.landedSince(include, exclude, f)
}

// LogRevsAgain is LogRevs after a LandedSince answer for the same
// revisions: the same log, counted once (CountAsGit).
func (r *Repo) LogRevsAgain(ctx context.Context, include, exclude []string) ([]LogEntry, error) {
	if r.shared != nil {
		if cs, _, ok := r.shared.logRevsCounted(include, exclude, false, false); ok {
			return cs, nil
		}
	}
	return r.LogRevs(ctx, include, exclude)
}

func (s *Shared) landedSince(include, exclude []string, f EvidenceFilter) ([]LogEntry, func(string) bool, bool) {
	in, ok1 := s.resolve(include)
	ex, ok2 := s.resolve(exclude)
	if s.commits == nil || !ok1 || !ok2 {
		return nil, nil, false
	}
	idx := s.landedIndexFor(in, f)
	// Where the excluded history meets the tips': the commits the tips
	// hold that a walk down from an excluded tip reaches first. Each must
	// be on the line; the newest of them bounds what is excluded.
	k := int32(-1)
	seen := map[int32]bool{}
	stack := append([]int32(nil), ex...)
	budget := exitBudget
	for len(stack) > 0 {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[i] {
			continue
		}
		seen[i] = true
		if idx.held[i] {
			a := idx.at[i]
			if a < 0 || idx.line[a] != i {
				return nil, nil, false
			}
			k = max(k, a)
			continue
		}
		if budget--; budget < 0 {
			return nil, nil, false
		}
		stack = append(stack, s.parents(i)...)
	}
	listed := func(i int32) bool { return idx.held[i] && (idx.at[i] < 0 || idx.at[i] > k) }
	var is []int32
	for _, i := range idx.kept {
		if listed(i) {
			is = append(is, i)
		}
	}
	// In the log's order (rank), not the whole repository's.
	slices.SortFunc(is, func(a, b int32) int { return cmp.Compare(idx.rank[a], idx.rank[b]) })
	cs := make([]LogEntry, 0, len(is))
	for _, i := range is {
		e := s.entry(i)
		if f.Whole != nil && f.Whole(&e) {
			return nil, nil, false
		}
		cs = append(cs, e)
	}
	s.served()
	return cs, func(oid string) bool {
		i, ok := s.lookup(oid)
		return ok && listed(i)
	}, true
}

// landedIndexFor builds (once per set of tips) the index of LandedSince:
// one walk of the tips' history, one of the newest tip's first-parent
// line, and one pass of the filter over every commit held.
func (s *Shared) landedIndexFor(tips []int32, f EvidenceFilter) *landedIndex {
	key := make([]string, len(tips))
	for n, i := range tips {
		key[n] = s.oid(i)
	}
	k := strings.Join(key, " ")
	s.memoMu.Lock()
	if s.landed == nil {
		s.landed = map[string]*landedMemo{}
	}
	m := s.landed[k]
	if m == nil {
		m = &landedMemo{}
		s.landed[k] = m
	}
	s.memoMu.Unlock()
	m.once.Do(func() { m.idx = s.buildLanded(tips, f) })
	return m.idx
}

func (s *Shared) buildLanded(tips []int32, f EvidenceFilter) *landedIndex {
	n := len(s.commits)
	idx := &landedIndex{held: make([]bool, n), at: make([]int32, n)}
	stack := append([]int32(nil), tips...)
	for len(stack) > 0 {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if !idx.held[i] {
			idx.held[i] = true
			stack = append(stack, s.parents(i)...)
		}
	}
	// The newest tip's first-parent line, oldest first.
	top := tips[0]
	for _, t := range tips[1:] {
		if s.gen[t] > s.gen[top] {
			top = t
		}
	}
	for i := top; ; {
		idx.line = append(idx.line, i)
		if len(s.parents(i)) == 0 {
			break
		}
		i = s.parents(i)[0]
	}
	for a, b := 0, len(idx.line)-1; a < b; a, b = a+1, b-1 {
		idx.line[a], idx.line[b] = idx.line[b], idx.line[a]
	}
	for i := range idx.at {
		idx.at[i] = -1
	}
	for k, c := range idx.line {
		// What the k-th commit holds that the one before it does not.
		stack = append(stack[:0], c)
		for len(stack) > 0 {
			i := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if idx.at[i] < 0 {
				idx.at[i] = int32(k)
				stack = append(stack, s.parents(i)...)
			}
		}
	}
	idx.rank = s.dateRanks(tips, idx.held)
	keep := make([]bool, n)
	named := map[string]bool{}
	for i := range s.commits {
		if !idx.held[i] {
			continue
		}
		e := s.entry(int32(i))
		if f.Keep(&e) {
			keep[i] = true
			if ps := s.parents(int32(i)); len(ps) > 0 {
				keep[ps[0]] = true
			}
		}
		if f.Points != nil {
			if sub, ok := f.Points(&e); ok {
				named[sub] = true
			}
		}
	}
	for i := range s.commits {
		if keep[i] || len(named) > 0 && idx.held[i] && named[s.subject(int32(i))] {
			idx.kept = append(idx.kept, int32(i))
		}
	}
	return idx
}

// dateRanks numbers the commits held (the history of tips) in the order
// `git log --date-order <tips>` lists them (dateOrder). A log of the same
// tips that excludes some history lists the rest in the same order: an
// excluded commit is no child of a listed one, so it readies none of
// them, and the children a listed commit waits for are all listed. The
// whole repository's order is not that one (a commit there also waits
// for children on other branches, which may be dated before the tips'
// own commits).
func (s *Shared) dateRanks(tips []int32, held []bool) []int32 {
	rank := make([]int32, len(held))
	deg := make([]int32, len(held))
	for i, h := range held {
		if h {
			for _, p := range s.parents(int32(i)) {
				deg[p]++
			}
		}
	}
	h := &dateHeap{s: s}
	for _, i := range tips {
		if deg[i] == 0 {
			deg[i] = -1
			h.push(i)
		}
	}
	heap.Init(h)
	for r := int32(0); h.Len() > 0; r++ {
		i := heap.Pop(h).(dated).i
		rank[i] = r
		for _, p := range s.parents(i) {
			if deg[p]--; deg[p] == 0 {
				heap.Push(h, h.entry(p))
			}
		}
	}
	return rank
}
