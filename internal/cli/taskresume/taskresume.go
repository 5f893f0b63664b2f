// Package taskresume is the git-taskresume command: flags in, a report out.
package taskresume

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/taskresume/git-taskresume/internal/cliutil"
	"github.com/taskresume/git-taskresume/internal/exit"
	"github.com/taskresume/git-taskresume/internal/gitcmd"
	"github.com/taskresume/git-taskresume/internal/resume"
	"github.com/taskresume/git-taskresume/internal/ui"
)

// App returns the command definition; Manual documents every flag.
func App(stdout io.Writer) *cli.App {
	flags := slices.Concat(
		cliutil.Bools("json", "short", "exit-code", "sizes", "next", "list", "check-plan", "claim"),
		[]cli.Flag{&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}}},
		cliutil.Strings("format", "base", "plan", "remote", "as", "renew", "release"),
		cliutil.Strings("plan-run-id", "schedule"),
		[]cli.Flag{&cli.IntFlag{Name: "from-phase"}, cliutil.DurationFlag("ttl", 30*time.Minute, "")},
		cliutil.Common(),
	)
	return cliutil.NewApp(Manual(), stdout, flags, func(c *cli.Context) error { return action(c, stdout) })
}

// hints answer the flags of git taskclean given to git taskresume.
var hints = map[string]string{
	"run": "git taskresume takes the run as its argument: git taskresume <run> (see -h)",
}

// Main runs the command and returns its exit code.
func Main(args []string, stdout, stderr io.Writer) int {
	return cliutil.Run(cliutil.Command{App: App(stdout), Page: Manual(), Hints: hints}, args, stdout, stderr)
}

// action reads the command line once and runs what it asks for.
func action(c *cli.Context, stdout io.Writer) error {
	o, err := optionsFrom(c)
	if err != nil {
		return err
	}
	// A progress line that is still up goes before the error is printed.
	defer o.Progress.Close()
	return run(c.Context, o, stdout, c.App.ErrWriter)
}

// run does what o asks: one mode per call.
func run(ctx context.Context, o Options, stdout, stderr io.Writer) error {
	switch o.Mode {
	case ModeCheckPlan:
		return checkPlan(ctx, o, stdout, stderr)
	case ModeList:
		return list(ctx, o, stdout)
	}
	if _, err := resume.ValidRun(o.Run); err != nil {
		return err
	}
	cwd, _ := os.Getwd()
	// The repository is found beside the first reads; git's version is
	// asked only if something fails.
	var shared *gitcmd.Shared
	if o.Mode == ModeReport && os.Getenv(sharedTestEnv) == "1" {
		// The test suite's check that a list's shared reads answer as git
		// does: a report read through them.
		var err error
		if shared, err = readSharedForTest(ctx); err != nil {
			return err
		}
		defer shared.Close()
	}
	st, err := resume.GatherOpening(ctx, resume.StartOpen(ctx, ""), resume.Options{
		Run: o.Run, PlanPath: o.Plan, PlanRunID: o.PlanRunID, Base: o.Base, FromPhase: o.FromPhase, Schedule: o.Schedule, Cwd: cwd, Remote: o.Remote, Sizes: o.Sizes,
		LiveRemote: o.Mode == ModeNext, Progress: o.Progress, Shared: shared,
	})
	o.Progress.Close() // the progress lines end before the output or the error
	if err != nil {
		return resume.Explain(ctx, "git-taskresume", err)
	}
	if f := o.noPlanRefusal(); f != "" && st.Plan == nil {
		return exit.BadInput("%s: %s", f, st.NoPlan())
	}
	if o.Mode.handsOut() || o.ExitCode {
		// An older rule must not hand out work, nor pass a gate the
		// newer one fails.
		if err := st.VersionError(); err != nil {
			return err
		}
	}
	if o.Mode.handsOut() {
		if err := st.HandOutError(o.Mode.String()); err != nil {
			return err
		}
	}
	if o.ExitCode {
		if err := st.GateError(); err != nil {
			return err
		}
	}
	switch o.Mode {
	case ModeClaim, ModeRenew, ModeRelease:
		return claim(ctx, o, st, stdout, stderr)
	case ModeNext:
		if next(stdout, st, o.As) == 0 && st.Report.Status != resume.RunCompleted {
			// Nothing may start now, but the run is not complete: a
			// loop that read empty as "done" would stop early.
			return &exit.SilentError{Code: exit.Incomplete}
		}
	default:
		if err := report(stdout, st, o, cwd); err != nil {
			return err
		}
	}
	if o.ExitCode && st.Report.Status != resume.RunCompleted {
		return &exit.SilentError{Code: exit.Incomplete}
	}
	return nil
}

// next prints the runnable tasks, one id a line, but those someone else
// holds: they are not for this resumer. It returns how many it printed.
func next(stdout io.Writer, st *resume.State, holder string) int {
	if st.Report.Resume == nil {
		return 0
	}
	n := 0
	for _, id := range st.Report.Resume.Tasks {
		if cl := st.ClaimOf(id); cl != nil && !cl.Expired && (holder == "" || cl.Holder != holder) {
			continue
		}
		fmt.Fprintln(stdout, id)
		n++
	}
	return n
}

// report writes the report: as JSON, as Markdown (never coloured: it is
// read where it is pasted), or for people, in full or --short.
func report(stdout io.Writer, st *resume.State, o Options, cwd string) error {
	switch {
	case o.JSON:
		return writeJSON(stdout, st.Report)
	case o.Format == formatMarkdown:
		resume.RenderMarkdown(stdout, st.Report, cwd)
		return nil
	}
	style := ui.Style{}
	if f, ok := stdout.(*os.File); ok {
		style = ui.StyleForSetting(f, st.ColorSetting("taskresume"))
	}
	if o.Short {
		resume.RenderShort(stdout, st.Report, style)
	} else {
		resume.Render(stdout, st.Report, style, cwd)
	}
	return nil
}

// writeJSON writes v as the commands write every JSON document: indented
// by two spaces, one document, a final newline.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// sharedTestEnv, set to 1, makes a report read through the reads a list
// shares (gitcmd.Shared): the test suite runs every scenario so once, to
// show that they answer as git does.
const sharedTestEnv = "GIT_TASKRESUME_TEST_SHARED"

func readSharedForTest(ctx context.Context) (*gitcmd.Shared, error) {
	repo, err := resume.OpenRepo(ctx, "")
	if err != nil {
		return nil, nil // the report says it
	}
	s, err := gitcmd.ReadShared(ctx, repo, true)
	if err == nil {
		s.CountAsGit()
	}
	return s, err
}
