// Package taskclean is the git-taskclean command: flags in, actions out.
package taskclean

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/taskresume/git-taskresume/internal/clean"
	"github.com/taskresume/git-taskresume/internal/cliutil"
	"github.com/taskresume/git-taskresume/internal/exit"
	"github.com/taskresume/git-taskresume/internal/resume"
	"github.com/taskresume/git-taskresume/internal/ui"
)

// App returns the command definition; Manual documents every flag.
func App(stdout io.Writer) *cli.App {
	flags := slices.Concat(
		cliutil.Bools("all", "completed", "undo", "backups", "ignore-live", "drop-ignored", "json", "no-backup", "with-dependents", "only"),
		cliutil.Strings("run", "restore", "from", "base", "plan", "remote"),
		cliutil.Strings("plan-run-id"),
		[]cli.Flag{
			&cli.StringSliceFlag{Name: "task"}, &cli.BoolFlag{Name: "dry-run", Aliases: []string{"n"}},
			&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}},
			cliutil.DurationFlag("older-than", 0, ""), cliutil.DurationFlag("expire-backups", 0, ""),
		},
		cliutil.Common(),
	)
	return cliutil.NewApp(Manual(), stdout, flags, func(c *cli.Context) error { return action(c, stdout) })
}

// hints answer the flags of git taskresume given to git taskclean.
var hints = map[string]string{
	"next":       "that is git taskresume <run> --next",
	"list":       "that is git taskresume --list",
	"check-plan": "that is git taskresume --check-plan",
}

// Main runs the command and returns its exit code.
func Main(args []string, stdout, stderr io.Writer) int {
	app := App(stdout)
	app.Metadata = map[string]any{"args": args}
	return cliutil.Run(cliutil.Command{App: app, Page: Manual(), Hints: hints}, args, stdout, stderr)
}

// action reads the command line once and runs what it asks for.
func action(c *cli.Context, stdout io.Writer) error {
	o, err := optionsFrom(c)
	if err != nil {
		return err
	}
	// A progress line that is still up goes before the error is printed.
	defer o.Clean.Progress.Close()
	return run(c.Context, o, stdout)
}

// run does what o asks: one mode per call.
func run(ctx context.Context, o Options, stdout io.Writer) (err error) {
	// git's version is asked once something failed: an older git fails at
	// the first read, before a clean changes anything. --undo, --restore
	// and --expire-backups change refs and worktrees without reading the
	// worktrees first (--restore reads them where a failure is no error),
	// so they check it beside finding the repository, as they always did.
	defer func() { err = resume.Explain(ctx, "git-taskclean", err) }()
	checkFirst := !o.Clean.DryRun && (o.Mode == ModeUndo || o.Mode == ModeRestore || o.Mode == ModeExpire)
	repo, err := resume.OpenFor(ctx, "git-taskclean", checkFirst)
	if err != nil {
		return err
	}
	if _, err := resume.ValidRun(o.Clean.Run); err != nil {
		return err
	}
	var res *clean.Result
	switch o.Mode {
	case ModeUndo:
		res, err = clean.Undo(ctx, repo, o.Clean)
	case ModeExpire:
		res, err = clean.Expire(ctx, repo, o.Clean)
	case ModeRestore:
		res, err = clean.Restore(ctx, repo, o.Clean)
	case ModeBackups:
		res, err = clean.Backups(ctx, repo, o.Clean)
	default:
		res, err = clean.Run(ctx, repo, o.Clean)
	}
	var partial *clean.PartialError
	if errors.As(err, &partial) {
		// What was done before the failure, then the failure itself.
		res = partial.Result
		err = &exit.PartialError{Err: err}
	}
	if res == nil {
		return err
	}
	o.Clean.Progress.Close() // the progress lines end before the output
	if perr := output(o, stdout, res); perr != nil && err == nil {
		err = perr
	}
	return err
}

// bareWord refuses an argument the command does not take; a run id given
// without --run gets the command line that was meant.
func bareWord(c *cli.Context) error {
	word := c.Args().First()
	msg := fmt.Sprintf("unexpected argument %s: the run is given with --run <run>", strconv.Quote(word))
	if c.IsSet("run") || c.NArg() > 1 || !resume.ValidRunName(word) {
		return &exit.BadInputError{Msg: msg}
	}
	meant := []string{"git", "taskclean", "--run", word}
	args, _ := c.App.Metadata["args"].([]string)
	for i, a := range args {
		if i > 0 && a != word {
			meant = append(meant, ui.ShellQuote(a))
		}
	}
	return &exit.BadInputError{Msg: msg + "; did you mean " + strings.Join(meant, " ") + "?"}
}

