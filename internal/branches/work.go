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

// groupCopies makes copies one piece of work (docs/DESIGN.md, "Step 4:
// whose work each commit is"): each commit of the walk is filed under its
// first copy (Input.Copies), a copy that names no task takes the words of
// one that does (a reworded copy is the same work), and each piece gets
// the branches whose own commits hold it (one commit two branches add
// alike is one piece too).
func (d *decision) groupCopies() {
	walk := d.in.Walk
	d.group = make([]int, len(walk))
	first := map[string]int{}
	named := map[int]Naming{}
	for c := range walk {
		d.group[c] = c
		key, ok := d.in.Copies[walk[c].OID]
		if !ok {
			continue
		}
		if g, seen := first[key]; seen {
			d.group[c] = g
		} else {
			first[key] = c
		}
	}
	// Only the original's words (the copy committed first) pass to its
	// copies: a later copy that names a task does not rename the work it
	// copied (its own words still count for itself).
	if len(d.in.Copies) > 0 {
		orig := d.firstsOf()
		for c := range walk {
			if n := d.namings[c]; n.Task != "" && n.By == "" && orig[d.group[c]] == c {
				named[d.group[c]] = n
			}
		}
	}
	for c := range walk {
		if n, ok := named[d.group[c]]; ok && d.namings[c].Task == "" && !d.namings[c].Marked && d.namings[c].By == "" {
			d.namings[c] = n
		}
	}
	d.heldBy = map[int][]int{}
	for i := range d.bs {
		if d.own[i] == nil {
			continue
		}
		d.own[i].each(func(c int) {
			g := d.group[c]
			if hs := d.heldBy[g]; len(hs) == 0 || hs[len(hs)-1] != i {
				d.heldBy[g] = append(hs, i)
			}
		})
	}
}

// copied says whether commit c, which branch i adds, is a copy (another
// id, the same patch) of a commit that another branch of the run adds.
func (d *decision) copied(i, c int) bool {
	for _, j := range d.heldBy[d.group[c]] {
		if j != i && !d.own[j].has(c) {
			return true
		}
	}
	return false
}

// branchTasks decides which task each branch is (docs/DESIGN.md, "Step 1:
// which task a branch name names"): its name's, unless it was made before
// the plan or every task its own commits name is none of this plan's.
func (d *decision) branchTasks() {
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
		named, copies, marked := d.ownMarks(i)
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
		if d.task[i] == "" {
			continue
		}
		delete(copies, d.task[i])
		switch {
		case len(named) > 0 && !named[d.task[i]]:
			d.v.Mismatched = append(d.v.Mismatched, Mismatch{Branch: b.Name, Task: d.task[i], Work: sortedKeys(named)})
		case len(named) == 0 && len(copies) > 0:
			// Only copies of other branches' commits name other tasks:
			// the branch was rebuilt on top of theirs. The work is
			// theirs (creditWork); it is still said, since merging this
			// branch brings that work too.
			d.v.Mismatched = append(d.v.Mismatched, Mismatch{Branch: b.Name, Task: d.task[i], Work: sortedKeys(copies), Restacked: true})
		}
	}
}

// ownMarks are the tasks named by the commits that branch i alone adds
// and that are work, not the default branch's nor brought by another
// run's merge; marked says whether any of them carries a task mark
// (docs/DESIGN.md, "Step 1: which task a branch name names"). A commit
// another branch adds too, or a copy of one another branch adds, speaks
// for no branch's task (a branch made at another's tip, or rebuilt on top
// of others, holds their work, not its own): copies are the tasks the
// copies name.
func (d *decision) ownMarks(i int) (named, copies map[string]bool, marked bool) {
	named, copies = map[string]bool{}, map[string]bool{}
	if d.own[i] == nil {
		return named, copies, false
	}
	d.own[i].each(func(c int) {
		// Another run's work a merge brought says nothing of this
		// branch's plan, no more than the default branch's does.
		if d.notWork[c] || d.in.DefaultHeld[d.in.Walk[c].OID] || d.namings[c].By != "" {
			return
		}
		if len(d.heldBy[d.group[c]]) > 1 {
			if d.namings[c].Task != "" && d.copied(i, c) {
				copies[d.namings[c].Task] = true
			}
			return
		}
		if d.namings[c].Marked {
			marked = true
		}
		if d.namings[c].Task != "" {
			named[d.namings[c].Task] = true
		}
	})
	return named, copies, marked
}

