package resume

import (
	"github.com/taskresume/git-taskresume/internal/branches"
	"github.com/taskresume/git-taskresume/internal/plan"
	"github.com/taskresume/git-taskresume/internal/worktree"
)

// The JSON report's vocabularies: every field whose value is one of a
// fixed set has a type of its own, and its constants are the set.
// docs/JSON.md lists each of them (TestJSONPageListsVocabularies holds
// the two lists together).

// RunStatus is how far the run is (Report.Status).
type RunStatus string

const (
	// RunNotStarted: no task is done.
	RunNotStarted RunStatus = "not_started"
	// RunInProgress: some task is done, or every task of the plan read is
	// but another copy of the plan has more.
	RunInProgress RunStatus = "in_progress"
	// RunCompleted: every task is done.
	RunCompleted RunStatus = "completed"
	// RunUnknown: there is no plan to tell.
	RunUnknown RunStatus = "unknown"
)

// AllRunStatuses are the values of RunStatus.
func AllRunStatuses() []RunStatus {
	return []RunStatus{RunNotStarted, RunInProgress, RunCompleted, RunUnknown}
}

// PhaseStatus is how far a phase is (Phase.Status).
type PhaseStatus string

const (
	// PhaseCompleted: every task of the phase is done.
	PhaseCompleted PhaseStatus = "completed"
	// PhaseInProgress: the phase the run resumes at, some task done.
	PhaseInProgress PhaseStatus = "in_progress"
	// PhaseNotStarted: the phase the run resumes at, no task done.
	PhaseNotStarted PhaseStatus = "not_started"
	// PhaseBlocked: an earlier phase is not complete.
	PhaseBlocked PhaseStatus = "blocked"
	// PhaseOutOfScope: numbered below --from-phase.
	PhaseOutOfScope PhaseStatus = "out_of_scope"
)

// AllPhaseStatuses are the values of PhaseStatus.
func AllPhaseStatuses() []PhaseStatus {
	return []PhaseStatus{PhaseCompleted, PhaseInProgress, PhaseNotStarted, PhaseBlocked, PhaseOutOfScope}
}

// PhaseMode is how a phase's tasks run (Phase.Mode, Resume.Mode): the
// plan's modes.
type PhaseMode string

const (
	// ModeSequential: one task at a time, in plan order.
	ModeSequential = PhaseMode(plan.Sequential)
	// ModeParallel: every incomplete task at once.
	ModeParallel = PhaseMode(plan.Parallel)
)

// AllPhaseModes are the values of PhaseMode.
func AllPhaseModes() []PhaseMode { return []PhaseMode{ModeSequential, ModeParallel} }

// TaskStatus is a task's state (Task.Status): the completion rule's
// verdicts (branches.Status).
type TaskStatus string

const (
	// TaskCompleted: the task's work is on a branch.
	TaskCompleted = TaskStatus(branches.Completed)
	// TaskLanded: the task's work reached the base or the default branch.
	TaskLanded = TaskStatus(branches.Landed)
	// TaskInterrupted: the task's work is on a branch, but its last attempt
	// stopped mid-way. Not done.
	TaskInterrupted = TaskStatus(branches.Interrupted)
	// TaskEmpty: the task has a branch with no work of its own on it.
	TaskEmpty = TaskStatus(branches.Empty)
	// TaskPending: nothing of the task was found.
	TaskPending = TaskStatus(branches.Pending)
)

// AllTaskStatuses are the values of TaskStatus.
func AllTaskStatuses() []TaskStatus {
	return []TaskStatus{TaskCompleted, TaskLanded, TaskInterrupted, TaskEmpty, TaskPending}
}

// Done reports whether the task counts toward a complete phase.
func (s TaskStatus) Done() bool { return branches.Status(s).Done() }

// WorktreeState is the condition of a worktree that matters most to a
// resumer (Worktree.State).
type WorktreeState string