// output writes what the clean did, as JSON or for people.
func output(o Options, stdout io.Writer, res *clean.Result) error {
	cwd := o.Clean.Cwd
	if o.JSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(res)
	}
	f, _ := stdout.(*os.File)
	style := ui.Style{}
	if f != nil {
		style = ui.StyleForSetting(f, res.Color)
	}
	if res.Backups != nil || o.Mode == ModeBackups {
		renderBackups(stdout, res, cwd)
		return nil
	}
	render(stdout, res, cwd, style)
	return nil
}

func render(w io.Writer, res *clean.Result, cwd string, style ui.Style) {
	rel := func(p string) string {
		if r, err := filepath.Rel(cwd, p); err == nil && !strings.HasPrefix(r, "..") {
			return ui.Display(r)
		}
		return ui.Display(p)
	}
	q := ui.Display
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
		case clean.OpSaveWorktree:
			what := "HEAD"
			if a.Staged+a.Unstaged+a.Untracked > 0 {
				what = fmt.Sprintf("%d staged, %d unstaged, %d untracked", a.Staged, a.Unstaged, a.Untracked)
			}
			fmt.Fprintf(w, "%ssave worktree %s (%s) as %s\n", would, rel(a.Path), what, a.Ref)
		case clean.OpSaveIgnored:
			fmt.Fprintf(w, "%ssave %s of %s as %s\n", would, ui.Plural(len(a.Ignored), "ignored file"), rel(a.Path), a.Ref)
		case clean.OpSaveRaw:
			fmt.Fprintf(w, "%ssave the bytes of %s as %s\n", would, q(a.Reason), a.Ref)
		case clean.OpSaveIndex:
			fmt.Fprintf(w, "%ssave the %s in the index of %s as %s\n", would, q(a.Reason), rel(a.Path), a.Ref)
		case clean.OpSaveAdmin:
			if a.Done || res.DryRun { // a restore lists the kept admin state as a note (not done)
				fmt.Fprintf(w, "%ssave the %s of %s as %s\n", would, q(a.Reason), rel(a.Path), a.Ref)
			} else {
				fmt.Fprintf(w, "note: %s\n", q(a.Reason))
			}
		case clean.OpRecover:
			what := rel(a.Path)
			if a.Path == "" {
				what = "branch " + a.Branch
			}
			fmt.Fprintf(w, "%s: %s\n", what, q(a.Reason))
		case clean.OpSaveBranch:
			fmt.Fprintf(w, "%ssave branch %s (%s) as %s%s\n", would, a.Branch, ui.Short(a.Commit), a.Ref, why(a))
		case clean.OpSaveReflog:
			fmt.Fprintf(w, "%ssave what only the reflog of branch %s holds (%s: %s) as %s\n", would, a.Branch, ui.Short(a.Commit), a.Reason, a.Ref)
		case clean.OpRemoveWorktree, clean.OpPruneWorktree:
			verb := "remove"
			if a.Op == clean.OpPruneWorktree {
				verb = "prune"
			}
			line := fmt.Sprintf("%s%s worktree %s", would, verb, rel(a.Path))
			if a.Bytes > 0 {
				line += " (" + ui.Bytes(a.Bytes) + ")"
			}
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
		case clean.OpDeleteBranch:
			fmt.Fprintf(w, "%sdelete branch %s (was %s)%s\n", would, a.Branch, ui.Short(a.Commit), why(a))
		case clean.OpSkipWorktree:
			fmt.Fprintf(w, "skip worktree %s: %s\n", rel(a.Path), q(a.Reason))
		case clean.OpSkipBranch:
			fmt.Fprintf(w, "skip branch %s: %s\n", a.Branch, q(a.Reason))
		case clean.OpRestoreBranch:
			fmt.Fprintf(w, "%srestore branch %s at %s%s\n", would, a.Branch, ui.Short(a.Commit), why(a))
		case clean.OpRestoreWorktree:
			if a.Command != "" {
				fmt.Fprintf(w, "saved worktree %s; to bring it back:\n  %s\n", q(a.Path), a.Command)
			} else {
				fmt.Fprintf(w, "%srestore worktree %s from %s (%s)\n", would, rel(a.Path), a.Ref, q(a.Reason))
			}
		case clean.OpSaveClaim:
			fmt.Fprintf(w, "%ssave claim of task %s (%s) as %s\n", would, a.Task, q(a.Reason), a.Ref)
		case clean.OpDropClaim:
			fmt.Fprintf(w, "%sdrop claim of task %s (%s)\n", would, a.Task, q(a.Reason))
		case clean.OpSkipClaim:
			if a.Task != "" {
				fmt.Fprintf(w, "skip claim of task %s: %s\n", a.Task, q(a.Reason))
			} else {
				fmt.Fprintf(w, "skip claims: %s\n", q(a.Reason))
			}
		case clean.OpExpireBackup:
			fmt.Fprintf(w, "%sdelete saved %s\n", would, a.Ref)
		case clean.OpPreRemove:
			if res.DryRun { // run, it is quiet unless it fails (a skip says so)
				fmt.Fprintf(w, "would run git config taskclean.preRemove in %s: %s\n", rel(a.Path), q(a.Command))
			}
		}
	}
	if res.FreedBytes > 0 {
		verb := "freed"
		if res.DryRun {
			verb = "would free"
		}
		fmt.Fprintf(w, "%s %s on disk\n", verb, ui.Bytes(res.FreedBytes))
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
			line += "; " + ui.Plural(len(r.StaleWorktrees), "stale worktree") + " left"
		}
		fmt.Fprintln(w, line)
	}
	if res.Backup != "" && !res.DryRun && hasSaves(res) {
		// By its stamp, as --undo prints --from: "--undo" alone is the last
		// clean, another one once the run is cleaned again.
		fmt.Fprintf(w, "saved under %s; undo with: git taskclean --run %s --undo %s\n", res.Backup, res.RunID, res.Stamp)
	}
	if res.Report != nil {
		// A plan of a near run id the run's branches name: the clean
		// could not tell what is stale without it.
		for _, h := range res.Report.Hints() {
			fmt.Fprintf(w, "hint: %s\n", h)
		}
	}
}

