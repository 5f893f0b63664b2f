package branches

import (
	"fmt"
	"math/bits"
	"sort"
	"strings"

	"github.com/taskresume/git-taskresume/internal/plan"
	"github.com/taskresume/git-taskresume/internal/ui"
)

// Input is everything the completion rule reads. The caller runs git; the
// rule runs none, so it can be tested on hand-built histories.
type Input struct {
	Run  string
	Plan *plan.Plan
	// Names, when not nil, are NewNames(Run, Plan) prepared once for
	// several decisions over the same plan.
	Names *Names
	// Branches are the run's task branches ("<run>-task-*"), local and
	// remote-only.
	Branches []Branch
	// BeforePlan names the branches made before the commit that added the
	// plan (they do not hold it): an earlier plan's that reused the run id,
	// never this plan's tasks'.
	BeforePlan map[string]bool
	// Bounds are tips that bound a task's work without being a task's:
	// "<run>-main" when it is not the base.
	Bounds []string
	// Walk holds the commits reachable from the branch tips (and Bounds)
	// and not from the base.
	Walk []CommitInfo
	// DefaultHeld marks the commits of Walk that the default branch holds,
	// when the default branch is not the base: someone else's work that an
	// agent synced in, a task's only when its own words name the task.
	DefaultHeld map[string]bool
	// Trees maps commits of the walk and its boundary to their trees: a
	// commit with its parent's tree changes nothing.
	Trees map[string]string
	// Landed are the base's commits since the run started, newest first.
	Landed []CommitInfo
	// BaseShared is true when the base is a branch other runs share (the
	// default branch, a --base), false for the run's own "<run>-main".
	BaseShared bool
	// LandedDefault are the default branch's commits since the run
	// started that the base does not hold, newest first (none when the
	// default branch is the base).
	LandedDefault []CommitInfo
	// Interrupted maps a task branch to why its last attempt stopped
	// mid-way (uncommitted changes, a stopped rebase in a worktree on it):
	// the commits it holds are not the task's finished work.
	Interrupted map[string]string
	// Discarded are task branch tips that git taskclean deleted to force
	// the task to run again (their saves under refs/taskclean/): what they
	// hold is no task's work, even where another branch still holds it.
	// Their tips must be in the walk.
	Discarded []Discard
}

// Discard is a task branch a clean deleted, and when.
type Discard struct {
	Name, OID, Stamp string
}

// Landing is the evidence that a task's work reached the base or the
// default branch.
type Landing struct {
	How    LandingHow `json:"how"`
	Commit string     `json:"commit"`
	Ref    LandingRef `json:"ref"`
}

// LandingHow is how a task's work reached a branch: the "how" of a landing.
type LandingHow string

const (
	// ByMerge: a merge commit names the task's branch.
	ByMerge LandingHow = "merge"
	// ByCommit: commits naming the task reached it (a fast-forward, a
	// rebase, a cherry-pick).
	ByCommit LandingHow = "commit"
	// BySquash: one commit carries the task's whole change.
	BySquash LandingHow = "squash"
)

// AllLandingHows lists every LandingHow.
func AllLandingHows() []LandingHow { return []LandingHow{ByMerge, ByCommit, BySquash} }

// LandingRef is where a task's work landed: the "ref" of a landing.
type LandingRef string

const (
	OnBase    LandingRef = "base"    // the run's base
	OnDefault LandingRef = "default" // a default branch the base lacks
)

// AllLandingRefs lists every LandingRef.
func AllLandingRefs() []LandingRef { return []LandingRef{OnBase, OnDefault} }

