package resume

import (
	"github.com/taskresume/git-taskresume/internal/branches"
	"github.com/taskresume/git-taskresume/internal/claims"
	"github.com/taskresume/git-taskresume/internal/gitcmd"
	"github.com/taskresume/git-taskresume/internal/plan"
	"github.com/taskresume/git-taskresume/internal/progress"
	"github.com/taskresume/git-taskresume/internal/ui"
	"github.com/taskresume/git-taskresume/internal/version"
	"github.com/taskresume/git-taskresume/internal/worktree"
)

// Options select the run and how to read it.
type Options struct {
	Run string
	// Sizes reads what each worktree of the run takes on disk (a walk of
	// its files, so only when asked).
	Sizes bool
	// PlanPath is --plan: a file path, or REV:PATH to read it from a commit.
	PlanPath string
	// PlanRunID is --plan-run-id: the run id the --plan plan names, when
	// the user accepts that plan for this run (a run whose plan was
	// written under another id). "" refuses a plan naming another run.
	PlanRunID string
	// Base is --base.
	Base string
	// FromPhase puts phases numbered below it out of scope.
	FromPhase int
	// Schedule is --schedule: "phases" or "deps"; "" takes git config
	// taskresume.schedule, else phases.
	Schedule string
	// Cwd is the directory the command runs in ("" for the process's).
	Cwd string
	// Remote is --remote: the remote whose copies of the run's branches
	// are read (local branches win unless behind), live. Without it, the
	// run's remote is found (docs/DESIGN.md, "Which remote a run is read
	// from") and read as last fetched.
	Remote string
	// LiveRemote reads a found remote live too, as a named one is read:
	// --next hands out work, so it must see the remote's claims and
	// whether its branches moved since the fetch.
	LiveRemote bool
	// Ignored also lists each worktree's ignored files (git taskclean
	// reports what a removal deletes unsaved), from the same status call.
	Ignored bool
	// NoStatus does not read what each worktree holds (git taskclean reads
	// it again, once it has stopped writers, and only for what it removes).
	NoStatus bool
	// Light checks the input (run id, plan, base, task ids) and reads
	// branches and worktrees, but not history, claims or what each worktree
	// holds: task states are then unknown. For validating before acting.
	Light bool
	// Input, with Light, stops once the plan is read: config, branches,
	// the base, the plan and the versions it allows, enough to refuse bad
	// input before a clean takes its lock; no report.
	Input bool
	// Progress shows the long reads (many worktrees, a remote) on a
	// terminal; nil shows nothing.
	Progress *progress.Meter
	// Shared answers the reads every run of a list makes alike (refs,
	// config, worktrees, the commits, one object reader): git is asked
	// once for all of them, not once per run.
	Shared *gitcmd.Shared
	// ListRow reads what a row of --list shows: which tasks are done. The
	// squash search, which can only tell a done task how it landed or
	// find a task not otherwise done, runs only when a task is not done
	// without it.
	ListRow bool
}

