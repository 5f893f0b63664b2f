package branches

import (
	"fmt"
	"strings"

	"github.com/taskresume/git-taskresume/internal/plan"
	"github.com/taskresume/git-taskresume/internal/ui"
)

// workDoubts says, per task, why work on its branches was not counted
// (docs/DESIGN.md, "Step 5: the verdict"): reverted there, discarded by a
// clean, or added alike by other tasks' branches.
func (d *decision) workDoubts() {
	d.doubts = map[string][]string{}
	for i := range d.bs {
		if d.task[i] == "" || d.own[i] == nil {
			continue
		}
		d.branchDoubts(i)
	}
	for id, sh := range d.shared {
		d.doubts[id] = append(d.doubts[id], fmt.Sprintf("%s that name no task %s on the branches of tasks %s alike: counted for none (name the task in their subjects, \"[Task %s] ...\", to count them)",
			ui.Plural(len(sh.commits), "commit"), isAre(len(sh.commits)), strings.Join(append([]string{id}, sortedKeys(sh.with)...), ", "), id))
	}
}

// branchDoubts adds to branch i's task a doubt per revert of the branch's
// own commits, then one per discarded branch whose commits it holds.
func (d *decision) branchDoubts(i int) {
	from := map[string]int{}
	reverts := map[string]int{}
	d.own[i].each(func(c int) {
		if name := d.discarded[c]; name != "" {
			from[name]++
		}
		if by := d.undone[c]; by != "" {
			reverts[short(by)]++
		}
	})
	id, name := d.task[i], d.bs[i].Name
	for _, by := range sortedKeys(countKeys(reverts)) {
		d.doubts[id] = append(d.doubts[id], fmt.Sprintf("branch %s reverts %s of its own (by %s): counted for no task",
			name, ui.Plural(reverts[by], "commit"), by))
	}
	for _, gone := range sortedKeys(countKeys(from)) {
		d.doubts[id] = append(d.doubts[id], fmt.Sprintf("branch %s holds %s of %s, which git taskclean deleted so that its task runs again: counted for no task",
			name, ui.Plural(from[gone], "commit"), gone))
	}
}

// taskState is the verdict on task t (docs/DESIGN.md, "Step 5: the
// verdict"), landed the evidence that its work reached the base or the
// default branch (nil for none).
func (d *decision) taskState(t *plan.Task, landed *Landing) TaskState {
	st := TaskState{Task: t, Landed: landed}
	var mine []int
	for i := range d.bs {
		if d.task[i] == t.ID {
			mine = append(mine, i)
		}
	}
	// The branch counted: the task's own branch holding most of its
	// work, else any branch holding it (its commits name it), else its
	// first branch. Without finished work, the same among the branches
	// holding what a stopped attempt made.
	work := d.credits[t.ID]
	if len(work) == 0 {
		work = d.stoppedWork[t.ID]
	}
	best := d.mostWork(t.ID, work)
	if best < 0 && len(mine) > 0 {
		best = mine[0]
	}
	if best >= 0 {
		d.countBranch(&st, best, work[best])
		if len(d.credits[t.ID]) == 0 && d.in.Interrupted[d.bs[best].Name] != "" {
			// A stopped attempt continued on this branch starts where the
			// first branch of its line did.
			line := d.attemptLine(best)
			first := line[len(line)-1]
			st.From, st.StackParent = d.from[first], d.stackParent(first)
		}
	}
	for _, i := range mine {
		if i != best {
			st.Duplicates = append(st.Duplicates, d.bs[i])
		}
	}
	d.judge(&st, len(mine) > 0)
	return st
}

// mostWork is the branch holding most of task id's work (commits per
// branch index), the task's own branches first, the first by name on a
// tie; -1 when no branch holds any.
func (d *decision) mostWork(id string, work map[int]int) int {
	best := -1
	better := func(i int) bool {
		if best < 0 {
			return true
		}
		mi, mb := d.task[i] == id, d.task[best] == id
		if mi != mb {
			return mi
		}
		ni, nb := work[i], work[best]
		return ni > nb || ni == nb && i < best
	}
	for i := range work {
		if better(i) {
			best = i
		}
	}
	return best
}

