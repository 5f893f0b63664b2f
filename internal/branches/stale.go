package branches

// StaleBase says that a task's branch is built on work of another task
// (its dependency, X) that X's branches no longer hold: X was forced to
// run again (git taskclean --task X --only) or its branch was rebuilt.
// The task is not done until it is restacked onto X's new tip (or the
// base) or run again (docs/DESIGN.md, "Forced re-execution and its
// dependents").
type StaleBase struct {
	// Dep is the task whose old commits the branch holds.
	Dep string
	// OldTip is the newest of those commits on the branch: the upstream
	// of the restack (git rebase --onto <Onto> <OldTip> <branch>).
	OldTip string
	// Commits counts them.
	Commits int
	// Onto is the branch Dep's work is on now (its counted branch), ""
	// when Dep has none: the restack then goes onto the base.
	Onto string
}

// staleBases finds, per branch of a task, the commits of another task
// that it holds and no branch of that task holds: a base that is gone.
// Whose a commit is comes from git alone, as every clone reads it: its
// own words (a Task-Id trailer, a "[Task X]" subject), or, on the machine
// that ran the clean, the record of the branch it discarded. Commits the
// default branch holds, and those that are no one's work for another
// reason than a discard (merges, cherry-picked copies), are left out: they
// say nothing of a base.
func (d *decision) staleBases() map[int]*StaleBase {
	out := map[int]*StaleBase{}
	kept := map[string]map[int]bool{} // task -> the pieces of work its branches hold
	hasBranch := map[string]bool{}    // tasks a branch is named for
	for j := range d.bs {
		hasBranch[d.task[j]] = true
	}
	for i := range d.bs {
		t := d.task[i]
		if t == "" || d.anc[i] == nil {
			continue
		}
		// A base is below the task's own work: a commit of another task
		// on top of it (a stray, a renumbered plan) is no base. What a
		// merge on the branch brought in is a base too, wherever the
		// merge sits: a dependent that merged its dependency's branch
		// after its own commits stands on that work as a stacked one does.
		seeds := d.creditedOn[i][t]
		if len(seeds) > 0 && d.own[i] != nil {
			seeds = append([]int{}, seeds...)
			d.own[i].each(func(c int) {
				if len(d.g.parents[c]) > 1 {
					seeds = append(seeds, c)
				}
			})
		}
		below := d.belowAll(seeds)
		if below == nil {
			continue
		}
		held := map[string][]int{} // dependency -> its commits on branch i that no branch of it holds
		var order []string
		below.each(func(c int) {
			x := d.ownerOf(c)
			if x == "" || x == t || d.notWork[c] && d.discarded[c] == "" || d.in.DefaultHeld[d.in.Walk[c].OID] {
				return
			}
			// By its words alone, a commit of a task with no branch of
			// its own is that task's work carried on this branch (a lower
			// branch deleted, a renumbered plan): it is counted there,
			// not a base gone. Only the clean's record says it was
			// discarded.
			if d.discarded[c] == "" && !hasBranch[x] {
				return
			}
			// A copy of the commit on a branch of x is x's work held
			// still: a restack rebuilt the stack, it did not drop x.
			if kept[x] == nil {
				kept[x] = d.piecesOf(x)
			}
			if kept[x][d.group[c]] {
				return
			}
			if held[x] == nil {
				order = append(order, x)
			}
			held[x] = append(held[x], c)
		})
		if len(order) == 0 {
			continue
		}
		// The dependency whose old commits sit highest: restacking above
		// them moves the branch off every stale commit below too.
		best, tip := "", -1
		for _, x := range order {
			h := d.newest(held[x])
			if tip < 0 || d.g.ancestors(h).has(tip) {
				best, tip = x, h
			}
		}
		out[i] = &StaleBase{Dep: best, OldTip: d.in.Walk[tip].OID, Commits: len(held[best])}
	}
	return out
}

// belowAll is every commit of the walk below those of set (their
// ancestors, without set's own); nil for an empty set.
func (d *decision) belowAll(set []int) bitset {
	if len(set) == 0 {
		return nil
	}
	seen := newBitset(len(d.in.Walk))
	var stack []int
	for _, c := range set {
		stack = append(stack, d.g.parents[c]...)
	}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen.has(n) {
			continue
		}
		seen.set(n)
		stack = append(stack, d.g.parents[n]...)
	}
	return seen
}

// piecesOf is the pieces of work (a commit and its copies count as one)
// that the branches of task x hold.
func (d *decision) piecesOf(x string) map[int]bool {
	out := map[int]bool{}
	for j := range d.bs {
		if d.task[j] == x && d.anc[j] != nil {
			d.anc[j].each(func(c int) { out[d.group[c]] = true })
		}
	}
	return out
}

// ownerOf is the task a commit of the walk is by git's own record: the
// task its words name, else the task of the branch a clean discarded
// that held it.
func (d *decision) ownerOf(c int) string {
	if n := d.namings[c]; n.Task != "" && n.By == "" {
		return n.Task
	}
	if name := d.discarded[c]; name != "" {
		return d.names.Task(name)
	}
	return ""
}

// newest is the commit of set that no other commit of set descends from:
// where the old work ends (the first in walk order when it is not one line).
func (d *decision) newest(set []int) int {
	if head := setHead(d.in.Walk, set); head >= 0 {
		return head
	}
	return set[0]
}

// MarkStale applies the stale bases found by Decide to the final states,
// once the squash search has said which tasks landed: a dependency that
// landed is no base gone (a forge merged it and deleted its branch; the
// dependent is restacked onto the base as usual), and only a task that
// would be done on its branch is held back. The task then reads empty:
// its branch is kept, its work is not counted until it stands on the
// dependency's work as it is now.
func MarkStale(states []TaskState) {
	byID := map[string]*TaskState{}
	for i := range states {
		byID[states[i].Task.ID] = &states[i]
	}
	for i := range states {
		s := &states[i]
		sb := s.StaleBase
		if sb == nil {
			continue
		}
		dep := byID[sb.Dep]
		if s.Status != Completed || dep == nil || dep.Status == Landed {
			s.StaleBase = nil
			continue
		}
		if dep.Branch != nil {
			sb.Onto = dep.Branch.Name
		}
		s.Status = Empty
		s.Leftover = ""
	}
}