// share is the commits naming no task that a task's branch shares with
// other tasks' branches, and with which tasks.
type share struct {
	commits map[string]bool
	with    map[string]bool
}

// creditWork credits each commit a branch adds (docs/DESIGN.md, "Step 4:
// whose work each commit is"): to the task its words name, else (no mark,
// not the default branch's) to the branch's task, unless several tasks'
// branches add it or copies of it: then to the task of the branch where
// it sits lowest in the stack, else (a tie) to neither, and it is shared.
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
			case len(structural[d.group[c]]) > 1:
				claims := structural[d.group[c]]
				switch low := d.lowest(d.group[c], claims); {
				case low == d.task[i]:
					d.credit(low, i, c)
				case low == "":
					d.shareCommit(i, c, taskSet(d.task, claims))
				}
			default:
				d.credit(d.task[i], i, c)
			}
		})
	}
}

// structuralClaims maps each piece of work (d.group) that some task's
// branch adds, and that only its place in the graph can credit (work
// whose words name nothing, not the default branch's), to the branches
// that add it, when they are several tasks'.
func (d *decision) structuralClaims() map[int][]int {
	structural := map[int][]int{}
	for i := range d.bs {
		if d.task[i] == "" || d.own[i] == nil {
			continue
		}
		d.own[i].each(func(c int) {
			if d.notWork[c] || d.namings[c].Marked || d.in.DefaultHeld[d.in.Walk[c].OID] || d.planOnlyFor(c, d.task[i]) {
				return
			}
			g := d.group[c]
			if hs := structural[g]; len(hs) == 0 || hs[len(hs)-1] != i {
				structural[g] = append(hs, i)
			}
		})
	}
	for g, hs := range structural {
		if len(taskSet(d.task, hs)) < 2 {
			delete(structural, g)
		}
	}
	return structural
}

// taskSet is the tasks of the branches hs.
func taskSet(task []string, hs []int) map[string]bool {
	out := map[string]bool{}
	for _, i := range hs {
		out[task[i]] = true
	}
	return out
}

// lowest is the task of the branch on which piece of work g sits lowest
// in the stack, among the branches hs that claim it (docs/DESIGN.md,
// "Step 4: whose work each commit is"): the one whose pieces of work are a
// subset of every other claimant's (a branch rebuilt on top of others
// holds their pieces and its own). When several hold the same pieces, the
// piece is its original's: the copy committed first (a copy is made after
// what it copies), on the branch, among those holding that very commit,
// whose originals (its commits committed before their copies) are a
// subset of every other's (the branch that was below the others when they
// were stacked on it: they hold its originals and theirs).
// "" when neither decides, or when the lowest are several tasks' branches.
func (d *decision) lowest(g int, hs []int) string {
	if id, ok := d.lowestOf[g]; ok {
		return id
	}
	if d.lowestOf == nil {
		d.lowestOf = map[int]string{}
	}
	id := d.lowestOnce(g, hs)
	d.lowestOf[g] = id
	return id
}

