// Package branches finds the branches of a run's tasks and decides, from one
// history walk, which tasks are complete. It runs no git itself: the caller
// hands it the refs and the commits the run added, so the rule can be tested
// on hand-built graphs.
package branches

import (
	"math/bits"
	"time"
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
	// Symref is the ref a branch that is a symbolic ref (an alias, such
	// as <run>-main -> refs/heads/main) points to, as for-each-ref's
	// %(symref) gives it (the last ref of a chain); "" for a plain
	// branch. OID is then what the alias resolves to. A clean deletes the
	// alias itself, never what it points to.
	Symref string
}

// TaskPrefix is the prefix every task branch of run starts with.
func TaskPrefix(run string) string { return run + "-task-" }

// MainBranch is the run's own branch.
func MainBranch(run string) string { return run + "-main" }

// Status is a task's state; the values are the names the JSON report uses (docs/JSON.md).
type Status string

// Task states.
const (
	// Completed: the task's work is on a branch.
	Completed Status = "completed"
	// Landed: the task's work reached the base or the default branch.
	Landed Status = "landed"
	// Interrupted: the task's work is on a branch, but its agent stopped
	// mid-way: a worktree on that branch holds uncommitted changes or a
	// stopped rebase or merge (or a clean saved such a worktree and the
	// branch has not moved since). Not done.
	Interrupted Status = "interrupted"
	// Empty: the task has a branch, and no work of its own on it.
	Empty Status = "empty"
	// Pending: nothing of the task was found.
	Pending Status = "pending"
)

// Done reports whether the state counts toward a complete phase.
func (s Status) Done() bool { return s == Completed || s == Landed }

// graph indexes the run's commits for in-memory reachability.
type graph struct {
	index   map[string]int
	parents [][]int // parents inside the set only
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

// each calls fn with each index in b, in increasing order.
func (b bitset) each(fn func(int)) {
	for wi, w := range b {
		for w != 0 {
			fn(wi*64 + bits.TrailingZeros64(w))
			w &= w - 1
		}
	}
}

// Relate tells how tip a stands to tip b inside the run's commits: same,
// ahead (b is an ancestor of a), behind, diverged, or differs when one of
// them is already in the base and the set cannot say more.
func Relate(run []CommitInfo, a, b string) string {
	if a == b {
		return "same"
	}
	g := newInfoGraph(run)
	ia, okA := g.index[a]
	ib, okB := g.index[b]
	// One tip already in the base: it is the other's ancestor when the
	// other's commits leave the base right at it (a branch that stayed
	// where the other started from).
	leavesAt := func(i int, at string) bool {
		found := false
		g.ancestors(i).each(func(c int) {
			for _, p := range run[c].Parents {
				found = found || p == at
			}
		})
		return found
	}
	switch {
	case !okA && okB && leavesAt(ib, a):
		return "behind"
	case okA && !okB && leavesAt(ia, b):
		return "ahead"
	case !okA || !okB:
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
