package taskclean

import (
	"os"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/taskresume/git-taskresume/internal/clean"
	"github.com/taskresume/git-taskresume/internal/cliutil"
	"github.com/taskresume/git-taskresume/internal/exit"
	"github.com/taskresume/git-taskresume/internal/progress"
	"github.com/taskresume/git-taskresume/internal/resume"
	"github.com/taskresume/git-taskresume/internal/ui"
)

// Mode is what one call of git taskclean does: exactly one per call.
type Mode int

const (
	ModeClean   Mode = iota // save and remove (--task, --all, or the stale worktrees)
	ModeUndo                // --undo [STAMP]: recreate what a clean deleted
	ModeRestore             // --restore TASK|PATH: recreate a saved worktree
	ModeBackups             // --backups: list the saved cleans
	ModeExpire              // --expire-backups D: delete old saves
)

func (m Mode) String() string {
	return [...]string{"the clean", "--undo", "--restore", "--backups", "--expire-backups"}[m]
}

// cleanOnly are the flags that shape a clean; the other modes read none of
// them, so they are refused there rather than dropped.
var cleanOnly = []string{"task", "with-dependents", "only", "all", "completed", "older-than", "no-backup", "ignore-live", "drop-ignored", "base", "plan", "plan-run-id", "remote"}

// Options are git taskclean's flags and arguments, read once from the
// command line by optionsFrom; run acts on them alone.
type Options struct {
	Mode  Mode
	JSON  bool
	Clean clean.Options
	// Quiet is --quiet: no progress lines (the output is the same).
	Quiet bool
}

// optionsFrom reads the command line once, refusing flags that ask for two
// things at once or for nothing they could do.
func optionsFrom(c *cli.Context) (Options, error) {
	o := Options{JSON: c.Bool("json"), Quiet: c.Bool("quiet")}
	stamp := ""
	if c.Bool("undo") && c.NArg() == 1 {
		// --undo takes an optional stamp: the clean to undo.
		stamp = c.Args().First()
		if !clean.ValidStamp(stamp) {
			return o, exit.BadInput("--undo %s: not a stamp (list them with: git taskclean --run %s --backups)", ui.Display(stamp), ui.Display(c.String("run")))
		}
	} else if c.NArg() > 0 {
		return o, bareWord(c)
	}
	if !c.IsSet("run") {
		return o, exit.BadInput("missing --run <run>: which run to clean")
	}
	modes := 0
	for _, f := range []string{"undo", "expire-backups", "all", "task", "restore", "backups"} {
		if c.IsSet(f) {
			modes++
		}
	}
	if modes > 1 {
		return o, exit.BadInput("--undo, --restore, --backups, --expire-backups, --all and --task cannot be combined")
	}
	if err := dependentsOption(c); err != nil {
		return o, err
	}
	if c.IsSet("from") {
		if err := fromOption(c); err != nil {
			return o, err
		}
	}
	switch {
	case c.Bool("undo"):
		o.Mode = ModeUndo
	case c.IsSet("expire-backups"):
		o.Mode = ModeExpire
	case c.IsSet("restore"):
		o.Mode = ModeRestore
	case c.Bool("backups"):
		o.Mode = ModeBackups
	}
	if o.Mode != ModeClean {
		for _, f := range cleanOnly {
			if c.IsSet(f) {
				return o, exit.BadInput("--%s is for a clean; it cannot be used with %s", f, o.Mode)
			}
		}
	}
	for _, f := range []string{"older-than", "expire-backups"} {
		if d := cliutil.DurationOf(c, f); d < 0 {
			return o, exit.BadInput("--%s %q: must be positive, e.g. 30m, 12h, 1d or 2w", f, cliutil.FormatDuration(d))
		}
	}
	// --plan '' names no plan (the run's own is looked for): nothing for
	// --plan-run-id to accept.
	if err := resume.CheckPlanRunID(c.String("plan-run-id"), c.IsSet("plan-run-id"), c.String("plan") != ""); err != nil {
		return o, err
	}
	if c.IsSet("remote") && c.String("remote") == "" {
		return o, exit.BadInput("--remote needs a remote's name (git remote lists them)")
	}
	// Progress on a terminal's stderr only, and never beside a JSON
	// document (its reader is a program).
	meter, err := progress.ForStderr(c.App.ErrWriter, o.Quiet || o.JSON)
	if err != nil {
		return o, &exit.BadInputError{Msg: err.Error()}
	}
	cwd, _ := os.Getwd()
	o.Clean = clean.Options{
		Run: c.String("run"), Tasks: c.StringSlice("task"), WithDependents: c.Bool("with-dependents"), Only: c.Bool("only"), All: c.Bool("all"), Completed: c.Bool("completed"),
		DryRun: c.Bool("dry-run"), NoBackup: c.Bool("no-backup"), OlderThan: cliutil.DurationOf(c, "older-than"),
		ExpireBackups: cliutil.DurationOf(c, "expire-backups"), PlanPath: c.String("plan"), PlanRunID: c.String("plan-run-id"), Base: c.String("base"),
		Cwd: cwd, Now: time.Now(), Remote: c.String("remote"),
		IgnoreLive: c.Bool("ignore-live"), DropIgnored: c.Bool("drop-ignored"), Stamp: stamp, Restore: c.String("restore"),
		From: c.String("from"), Progress: meter,
	}
	return o, nil
}

// fromOption checks --from STAMP: it names the clean whose save --restore
// brings back, so it goes with --restore alone and must be a stamp.
func fromOption(c *cli.Context) error {
	from, run := c.String("from"), ui.Display(c.String("run"))
	switch {
	case c.Bool("undo"):
		return exit.BadInput("--from is for --restore; --undo takes the stamp as its own word: git taskclean --run %s --undo %s", run, ui.Display(from))
	case !c.IsSet("restore"):
		return exit.BadInput("--from %s: goes with --restore TASK|PATH (the save of that task or path clean %s made)", ui.Display(from), ui.Display(from))
	case !clean.ValidStamp(from):
		return exit.BadInput("--from %s: not a stamp (list them with: git taskclean --run %s --backups)", ui.Display(from), run)
	}
	return nil
}

// dependentsOption checks --with-dependents and --only: each says what
// --task does with the tasks standing on the ones it names, so each needs
// --task, and they answer the same question two ways.
func dependentsOption(c *cli.Context) error {
	with, only := c.Bool("with-dependents"), c.Bool("only")
	switch {
	case with && only:
		return exit.BadInput("--with-dependents and --only cannot be combined: --with-dependents runs the dependents of --task again too, --only leaves them (they read stale_base)")
	case (with || only) && !c.IsSet("task") && !c.Bool("undo") && !c.IsSet("restore") && !c.Bool("backups") && !c.IsSet("expire-backups"):
		flag := "--only"
		if with {
			flag = "--with-dependents"
		}
		return exit.BadInput("%s goes with --task ID: it says what happens to the tasks that depend on or are stacked on ID", flag)
	}
	return nil
}
