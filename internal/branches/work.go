package branches

// bound is a tip that bounds a task's work without being a task's
// ("<run>-main" when it is not the base): its index in the walk, and its
// ancestors there.
type bound struct {
	tip int
	anc bitset
}

// ownCommits finds what each branch adds (docs/DESIGN.md, "Step 3: what
// each branch adds"): each tip's ancestors in the walk, and from them each
// branch's own commits, stack parent and start.
func (d *decision) ownCommits() {
	g := d.g
	// Each tip's ancestors inside the walk; nil when the base holds the tip.
	d.anc = make([]bitset, len(d.bs))
	for i, b := range d.bs {
		if idx, ok := g.index[b.OID]; ok {
			d.anc[i] = g.ancestors(idx)
		}
	}
	for _, oid := range d.in.Bounds {
		if idx, ok := g.index[oid]; ok {
			d.bounds = append(d.bounds, bound{idx, g.ancestors(idx)})
		}
	}
	d.own = make([]bitset, len(d.bs))
	d.parent = make([]int, len(d.bs))
	d.from = make([]string, len(d.bs))
	for i := range d.bs {
		d.parent[i] = -1
		if d.anc[i] == nil {
			continue
		}
		d.own[i], d.parent[i], d.from[i] = d.adds(i)
	}
}

// adds is what branch i adds beyond every other tip that is its ancestor
// (a tip at the same commit is no ancestor: evidence decides), and beyond
// a bound at its tip or below it (docs/DESIGN.md, "Step 3: what each
// branch adds"); parent is its stack parent (the nearest such tip, -1 for
// none), and from the commit its work starts from: the nearest bound's or
// stack parent's tip, else the one commit of the base it left from.
func (d *decision) adds(i int) (own bitset, parent int, from string) {
	anc, bs := d.anc, d.bs
	own = anc[i].clone()
	parent = -1
	best := 0
	for j := range bs {
		if j == i || anc[j] == nil || bs[j].OID == bs[i].OID || !anc[i].has(d.g.index[bs[j].OID]) {
			continue
		}
		own.andNot(anc[j])
		if c := anc[j].count(); c > best {
			best, parent = c, j
		}
	}
	// A bound at this tip or below it takes what it holds; one above
	// it (the task merged into it) takes nothing.
	boundFrom := ""
	for _, b := range d.bounds {
		if anc[i].has(b.tip) {
			own.andNot(b.anc)
			if c := b.anc.count(); c > best {
				best, boundFrom = c, d.in.Walk[b.tip].OID
			}
		}
	}
	switch {
	case boundFrom != "":
		from = boundFrom
	case parent >= 0:
		from = bs[parent].OID
	default:
		from = leftFrom(d.in.Walk, d.g, own)
	}
	return own, parent, from
}

// leftFrom is the one commit outside the walk that the commits of set
// have as parents: where a branch left the base. "" when there are several
// (a merge of the base) or none.
func leftFrom(walk []CommitInfo, g *graph, set bitset) string {
	out := ""
	several := false
	set.each(func(c int) {
		for _, p := range walk[c].Parents {
			if _, in := g.index[p]; in {
				continue
			}
			if out != "" && out != p {
				several = true
			}
			out = p
		}
	})
	if several {
		return ""
	}
	return out
}