// TaskState is the verdict on one task.
type TaskState struct {
	Task   *plan.Task
	Status Status
	// Branch is the branch counted: the one holding the task's work, else
	// the first branch named for the task.
	Branch *Branch
	// Duplicates are the task's other branches (retries, renumbered
	// attempts).
	Duplicates []Branch
	// OwnCommits counts the commits of Branch that are this task's work.
	OwnCommits int
	// StackParent names what Branch is stacked on: a task id, or a branch
	// name when that branch is no task's; "" for the base.
	StackParent string
	// From is the commit Branch's work starts from: its stack parent's tip,
	// else the one commit of the base it left from ("" when that is not
	// one commit). The task's combined change is From..Branch.
	From string
	// To is the commit Branch's work for this task ends at: Branch's tip,
	// unless another task's work is on top of it on the same branch (a
	// task stacked on this one, this one's branch gone). ToTime is its
	// commit time. The task's combined change is From..To.
	To     string
	ToTime int64
	Landed *Landing
	// Doubts are why work that may be this task's was not counted.
	Doubts []string
	// Interrupted says why the task is interrupted (Status Interrupted),
	// and InterruptedBranch on which branch; Leftover names an interrupted
	// attempt beside the finished work that makes the task done.
	Interrupted, InterruptedBranch, Leftover string
}

// Verdict is the rule's answer for a run.
type Verdict struct {
	States []TaskState
	// Unknown are the run's branches that are no task's, with why.
	Unknown []UnknownBranch
	// ByBranch maps each branch of the run to its task id ("" when it is
	// unknown).
	ByBranch map[string]string
	// Mismatched are the branches whose commits name other tasks than the
	// one their name names (a renumbered plan): the work goes to the
	// tasks the commits name.
	Mismatched []Mismatch
}

// Mismatch is a branch named for one task whose commits name others.
type Mismatch struct {
	Branch string
	Task   string   // by the name
	Work   []string // by the commits
}

// UnknownBranch is a branch of the run that names no task of the plan.
type UnknownBranch struct {
	Branch Branch
	Why    string
}

