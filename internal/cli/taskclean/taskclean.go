// Package taskclean is the git-taskclean command: flags in, actions out.
package taskclean

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/taskresume/git-taskresume/internal/clean"
	"github.com/taskresume/git-taskresume/internal/cliutil"
	"github.com/taskresume/git-taskresume/internal/resume"
)

// Version is set at build time by install.sh.
var Version = "dev"

const description = `Removes what a crashed plan run left behind, and never loses work doing it.

Without --task or --all it removes the run's stale worktrees: those whose
task is not complete, or whose directory is gone. The main worktree, locked
worktrees, the worktree it runs in, worktrees in which a live process works,
and anything git has not registered as a worktree are never touched;
symbolic links are never followed.

Before a worktree goes it is renamed aside (so writers stop), saved under
refs/taskclean/<run>/<stamp>/ (staged, unstaged and untracked files, edits
hidden by assume-unchanged or skip-worktree, ignored files up to 1 MiB each
and 20 MiB in all, commits only its HEAD, reflog or per-worktree refs hold,
a stopped rebase or am), and every file in it is checked against the save.
What cannot be proved saved keeps the worktree. A deleted branch's tip is
saved too. --undo puts the deleted branches back; --restore brings a saved
worktree back; --backups lists what is saved.

Exit codes:
   0  done (or nothing to do; kept worktrees are listed with the reason)
   2  bad usage or input, another clean of the run holds the lock, or a
      refusal (a branch to delete is checked out or being rebased in a
      worktree that stays); nothing was changed
   3  failed after changing something: what was done is printed first`

// App returns the command definition; the man page is generated from it.
func App(stdout io.Writer) *cli.App {
	return &cli.App{
		Name:            "git-taskclean",
		Usage:           "remove a plan run's stale worktrees and branches, saving everything first",
		UsageText:       "git taskclean --run <run> [--task ID]... [--all] [--completed] [--older-than DURATION] [--ignore-live] [--drop-ignored] [-n] [--json] [--no-backup]\ngit taskclean --run <run> --undo [STAMP]\ngit taskclean --run <run> --restore TASK|PATH\ngit taskclean --run <run> --backups\ngit taskclean --run <run> --expire-backups DURATION",
		Description:     description,
		Version:         Version,
		Writer:          stdout,
		HideHelpCommand: true,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "run", Usage: "the run `ID` to clean (required)"},
			&cli.StringSliceFlag{Name: "task", Usage: "force re-execution of task `ID`: delete its branch and worktree (repeatable)"},
			&cli.BoolFlag{Name: "all", Usage: "the whole run: every task branch, <run>-main, every worktree"},
			&cli.BoolFlag{Name: "completed", Usage: "also remove the worktrees of complete tasks"},
			&cli.DurationFlag{Name: "older-than", Usage: "only worktrees with no change (HEAD, index, files) for `DURATION`, e.g. 30m, 24h"},
			&cli.BoolFlag{Name: "undo", Usage: "put back the branches the last clean of the run (or the clean STAMP given after it) deleted; print how to restore its worktrees"},
			&cli.StringFlag{Name: "restore", Usage: "bring back the saved worktree of task `ID` or PATH (its newest most complete save)"},
			&cli.BoolFlag{Name: "backups", Usage: "list every saved clean of the run and what it holds"},
			&cli.BoolFlag{Name: "ignore-live", Usage: "also save and remove worktrees in which a live process works"},
			&cli.BoolFlag{Name: "drop-ignored", Usage: "let ignored files past the save budget (1 MiB a file, 20 MiB a worktree) go unsaved"},
			&cli.BoolFlag{Name: "dry-run", Aliases: []string{"n"}, Usage: "print every action and change nothing"},
			&cli.BoolFlag{Name: "json", Usage: "write one JSON document instead of the action lines"},
			&cli.BoolFlag{Name: "no-backup", Usage: "do not save worktrees before removing them (a deleted branch's tip is still recorded)"},
			&cli.DurationFlag{Name: "expire-backups", Usage: "only delete the run's saved states older than `DURATION`"},
			&cli.StringFlag{Name: "base", Usage: "count own commits against `REF` (as git taskresume)"},
			&cli.StringFlag{Name: "plan", Usage: "read the plan from `PATH` or REV:PATH (as git taskresume)"},
			&cli.StringFlag{Name: "remote", Usage: "also read the run's branches from refs/remotes/`NAME`/ (local wins; default: git config taskresume.remote)"},
			&cli.BoolFlag{Name: "man", Hidden: true, Usage: "print the man page"},
		},
		Action: func(c *cli.Context) error { return action(c, stdout) },
	}
}