const (
	WorktreeClean = WorktreeState(worktree.Clean)
	WorktreeDirty = WorktreeState(worktree.Dirty)
	// WorktreeMissing: the directory is gone.
	WorktreeMissing = WorktreeState(worktree.Missing)
	WorktreeLocked  = WorktreeState(worktree.Locked)
	// WorktreeDetachedWithCommits: its detached HEAD holds commits no
	// branch has.
	WorktreeDetachedWithCommits = WorktreeState(worktree.Orphaned)
	// WorktreeUnknown: what it holds could not be read.
	WorktreeUnknown WorktreeState = "unknown"
)

// AllWorktreeStates are the values of WorktreeState.
func AllWorktreeStates() []WorktreeState {
	return []WorktreeState{WorktreeClean, WorktreeDirty, WorktreeMissing, WorktreeLocked, WorktreeDetachedWithCommits, WorktreeUnknown}
}

// ResumeKind says where in its phase the run resumes (Resume.Kind).
type ResumeKind string

const (
	// ResumePhaseBoundary: no task of the phase is done yet.
	ResumePhaseBoundary ResumeKind = "phase_boundary"
	// ResumeMidPhase: some task of the phase is done.
	ResumeMidPhase ResumeKind = "mid_phase"
)

// AllResumeKinds are the values of ResumeKind.
func AllResumeKinds() []ResumeKind { return []ResumeKind{ResumePhaseBoundary, ResumeMidPhase} }

// BaseSource says how the base was chosen (BaseRef.Source); resolveBase
// tries them in this order.
type BaseSource string

const (
	BaseFromFlag   BaseSource = "flag"   // --base
	BaseFromConfig BaseSource = "config" // git config taskresume.base
	// BaseRunMain: the run's own branch <run>-main, local or a remote's.
	BaseRunMain      BaseSource = "run-main"
	BaseMain         BaseSource = "main"
	BaseMaster       BaseSource = "master"
	BaseOriginHead   BaseSource = "origin-head"
	BaseOriginMain   BaseSource = "origin-main"
	BaseOriginMaster BaseSource = "origin-master"
)

// AllBaseSources are the values of BaseSource.
func AllBaseSources() []BaseSource {
	return []BaseSource{BaseFromFlag, BaseFromConfig, BaseRunMain, BaseMain, BaseMaster, BaseOriginHead, BaseOriginMain, BaseOriginMaster}
}

// RemoteSource says how the run's remote was chosen (RemoteRead.Source).
type RemoteSource string

const (
	RemoteFromFlag   RemoteSource = "flag"   // --remote
	RemoteFromConfig RemoteSource = "config" // git config taskresume.remote
	// RemoteImplicit: the one remote that holds the run's branches (or
	// several whose copies are equal).
	RemoteImplicit RemoteSource = "implicit"
	// RemoteDefault: several remotes differ, and git's
	// checkout.defaultRemote names one of them.
	RemoteDefault RemoteSource = "default_remote"
)

// AllRemoteSources are the values of RemoteSource.
func AllRemoteSources() []RemoteSource {
	return []RemoteSource{RemoteFromFlag, RemoteFromConfig, RemoteImplicit, RemoteDefault}
}

// PlanPlace says where the copy of the plan read is (PlanSource.Place).
type PlanPlace string

const (
	// PlanInWorkingTree: a worktree's files.
	PlanInWorkingTree PlanPlace = "working_tree"
	// PlanInCommit: a commit.
	PlanInCommit PlanPlace = "commit"
)

// AllPlanPlaces are the values of PlanPlace.
func AllPlanPlaces() []PlanPlace { return []PlanPlace{PlanInWorkingTree, PlanInCommit} }

// Relation is how a local task branch stands to its remote-tracking copy
// (RemoteCopy.Relation), as branches.Relate tells it.
type Relation string

const (
	RelationSame     Relation = "same"
	RelationAhead    Relation = "ahead"    // the copy is an ancestor of the local branch
	RelationBehind   Relation = "behind"   // the local branch is an ancestor of the copy
	RelationDiverged Relation = "diverged" // each has commits the other lacks
	// RelationDiffers: one of them is already in the base, and the run's
	// commits cannot say more.
	RelationDiffers Relation = "differs"
)

// AllRelations are the values of Relation.
func AllRelations() []Relation {
	return []Relation{RelationSame, RelationAhead, RelationBehind, RelationDiverged, RelationDiffers}
}