func hasSaves(res *clean.Result) bool {
	for _, a := range res.Actions {
		if a.Op.Saves() && a.Done {
			return true
		}
	}
	return false
}

// why is an action's reason as the end of its line ("" without one): a
// branch's actions have one only when it is an alias (a symbolic ref).
func why(a *clean.Action) string {
	if a.Reason == "" {
		return ""
	}
	return ": " + ui.Display(a.Reason)
}

func renderBackups(w io.Writer, res *clean.Result, cwd string) {
	if len(res.Backups) == 0 {
		fmt.Fprintf(w, "no saved clean of run %s\n", res.RunID)
		return
	}
	rel := func(p string) string {
		if r, err := filepath.Rel(cwd, p); err == nil && !strings.HasPrefix(r, "..") {
			return ui.Display(r)
		}
		return ui.Display(p)
	}
	for _, b := range res.Backups {
		line := fmt.Sprintf("%s  %s", b.Stamp, ui.When(b.Time))
		if len(b.Continues) > 0 {
			line += "  (finished the interrupted " + strings.Join(b.Continues, ", ") + ")"
		}
		fmt.Fprintln(w, line)
		for _, it := range b.Saves {
			switch it.Kind {
			case clean.SavedWorktree:
				what := "HEAD"
				if it.Work {
					what = "uncommitted work"
				}
				fmt.Fprintf(w, "  worktree %s (%s)  %s\n", rel(it.Path), what, it.Ref)
				if it.Command != "" {
					fmt.Fprintf(w, "    restore: %s\n", it.Command)
				}
			case clean.SavedBranch:
				fmt.Fprintf(w, "  branch %s at %s\n", it.Name, ui.Short(it.Commit))
			case clean.SavedAlias:
				// An alias is restored as one: say what it pointed to.
				fmt.Fprintf(w, "  alias %s -> %s (at %s)\n", it.Name, strings.TrimPrefix(it.Target, "refs/heads/"), ui.Short(it.Tip))
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