// countBranch sets on st the branch counted, bs[best], holding own of the
// task's commits: where its work starts and ends, and its stack parent.
func (d *decision) countBranch(st *TaskState, best, own int) {
	b := d.bs[best]
	st.Branch = &b
	st.OwnCommits = own
	st.From = d.from[best]
	st.To, st.ToTime = b.OID, b.CommitTime.Unix()
	// Other tasks' finished work on the same branch: this task's
	// change is its own commits', when they are one line.
	if len(d.creditedOn[best]) > 1 {
		mineOn := d.creditedOn[best][st.Task.ID]
		f, h := setFrom(d.in.Walk, mineOn), setHead(d.in.Walk, mineOn)
		if f != "" && h >= 0 {
			st.From, st.To, st.ToTime = f, d.in.Walk[h].OID, d.in.Walk[h].Time
		}
	}
	st.StackParent = d.stackParent(best)
	// A branch counted for another task than its name's (the commits
	// name that task) is stale for its name's task only.
	if sb := d.stale[best]; sb != nil && sb.Dep != st.Task.ID {
		c := *sb
		st.StaleBase = &c
	}
}

// stackParent names what branch i is stacked on: a task id, or a branch
// name when that branch is no task's; "" for the base.
func (d *decision) stackParent(i int) string {
	p := d.parent[i]
	if p < 0 {
		return ""
	}
	if d.task[p] != "" {
		return d.task[p]
	}
	return d.bs[p].Name
}

// judge sets st's status (docs/DESIGN.md, "Step 5: the verdict"): landed,
// completed, interrupted, empty (hasBranch: the task has a branch) or
// pending; and what a task done reports beside it, or the doubts of a task
// not done.
func (d *decision) judge(st *TaskState, hasBranch bool) {
	id := st.Task.ID
	switch {
	case st.Landed != nil:
		// Landed evidence wins over what an attempt left.
		st.Status = Landed
		st.Leftover = d.stopWhy[id]
	case len(d.credits[id]) > 0:
		// Finished work on a branch stands beside a stopped retry.
		st.Status = Completed
		st.Leftover = d.stopWhy[id]
	case len(d.stoppedWork[id]) > 0:
		// Work committed in part, then the agent stopped.
		st.Status = Interrupted
		st.Interrupted, st.InterruptedBranch = d.stopWhy[id], d.stopBranch[id]
	case hasBranch:
		st.Status = Empty
	default:
		st.Status = Pending
	}
	// A leftover is news only beside work that is done; an
	// interrupted task says so itself.
	if !st.Status.Done() {
		st.Leftover = ""
	}
	// A doubt matters only where it leaves the task not done.
	if !st.Status.Done() {
		st.Doubts = append(st.Doubts, d.doubts[id]...)
	}
}

// setFrom is the one commit outside set (indexes into walk) that its
// commits have as parents: where a run of commits starts. "" when there
// are several (the commits are not one line) or none.
func setFrom(walk []CommitInfo, set []int) string {
	in := make(map[string]bool, len(set))
	for _, c := range set {
		in[walk[c].OID] = true
	}
	out := ""
	for _, c := range set {
		for _, p := range walk[c].Parents {
			if in[p] {
				continue
			}
			if out != "" && out != p {
				return ""
			}
			out = p
		}
	}
	return out
}

// setHead is the one commit of set (indexes into walk) that no other
// commit of set has as a parent: where a run of commits ends. -1 when
// there are several or none.
func setHead(walk []CommitInfo, set []int) int {
	parent := map[string]bool{}
	for _, c := range set {
		for _, p := range walk[c].Parents {
			parent[p] = true
		}
	}
	head := -1
	for _, c := range set {
		if !parent[walk[c].OID] {
			if head >= 0 {
				return -1
			}
			head = c
		}
	}
	return head
}