// nameCommits reads which task each commit of the walk names
// (docs/DESIGN.md, "Step 2: which task a commit names"), and marks the
// commits that are no one's work whatever branch adds them
// (docs/DESIGN.md, "Step 4: whose work each commit is"): a merge (merging
// is not the task's work), a cherry-picked copy of another commit, a
// commit that changes nothing unless its own words name the task (then the
// agent says the task is done), a commit that only edits the plan.
func (d *decision) nameCommits() {
	walk := d.in.Walk
	d.namings = make([]Naming, len(walk))
	d.notWork = make([]bool, len(walk))
	by := broughtBy(walk, d.g.index, d.in.Run)
	// A commit the default branches hold reached them by their own
	// merges: another run's merge there makes it that run's on this run's
	// branch too (a task branch made at another run's tip), whichever
	// branch is the base.
	var defBy map[string]string
	for i := range walk {
		if by[i] == "" && d.in.DefaultHeld[walk[i].OID] {
			if defBy == nil {
				defBy = map[string]string{}
				for j, r := range broughtBy(d.in.LandedDefault, nil, d.in.Run) {
					if r != "" {
						defBy[d.in.LandedDefault[j].OID] = r
					}
				}
			}
			by[i] = defBy[walk[i].OID]
		}
	}
	for i := range walk {
		c := &walk[i]
		d.namings[i] = d.names.nameBrought(c, d.in.DefaultHeld[c.OID], by[i])
		empty := len(c.Parents) == 1 && c.Tree != "" && d.in.Trees[c.Parents[0]] == c.Tree
		d.notWork[i] = isMerge(c) || c.PickedFrom != "" || empty && d.namings[i].Task == ""
		// An edit of the plan alone is no work of the tasks its words
		// name, unless their Files name the plan; one naming none is
		// judged by the branch that adds it (creditWork).
		if paths, ok := d.in.PlanOnly[c.OID]; ok {
			var named bool
			if d.namings[i], named = d.names.planWork(d.namings[i], paths); !named {
				d.notWork[i] = true
			}
		}
	}
}

// voidReverts marks a commit of the run that a later commit of the run
// reverts as no work, nor the revert: together they change nothing
// (docs/DESIGN.md, "Step 5: the verdict").
func (d *decision) voidReverts() {
	d.undone = map[int]string{}
	for oid, by := range reverted(d.in.Walk) {
		if c, ok := d.g.index[oid]; ok {
			d.undone[c] = by
			d.notWork[c] = true
			if b, ok := d.g.index[by]; ok {
				d.notWork[b] = true
			}
		}
	}
}

// branchTasks decides which task each branch is (docs/DESIGN.md, "Step 1:
// which task a branch name names"): its name's, unless it was made before
// the plan or every task its own commits name is none of this plan's.
func (d *decision) branchTasks() {
	inOwn := d.addedBy()
	d.task = make([]string, len(d.bs))
	for i, b := range d.bs {
		byName := d.names.Task(b.Name)
		d.v.ByBranch[b.Name] = ""
		if byName == "" {
			d.v.Unknown = append(d.v.Unknown, UnknownBranch{Branch: b, Why: "its name names no task of the plan"})
			continue
		}
		if d.in.BeforePlan[b.Name] {
			d.v.Unknown = append(d.v.Unknown, UnknownBranch{Branch: b, Why: "it was made before the plan's start (an earlier plan under the same run id)", Earlier: true})
			continue
		}
		named, marked := d.ownMarks(i, inOwn)
		switch {
		case !marked || named[byName]:
			d.task[i] = byName
		case len(named) == 0:
			d.v.Unknown = append(d.v.Unknown, UnknownBranch{Branch: b, Why: "its commits name tasks this plan does not have (an earlier plan that reused the run id?)"})
		default:
			// Its commits name another task (a renumbered plan, or a
			// branch made on that task's work): they are credited to that
			// task, but the branch stays its name's, so that a fresh
			// task's worktree is never taken for a finished task's.
			d.task[i] = byName
		}
		d.v.ByBranch[b.Name] = d.task[i]
		if d.task[i] != "" && len(named) > 0 && !named[d.task[i]] {
			d.v.Mismatched = append(d.v.Mismatched, Mismatch{Branch: b.Name, Task: d.task[i], Work: sortedKeys(named)})
		}
	}
}

// addedBy counts, per commit, the branches that add it: only a commit one
// branch alone adds can speak for that branch's task (a branch made at
// another's tip holds that one's commits, not work of its own).
func (d *decision) addedBy() []int {
	inOwn := make([]int, len(d.in.Walk))
	for i := range d.bs {
		if d.own[i] != nil {
			d.own[i].each(func(c int) { inOwn[c]++ })
		}
	}
	return inOwn
}