// State is everything gathered about a run: the report plus what
// git-taskclean needs to act on it.
type State struct {
	// ColorConfig holds git's colour settings (color.ui, color.taskresume,
	// color.taskclean) as git config printed them: ColorSetting reads it.
	ColorConfig map[string]string
	// PreRemove is git config taskclean.preRemove, the command the clean
	// runs in each worktree before saving and removing it; PreRemoveTimeout
	// its taskclean.preRemoveTimeout as written (the clean reads it: a
	// mistake there must not stop a report).
	PreRemove        string
	PreRemoveTimeout string

	Repo *gitcmd.Repo
	Plan *plan.Plan
	// Gate is this binary and the versions the repository allows.
	Gate version.Gate
	// planVersions are the committed versions of the plan this run went
	// through, newest first, when its history was read (replan.go): a
	// branch whose commits name another task was renumbered only when one
	// of them gave that task's title the branch's id.
	planVersions []*plan.Plan
	Report       *Report
	Worktrees    []*worktree.Worktree // the run's worktrees, from git
	// AllWorktrees are every worktree of the repository, the run's or not.
	AllWorktrees []*worktree.Worktree
	// TaskBranches are every local branch of the run, matched or not.
	TaskBranches []branches.Branch
	MainBranch   *branches.Branch
	// RemoteCopies holds, per branch name, the remote-tracking copy of a
	// local task branch (the local one is what counts).
	RemoteCopies map[string]branches.Branch
	// Remote is the remote read live, where claims are read and written:
	// the one named by --remote or taskresume.remote, or the run's own
	// remote with Options.LiveRemote; "" for none.
	Remote string
	// remote is which remote's copies of the run's branches were read.
	remote remoteChoice
	// remotes are the configured remotes.
	remotes remoteSet
	// Ambiguous says why no remote was read although several hold the
	// run's branches ("" when that is not so): no answer may be given on
	// this reading (--exit-code, --next).
	Ambiguous string
	// Claims are the run's task claims by task id: with a remote, the
	// remote's as they are now, and this repository's own (claims.Merge).
	Claims map[string]*claims.Claim
	// ClaimsErr is why the remote's claims could not be read (Claims then
	// holds this repository's copies only): a report says it, a claimer
	// or a scheduler stops.
	ClaimsErr error
	// Unread are the run's task branches that exist only as remote-tracking
	// branches of a remote that was not named: the report does not count
	// them, so nothing may be handed out on its word.
	Unread []string
	// Moved are the run's branches that the remote holds at another commit
	// than its remote-tracking copy here (or holds and the copy lacks, or
	// lacks): the report reads the copies, which are behind.
	Moved []string
	// unreadMain are copies of <run>-main that are never read (a remote
	// with a "/" in its name, refs no fetch updates), when nothing read
	// holds <run>-main.
	unreadMain []string
	// Unfetched are the run's branches the remote holds that no fetch
	// refspec of it brings here (read live only).
	Unfetched []string
	// movedTo holds the remote's commit of each moved branch.
	movedTo map[string]string
	// Gone are the run's branches the remote deleted whose copies
	// here are all that makes their tasks done (read live only).
	Gone []string
	// ReadFrom is where the remote's claims are read back from ("" for
	// the remote itself): its push URL when one is configured.
	ReadFrom string
	// StaleCopies are copies here of the remote's claims it no longer holds.
	StaleCopies []*claims.Claim
	// claimProblems are what reading the remote's claims found, added to
	// the report once the reads running beside it are done.
	claimProblems []Problem
	States        []branches.TaskState
	// Verdict is the completion rule's answer, with the branches it could
	// not give to any task.
	Verdict branches.Verdict
	// WorktreeDir is where task worktrees live (taskresume.worktreeDir).
	WorktreeDir string
	fromPhase   int
	// Schedule is the schedule the report was built by.
	Schedule Schedule
	opts     Options
	// planLooked names where the plan was looked for (none found).
	planLooked []string
	// planSuggest is a --plan value for a copy found on a task branch.
	planSuggest string
	// planDoubt: another copy of the plan may hold tasks the one read
	// lacks, so the run is never called complete.
	planDoubt string
	// stops are the task branches whose last attempt stopped mid-way.
	stops map[string]interruption
	// behind are the local task branches behind their remote copy, which
	// counts in their place.
	behind map[string]branches.Branch
}

// ClaimOf is the claim of task id, whichever way id is spelled: claims
// are kept by the task's dotted id (claims.Key).
func (st *State) ClaimOf(id string) *claims.Claim { return st.Claims[claims.Key(id)] }

// PlanID is the plan's spelling of the task whose claim key is key (the
// reports name tasks as the plan does), key itself when the plan has no
// such task.
func (st *State) PlanID(key string) string {
	if st.Plan != nil {
		if t := st.Plan.Task(key); t != nil {
			return t.ID
		}
	}
	return key
}

// ColorSetting is git's colour setting for command ("taskresume",
// "taskclean"): color.<command>, else color.ui; ui.StyleForSetting takes it.
func (st *State) ColorSetting(command string) string {
	return ui.ColorSetting(st.ColorConfig, command)
}
