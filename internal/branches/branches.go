// Package branches finds the branches of a run's tasks and decides, from one
// history walk, which tasks are complete. It runs no git itself: the caller
// hands it the refs and the commits the run added, so the rule can be tested
// on hand-built graphs.
package branches

import (
	"sort"
	"strings"
	"time"

	"github.com/taskresume/git-taskresume/internal/gitcmd"
	"github.com/taskresume/git-taskresume/internal/plan"
)

// Branch is a branch that may belong to a task.
type Branch struct {
	Name       string // short name, x1y2z3-task-2-1-user-service
	Ref        string // full ref name the tip was read from
	OID        string
	CommitTime time.Time
	// Remote is the remote name when the branch was read from
	// refs/remotes/<Remote>/, "" for a local branch.
	Remote string
}

// TaskPrefix is the prefix every task branch of run starts with.
func TaskPrefix(run string) string { return run + "-task-" }

// MainBranch is the run's own branch.
func MainBranch(run string) string { return run + "-main" }

// Match is the result of assigning a run's branches to its tasks.
type Match struct {
	// ByTask maps a task id to the branches that claim it, in name order.
	ByTask map[string][]Branch
	// Unknown holds branches of the run that match no task of the plan.
	Unknown []Branch
}

// MatchBranches assigns each branch whose name starts with "<run>-task-" to
// a task: the task whose branch name it is exactly, else the task with the
// longest dashed id whose prefix "<run>-task-<dashed id>-" it starts with (so
// 1.1.2 wins over 1.1, and 1.10 never matches 1.1).
func MatchBranches(run string, p *plan.Plan, bs []Branch) Match {
	m := Match{ByTask: map[string][]Branch{}}
	exact := map[string]string{}
	type pre struct{ prefix, id string }
	var prefixes []pre
	if p != nil {
		for _, t := range p.Tasks() {
			if _, dup := exact[plan.BranchName(run, t)]; !dup {
				exact[plan.BranchName(run, t)] = t.ID
			}
			prefixes = append(prefixes, pre{plan.BranchPrefix(run, t.ID), t.ID})
		}
	}
	// Longest prefix first, so the first hit is the most specific task.
	sort.SliceStable(prefixes, func(i, j int) bool { return len(prefixes[i].prefix) > len(prefixes[j].prefix) })
	sorted := append([]Branch(nil), bs...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Name < sorted[j].Name })
	for _, b := range sorted {
		if !strings.HasPrefix(b.Name, TaskPrefix(run)) {
			continue
		}
		id, ok := exact[b.Name]
		if !ok {
			for _, pr := range prefixes {
				if strings.HasPrefix(b.Name, pr.prefix) {
					id, ok = pr.id, true
					break
				}
			}
		}
		if !ok {
			m.Unknown = append(m.Unknown, b)
			continue
		}
		m.ByTask[id] = append(m.ByTask[id], b)
	}
	return m
}

// Status is a task's state; the values are the names the JSON report uses (README, "JSON").
type Status string

// Task states.
const (
	Completed Status = "completed"
	Merged    Status = "merged"
	Empty     Status = "empty"
	Pending   Status = "pending"
	Conflict  Status = "conflict"
)

// Done reports whether the state counts toward a complete phase.
func (s Status) Done() bool { return s == Completed || s == Merged }

// TaskState is the verdict on one task.
type TaskState struct {
	Task   *plan.Task
	Status Status
	// Branch is the task's branch when exactly one claims it.
	Branch *Branch
	// Branches lists every claimant when Status is Conflict.
	Branches []Branch
	// OwnCommits counts commits reachable from the tip and not from the
	// stack parent (nor from the base).
	OwnCommits int
	// StackParent is the id of the task whose tip the branch is stacked on,
	// "" when it is the base.
	StackParent string
}

// Decide applies the completion rule (README, "When a task is complete").
//
// run holds the commits reachable from the task tips and not from the base
// (`git rev-list --parents <tips> --not <base>`). A branch's own commits are
// its ancestors inside that set minus the ancestors of its stack parent's
// tip: the nearest earlier task whose tip is in the set and an ancestor of
// this tip. A candidate whose tip the base already holds is never a useful
// parent: it removes nothing the base does not, so the base is used instead.
//
// merged holds the ids of tasks with evidence of having landed on the base.
func Decide(p *plan.Plan, m Match, run []gitcmd.Commit, merged map[string]bool) []TaskState {
	g := newGraph(run)
	tasks := p.Tasks()
	states := make([]TaskState, len(tasks))
	anc := make([]bitset, len(tasks)) // nil when the task has no usable tip in the set
	for i, t := range tasks {
		st := TaskState{Task: t}
		bs := m.ByTask[t.ID]
		switch {
		case len(bs) > 1:
			st.Status = Conflict
			st.Branches = bs
		case len(bs) == 1:
			b := bs[0]
			st.Branch = &b
			if idx, ok := g.index[b.OID]; ok {
				anc[i] = g.ancestors(idx)
				own := anc[i].clone()
				for j := i - 1; j >= 0; j-- {
					if anc[j] == nil {
						continue
					}
					pj := g.index[states[j].Branch.OID]
					if anc[i].has(pj) {
						st.StackParent = tasks[j].ID
						own.andNot(anc[j])
						break
					}
				}
				st.OwnCommits = own.count()
			}
			if st.OwnCommits > 0 {
				st.Status = Completed
			} else {
				st.Status = Empty
			}
		default:
			st.Status = Pending
		}
		if st.Status != Completed && st.Status != Conflict && merged[t.ID] {
			st.Status = Merged
		}
		states[i] = st
	}
	return states
}

// graph indexes the run's commits for in-memory reachability.
type graph struct {
	index   map[string]int
	parents [][]int // parents inside the set only
}

func newGraph(cs []gitcmd.Commit) *graph {
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

func (g *graph) ancestors(start int) bitset {
	seen := newBitset(len(g.parents))
	stack := []int{start}
	seen.set(start)
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, p := range g.parents[n] {
			if !seen.has(p) {
				seen.set(p)
				stack = append(stack, p)
			}
		}
	}
	return seen
}

// bitset is a set of commit indices; one per task keeps memory at
// tasks*commits/8 bytes.
type bitset []uint64

func newBitset(n int) bitset    { return make(bitset, (n+63)/64) }
func (b bitset) set(i int)      { b[i/64] |= 1 << (uint(i) % 64) }
func (b bitset) has(i int) bool { return b[i/64]&(1<<(uint(i)%64)) != 0 }
func (b bitset) clone() bitset  { return append(bitset(nil), b...) }
func (b bitset) andNot(o bitset) {
	for i := range b {
		b[i] &^= o[i]
	}
}
func (b bitset) count() int {
	n := 0
	for _, w := range b {
		for ; w != 0; w &= w - 1 {
			n++
		}
	}
	return n
}

// Relate tells how tip a stands to tip b inside the run's commits: same,
// ahead (b is an ancestor of a), behind, diverged, or differs when one of
// them is already in the base and the set cannot say more.
func Relate(run []gitcmd.Commit, a, b string) string {
	if a == b {
		return "same"
	}
	g := newGraph(run)
	ia, okA := g.index[a]
	ib, okB := g.index[b]
	if !okA || !okB {
		return "differs"
	}
	switch {
	case g.ancestors(ia).has(ib):
		return "ahead"
	case g.ancestors(ib).has(ia):
		return "behind"
	}
	return "diverged"
}
