package taskclean

import (
	"github.com/taskresume/git-taskresume/internal/cliutil"
	"github.com/taskresume/git-taskresume/internal/manpage"
	"github.com/taskresume/git-taskresume/internal/version"
)

// Manual is the command's manual: -h, `git taskclean help`, --help run
// directly and the man page (--man) are all made from it.
func Manual() *manpage.Page {
	return &manpage.Page{
		Name:    "git-taskclean",
		Summary: "remove a plan run's stale worktrees and branches, saving everything first",
		Synopsis: []string{
			"git taskclean --run <run> [--task ID... | --all] [<options>]",
			"git taskclean --run <run> --undo [STAMP] | --restore TASK|PATH",
			"git taskclean --run <run> --backups | --expire-backups DURATION",
		},
		Brief: "Remove a crashed run's stale worktrees and the branches of tasks to run again, saving " +
			"it all first under refs/taskclean/<run>/ for --undo and --restore.",
		// One version for --version, --version --json and the page's
		// footer: a release's stamp, the module's tag, else dev+<commit>.
		Version: version.Get().Version,
		Sections: []manpage.Section{
			{Title: "DESCRIPTION", Blocks: []manpage.Block{
				manpage.Para("Without `--task` or `--all`, git taskclean removes the run's stale worktrees: those whose " +
					"task is not complete, or whose directory is gone. Never touched: the main worktree, locked " +
					"worktrees, the worktree it runs in, worktrees in which a live process works (on Linux, read from " +
					"`/proc`), worktrees with a rebase, merge or similar in progress, and anything git has not " +
					"registered as a worktree. Symbolic links are never followed. A kept worktree is listed with the reason."),
				manpage.Para("Before a worktree goes it is renamed aside (so writers stop), saved under " +
					"`refs/taskclean/<run>/<stamp>/` (staged, unstaged and untracked files, edits hidden by " +
					"assume-unchanged or skip-worktree, ignored files up to 1 MiB each and 20 MiB a worktree, commits " +
					"only its HEAD, reflog or per-worktree refs hold, a stopped rebase or am), and every file in it is " +
					"checked against the save. What cannot be proved saved keeps the worktree. A deleted branch's tip " +
					"is saved too; a branch that is a symbolic ref is deleted and saved as an alias, never the branch it points to, and " +
					"a branch of yours that is a symbolic ref to a deleted branch stays, named, pointing to nothing until `--undo`. " +
					"All of a clean's saves are written in one ref transaction: before it, nothing was removed."),
				manpage.Para("`--undo` puts the deleted branches back and prints how to restore each saved worktree; " +
					"`--restore` brings a saved worktree back (`--from STAMP`: the save clean STAMP made); `--backups` " +
					"lists what is saved, each saved worktree with the command that restores it. Saves stay until " +
					"`--expire-backups` drops them."),
				manpage.Para("One clean of a run runs at a time (a lock in the git directory, released when the process " +
					"ends). After a crash, run the same command again: it finishes or puts back what the interrupted clean left."),
			}},
			{Title: "OPTIONS", Blocks: []manpage.Block{
				manpage.Option{Names: []string{"--run"}, Arg: "ID", Short: "the run to clean (required)",
					Long: "The run to clean (required): the id its branches start with."},
				manpage.Sub("What to remove"),
				manpage.Option{Names: []string{"--task"}, Arg: "ID", Short: "run task ID again [--with-dependents | --only]",
					Long: "Force task ID to run again: delete its branch(es) and worktree, saving both. Repeatable. " +
						"Either separator names the task (`--task 1.1` is the plan's `1-1`). When tasks with a branch or a " +
						"worktree of the run depend on ID (its plan `**Dependencies**`) or are stacked on its branch, taken " +
						"transitively, it refuses, naming them, and changes nothing, unless `--with-dependents` or `--only` " +
						"says what becomes of them; landed ones are named and kept."},
				manpage.Option{Names: []string{"--with-dependents"}, Short: "with --task: run its dependents again too", NoSummary: true,
					Long: "With `--task`: also delete the branches and worktrees of the tasks that depend on or are stacked on " +
						"the tasks named, each saved as `--task` saves it (`--undo` brings them all back)."},
				manpage.Option{Names: []string{"--only"}, Short: "with --task: that task alone (dependents go stale)", NoSummary: true,
					Long: "With `--task`: delete the tasks named alone. A dependent whose branch holds their discarded commits " +
						"then reads `empty` with the problem `stale_base`, whose message gives the `git rebase --onto` that " +
						"restacks it onto the task's new branch (or the base); run it, or run the dependent again."},
				manpage.Option{Names: []string{"--all"}, Short: "the whole run: task branches, <run>-main, worktrees",
					Long: "The whole run: every task branch, `<run>-main` and every worktree of the run, the shared one included."},
				manpage.Option{Names: []string{"--completed"}, Short: "also remove the worktrees of complete tasks",
					Long: "Also remove the worktrees of complete tasks (their branches stay)."},
				manpage.Option{Names: []string{"--older-than"}, Arg: "DURATION", Short: "only worktrees unchanged for DURATION (30m, 1d, 2w)",
					Long: "Only worktrees in which nothing was written for DURATION (no file's modification or change time, nor the worktree's " +
						"HEAD, index, reflog or stopped operation): safe beside live agents, even one that keeps old times (`cp -p`), and " +
						"the guard to use where `/proc` cannot show them. DURATION is a number with a unit, `s`, `m`, `h`, " +
						"`d` (24 hours) or `w` (7 days), combined as in `1d12h`."},
				manpage.Option{Names: []string{"--ignore-live"}, Short: "also remove worktrees in which a process works",
					Long: "Also save and remove worktrees in which a live process works."},
				manpage.Option{Names: []string{"--drop-ignored"}, Short: "let ignored files past the save budget go unsaved",
					Long: "Let ignored files past the save budget (1 MiB a file, 20 MiB a worktree) go unsaved; without it " +
						"such a worktree is kept."},
				manpage.Option{Names: []string{"--no-backup"}, Short: "do not save worktrees before removing them",
					Long: "Do not save worktrees before removing them. A deleted branch's tip is still recorded."},
				manpage.Sub("How"),
				manpage.Option{Names: []string{"--dry-run", "-n"}, Short: "print every action and change nothing",
					Long: "Print every action and change nothing: no ref, no lock file, no object."},
				manpage.Option{Names: []string{"--json"}, Short: "one JSON document instead of the action lines",
					Long: "Write one JSON document: `actions[]` and the run's report after the clean."},
				manpage.Option{Names: []string{"--quiet", "-q"}, NoSummary: true, // -h keeps to one screen
					Short: "no progress lines on stderr",
					Long: "No progress lines on stderr; the output is the same. Without it, when stderr is a terminal " +
						"(and without `--json`), a step still running after a second shows how far it is, as git " +
						"does, on one line rewritten in place and ended by `, done.`: `Reading 30 worktrees`, " +
						"`Saving worktrees:  40% (12/30)`, `Removing worktrees:  13% (4/30), 120.00 MiB freed` " +
						"(`Measuring worktrees` and `to free` in a dry run), `Reading remote origin`. " +
						"`GIT_PROGRESS_DELAY` sets the second."},
				manpage.Option{Names: []string{"--base"}, Arg: "REF", Short: "count own commits against REF (as git taskresume)",
					Long: "Count own commits against REF, as git taskresume does: what is complete decides what is stale."},
				manpage.Option{Names: []string{"--plan"}, Arg: "PATH", Short: "read the plan from PATH or REV:PATH",
					Long: "Read the plan from PATH, or from a commit as `REV:PATH`, as git taskresume does."},
				manpage.Option{Names: []string{"--plan-run-id"}, Arg: "ID", NoSummary: true, Short: "accept the --plan plan, which names run ID, for this run",
					Long: "With `--plan`, as git taskresume does: the plan names run ID, not the run of `--run`, and is " +
						"read for it all the same. ID must be the id the plan names; without `--plan`, or with another " +
						"id, exit 2 and nothing changes."},
				manpage.Option{Names: []string{"--remote"}, Arg: "NAME", Short: "read the run from remote NAME, drop claims there",
					Long: "Read the run's branches from `refs/remotes/NAME/` (a local branch wins unless it is behind) and drop " +
						"claims there. Default: git config `taskresume.remote`. Without either, which tasks are done (so which " +
						"worktrees are stale) is read as git taskresume reads it: from the one remote that holds the run's " +
						"branches, as last fetched; where several differ and nothing chose one, a clean without `--task` or " +
						"`--all` exits 2."},
				manpage.Sub("Getting things back"),
				manpage.Option{Names: []string{"--undo"}, Short: "put back the branches the last clean deleted",
					Long: "Put back the branches the last clean of the run deleted (or clean STAMP, given after it), never " +
						"moving an existing branch, and print for each saved worktree the command that brings back that " +
						"clean's save of it: `--restore PATH --from STAMP`."},
				manpage.Option{Names: []string{"--restore"}, Arg: "TASK|PATH", Short: "bring back a task's or path's save [--from STAMP]",
					Long: "Bring back the saved worktree of task TASK, or the one that was at PATH, from its most complete " +
						"save (the newest of those, unless `--from` names another): files, index, untracked and saved " +
						"ignored files, on its branch when it can be."},
				// -h has one screen: --from is on --restore's line.
				manpage.Option{Names: []string{"--from"}, Arg: "STAMP", NoSummary: true,
					Long: "With `--restore`: bring back the save of that task or path that clean STAMP made (the stamps " +
						"`--backups` lists), not the newest, so that a path saved by two cleans has a command for each. " +
						"A clean interrupted and the rerun that finished it are one clean: either stamp finds the save " +
						"in either (the clean's own when it has one, else the most complete, newest of the other's)."},
				manpage.Option{Names: []string{"--backups"}, Short: "list every saved clean of the run and what it holds",
					Long: "List every saved clean of the run, newest last, and what each holds: each saved worktree with " +
						"the command that restores exactly that save."},
				manpage.Option{Names: []string{"--expire-backups"}, Arg: "DURATION", Short: "only delete saved cleans older than DURATION",
					Long: "Only delete the run's saved cleans older than DURATION (`30d`, `720h`), printing what goes."},
				manpage.Sub("Help"),
				manpage.Option{Names: []string{"-h"}, NoSummary: true, Long: "Print the usage and the options, one line each."},
				manpage.Option{Names: []string{"--help"}, NoSummary: true,
					Long: "Print this manual as plain text (as does `git taskclean help`). Through git, " +
						"`git taskclean --help` opens the man page instead: git hands `--help` to man(1)."},
				manpage.Option{Names: []string{"--man"}, NoSummary: true,
					Long: "Print this manual as a man page (roff), for `man -l -` or to install as git-taskclean.1."},
				manpage.Option{Names: []string{"--version"}, NoSummary: true, Long: "Print the version, as `git-taskclean 1.4.0`; a development build says `dev+<commit>` (`.dirty` when " +
					"built with uncommitted changes). With `--json`, one JSON object: `name`, `version`, `dev`, `commit`, " +
					"`modified`, `from`, `go`. Other flags beside it are ignored."},
			}},
			{Title: "EXIT STATUS", Blocks: []manpage.Block{
				manpage.Item{Tag: "0", Text: "Done, or nothing to do; kept worktrees are listed with the reason."},
				manpage.Item{Tag: "2", Text: "Bad usage or input, another clean of the run holds the lock, a version the " +
					"repository does not allow (`taskresume.minVersion`, the plan's `taskresume-version`), or a refusal " +
					"(a branch to delete is checked out or being rebased in a worktree that stays). One line on stderr, " +
					"starting with `error:`, says what to fix; nothing was changed."},
				manpage.Item{Tag: "3", Text: "Failed after changing something: what was done is printed first. Run the " +
					"same command again to finish."},
			}},
			{Title: "EXAMPLES", Blocks: []manpage.Block{
				manpage.Para("A run `x1y2z3` crashed. See where it stopped and which worktrees are stale:"),
				manpage.Code{"git taskresume x1y2z3", "git taskresume x1y2z3 --next"},
				manpage.Para("See what the clean would do, then do it:"),
				manpage.Code{"git taskclean --run x1y2z3 -n", "git taskclean --run x1y2z3"},
				manpage.Para("Make task 2.2 run again from scratch, or drop the whole run:"),
				manpage.Code{"git taskclean --run x1y2z3 --task 2.2", "git taskclean --run x1y2z3 --all"},
				manpage.Para("Make task 1.1 run again, and the tasks built on it with it; or 1.1 alone, then restack 1.2 as the report says:"),
				manpage.Code{"git taskclean --run x1y2z3 --task 1.1 --with-dependents", "git taskclean --run x1y2z3 --task 1.1 --only"},
				manpage.Para("Changed your mind: put the branches back, then a saved worktree with its uncommitted work:"),
				manpage.Code{"git taskclean --run x1y2z3 --undo", "git taskclean --run x1y2z3 --restore 2.2"},
				manpage.Para("Task 2.2's worktree was cleaned twice: the first clean's save, by its stamp (`--backups` lists them):"),
				manpage.Code{"git taskclean --run x1y2z3 --restore 2.2 --from 20260101T090000.000000000Z"},
				manpage.Para("Beside agents that may still be working, only what nobody touched for an hour; in CI, as JSON:"),
				manpage.Code{"git taskclean --run x1y2z3 --older-than 1h", "git taskclean --run x1y2z3 --json"},
				manpage.Para("List the saves, and drop those older than a month:"),
				manpage.Code{"git taskclean --run x1y2z3 --backups", "git taskclean --run x1y2z3 --expire-backups 30d"},
			}},
			{Title: "CONFIGURATION", Blocks: append([]manpage.Block{
				manpage.Para("Set with git config (`git config taskclean.preRemove 'make clean'`), in any file git " +
					"reads: the repository's settings win over `--global` ones. Key names are case-blind, as git's " +
					"are. A flag given on the command line wins over its key."),
				manpage.Item{Tag: "`taskclean.preRemove`", Text: "A command run through `sh -c` inside each " +
					"worktree the clean is about to remove (its directory the current one), before the clean " +
					"changes anything: to flush a cache, close a log, commit what is worth keeping. It gets the " +
					"variables under ENVIRONMENT, not git's that would point it at another repository " +
					"(`GIT_DIR`, `GIT_WORK_TREE`, `GIT_INDEX_FILE`...), and an empty stdin; only its last line of output is shown, " +
					"and only when it fails. " +
					"The clean then reads the run again and goes on from what the commands left: what they wrote " +
					"is saved with the rest; a commit that finishes the task makes it complete, and a complete " +
					"task's worktree is not stale.\n\n" +
					"A command that exits non-zero, or runs past `taskclean.preRemoveTimeout` (its whole process " +
					"group is then killed), keeps its worktree and the branch checked out there: the output says " +
					"so with the command's last line, and the clean goes on with the others (exit 0). No " +
					"command runs in a worktree a process works in (unless `--ignore-live`), which stays. " +
					"`--dry-run` lists the commands and runs none. Unset: nothing runs."},
				manpage.Item{Tag: "`taskclean.preRemoveTimeout`", Text: "How long one run of `taskclean.preRemove` " +
					"may take: " + cliutil.ConfigDuration + ". " +
					"Default `2m`. A value that is not a positive duration exits 2 before anything changes."},
				manpage.Item{Tag: "`taskresume.base`", Text: "The ref own commits are counted against, as `--base` " +
					"(see git-taskresume(1)): what is complete decides what is stale."},
				manpage.Item{Tag: "`taskresume.minVersion`", Text: "The versions of git-taskclean the repository " +
					"allows, a semver constraint, as for git-taskresume (with the plan's front matter " +
					"`taskresume-version`): a version outside it cleans nothing, in every mode but `--backups`, " +
					"and exits 2. A value that is not a constraint exits 2."},
				manpage.Item{Tag: "`taskresume.plan`", Text: "Where the plan is, as `--plan`: a path relative to the " +
					"top of the repository or `REV:PATH`, `{run}` standing for the run id (see git-taskresume(1))."},
				manpage.Item{Tag: "`taskresume.remote`", Text: "The remote the run is read from and claims are " +
					"dropped on, as `--remote NAME`; it must name a remote, or the clean exits 2."},
				manpage.Item{Tag: "`taskresume.remoteTimeout`", Text: "How long one exchange with the remote " +
					"(reading or dropping claims there) may take: " + cliutil.ConfigDuration + ". Default `60s`. " +
					"A value that is not a positive duration exits 2."},
				manpage.Item{Tag: "`taskresume.schedule`", Text: "What git taskresume offers next (`phases` or " +
					"`deps`); what is stale does not depend on it, but another value exits 2 here too, as the " +
					"other keys' mistakes do."},
				manpage.Item{Tag: "`taskresume.worktreeDir`", Text: "The folder the tasks' worktrees are in, " +
					"relative to the top of the main worktree unless absolute. Default `.worktrees`. A worktree " +
					"on a task's branch outside it is never stale: only `--task` and `--all` remove it."},
			}, cliutil.SharedSettings("color.taskclean", "the output")...)},
			{Title: "ENVIRONMENT", Blocks: []manpage.Block{
				manpage.Para("Set by git taskclean for the `taskclean.preRemove` command:"),
				manpage.Item{Tag: "`GIT_TASKCLEAN_RUN`", Text: "The run being cleaned: the value of `--run`."},
				manpage.Item{Tag: "`GIT_TASKCLEAN_TASK`", Text: "The id of the task whose worktree it is (`2.1`); " +
					"empty for a worktree that is no one task's, such as the run's shared worktree under `--all`."},
				manpage.Item{Tag: "`GIT_TASKCLEAN_WORKTREE`", Text: "The worktree's absolute path, as git worktree " +
					"list prints it: the directory the command runs in."},
				manpage.Para("Read by git taskclean:"),
				manpage.Item{Tag: "`GIT_TASKRESUME_TRACE`", Text: "A file: every git command the clean runs is " +
					"appended to it, one line each (`git` and its arguments), as git taskresume does."},
				manpage.Item{Tag: "`GIT_TASKRESUME_TIMING`", Text: "A file: each git command the clean runs is " +
					"appended to it as `<start> <end> git <arguments>`, the times in milliseconds since the " +
					"program started, with named points of its work between them."},
				manpage.Item{Tag: "`NO_COLOR`", Text: "Set to anything: no colour, unless `color.taskclean` " +
					"or `color.ui` is `always`."},
				manpage.Item{Tag: "`GIT_PROGRESS_DELAY`", Text: "git's own: how many seconds a step runs before " +
					"its progress line shows (default 1; `0` shows every step). A value git cannot read exits 2."},
			}},
			{Title: "FILES", Blocks: []manpage.Block{
				manpage.Item{Tag: "`refs/taskclean/<run>/<stamp>/...`", Text: "Each clean's saves: `worktree/<name>` " +
					"(a stash-shaped commit), `ignored/<name>`, `raw/<name>`, `admin/<name>`, `index/<name>` (an " +
					"unmerged index's conflict stages, as `1/<path>`, `2/<path>`, `3/<path>`), `branch/<name>`, " +
					"the claims it dropped."},
				manpage.Item{Tag: "`refs/taskclaims/<run>/<id>`", Text: "Task claims (see git-taskresume(1)): a clean " +
					"drops expired claims and those of tasks it removes, saving them."},
				manpage.Item{Tag: "`.worktrees/`", Text: "Where the tasks' worktrees are (git config `taskresume.worktreeDir`); " +
					"`.worktrees/<run>-main` is the run's shared worktree, removed only by `--all`."},
				manpage.Item{Tag: "`specs/<run>-*/plan.md`", Text: "The run's plan, found as git taskresume finds it: " +
					"it says which tasks are complete."},
				manpage.Item{Tag: "`taskclean-<run>.lock`", Text: "In the git common directory: held while a clean of the run works."},
			}},
			{Title: "SEE ALSO", Blocks: []manpage.Block{
				manpage.Para("git-taskresume(1), git-worktree(1), git-branch(1); docs/NO-LOSS.md in the source."),
			}},
		},
	}
}