// Main runs the command and returns its exit code.
func Main(args []string, stdout, stderr io.Writer) int {
	return cliutil.Run(App(stdout), args, stderr)
}

func action(c *cli.Context, stdout io.Writer) error {
	ctx := c.Context
	if c.Bool("man") {
		page, err := cliutil.ManPage(c.App)
		if err != nil {
			return err
		}
		_, err = io.WriteString(stdout, page)
		return err
	}
	stamp := ""
	if c.Bool("undo") && c.NArg() == 1 {
		// --undo takes an optional stamp: the clean to undo.
		stamp = c.Args().First()
		if !clean.ValidStamp(stamp) {
			return &cliutil.UsageError{Msg: fmt.Sprintf("--undo %s: not a stamp (list them with: git taskclean --run %s --backups)", resume.Display(stamp), resume.Display(c.String("run")))}
		}
	} else if c.NArg() > 0 {
		return &cliutil.UsageError{Msg: fmt.Sprintf("unexpected argument %q: the run is given with --run <run>", c.Args().First())}
	}
	if !c.IsSet("run") {
		return &cliutil.UsageError{Msg: "missing --run <run>: which run to clean"}
	}
	modes := 0
	for _, f := range []string{"undo", "expire-backups", "all", "task", "restore", "backups"} {
		if c.IsSet(f) {
			modes++
		}
	}
	if modes > 1 {
		return &cliutil.UsageError{Msg: "--undo, --restore, --backups, --expire-backups, --all and --task cannot be combined"}
	}
	if c.Duration("older-than") < 0 || c.Duration("expire-backups") < 0 {
		return &cliutil.UsageError{Msg: "durations must be positive, e.g. 30m or 24h"}
	}
	repo, err := resume.OpenChecked(ctx, "git-taskclean")
	if err != nil {
		return err
	}
	cwd, _ := os.Getwd()
	opts := clean.Options{
		Run: c.String("run"), Tasks: c.StringSlice("task"), All: c.Bool("all"), Completed: c.Bool("completed"),
		DryRun: c.Bool("dry-run"), NoBackup: c.Bool("no-backup"), OlderThan: c.Duration("older-than"),
		ExpireBackups: c.Duration("expire-backups"), PlanPath: c.String("plan"), Base: c.String("base"),
		Cwd: cwd, Now: time.Now(), Remote: c.String("remote"),
		IgnoreLive: c.Bool("ignore-live"), DropIgnored: c.Bool("drop-ignored"), Stamp: stamp, Restore: c.String("restore"),
	}
	if _, err := resume.ValidRun(opts.Run); err != nil {
		return err
	}
	var res *clean.Result
	switch {
	case c.Bool("undo"):
		res, err = clean.Undo(ctx, repo, opts)
	case c.IsSet("expire-backups"):
		res, err = clean.Expire(ctx, repo, opts)
	case c.IsSet("restore"):
		res, err = clean.Restore(ctx, repo, opts)
	case c.Bool("backups"):
		res, err = clean.Backups(ctx, repo, opts)
	default:
		res, err = clean.Run(ctx, repo, opts)
	}
	var partial *clean.PartialError
	if errors.As(err, &partial) {
		// What was done before the failure, then the failure itself.
		res = partial.Result
		err = &cliutil.FailedError{Err: err}
	}
	if res == nil {
		return err
	}
	if perr := output(c, stdout, res, cwd); perr != nil && err == nil {
		err = perr
	}
	return err
}