// ownMarks are the tasks named by the commits that branch i alone adds
// (inOwn counts the branches adding each commit) and that are work, not
// the default branch's nor brought by another run's merge; marked says
// whether any of them carries a task mark (docs/DESIGN.md, "Step 1: which
// task a branch name names").
func (d *decision) ownMarks(i int, inOwn []int) (named map[string]bool, marked bool) {
	named = map[string]bool{}
	if d.own[i] == nil {
		return named, false
	}
	d.own[i].each(func(c int) {
		// Another run's work a merge brought says nothing of this
		// branch's plan, no more than the default branch's does.
		if d.notWork[c] || d.in.DefaultHeld[d.in.Walk[c].OID] || d.namings[c].By != "" || inOwn[c] > 1 {
			return
		}
		if d.namings[c].Marked {
			marked = true
		}
		if d.namings[c].Task != "" {
			named[d.namings[c].Task] = true
		}
	})
	return named, marked
}

// share is the commits naming no task that a task's branch shares with
// other tasks' branches, and with which tasks.
type share struct {
	commits map[string]bool
	with    map[string]bool
}

// creditWork credits each commit a branch adds (docs/DESIGN.md, "Step 4:
// whose work each commit is"): to the task its words name, else (no mark,
// not the default branch's) to the branch's task, unless two tasks'
// branches add it: then to neither, and it is shared.
func (d *decision) creditWork() {
	structural := d.structuralClaims()
	d.credits = map[string]map[int]int{}
	d.stoppedWork = map[string]map[int]int{}
	d.creditedOn = map[int]map[string][]int{}
	d.shared = map[string]*share{}
	for i := range d.bs {
		if d.task[i] == "" || d.own[i] == nil {
			continue
		}
		d.own[i].each(func(c int) {
			ci := &d.in.Walk[c]
			switch {
			case d.notWork[c]:
			case d.namings[c].Task != "":
				d.credit(d.namings[c].Task, i, c)
				for _, id := range d.namings[c].Also {
					d.credit(id, i, c)
				}
			case d.namings[c].Marked || d.in.DefaultHeld[ci.OID]:
			case d.planOnlyFor(c, d.task[i]):
				// Editing the plan is not doing the branch's task.
			case len(structural[c]) > 1:
				d.shareCommit(i, c, structural[c])
			default:
				d.credit(d.task[i], i, c)
			}
		})
	}
}

// structuralClaims maps each commit that some task's branch adds, and
// that only its place in the graph can credit (work whose words name
// nothing, not the default branch's), to the tasks whose branches add it.
func (d *decision) structuralClaims() map[int]map[string]bool {
	structural := map[int]map[string]bool{}
	for i := range d.bs {
		if d.task[i] == "" || d.own[i] == nil {
			continue
		}
		d.own[i].each(func(c int) {
			if d.notWork[c] || d.namings[c].Marked || d.in.DefaultHeld[d.in.Walk[c].OID] || d.planOnlyFor(c, d.task[i]) {
				return
			}
			if structural[c] == nil {
				structural[c] = map[string]bool{}
			}
			structural[c][d.task[i]] = true
		})
	}
	return structural
}

// credit counts commit c of branch i for task id: as finished work, or as
// what a stopped attempt of that task made.
func (d *decision) credit(id string, i, c int) {
	m := d.credits
	if d.stopTask[c] == id {
		m = d.stoppedWork
		if top, ok := d.stopOn[c]; ok {
			// A continued attempt's work is counted on its top branch,
			// which holds all of it.
			i = top
		}
	} else {
		if d.creditedOn[i] == nil {
			d.creditedOn[i] = map[string][]int{}
		}
		d.creditedOn[i][id] = append(d.creditedOn[i][id], c)
	}
	if m[id] == nil {
		m[id] = map[int]int{}
	}
	m[id][i]++
}

// shareCommit records commit c, which names no task, as shared by branch
// i's task with the other tasks in claims, whose branches add it too.
func (d *decision) shareCommit(i, c int, claims map[string]bool) {
	sh := d.shared[d.task[i]]
	if sh == nil {
		sh = &share{map[string]bool{}, map[string]bool{}}
		d.shared[d.task[i]] = sh
	}
	sh.commits[d.in.Walk[c].OID] = true
	for id := range claims {
		if id != d.task[i] {
			sh.with[id] = true
		}
	}
}
