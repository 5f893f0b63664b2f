package branches

import (
	"sort"

	"github.com/taskresume/git-taskresume/internal/plan"
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
	// BeforePlan names the branches made before the plan's start, the
	// commit that added it or last re-planned it (they do not hold it): an
	// earlier plan's under the same run id, never this plan's tasks'.
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
	// PlanOnly maps each commit whose whole change against its one parent
	// is to the run's plan file(s) to the paths of the plan it changes:
	// editing the plan is not doing a task, so such a commit is no task's
	// work and no evidence that a task landed, whatever its words say,
	// except for a task whose Files name every one of those paths. Only
	// commits of Walk, Landed and LandedDefault matter.
	PlanOnly map[string][]string
	// Discarded are task branch tips that git taskclean deleted to force
	// the task to run again (their saves under refs/taskclean/): what they
	// hold is no task's work, even where another branch still holds it.
	// Their tips must be in the walk.
	Discarded []Discard
	// Copies maps each commit of Walk that has copies (the same patch
	// under another id: a restack, a rebase) among the own commits of the
	// run's branches to a key its copies share, the id of one of them;
	// commits without copies are absent. Copies are one piece of work
	// (docs/DESIGN.md, "Step 4: whose work each commit is").
	Copies map[string]string
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
	// StaleBase: the branch counted stands on another task's work that
	// task's branches no longer hold (set by MarkStale, which makes the
	// task not done).
	StaleBase *StaleBase
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
	// Reverted maps each landed commit that a later landed commit reverts
	// (and what a reverted merge brought in) to the revert: no evidence,
	// for the squash and rebase-merge checks either.
	Reverted map[string]string
}

// Mismatch is a branch named for one task whose commits name others.
type Mismatch struct {
	Branch string
	Task   string   // by the name
	Work   []string // by the commits
	// Restacked: every commit of the branch naming another task is a
	// copy of a commit that another branch of the run adds (the branch
	// was rebuilt on top of the others), not a renumbered plan.
	Restacked bool
}

// UnknownBranch is a branch of the run that names no task of the plan.
type UnknownBranch struct {
	Branch Branch
	Why    string
	// Earlier: the branch was made before the plan's start (Input.BeforePlan):
	// an earlier plan's under the same run id.
	Earlier bool
}

// Decide applies the completion rule (docs/DESIGN.md, "When a task is
// done"): a task is done when its work is on a branch or has landed, and
// its work is what its branch adds beyond its stack parent that no other
// task's evidence claims.
func Decide(in Input) Verdict {
	d := newDecision(in)
	d.ownCommits()
	d.nameCommits()
	d.voidReverts()
	d.discardWork()
	d.groupCopies()
	d.branchTasks()
	d.stoppedAttempts()
	d.creditWork()
	d.workDoubts()
	d.stale = d.staleBases()
	landed, revertDoubts, voided := landings(in, d.names, d.bs, d.task)
	d.v.Reverted = voided
	for id, ds := range revertDoubts {
		d.doubts[id] = append(d.doubts[id], ds...)
	}
	for _, t := range in.Plan.Tasks() {
		d.v.States = append(d.v.States, d.taskState(t, landed[t.ID]))
	}
	return d.v
}

// decision is what the steps of one Decide share: the input, the plan's
// names, the walk's graph, what each step found, and the verdict being
// built. The slices anc, own, parent, from and task are indexed like bs;
// namings and notWork like the walk; the maps keyed by int by the walk's
// index.
type decision struct {
	in    Input
	names *Names
	g     *graph
	v     Verdict
	// bs are the run's branches, sorted by name.
	bs []Branch

	// anc holds each tip's ancestors inside the walk; nil when the base
	// holds the tip. bounds are the tips of Input.Bounds in the walk.
	anc    []bitset
	bounds []bound
	// own is what each branch adds, parent the branch it is stacked on
	// (-1 for none), from the commit its work starts from (step 3).
	own    []bitset
	parent []int
	from   []string

	// namings are what each commit's words name (step 2); notWork marks
	// the commits that are no one's work, whatever branch adds them.
	namings []Naming
	notWork []bool
	// undone maps a commit a later commit of the run reverts to that
	// revert; discarded maps a commit a clean discarded to the deleted
	// branch that held it.
	undone, discarded map[int]string

	// task is the task each branch is, "" for an unknown branch (step 1).
	task []string

	// group maps each commit of the walk to the index of the commit that
	// stands for its piece of work: its first copy in the walk, itself
	// when it has none. heldBy maps such an index to the branches whose
	// own commits hold the piece (sorted, no repeats); patches holds,
	// per branch, the pieces of work it adds, and stacks its originals
	// (firsts maps a piece to its copy committed first), each built when
	// a tie is asked.
	group           []int
	heldBy          map[int][]int
	patches, stacks []map[int]bool
	// lowestOf remembers lowest's answer per piece of work: every copy of
	// a piece, on every branch, asks the same question.
	lowestOf map[int]string
	firsts   map[int]int

	// stopTask maps a commit an interrupted attempt made to its task;
	// stopOn maps the ones a branch below the interrupted one added (the
	// same attempt, continued) to the interrupted branch, where they are
	// counted; stopWhy and stopBranch say, per task, why and on which
	// branch its attempt stopped.
	stopTask            map[int]string
	stopOn              map[int]int
	stopWhy, stopBranch map[string]string

	// credits counts, per task and branch index, the commits credited to
	// the task (step 4); stoppedWork the same for what stopped attempts
	// made. creditedOn[i] holds the finished commits of branch i, by the
	// task credited: one branch may carry several tasks' work (a task
	// stacked on another whose branch is gone), each with its own start.
	credits, stoppedWork map[string]map[int]int
	creditedOn           map[int]map[string][]int
	// shared holds, per task, the commits naming no task that it shares
	// with other tasks' branches.
	shared map[string]*share
	// doubts are, per task, why work that may be its was not counted.
	doubts map[string][]string
	// stale holds, per branch index, the dependency's work it stands on
	// that the dependency's branches no longer hold (MarkStale decides).
	stale map[int]*StaleBase
}

// newDecision starts a decision on in: the plan's names, the walk's graph,
// and the run's branches sorted by name.
func newDecision(in Input) *decision {
	names := in.Names
	if names == nil {
		names = NewNames(in.Run, in.Plan)
	}
	g := newInfoGraph(in.Walk)
	v := Verdict{ByBranch: map[string]string{}}

	bs := append([]Branch(nil), in.Branches...)
	sort.SliceStable(bs, func(i, j int) bool { return bs[i].Name < bs[j].Name })
	return &decision{in: in, names: names, g: g, v: v, bs: bs}
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