func (d *decision) lowestOnce(g int, hs []int) string {
	if d.patches == nil {
		d.patches = make([]map[int]bool, len(d.bs))
	}
	for _, i := range hs {
		if d.patches[i] == nil {
			d.patches[i] = map[int]bool{}
			d.own[i].each(func(c int) {
				if !d.notWork[c] {
					d.patches[i][d.group[c]] = true
				}
			})
		}
	}
	low := d.below(hs, d.patches)
	if len(low) == 0 {
		low = hs
	}
	if id, ok := onlyTask(d.task, low); ok {
		// Fewer pieces is not always lower in the stack: a sibling
		// branch that cherry-picked one commit holds fewer too. When
		// one copy was committed before all others (the original) and
		// the lowest branch does not hold it, the two readings
		// disagree: the piece is no one's.
		if f, ok := d.firstsOf()[g]; ok && f >= 0 {
			held := false
			for _, i := range low {
				held = held || d.own[i].has(f)
			}
			if !held {
				return ""
			}
		}
		return id
	}
	// The copy committed first, when one is.
	first, tie := -1, false
	for _, i := range low {
		d.own[i].each(func(c int) {
			if d.group[c] != g {
				return
			}
			switch {
			case first < 0 || d.in.Walk[c].Time < d.in.Walk[first].Time:
				first, tie = c, false
			case c != first && d.in.Walk[c].Time == d.in.Walk[first].Time:
				tie = true
			}
		})
	}
	if first < 0 || tie {
		return ""
	}
	var orig []int
	for _, i := range low {
		if d.own[i].has(first) {
			orig = append(orig, i)
		}
	}
	if id, ok := onlyTask(d.task, orig); ok {
		return id
	}
	if d.stacks == nil {
		d.stacks = make([]map[int]bool, len(d.bs))
	}
	d.firstsOf()
	for _, i := range orig {
		if d.stacks[i] == nil {
			d.stacks[i] = map[int]bool{}
			d.own[i].each(func(c int) {
				if !d.notWork[c] && d.firsts[d.group[c]] == c {
					d.stacks[i][c] = true
				}
			})
		}
	}
	id, _ := onlyTask(d.task, d.below(orig, d.stacks))
	return id
}

// firstsOf is originals, read once.
func (d *decision) firstsOf() map[int]int {
	if d.firsts == nil {
		d.firsts = d.originals()
	}
	return d.firsts
}

// originals maps each piece of work to its copy committed first, when
// one was committed before all the others (-1 when several share the
// first time); a commit without copies is its own original.
func (d *decision) originals() map[int]int {
	first := map[int]int{}
	for c := range d.in.Walk {
		g := d.group[c]
		f, ok := first[g]
		switch {
		case !ok || f >= 0 && d.in.Walk[c].Time < d.in.Walk[f].Time:
			first[g] = c
		case f >= 0 && d.in.Walk[c].Time == d.in.Walk[f].Time:
			first[g] = -1
		}
	}
	return first
}

// below are the branches of hs whose set (sets, by branch) is a subset
// of every other's in hs.
func (d *decision) below(hs []int, sets []map[int]bool) []int {
	subset := func(a, b map[int]bool) bool {
		if len(a) > len(b) {
			return false
		}
		for p := range a {
			if !b[p] {
				return false
			}
		}
		return true
	}
	var out []int
	for _, h := range hs {
		in := true
		for _, i := range hs {
			in = in && subset(sets[h], sets[i])
		}
		if in {
			out = append(out, h)
		}
	}
	return out
}

// onlyTask is the one task of the branches hs, ok false when they are
// none or several tasks'.
func onlyTask(task []string, hs []int) (string, bool) {
	ts := taskSet(task, hs)
	if len(ts) != 1 {
		return "", false
	}
	for id := range ts {
		return id, true
	}
	return "", false
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

// OwnHolders gives, for each commit of in.Walk, the task branches (by
// index in in.Branches) whose own commits (docs/DESIGN.md, "Step 3: what
// each branch adds") hold it: only a commit two branches' own commits hold,
// or copies of it, can be one piece of work on several branches
// (Input.Copies).
func OwnHolders(in Input) [][]int {
	d := newDecision(in)
	d.bs = in.Branches
	d.ownCommits()
	out := make([][]int, len(in.Walk))
	for i := range d.bs {
		if d.own[i] != nil {
			d.own[i].each(func(c int) { out[c] = append(out[c], i) })
		}
	}
	return out
}