// ProblemKind says what a problem is about (Problem.Kind).
type ProblemKind string

const (
	// The plan.
	ProblemNoPlan       ProblemKind = "no_plan"
	ProblemPlanWarning  ProblemKind = "plan_warning"
	ProblemPlanDiffers  ProblemKind = "plan_differs"  // another copy differs from the one read
	ProblemPlanDiverged ProblemKind = "plan_diverged" // a copy on a diverged history has tasks the one read lacks

	// The base and where the run started.
	ProblemBaseBehind      ProblemKind = "base_behind"
	ProblemBaseDiverged    ProblemKind = "base_diverged"
	ProblemBaseWithoutPlan ProblemKind = "base_without_plan"
	ProblemNoRunStart      ProblemKind = "no_run_start"

	// Branches and the work on them.
	ProblemUnknownBranch        ProblemKind = "unknown_branch"
	ProblemEarlierPlan          ProblemKind = "earlier_plan" // a branch made before the plan's start (or its re-plan)
	ProblemBranchNamesOtherTask ProblemKind = "branch_names_other_task"
	ProblemDuplicateBranch      ProblemKind = "duplicate_branch"
	ProblemDoubtfulWork         ProblemKind = "doubtful_work"
	ProblemLeftoverAttempt      ProblemKind = "leftover_attempt"
	ProblemReflogWork           ProblemKind = "reflog_work"
	// ProblemStaleBase: a task's branch stands on a dependency's commits
	// that the dependency's branches no longer hold (it was forced to run
	// again): not done until restacked or run again.
	ProblemStaleBase ProblemKind = "stale_base"

	// Worktrees.
	ProblemStaleWorktree      ProblemKind = "stale_worktree"
	ProblemLockedWorktree     ProblemKind = "locked_worktree"
	ProblemUnreadableWorktree ProblemKind = "unreadable_worktree"
	ProblemUnknownWorktree    ProblemKind = "unknown_worktree"
	ProblemUnreachableCommits ProblemKind = "unreachable_commits"
	ProblemStoppedOperation   ProblemKind = "stopped_operation"
	ProblemLiveWorktree       ProblemKind = "live_worktree"
	ProblemSharedWorktreeWork ProblemKind = "shared_worktree_work"

	// The remote and the claims.
	ProblemRemoteDiffers        ProblemKind = "remote_differs"
	ProblemRemoteBranchesUnread ProblemKind = "remote_branches_unread"
	ProblemRemoteAmbiguous      ProblemKind = "remote_ambiguous"
	ProblemRemoteClaimsUnread   ProblemKind = "remote_claims_unread"
	ProblemRemoteMoved          ProblemKind = "remote_moved"
	ProblemClaimConflict        ProblemKind = "claim_conflict"
	ProblemClaimNotRead         ProblemKind = "claim_not_read"
	ProblemClaimAlias           ProblemKind = "claim_alias"
	ProblemClaimOldVersion      ProblemKind = "claim_old_version"
)

// AllProblemKinds are the values of ProblemKind.
func AllProblemKinds() []ProblemKind {
	return []ProblemKind{
		ProblemNoPlan, ProblemPlanWarning, ProblemPlanDiffers, ProblemPlanDiverged,
		ProblemBaseBehind, ProblemBaseDiverged, ProblemBaseWithoutPlan, ProblemNoRunStart,
		ProblemUnknownBranch, ProblemEarlierPlan, ProblemBranchNamesOtherTask, ProblemDuplicateBranch, ProblemDoubtfulWork,
		ProblemLeftoverAttempt, ProblemReflogWork, ProblemStaleBase,
		ProblemStaleWorktree, ProblemLockedWorktree, ProblemUnreadableWorktree, ProblemUnknownWorktree,
		ProblemUnreachableCommits, ProblemStoppedOperation, ProblemLiveWorktree, ProblemSharedWorktreeWork,
		ProblemRemoteDiffers, ProblemRemoteBranchesUnread, ProblemRemoteAmbiguous, ProblemRemoteClaimsUnread, ProblemRemoteMoved,
		ProblemClaimConflict, ProblemClaimNotRead, ProblemClaimAlias, ProblemClaimOldVersion,
	}
}
