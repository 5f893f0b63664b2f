package taskresume

import (
	"github.com/taskresume/git-taskresume/internal/cliutil"
	"github.com/taskresume/git-taskresume/internal/manpage"
	"github.com/taskresume/git-taskresume/internal/version"
)

// Manual is the command's manual: -h, `git taskresume help`, --help run
// directly and the man page (--man) are all made from it.
func Manual() *manpage.Page {
	return &manpage.Page{
		Name:    "git-taskresume",
		Summary: "show where a crashed plan run stopped and what can run next",
		Synopsis: []string{
			"git taskresume <run> [--json | --next] [--exit-code] [<read options>]",
			"git taskresume <run> --claim [--as NAME] [--ttl DURATION] [--json]",
			"git taskresume <run> --renew|--release ID --as NAME [--ttl DURATION]",
			"git taskresume --list [--json] [--remote NAME]",
			"git taskresume [<run>] --check-plan [PATH] [--json]",
		},
		Brief: "Where a crashed plan run stopped, from git alone: tasks done, tasks runnable, stale " +
			"worktrees. <read options> are --base, --plan, --from-phase and --remote.",
		// One version for --version, --version --json and the page's
		// footer: a release's stamp, the module's tag, else dev+<commit>.
		Version: version.Get().Version,
		Sections: []manpage.Section{
			{Title: "DESCRIPTION", Blocks: []manpage.Block{
				manpage.Para("AI agents and CI pipelines run a plan, each task in its own git worktree; a finished task leaves " +
					"a branch `<run>-task-<id>-<slug>`. When the run crashes, git alone is the record. " +
					"git taskresume reads it: which tasks of each phase are done (their work is on a branch, or has " +
					"landed on the base), which are not, which can run next, and which worktrees are stale."),
				manpage.Para("The plan is `--plan`, or the path in git config `taskresume.plan` (a pattern with `{run}`), or else " +
					"the newest copy of `specs/<run>/plan.md`, `specs/<run>-*/plan.md` or `specs/<run>-*/plan/plan-phase<N>.md` " +
					"in the main worktree, the run's shared worktree `.worktrees/<run>-main`, the tip of branch " +
					"`<run>-main` (local, then each remote's), the base and the main worktree's HEAD. " +
					"The report says which copy it read and why; `--check-plan` shows what was read from it."),
				manpage.Para("Several resumers take different tasks with `--claim`: a claim is the ref " +
					"`refs/taskclaims/<run>/<id>`, created only if absent (on a remote, by a push with a lease), so two " +
					"claimers never win the same task."),
				manpage.Para("No plan found is never \"complete\": `--next`, `--exit-code` and `--claim` then exit 2 and " +
					"name where they looked and the `--plan` to try."),
			}},
			{Title: "OPTIONS", Blocks: []manpage.Block{
				manpage.Sub("What to print"),
				manpage.Option{Names: []string{"--json"}, Short: "one JSON document instead of the report",
					Long: "Write one JSON document (schema_version 2) instead of the report; with `--list`, the list; " +
						"with `--claim`, the task taken; with `--check-plan`, the plan read."},
				manpage.Option{Names: []string{"--quiet", "-q"}, NoSummary: true, // -h keeps to one screen
					Short: "no progress lines on stderr",
					Long: "No progress lines on stderr; the output is the same. Without it, when stderr is a terminal " +
						"(and without `--json`), a read still running after a second shows how far it is, as git " +
						"does, on one line rewritten in place and ended by `, done.`: `Reading 30 worktrees`, " +
						"`Reading remote origin`, `Measuring worktrees:  40% (12/30)` (`--sizes`), " +
						"`Reading runs:  40% (12/30)` (`--list`). `GIT_PROGRESS_DELAY` sets the second."},
				manpage.Option{Names: []string{"--next"}, Short: "the runnable task ids, one per line, nothing else",
					Long: "Print the ids of the tasks that can run now, one per line, and nothing else. Tasks another " +
						"resumer has claimed are left out, and so is a task that waits for a dependency not done " +
						"(landed or completed). Nothing and exit 0: the run is complete. Nothing and exit 1: it is not, " +
						"but no task may start now (each one left waits, is claimed or is at work): ask again later."},
				manpage.Option{Names: []string{"--short"}, Short: "the run at a glance: a line a phase, where it resumes",
					Long: "Print the run at a glance: the report's first line; one line a phase with its status, how many " +
						"of its tasks are done, how many are in each status and the ids of those not done; the line " +
						"that says where the run resumes; then, when there are any, one line counting the problems " +
						"and one with the command that cleans the stale worktrees. Coloured as the report is. Only " +
						"with the report (and `--exit-code`): not with `--json`, `--format`, `--sizes` or another mode."},
				manpage.Option{Names: []string{"--format"}, Arg: "markdown", Short: "the report as Markdown, with a Mermaid graph",
					Long: "Write the report as one Markdown document, for a pull request or a CI job's summary " +
						"(`>> \"$GITHUB_STEP_SUMMARY\"`): the report's first line as a heading, where the run resumes, a table " +
						"a phase (task, title, status, branch, and the report's notes on it), the problems, and a Mermaid " +
						"flowchart (GitHub draws it): a box a phase, in their order, a node a task coloured by its status, " +
						"an arrow for each of the plan's dependencies. Titles are escaped for Markdown and for Mermaid. " +
						"`markdown` is the one format. Never coloured. Only with the report (and `--exit-code`): not " +
						"with `--json`, `--short` or another mode."},
				manpage.Option{Names: []string{"--exit-code"}, Short: "exit 1 while the run is not complete (a CI gate)",
					Long: "Exit 1 when the run is not complete, after printing the report (or `--next`): a gate for CI."},
				manpage.Option{Names: []string{"--sizes"}, Short: "also what each worktree of the run takes on disk",
					Long: "Also read what each worktree of the run takes on disk, as du counts it (a walk of its files: " +
						"not done by default, which keeps the report quick), shown beside each worktree and as `bytes` " +
						"in `--json`. `git taskclean -n` says what a clean would free."},
				manpage.Option{Names: []string{"--list"}, Short: "every run found, with its progress",
					Long: "List every run found, one row each, with its progress and where its plan is: plans in " +
						"`specs/`, `*-task-<n>...` branches, `<hex6>-main` branches. Takes no run."},
				manpage.Option{Names: []string{"--check-plan"}, Arg: "[PATH]", Short: "print the plan as read: phases, tasks, branches, warnings",
					Long: "Read the plan and print what was read: where it came from, the run id, each phase (number, " +
						"name, sequential or parallel) with its tasks (id, title, the branch the task gets), and the " +
						"plan's warnings; exit 0. PATH is a file or `REV:PATH`; without it, the plan the report of " +
						"`<run>` would read (`git taskresume <run> --check-plan`, with `--plan`, `--base` and `--remote` " +
						"as for the report). A plan with errors prints each as `error: file:line: message` on stderr, " +
						"at most 20 and then how many more (`--json` prints the document with all of them in " +
						"`errors`), and exits 2. " +
						"Not with `--list`, `--next`, `--exit-code` or the claim options."},
				manpage.Sub("Read options"),
				manpage.Option{Names: []string{"--base"}, Arg: "REF", Short: "count own commits against REF",
					Long: "Count each branch's own commits against REF. Default: git config `taskresume.base`, else " +
						"`<run>-main`, else `main`, else `master`, else `origin/HEAD`, `origin/main`, `origin/master`."},
				manpage.Option{Names: []string{"--plan"}, Arg: "PATH", Short: "read the plan from PATH, or from a commit as REV:PATH",
					Long: "Read the plan from the file PATH, or from a commit as `REV:PATH` (`main:specs/x1y2z3/plan.md`). " +
						"A plan that names no run is the run of the command line. A plan that names another run is " +
						"refused (read for this run, a wrong plan could call an unfinished run complete); the error " +
						"names the `--plan-run-id` to add."},
				manpage.Option{Names: []string{"--plan-run-id"}, Arg: "ID", NoSummary: true, Short: "accept the --plan plan, which names run ID, for this run",
					Long: "With `--plan`: the plan names run ID, not `<run>`, and is to be read for `<run>` all the same " +
						"(a run whose branches carry one id while its plan was written under another: the report's " +
						"`hint:` line names such a plan). ID must be the id the plan names; without `--plan`, or with " +
						"another id, exit 2."},
				manpage.Option{Names: []string{"--from-phase"}, Arg: "N", Short: "put the phases before N out of scope",
					Long: "Put the phases numbered below N out of scope: they count as done, for the tasks that depend on them too."},
				manpage.Option{Names: []string{"--schedule"}, Arg: "BY", NoSummary: true, Short: "what runs next: by phases (default) or by deps",
					Long: "`phases` (the default, as the orchestrators run a plan): the tasks of the first phase not " +
						"complete, the next one of a sequential phase, every one of a parallel phase that waits for no " +
						"dependency. `deps`: every task whose dependencies are done, a later phase's too; a task without " +
						"a Dependencies line depends on every task of the earlier phases, and a sequential phase's tasks " +
						"still run one at a time, in plan order. Default: git config `taskresume.schedule`. Another " +
						"value exits 2."},
				manpage.Option{Names: []string{"--remote"}, Arg: "NAME", Short: "read the run's branches and claims from remote NAME",
					Long: "Read the run's branches from `refs/remotes/NAME/` (a local branch wins unless it is behind) and " +
						"the claims from the remote NAME, live; claims are written there. Default: git config " +
						"`taskresume.remote`. Without either, the run is read from the one remote that holds its branches " +
						"(remotes with equal copies count as one; among several that differ, git's `checkout.defaultRemote`), " +
						"as last fetched, with no network; `--next` reads it live; `--claim`, `--renew` and `--release` then " +
						"exit 2 naming `--remote`. The header and `remote_read` in the JSON say which remote was read and " +
						"when it was fetched."},
				manpage.Sub("Claims"),
				manpage.Option{Names: []string{"--claim"}, Short: "take a free runnable task and print its id",
					Long: "Take the first runnable task nobody holds and print its id; exit 1 when none is free."},
				manpage.Option{Names: []string{"--as"}, Arg: "NAME", Short: "who holds the claim (needed by --renew, --release)",
					Long: "The claim holder's name. Default for `--claim`: user@host:pid, unique to this call; " +
						"`--renew` and `--release` need the name the claim was taken with. With `--next`, tasks this " +
						"holder claimed are listed too."},
				manpage.Option{Names: []string{"--ttl"}, Arg: "DURATION", Short: "a claim expires after DURATION (default 30m)",
					Long: "A claim expires after DURATION unless renewed (default 30m). DURATION is a number with a unit: " +
						"`s`, `m`, `h`, `d` (24 hours) or `w` (7 days), combined as in `1d12h`; at least `1s`."},
				// --renew and --release stay out of -h: its usage line names them,
				// and -h keeps to one screen.
				manpage.Option{Names: []string{"--renew"}, Arg: "ID", NoSummary: true, Short: "extend your claim of task ID by --ttl",
					Long: "Extend the holder's claim of task ID by `--ttl`."},
				manpage.Option{Names: []string{"--release"}, Arg: "ID", NoSummary: true, Short: "drop your claim of task ID",
					Long: "Drop the holder's claim of task ID."},
				manpage.Sub("Help"),
				manpage.Option{Names: []string{"-h"}, Short: "a summary of the usage", NoSummary: true,
					Long: "Print the usage and the options, one line each."},
				manpage.Option{Names: []string{"--help"}, NoSummary: true,
					Long: "Print this manual as plain text (as does `git taskresume help`; a run named help is " +
						"`git taskresume -- help`). Through git, `git taskresume --help` opens the man page instead: " +
						"git hands `--help` to man(1)."},
				manpage.Option{Names: []string{"--man"}, NoSummary: true,
					Long: "Print this manual as a man page (roff), for `man -l -` or to install as git-taskresume.1."},
				manpage.Option{Names: []string{"--version"}, NoSummary: true, Long: "Print the version, as `git-taskresume 1.4.0`; a development build says `dev+<commit>` (`.dirty` when " +
					"built with uncommitted changes). With `--json`, one JSON object: `name`, `version`, `dev`, `commit`, " +
					"`modified`, `from`, `go`. Other flags beside it are ignored."},
			}},
			{Title: "EXIT STATUS", Blocks: []manpage.Block{
				manpage.Item{Tag: "0", Text: "The report was written (with `--exit-code`: the run is complete); the claim was taken, renewed or released; the plan was read."},
				manpage.Item{Tag: "1", Text: "`--exit-code`: the run is not complete. `--next`: nothing may start now, but the run is not complete. `--claim`: no runnable task is free (stderr says whether the run is complete, and what waits)."},
				manpage.Item{Tag: "2", Text: "Bad usage or input: an unknown flag, a plan with errors, an unknown run, not a repository, " +
					"no base, a claim you do not hold, a remote that does not exist. With `--exit-code`, `--next` or `--claim`: " +
					"several remotes hold the run's branches, their copies differ and nothing chose one (`remote_ambiguous`). " +
					"With `--claim`, `--renew`, `--release`, `--next` or `--exit-code`: a version the repository does not allow " +
					"(`taskresume.minVersion`, the plan's `taskresume-version`). " +
					"One line on stderr, starting with `error:`, says what to fix; nothing was changed."},
			}},
			{Title: "EXAMPLES", Blocks: []manpage.Block{
				manpage.Para("A run `x1y2z3` crashed. Where is it?"),
				manpage.Code{"git taskresume x1y2z3"},
				manpage.Para("Which tasks can an orchestrator start again now, for a script:"),
				manpage.Code{"git taskresume x1y2z3 --next"},
				manpage.Para("The same as one JSON document, for a program:"),
				manpage.Code{"git taskresume x1y2z3 --json"},
				manpage.Para("A CI step that fails while the run is not complete. A CI checkout holds the run's branches " +
					"as remote-tracking branches; fetch them (with `--prune`: a reused checkout keeps branches deleted on the " +
					"remote), then the run is read from the remote that has them:"),
				manpage.Code{"git fetch --prune origin '+refs/heads/x1y2z3-*:refs/remotes/origin/x1y2z3-*'", "git taskresume x1y2z3 --exit-code"},
				manpage.Para("Before starting them again, see what git taskclean would do with the stale worktrees " +
					"the crash left, then do it (everything is saved under `refs/taskclean/x1y2z3/` first):"),
				manpage.Code{"git taskclean --run x1y2z3 -n", "git taskclean --run x1y2z3"},
				manpage.Para("Put back what the clean removed, or just one task's saved worktree:"),
				manpage.Code{"git taskclean --run x1y2z3 --undo", "git taskclean --run x1y2z3 --restore 2.2"},
				manpage.Para("Several resumers share the work: each claims a task, renews the claim while it works, and " +
					"releases it if it gives up:"),
				manpage.Code{"id=$(git taskresume x1y2z3 --claim --as worker-1)", "git taskresume x1y2z3 --renew \"$id\" --as worker-1",
					"git taskresume x1y2z3 --release \"$id\" --as worker-1"},
				manpage.Para("Check a plan before a run starts, and see the branch each task will get:"),
				manpage.Code{"git taskresume --check-plan specs/x1y2z3-user-auth/plan.md"},
			}},
			{Title: "PLAN FORMAT", Blocks: []manpage.Block{
				manpage.Para("The plan is a Markdown file. Headings name phases and tasks; anything else is prose and is " +
					"ignored, as are code fences and HTML comments. The forms below are accepted; docs/PLAN-FORMAT.md " +
					"has every one with a full example."),
				manpage.Item{Tag: "The run id", Text: "Front matter at the top, or a `Run ID` line, plain or bold. " +
					"Without either, the plan's directory names the run: its first dash-separated field when that is " +
					"six hex digits (`specs/a1b2c3-user-auth/` is run a1b2c3), else the whole name (`specs/nightly/`).",
					Code: []string{"---", "runId: a1b2c3", "---", "Run ID: x1y2z3", "**Run ID:** 98ae37"}},
				manpage.Item{Tag: "Phases", Text: "A heading at any depth: `Phase`, a number, and a title after a colon " +
					"or a dash, with the mode and an estimate in parentheses or dash-separated segments.",
					Code: []string{"## Phase 2: Core Logic (Parallel)", "## Phase 2: Core Logic", "# Phase 1 (4h)",
						"# Phase 3 - PARALLEL (6h) - Run simultaneously:"}},
				manpage.Item{Tag: "Phase mode", Text: "In the heading, `(Parallel)`, `(sequential)`, `(Parallel by Domain)` " +
					"or `- PARALLEL -`; or on a line under the heading. A phase with no mode is sequential, with a warning.",
					Code: []string{"**Strategy**: Parallel", "**Strategy:** parallel", "**Strategy**: Parallel (after Task 4.1)"}},
				manpage.Item{Tag: "Tasks", Text: "A heading at any depth: `Task`, its id, and a title. Ids are " +
					"numbers joined by dots or dashes (`2.1` and `2-1` are the same task) or one number counted through " +
					"the plan. Size and time groups are not part of the title. Task 2.1 \"User service\" of run " +
					"x1y2z3 gets the branch `x1y2z3-task-2-1-user-service`.",
					Code: []string{"### Task 2.1: User service (M - 2h)", "### Task 1-1: Project setup", "### Task 4: Test command",
						"### 🚧 Task 1.2: Search"}},
				manpage.Item{Tag: "Checklist tasks", Text: "In a phase without task headings, one task an item; " +
					"the title ends at the first `|` between blanks.",
					Code: []string{"- [ ] **Task 1.1**: Add preference types | repo: shared-lib"}},
				manpage.Item{Tag: "Under a task", Text: "Size, estimate and dependencies (`None`, ids, or a list of " +
					"`- Task 1.1` items); every list item is kept as the task's metadata.",
					Code: []string{"**Complexity**: M (4h)", "**Dependencies**: 1-1, 1-2"}},
				manpage.Item{Tag: "Split plans", Text: "One file a phase, read in phase order as one plan; every " +
					"phase file from 1 on must be there.",
					Code: []string{"specs/a1b2c3-user-auth/plan/plan-phase1.md", "specs/a1b2c3-user-auth/plan/plan-phase2.md"}},
				manpage.Item{Tag: "Errors", Text: "Exit 2 with `file:line`: a heading that starts `Phase <number>` or " +
					"`Task <id>` in no accepted form, a misspelt keyword or mode, modes that disagree, a template " +
					"placeholder, a missing space after the `#`s, a task before any phase, an id used twice, no task at all.",
					Code: []string{"## Phase 2 Features (Parallel)      no colon", "### Taks 3.1: Search               misspelt",
						"## Phase 1: Setup (Paralel)        misspelt mode", "### Task {N}: {Task Name}          a template",
						"###Task 1.2: Export                no space"}},
			}},
			{Title: "CONFIGURATION", Blocks: append([]manpage.Block{
				manpage.Para("Set with git config (`git config taskresume.base develop`), in any file git reads: " +
					"the repository's settings win over `--global` ones. Key names are case-blind, as git's are. " +
					"A flag given on the command line wins over its key. git taskclean reads the `taskresume.*` keys " +
					"too: what is done, so what is stale, is read the same way."),
				manpage.Item{Tag: "`taskresume.base`", Text: "The ref each task branch's own commits are counted " +
					"against, as `--base REF`. It must name a commit, or the command exits 2. Unset: `<run>-main`, " +
					"else `main`, else `master`, else `origin/HEAD`, `origin/main`, `origin/master`."},
				manpage.Item{Tag: "`taskresume.minVersion`", Text: "The versions of git-taskresume the repository " +
					"allows, a semver constraint (`>= 1.4, < 2`; a bare `1.4` is a minimum), as the plan's front matter " +
					"`taskresume-version` says for its run; where both are set both hold. A version outside it still " +
					"reports (its header says so) but `--claim`, `--renew`, `--release`, `--next` and `--exit-code` " +
					"exit 2: \"this repository needs git-taskresume >= 1.4 (this is 1.2.0): upgrade\". A pre-release " +
					"compares as its release; a development build is always allowed. A value that is not a " +
					"constraint exits 2."},
				manpage.Item{Tag: "`taskresume.plan`", Text: "Where the plan is, as `--plan`: a path relative to the " +
					"top of the repository, or `REV:PATH`; `{run}` in it stands for the run id (`specs/{run}/plan.md`). " +
					"A plan it names that cannot be read exits 2; in a bare repository a path names a file in `HEAD`. " +
					"Unset: the plan is looked for as DESCRIPTION says."},
				manpage.Item{Tag: "`taskresume.remote`", Text: "The remote the run's branches and claims are read " +
					"from and claims written to, as `--remote NAME`. It must name a remote, or the command exits 2. " +
					"Set it on every machine that claims tasks: a claim taken elsewhere is invisible to the others. " +
					"Unset: the one remote that holds the run's branches, as `--remote` says."},
				manpage.Item{Tag: "`taskresume.remoteTimeout`", Text: "How long one exchange with a remote " +
					"(reading its claims and branches live, pushing a claim) may take before the remote counts as " +
					"not answering: the report goes on and says so (`remote_claims_unread`), `--claim` and `--next` " +
					"exit 2. Its value is " + cliutil.ConfigDuration + ". Default `60s`. A value that is not a " +
					"positive duration exits 2."},
				manpage.Item{Tag: "`taskresume.schedule`", Text: "What runs next, as `--schedule`: `phases` (the " +
					"default) or `deps`. Another value exits 2."},
				manpage.Item{Tag: "`taskresume.worktreeDir`", Text: "The folder the tasks' worktrees are made in, " +
					"relative to the top of the main worktree unless absolute. Default `.worktrees`. A worktree " +
					"on a task's branch outside it (a review checkout) is never stale; a worktree on a detached " +
					"HEAD belongs to a task when its directory there is named `<run>-task-<dashed id>`; " +
					"`<run>-main` there is the run's shared worktree."},
			}, cliutil.SharedSettings("color.taskresume", "the report")...)},
			{Title: "ENVIRONMENT", Blocks: []manpage.Block{
				manpage.Item{Tag: "`GIT_TASKRESUME_TRACE`", Text: "A file: every git command the program " +
					"runs is appended to it, one line each (`git` and its arguments). A file that cannot be " +
					"written is let go; the command runs as without it. git taskclean reads it too."},
				manpage.Item{Tag: "`GIT_TASKRESUME_TIMING`", Text: "A file: each git command the program runs " +
					"is appended to it as `<start> <end> git <arguments>`, the times in milliseconds since the " +
					"program started, with named points of its work (`-- <name>`) between them: where its time " +
					"goes. git taskclean reads it too."},
				manpage.Item{Tag: "`NO_COLOR`", Text: "Set to anything: no colour, unless `color.taskresume` " +
					"or `color.ui` is `always`."},
				manpage.Item{Tag: "`GIT_PROGRESS_DELAY`", Text: "git's own: how many seconds a read runs before " +
					"its progress line shows (default 1; `0` shows every one). A value git cannot read exits 2. " +
					"git taskclean reads it too."},
			}},
			{Title: "FILES", Blocks: []manpage.Block{
				manpage.Item{Tag: "`specs/<run>-*/plan.md`", Text: "The run's plan (also `specs/<run>/plan.md` and " +
					"`specs/<run>-*/plan/plan-phase<N>.md`), in the copies listed under DESCRIPTION."},
				manpage.Item{Tag: "`.worktrees/`", Text: "Where the tasks' worktrees are (git config `taskresume.worktreeDir`, " +
					"relative to the top of the main worktree); `.worktrees/<run>-main` is the run's shared worktree."},
				manpage.Item{Tag: "`refs/taskclaims/<run>/<id>`", Text: "A claim of task `<id>`: who holds it and until when."},
				manpage.Item{Tag: "`refs/taskclean/<run>/...`", Text: "What git taskclean saved before it removed anything; a " +
					"saved worktree with uncommitted work makes its task interrupted."},
			}},
			{Title: "SEE ALSO", Blocks: []manpage.Block{
				manpage.Para("git-taskclean(1), git-worktree(1), git-branch(1); docs/PLAN-FORMAT.md, docs/WHEN-DONE.md and docs/JSON.md in the source."),
			}},
		},
	}
}