func output(c *cli.Context, stdout io.Writer, res *clean.Result, cwd string) error {
	if c.Bool("json") {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(res)
	}
	f, _ := stdout.(*os.File)
	style := resume.Style{}
	if f != nil {
		style = resume.StyleFor(f)
	}
	if res.Backups != nil || c.Bool("backups") {
		renderBackups(stdout, res, cwd)
		return nil
	}
	render(stdout, res, cwd, style)
	return nil
}

func render(w io.Writer, res *clean.Result, cwd string, style resume.Style) {
	rel := func(p string) string {
		if r, err := filepath.Rel(cwd, p); err == nil && !strings.HasPrefix(r, "..") {
			return resume.Display(r)
		}
		return resume.Display(p)
	}
	q := resume.Display
	would := ""
	if res.DryRun {
		would = "would "
	}
	if res.Resumed != "" {
		fmt.Fprintf(w, "finishing the interrupted clean %s\n", res.Resumed)
	}
	if len(res.Actions) == 0 {
		fmt.Fprintf(w, "nothing to clean for run %s\n", res.RunID)
	}
	for _, a := range res.Actions {
		switch a.Op {
		case "save_worktree":
			what := "HEAD"
			if a.Staged+a.Unstaged+a.Untracked > 0 {
				what = fmt.Sprintf("%d staged, %d unstaged, %d untracked", a.Staged, a.Unstaged, a.Untracked)
			}
			fmt.Fprintf(w, "%ssave worktree %s (%s) as %s\n", would, rel(a.Path), what, a.Ref)
		case "save_ignored":
			fmt.Fprintf(w, "%ssave %d ignored file(s) of %s as %s\n", would, len(a.Ignored), rel(a.Path), a.Ref)
		case "save_raw":
			fmt.Fprintf(w, "%ssave the bytes of %s as %s\n", would, q(a.Reason), a.Ref)
		case "save_admin":
			if a.Done || res.DryRun { // a restore lists the kept admin state as a note (not done)
				fmt.Fprintf(w, "%ssave the %s of %s as %s\n", would, q(a.Reason), rel(a.Path), a.Ref)
			} else {
				fmt.Fprintf(w, "note: %s\n", q(a.Reason))
			}
		case "recover":
			fmt.Fprintf(w, "%s: %s\n", rel(a.Path), q(a.Reason))
		case "save_branch":
			fmt.Fprintf(w, "%ssave branch %s (%s) as %s\n", would, a.Branch, resume.Short(a.Commit), a.Ref)
		case "save_reflog":
			fmt.Fprintf(w, "%ssave what only the reflog of branch %s holds (%s: %s) as %s\n", would, a.Branch, resume.Short(a.Commit), a.Reason, a.Ref)
		case "remove_worktree", "prune_worktree":
			verb := map[string]string{"remove_worktree": "remove", "prune_worktree": "prune"}[a.Op]
			line := fmt.Sprintf("%s%s worktree %s", would, verb, rel(a.Path))
			if a.Reason != "" {
				line += " (" + q(a.Reason) + ")"
			}
			if len(a.Ignored) > 0 {
				names := make([]string, len(a.Ignored))
				for i, n := range a.Ignored {
					names[i] = q(n)
				}
				line += fmt.Sprintf("; not saved (regenerated or let go): %s", strings.Join(names, ", "))
			}
			fmt.Fprintln(w, line)
		case "delete_branch":
			fmt.Fprintf(w, "%sdelete branch %s (was %s)\n", would, a.Branch, resume.Short(a.Commit))
		case "skip_worktree":
			fmt.Fprintf(w, "skip worktree %s: %s\n", rel(a.Path), q(a.Reason))
		case "skip_branch":
			fmt.Fprintf(w, "skip branch %s: %s\n", a.Branch, q(a.Reason))
		case "restore_branch":
			fmt.Fprintf(w, "%srestore branch %s at %s\n", would, a.Branch, resume.Short(a.Commit))
		case "restore_worktree":
			if a.Command != "" {
				fmt.Fprintf(w, "saved worktree %s; to bring it back:\n  %s\n", q(a.Path), a.Command)
			} else {
				fmt.Fprintf(w, "%srestore worktree %s from %s (%s)\n", would, rel(a.Path), a.Ref, q(a.Reason))
			}
		case "save_claim":
			fmt.Fprintf(w, "%ssave claim of task %s (%s) as %s\n", would, a.Task, q(a.Reason), a.Ref)
		case "drop_claim":
			fmt.Fprintf(w, "%sdrop claim of task %s (%s)\n", would, a.Task, q(a.Reason))
		case "skip_claim":
			if a.Task != "" {
				fmt.Fprintf(w, "skip claim of task %s: %s\n", a.Task, q(a.Reason))
			} else {
				fmt.Fprintf(w, "skip claims: %s\n", q(a.Reason))
			}
		case "expire_backup":
			fmt.Fprintf(w, "%sdelete saved %s\n", would, a.Ref)
		}
	}
	if res.Report != nil && !res.DryRun {
		r := res.Report
		fmt.Fprintf(w, "\n")
		line := fmt.Sprintf("run %s: %s", r.RunID, r.Status)
		if r.Plan != nil {
			line += fmt.Sprintf(", %d/%d tasks", r.CompletedTasks, r.TotalTasks)
		}
		if r.Resume != nil && len(r.Resume.Tasks) > 0 {
			line += fmt.Sprintf("; next: %s", strings.Join(r.Resume.Tasks, " "))
		}
		if len(r.StaleWorktrees) > 0 {
			line += fmt.Sprintf("; %d stale worktree(s) left", len(r.StaleWorktrees))
		}
		fmt.Fprintln(w, line)
	}
	if res.Backup != "" && !res.DryRun && hasSaves(res) {
		fmt.Fprintf(w, "saved under %s; undo with: git taskclean --run %s --undo\n", res.Backup, res.RunID)
	}
}

