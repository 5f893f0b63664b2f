// Package resume is the git-taskresume workflow: it gathers a run's state
// from git in a fixed number of processes (see Gather) and turns it into the
// report and the JSON document (docs/JSON.md).
package resume

import (
	"time"

	"github.com/taskresume/git-taskresume/internal/branches"
	"github.com/taskresume/git-taskresume/internal/claims"
)

// SchemaVersion is the version of the JSON report; fields may be added
// without changing it, never renamed. 2: task status "merged" became
// "landed" (with "landed": {how, commit, ref}), "conflict" is gone (a
// task's other branches are "duplicate_branches"), worktrees may be
// "shared" or "outside_worktree_dir".
const SchemaVersion = 2

// ListSchemaVersion is the version of the `--list --json` document.
const ListSchemaVersion = 1

// Report is the JSON document of `git taskresume <run> --json`.
type Report struct {
	SchemaVersion int     `json:"schema_version"`
	RunID         string  `json:"run_id"`
	Plan          *string `json:"plan"`
	// PlanSource says which copy of the plan was read (nil: none found).
	PlanSource *PlanSource `json:"plan_source"`
	// Tool is this binary against the versions the repository allows
	// (absent when none is required).
	Tool *ToolVersion `json:"tool,omitempty"`
	// PlanSearched names where the plan was looked for when none was found.
	PlanSearched []string `json:"plan_searched,omitempty"`
	// NearPlans are plans of run ids one character from this one, whose
	// tasks the run's branches are named like, when no plan of its own was
	// found (absent otherwise): the hint to read one with --plan-run-id.
	NearPlans []NearPlan `json:"near_plans,omitempty"`
	Base      BaseRef    `json:"base"`
	// Replan is the last re-plan, which the run started from; present
	// only when one was found or none could be looked for.
	Replan *Replan `json:"replan,omitempty"`
	// RemoteRead is the remote whose copies of the run's branches were
	// read (nil: none).
	RemoteRead      *RemoteRead `json:"remote_read"`
	Status          RunStatus   `json:"status"`
	Interrupted     bool        `json:"interrupted"`
	CompletedTasks  int         `json:"completed_tasks"`
	TotalTasks      int         `json:"total_tasks"`
	PhasesCompleted int         `json:"phases_completed"`
	PhasesTotal     int         `json:"phases_total"`
	FromPhase       int         `json:"from_phase,omitempty"`
	Phases          []Phase     `json:"phases"`
	Resume          *Resume     `json:"resume"`
	// LastCommit is the newest tip of any task branch with commits of its
	// own: where the run stopped.
	LastCommit *LastCommit `json:"last_commit"`
	// Worktrees lists every worktree of the run, the run's main one and
	// worktrees of unknown tasks included.
	Worktrees       []*Worktree `json:"worktrees"`
	UnknownBranches []string    `json:"unknown_branches"`
	// StaleWorktrees are the paths `git taskclean --run <run>` would remove.
	StaleWorktrees []string  `json:"stale_worktrees"`
	CleanCommand   string    `json:"clean_command,omitempty"`
	Problems       []Problem `json:"problems"`
	// GitProcesses is how many git processes built this report.
	GitProcesses int `json:"git_processes"`
}

// BaseRef is the branch own commits are counted against.
type BaseRef struct {
	Ref    string `json:"ref"`
	Commit string `json:"commit"`
	// Source says how it was chosen.
	Source BaseSource `json:"source"`
	// Why says it in words.
	Why string `json:"why"`
}

// Phase is one phase of the plan.
type Phase struct {
	Number int         `json:"number"`
	Name   string      `json:"name"`
	Mode   PhaseMode   `json:"mode"`
	Status PhaseStatus `json:"status"`
	Tasks  []*Task     `json:"tasks"`
}

// Task is one task's state.
type Task struct {
	ID string `json:"id"`
	// Name is the slug, as orchestrators name tasks; Title is the heading.
	Name        string     `json:"name"`
	Title       string     `json:"title"`
	Status      TaskStatus `json:"status"`
	Branch      *string    `json:"branch"`
	Commit      *string    `json:"commit"`
	OwnCommits  int        `json:"own_commits"`
	CommittedAt *time.Time `json:"committed_at"`
	StackParent string     `json:"stack_parent,omitempty"`
	// Duplicates are the task's other branches (retries, renumbered
	// attempts); Branch is the one counted.
	Duplicates []string `json:"duplicate_branches,omitempty"`
	// Landed is the evidence that the task's work reached the base or the
	// default branch.
	Landed   *branches.Landing `json:"landed,omitempty"`
	Worktree *Worktree         `json:"worktree"`
	Runnable bool              `json:"runnable"`
	// Remote is the remote-tracking copy of the local branch (--remote).
	Remote *RemoteCopy `json:"remote,omitempty"`
	// Source is the remote a remote-only branch was read from.
	Source string `json:"source,omitempty"`
	// Claim is who holds the task (refs/taskclaims/<run>/<id>), if anyone.
	Claim *claims.Claim `json:"claim"`
	// DependsOn are the ids the plan's Dependencies line names, as written.
	DependsOn []string `json:"depends_on"`
	// WaitsFor are the tasks not done (ids as their headings write them)
	// this task waits for under the report's schedule: it is not offered
	// while any is left. Absent for a task that waits for nothing.
	WaitsFor []string `json:"waits_for,omitempty"`
	// Interrupted says, for an interrupted task, why its last attempt
	// stopped and where.
	Interrupted *Interruption `json:"interrupted,omitempty"`
	// Live is the worktree of a task not done in which a process still
	// works: the task is not offered.
	Live string `json:"live_worktree,omitempty"`
}