// Decide applies the completion rule (docs/DESIGN.md, "When a task is
// done"): a task is done when its work is on a branch or has landed, and
// its work is what its branch adds beyond its stack parent that no other
// task's evidence claims.
func Decide(in Input) Verdict {
	names := in.Names
	if names == nil {
		names = NewNames(in.Run, in.Plan)
	}
	g := newInfoGraph(in.Walk)
	v := Verdict{ByBranch: map[string]string{}}

	bs := append([]Branch(nil), in.Branches...)
	sort.SliceStable(bs, func(i, j int) bool { return bs[i].Name < bs[j].Name })

	// Each tip's ancestors inside the walk; nil when the base holds the tip.
	anc := make([]bitset, len(bs))
	for i, b := range bs {
		if idx, ok := g.index[b.OID]; ok {
			anc[i] = g.ancestors(idx)
		}
	}
	type bound struct {
		tip int
		anc bitset
	}
	var bounds []bound
	for _, oid := range in.Bounds {
		if idx, ok := g.index[oid]; ok {
			bounds = append(bounds, bound{idx, g.ancestors(idx)})
		}
	}
	// own[i]: what branch i adds beyond every other tip that is its
	// ancestor (a tip at the same commit is no ancestor: evidence decides).
	own := make([]bitset, len(bs))
	parent := make([]int, len(bs))
	from := make([]string, len(bs))
	for i := range bs {
		parent[i] = -1
		if anc[i] == nil {
			continue
		}
		own[i] = anc[i].clone()
		best := 0
		for j := range bs {
			if j == i || anc[j] == nil || bs[j].OID == bs[i].OID || !anc[i].has(g.index[bs[j].OID]) {
				continue
			}
			own[i].andNot(anc[j])
			if c := anc[j].count(); c > best {
				best, parent[i] = c, j
			}
		}
		// A bound at this tip or below it takes what it holds; one above
		// it (the task merged into it) takes nothing.
		boundFrom := ""
		for _, b := range bounds {
			if anc[i].has(b.tip) {
				own[i].andNot(b.anc)
				if c := b.anc.count(); c > best {
					best, boundFrom = c, in.Walk[b.tip].OID
				}
			}
		}
		switch {
		case boundFrom != "":
			from[i] = boundFrom
		case parent[i] >= 0:
			from[i] = bs[parent[i]].OID
		default:
			from[i] = leftFrom(in.Walk, g, own[i])
		}
	}

	namings := make([]Naming, len(in.Walk))
	// notWork: a merge (merging is not the task's work), a cherry-picked
	// copy of another commit, a commit that changes nothing unless its own
	// words name the task (then the agent says the task is done).
	notWork := make([]bool, len(in.Walk))
	for i := range in.Walk {
		c := &in.Walk[i]
		namings[i] = names.Name(c, in.DefaultHeld[c.OID])
		empty := len(c.Parents) == 1 && c.Tree != "" && in.Trees[c.Parents[0]] == c.Tree
		notWork[i] = isMerge(c) || c.PickedFrom != "" || empty && namings[i].Task == ""
	}

	// A commit of the run that a later commit of the run reverts is no
	// work, nor is the revert: together they change nothing.
	undone := map[int]string{}
	for oid, by := range reverted(in.Walk) {
		if c, ok := g.index[oid]; ok {
			undone[c] = by
			notWork[c] = true
			if b, ok := g.index[by]; ok {
				notWork[b] = true
			}
		}
	}

	// What a clean discarded (a deleted task branch, saved) is nobody's
	// work: the user asked for the task to run again. A branch of the same
	// name that holds the saved tip again (--undo) takes it back.
	discarded := map[int]string{}
	for _, d := range in.Discarded {
		idx, ok := g.index[d.OID]
		if !ok {
			continue
		}
		back := false
		for i, b := range bs {
			back = back || b.Name == d.Name && anc[i] != nil && anc[i].has(idx)
		}
		if back {
			continue
		}
		// Only what the deleted branch added: not what the run's other
		// branches below its tip hold (a stack's parents keep their
		// finished work), nor commits whose words name another task.
		set := g.ancestors(idx)
		for i, b := range bs {
			if b.Name != d.Name && anc[i] != nil && b.OID != d.OID && set.has(g.index[b.OID]) {
				set.andNot(anc[i])
			}
		}
		for _, b := range bounds {
			if set.has(b.tip) && in.Walk[b.tip].OID != d.OID {
				set.andNot(b.anc)
			}
		}
		own := names.Task(d.Name)
		set.each(func(c int) {
			if t := namings[c].Task; t != "" && t != own {
				return
			}
			if discarded[c] == "" {
				discarded[c] = d.Name
				notWork[c] = true
			}
		})
	}

	// inOwn counts, per commit, the branches that add it: only a commit
	// one branch alone adds can speak for that branch's task (a branch made
	// at another's tip holds that one's commits, not work of its own).
	inOwn := make([]int, len(in.Walk))
	for i := range bs {
		if own[i] != nil {
			own[i].each(func(c int) { inOwn[c]++ })
		}
	}
	// Which task each branch is: its name, unless it was made before the
	// plan or every task its own commits name is none of this plan's.
	task := make([]string, len(bs))
	for i, b := range bs {
		byName := names.Task(b.Name)
		v.ByBranch[b.Name] = ""
		if byName == "" {
			v.Unknown = append(v.Unknown, UnknownBranch{b, "its name names no task of the plan"})
			continue
		}
		if in.BeforePlan[b.Name] {
			v.Unknown = append(v.Unknown, UnknownBranch{b, "it was made before the commit that added the plan (an earlier plan that reused the run id?)"})
			continue
		}
		named := map[string]bool{}
		marked := false
		if own[i] != nil {
			own[i].each(func(c int) {
				if notWork[c] || in.DefaultHeld[in.Walk[c].OID] || inOwn[c] > 1 {
					return
				}
				if namings[c].Marked {
					marked = true
				}
				if namings[c].Task != "" {
					named[namings[c].Task] = true
				}
			})
		}
		switch {
		case !marked || named[byName]:
			task[i] = byName
		case len(named) == 0:
			v.Unknown = append(v.Unknown, UnknownBranch{b, "its commits name tasks this plan does not have (an earlier plan that reused the run id?)"})
		default:
			// Its commits name another task (a renumbered plan, or a
			// branch made on that task's work): they are credited to that
			// task, but the branch stays its name's, so that a fresh
			// task's worktree is never taken for a finished task's.
			task[i] = byName
		}
		v.ByBranch[b.Name] = task[i]
		if task[i] != "" && len(named) > 0 && !named[task[i]] {
			v.Mismatched = append(v.Mismatched, Mismatch{Branch: b.Name, Task: task[i], Work: sortedKeys(named)})
		}
	}

	// The commits an interrupted attempt made (its branch's own commits)
	// are no finished work of the task whose attempt stopped, on whatever
	// branch they sit: a copy of the branch, or the next task's branch
	// made at its tip, holds nothing the attempt did not.
	stopTask := map[int]string{}
	stopWhy := map[string]string{}
	stopBranch := map[string]string{}
	for i := range bs {
		why := in.Interrupted[bs[i].Name]
		if why == "" || task[i] == "" {
			continue
		}
		if stopWhy[task[i]] == "" {
			stopWhy[task[i]], stopBranch[task[i]] = why, bs[i].Name
		}
		if own[i] != nil {
			own[i].each(func(c int) {
				if stopTask[c] == "" {
					stopTask[c] = task[i]
				}
			})
		}
	}

	// Credit each commit a branch adds: to the task its words name, else
	// (no mark, not the default branch's) to the branch's task, unless two
	// tasks' branches add it: then to neither.
	structural := map[int]map[string]bool{}
	for i := range bs {
		if task[i] == "" || own[i] == nil {
			continue
		}
		own[i].each(func(c int) {
			if notWork[c] || namings[c].Marked || in.DefaultHeld[in.Walk[c].OID] {
				return
			}
			if structural[c] == nil {
				structural[c] = map[string]bool{}
			}
			structural[c][task[i]] = true
		})
	}
	credits := map[string]map[int]int{}     // task -> branch index -> commits
	stoppedWork := map[string]map[int]int{} // the same, for what stopped attempts made
	// creditedOn[i]: the finished commits of branch i, by the task
	// credited: one branch may carry several tasks' work (a task stacked
	// on another whose branch is gone), each with its own start.
	creditedOn := map[int]map[string][]int{}
	credit := func(id string, i, c int) {
		m := credits
		if stopTask[c] == id {
			m = stoppedWork
		} else {
			if creditedOn[i] == nil {
				creditedOn[i] = map[string][]int{}
			}
			creditedOn[i][id] = append(creditedOn[i][id], c)
		}
		if m[id] == nil {
			m[id] = map[int]int{}
		}
		m[id][i]++
	}
	// shared[task] = the commits it shares with other tasks' branches, and
	// with which tasks.
	type share struct {
		commits map[string]bool
		with    map[string]bool
	}
	shared := map[string]*share{}
	for i := range bs {
		if task[i] == "" || own[i] == nil {
			continue
		}
		own[i].each(func(c int) {
			ci := &in.Walk[c]
			switch {
			case notWork[c]:
			case namings[c].Task != "":
				credit(namings[c].Task, i, c)
				for _, id := range namings[c].Also {
					credit(id, i, c)
				}
			case namings[c].Marked || in.DefaultHeld[ci.OID]:
			case len(structural[c]) > 1:
				sh := shared[task[i]]
				if sh == nil {
					sh = &share{map[string]bool{}, map[string]bool{}}
					shared[task[i]] = sh
				}
				sh.commits[ci.OID] = true
				for id := range structural[c] {
					if id != task[i] {
						sh.with[id] = true
					}
				}
			default:
				credit(task[i], i, c)
			}
		})
	}
	doubts := map[string][]string{}
	for i := range bs {
		if task[i] == "" || own[i] == nil {
			continue
		}
		from := map[string]int{}
		reverts := map[string]int{}
		own[i].each(func(c int) {
			if name := discarded[c]; name != "" {
				from[name]++
			}
			if by := undone[c]; by != "" {
				reverts[short(by)]++
			}
		})
		for _, by := range sortedKeys(countKeys(reverts)) {
			doubts[task[i]] = append(doubts[task[i]], fmt.Sprintf("branch %s reverts %s of its own (by %s): counted for no task",
				bs[i].Name, ui.Plural(reverts[by], "commit"), by))
		}
		for _, name := range sortedKeys(countKeys(from)) {
			doubts[task[i]] = append(doubts[task[i]], fmt.Sprintf("branch %s holds %s of %s, which git taskclean deleted so that its task runs again: counted for no task",
				bs[i].Name, ui.Plural(from[name], "commit"), name))
		}
	}
	for id, sh := range shared {
		doubts[id] = append(doubts[id], fmt.Sprintf("%s that name no task %s on the branches of tasks %s alike: counted for none (name the task in their subjects, \"[Task %s] ...\", to count them)",
			ui.Plural(len(sh.commits), "commit"), isAre(len(sh.commits)), strings.Join(append([]string{id}, sortedKeys(sh.with)...), ", "), id))
	}

	landed, revertDoubts := landings(in, names, bs, task)
	for id, ds := range revertDoubts {
		doubts[id] = append(doubts[id], ds...)
	}

	for _, t := range in.Plan.Tasks() {
		st := TaskState{Task: t, Landed: landed[t.ID]}
		var mine []int
		for i := range bs {
			if task[i] == t.ID {
				mine = append(mine, i)
			}
		}
		// The branch counted: the task's own branch holding most of its
		// work, else any branch holding it (its commits name it), else its
		// first branch. Without finished work, the same among the branches
		// holding what a stopped attempt made.
		work := credits[t.ID]
		if len(work) == 0 {
			work = stoppedWork[t.ID]
		}
		best := -1
		better := func(i int) bool {
			if best < 0 {
				return true
			}
			mi, mb := task[i] == t.ID, task[best] == t.ID
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
		if best < 0 && len(mine) > 0 {
			best = mine[0]
		}
		if best >= 0 {
			b := bs[best]
			st.Branch = &b
			st.OwnCommits = work[best]
			st.From = from[best]
			st.To, st.ToTime = b.OID, b.CommitTime.Unix()
			// Other tasks' finished work on the same branch: this task's
			// change is its own commits', when they are one line.
			if len(creditedOn[best]) > 1 {
				mineOn := creditedOn[best][t.ID]
				f, h := setFrom(in.Walk, mineOn), setHead(in.Walk, mineOn)
				if f != "" && h >= 0 {
					st.From, st.To, st.ToTime = f, in.Walk[h].OID, in.Walk[h].Time
				}
			}
			if p := parent[best]; p >= 0 {
				st.StackParent = task[p]
				if st.StackParent == "" {
					st.StackParent = bs[p].Name
				}
			}
		}
		for _, i := range mine {
			if i != best {
				st.Duplicates = append(st.Duplicates, bs[i])
			}
		}
		switch {
		case st.Landed != nil:
			// Landed evidence wins over what an attempt left.
			st.Status = Landed
			st.Leftover = stopWhy[t.ID]
		case len(credits[t.ID]) > 0:
			// Finished work on a branch stands beside a stopped retry.
			st.Status = Completed
			st.Leftover = stopWhy[t.ID]
		case len(stoppedWork[t.ID]) > 0:
			// Work committed in part, then the agent stopped.
			st.Status = Interrupted
			st.Interrupted, st.InterruptedBranch = stopWhy[t.ID], stopBranch[t.ID]
		case len(mine) > 0:
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
			st.Doubts = append(st.Doubts, doubts[t.ID]...)
		}
		v.States = append(v.States, st)
	}
	return v
}

// landings finds, per task, the newest evidence that its work reached the
// base or the default branch since the run started. A reverted commit is
// no evidence, nor is anything a reverted merge brought in; the tasks it
// would have landed get a doubt naming the revert.
func landings(in Input, names *Names, bs []Branch, task []string) (map[string]*Landing, map[string][]string) {
	out := map[string]*Landing{}
	doubts := map[string][]string{}
	byName := map[string]string{}
	for i, b := range bs {
		byName[b.Name] = task[i]
	}
	all := append(append([]CommitInfo(nil), in.Landed...), in.LandedDefault...)
	voided := reverted(all)
	saidRevert := map[string]bool{}
	scan := func(cs []CommitInfo, shared bool, ref LandingRef) {
		for i := range cs {
			c := &cs[i]
			id, how := "", LandingHow("")
			var also []string
			if isMerge(c) {
				for _, name := range MergedBranches(in.Run, c.Subject) {
					t, ok := byName[name]
					if !ok {
						t = names.Task(name)
					}
					if t == "" {
						continue
					}
					if id == "" {
						id = t
					} else {
						also = append(also, t)
					}
					how = ByMerge
				}
			} else if nm := names.Name(c, shared); nm.Task != "" {
				id, how, also = nm.Task, ByCommit, nm.Also
			}
			for _, id := range append([]string{id}, also...) {
				if id == "" {
					continue
				}
				if by := voided[c.OID]; by != "" {
					// One line per revert: a reverted merge voids the
					// commits it brought in too.
					if !saidRevert[id+" "+by] {
						saidRevert[id+" "+by] = true
						doubts[id] = append(doubts[id], fmt.Sprintf("its work landed in %s but was reverted by %s", short(c.OID), short(by)))
					}
					continue
				}
				if out[id] == nil {
					out[id] = &Landing{How: how, Commit: c.OID, Ref: ref}
				}
			}
		}
	}
	scan(in.Landed, in.BaseShared, OnBase)
	scan(in.LandedDefault, true, OnDefault)
	for id := range out {
		delete(doubts, id) // landed again later: the revert no longer matters
	}
	return out, doubts
}

// reverted maps each commit of cs that a later commit of cs reverts (and,
// for a reverted merge, each commit the merge brought in) to the revert. A
// revert that was itself reverted voids nothing. cs is newest first.
func reverted(cs []CommitInfo) map[string]string {
	byOID := make(map[string]*CommitInfo, len(cs))
	for i := range cs {
		byOID[cs[i].OID] = &cs[i]
	}
	voided := map[string]string{}
	for i := range cs {
		c := &cs[i]
		target := c.Reverts
		if target == "" {
			// A revert whose message lost its "This reverts commit"
			// line still says what it reverts by name: the newest older
			// commit of that subject.
			if s, ok := revertedSubject(c.Subject); ok {
				for j := i + 1; j < len(cs); j++ {
					if cs[j].Subject == s {
						target = cs[j].OID
						break
					}
				}
			}
		}
		if target == "" || voided[c.OID] != "" {
			continue
		}
		voided[target] = c.OID
		m := byOID[target]
		if m == nil || !isMerge(m) {
			continue
		}
		// What the merge brought in: reachable from its other parents and
		// not from its first, within the landed commits.
		first := map[string]bool{}
		stack := []string{m.Parents[0]}
		for len(stack) > 0 {
			o := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if first[o] || byOID[o] == nil {
				continue
			}
			first[o] = true
			stack = append(stack, byOID[o].Parents...)
		}
		seen := map[string]bool{}
		stack = append([]string(nil), m.Parents[1:]...)
		for len(stack) > 0 {
			o := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if seen[o] || first[o] || byOID[o] == nil {
				continue
			}
			seen[o] = true
			if voided[o] == "" {
				voided[o] = c.OID
			}
			stack = append(stack, byOID[o].Parents...)
		}
	}
	return voided
}

// revertedSubject is the subject a revert's subject names: `Revert "S"`
// as git writes it, or "revert: S".
func revertedSubject(subject string) (string, bool) {
	if rest, ok := strings.CutPrefix(subject, `Revert "`); ok && strings.HasSuffix(rest, `"`) {
		return strings.TrimSuffix(rest, `"`), true
	}
	if len(subject) > 7 && strings.EqualFold(subject[:7], "revert:") {
		return strings.TrimSpace(subject[7:]), true
	}
	return "", false
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

// newInfoGraph indexes the walked commits for in-memory reachability.
func newInfoGraph(cs []CommitInfo) *graph {
	g := &graph{index: make(map[string]int, len(cs)), parents: make([][]int, len(cs))}
	for i, c := range cs {
		g.index[c.OID] = i
	}
	for i, c := range cs {
		for _, p := range c.Parents {
			if j, ok := g.index[p]; ok {
				g.parents[i] = append(g.parents[i], j)
			}
		}
	}
	return g
}

func (b bitset) each(fn func(int)) {
	for wi, w := range b {
		for w != 0 {
			fn(wi*64 + bits.TrailingZeros64(w))
			w &= w - 1
		}
	}
}

func countKeys(m map[string]int) map[string]bool {
	out := make(map[string]bool, len(m))
	for k := range m {
		out[k] = true
	}
	return out
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func short(oid string) string {
	if len(oid) > 12 {
		return oid[:12]
	}
	return oid
}

// isAre agrees a verb with a count.
func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}