func hasSaves(res *clean.Result) bool {
	for _, a := range res.Actions {
		if strings.HasPrefix(a.Op, "save_") && a.Done {
			return true
		}
	}
	return false
}

func renderBackups(w io.Writer, res *clean.Result, cwd string) {
	if len(res.Backups) == 0 {
		fmt.Fprintf(w, "no saved clean of run %s\n", res.RunID)
		return
	}
	rel := func(p string) string {
		if r, err := filepath.Rel(cwd, p); err == nil && !strings.HasPrefix(r, "..") {
			return resume.Display(r)
		}
		return resume.Display(p)
	}
	for _, b := range res.Backups {
		line := fmt.Sprintf("%s  %s", b.Stamp, b.Time.UTC().Format("2006-01-02 15:04:05 UTC"))
		if len(b.Continues) > 0 {
			line += "  (finished the interrupted " + strings.Join(b.Continues, ", ") + ")"
		}
		fmt.Fprintln(w, line)
		for _, it := range b.Saves {
			switch it.Kind {
			case "worktree":
				what := "HEAD"
				if it.Work {
					what = "uncommitted work"
				}
				fmt.Fprintf(w, "  worktree %s (%s)  %s\n", rel(it.Path), what, it.Ref)
			case "branch":
				fmt.Fprintf(w, "  branch %s at %s\n", it.Name, resume.Short(it.Commit))
			default:
				fmt.Fprintf(w, "  %s %s  %s\n", it.Kind, it.Name, it.Ref)
			}
		}
	}
	line := fmt.Sprintf("undo the last with: git taskclean --run %s --undo", res.RunID)
	if len(res.Backups) > 1 {
		line += fmt.Sprintf("; an older one: git taskclean --run %s --undo %s", res.RunID, res.Backups[len(res.Backups)-2].Stamp)
	}
	fmt.Fprintln(w, line)
}