// Interruption is why a task's last attempt stopped mid-way.
type Interruption struct {
	Why string `json:"why"`
	// Worktree holds what the attempt left ("" when a clean saved it).
	Worktree string `json:"worktree,omitempty"`
	// Live: a process works in the worktree, so the task is not offered.
	Live bool `json:"live"`
}

// RemoteCopy is a remote-tracking copy of a task branch.
type RemoteCopy struct {
	Ref    string `json:"ref"`
	Commit string `json:"commit"`
	// Relation is how the local branch stands to it.
	Relation Relation `json:"relation"`
}

// Worktree is a worktree of the run.
type Worktree struct {
	Path string `json:"path"`
	// Task is the task id it belongs to; "" for the run's main worktree.
	Task       string        `json:"task,omitempty"`
	State      WorktreeState `json:"state"`
	Head       string        `json:"head,omitempty"`
	Branch     string        `json:"branch,omitempty"`
	Detached   bool          `json:"detached"`
	Locked     bool          `json:"locked"`
	LockReason string        `json:"lock_reason,omitempty"`
	Missing    bool          `json:"missing"`
	// Broken: git registered it but its admin entry names a place that is
	// not this worktree; a clean drops only the entry.
	Broken bool `json:"broken,omitempty"`
	// Unreadable: the directory exists but cannot be read; left alone.
	Unreadable bool `json:"unreadable,omitempty"`
	// Symlink: the registered path is a symbolic link; never followed.
	Symlink bool `json:"symlink,omitempty"`
	// Ignored lists ignored files (read for git taskclean only): what a
	// removal deletes without saving.
	Ignored []string `json:"ignored,omitempty"`
	// UntrackedFiles are the untracked, not ignored files (for the save).
	UntrackedFiles []string `json:"-"`
	Staged         int      `json:"staged"`
	Unstaged       int      `json:"unstaged"`
	Untracked      int      `json:"untracked"`
	// Unreachable counts commits on the worktree's HEAD that no branch, tag
	// or remote-tracking ref holds: lost if the worktree were removed.
	Unreachable int  `json:"unreachable_commits"`
	Stale       bool `json:"stale"`
	// StaleLocked marks a worktree that would be stale but is locked: git
	// taskclean leaves it, and says why.
	StaleLocked bool   `json:"stale_but_locked,omitempty"`
	Error       string `json:"error,omitempty"`
	// Bytes is what its directory takes on disk, as du counts it (only
	// with --sizes).
	Bytes int64 `json:"bytes,omitempty"`
	// Current is true for the worktree the command runs in.
	Current bool `json:"current,omitempty"`
	// Main is the repository's own checkout: never removed.
	Main bool `json:"main_worktree,omitempty"`
	// Shared is the run's shared worktree (<worktree folder>/<run>-main),
	// whatever it has checked out: the orchestrator's workspace, never a
	// task's, removed only by --all.
	Shared bool `json:"shared,omitempty"`
	// Outside: a linked worktree outside the worktree folder with a task's
	// branch checked out (a user's review checkout, say); only --task and
	// --all remove it.
	Outside bool `json:"outside_worktree_dir,omitempty"`
	// WorkFor is the task the uncommitted work in the shared worktree
	// belongs to: the running task of a sequential phase; "" for the run.
	WorkFor string `json:"work_for,omitempty"`
	// AdminDir is the worktree's private git directory (index, HEAD,
	// per-worktree refs); "" when no admin entry names it.
	AdminDir string `json:"-"`
}

// Resume is where to pick the run up.
type Resume struct {
	Phase int        `json:"phase"`
	Mode  PhaseMode  `json:"mode"`
	Kind  ResumeKind `json:"kind"`
	Tasks []string   `json:"tasks"`
	// Schedule is "deps" when the tasks were chosen by dependencies
	// (--schedule deps); absent under the default, phases.
	Schedule Schedule `json:"schedule,omitempty"`
}

// LastCommit is the newest tip of a finished task branch.
type LastCommit struct {
	Commit      string    `json:"commit"`
	Task        string    `json:"task"`
	CommittedAt time.Time `json:"committed_at"`
}

// Problem is something the user should know or fix.
type Problem struct {
	Kind ProblemKind `json:"kind"`
	// Task is the task it is about, "" when it is not about one task.
	Task    string `json:"task"`
	Message string `json:"message"`
}

// TaskID is the task the worktree belongs to, "" for the run's main
// worktree and for worktrees of no known task.
func (w *Worktree) TaskID() string {
	if w.Task == "?" {
		return ""
	}
	return w.Task
}

// LockText is the lock reason as people read it.
func (w *Worktree) LockText() string {
	if w.LockReason == "" {
		return "no reason given"
	}
	return w.LockReason
}
