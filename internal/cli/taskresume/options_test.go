package taskresume

import (
	"bytes"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/taskresume/git-taskresume/internal/cliutil/clitest"
)

// One mode per call: two modes, or a flag the mode cannot use, are refused
// with exit 2 and one error line before anything is read.
func TestModesRefused(t *testing.T) {
	for _, c := range []struct{ args, want string }{
		{"x --list --claim", "--list and --claim cannot be used together"},
		{"x --next --claim", "--next and --claim cannot be used together"},
		{"x --renew 1.1 --release 1.1 --as a", "--renew and --release cannot be used together"},
		{"x --exit-code --claim", "--exit-code cannot be used with --claim"},
		{"--list --exit-code", "--exit-code cannot be used with --list"},
		{"x --next --json", "--json and --next cannot be used together"},
		{"x --as me", "--as names a claimer"},
		{"x --next --ttl 1h", "--ttl is for --claim and --renew"},
		{"x --check-plan --from-phase 2", "--from-phase cannot be used with --check-plan"},
		{"x --release 1.1", "--release needs --as NAME"},
		{"x --format html", `--format "html": the one format is markdown`},
		{"x --format=", `--format "": the one format is markdown`},
		{"x --short --format markdown", "--short and --format cannot be used together"},
		{"x --short --json", "--json and --short cannot be used together"},
		{"x --format markdown --json", "--json and --format cannot be used together"},
		{"x --short --next", "--short cannot be used with --next"},
		{"--list --short", "--short cannot be used with --list"},
		{"x --format markdown --claim", "--format cannot be used with --claim"},
		{"x --check-plan --short", "--short cannot be used with --check-plan"},
		{"x --renew 1.1 --as a --format markdown", "--format cannot be used with --renew"},
		{"x --short --sizes", "--sizes cannot be used with --short"},
		{"--list x", "--list takes no run id"},
		{"x y", "one run id expected, got 2"},
		{"", "missing run id"},
		// --plan-run-id accepts the --plan plan: nothing without one (a
		// git config pattern is no plan the user looked at).
		{"x --plan-run-id y", "--plan-run-id goes with --plan PATH"},
		{"x --check-plan --plan-run-id y", "--plan-run-id goes with --plan PATH"},
		{"x --plan p.md --plan-run-id a/b", `--plan-run-id: run id "a/b" contains "/"`},
		{"x --plan p.md --plan-run-id=", `--plan-run-id: run id "" is empty`},
	} {
		t.Run(c.args, func(t *testing.T) { clitest.Refused(t, Main, "git-taskresume", c.args, c.want) })
	}
}

// The command line is read once into Options: each mode, its run and task.
func TestOptionsFrom(t *testing.T) {
	for _, c := range []struct {
		args      string
		mode      Mode
		run, task string
	}{
		{"x1y2z3", ModeReport, "x1y2z3", ""},
		{"x1y2z3 --json --exit-code", ModeReport, "x1y2z3", ""},
		{"x1y2z3 --next --exit-code", ModeNext, "x1y2z3", ""},
		{"--list", ModeList, "", ""},
		{"--check-plan specs/a/plan.md", ModeCheckPlan, "", ""},
		{"x1y2z3 --claim --as a --ttl 1h", ModeClaim, "x1y2z3", ""},
		{"x1y2z3 --renew 2.1 --as a", ModeRenew, "x1y2z3", "2.1"},
		{"x1y2z3 --release 2.1 --as a", ModeRelease, "x1y2z3", "2.1"},
		{"x1y2z3 --claim=false", ModeReport, "x1y2z3", ""},
		{"x1y2z3 --plan p.md --plan-run-id x1y2z4", ModeReport, "x1y2z3", ""},
		{"x1y2z3 --short --exit-code", ModeReport, "x1y2z3", ""},
		{"x1y2z3 --format markdown --exit-code --sizes", ModeReport, "x1y2z3", ""},
	} {
		var got Options
		clitest.Parse(t, App(&bytes.Buffer{}), c.args, func(ctx *cli.Context) (err error) {
			got, err = optionsFrom(ctx)
			return err
		})
		if _, id, _ := strings.Cut(c.args, "--plan-run-id "); got.PlanRunID != id {
			t.Errorf("%s: --plan-run-id read as %q, want %q", c.args, got.PlanRunID, id)
		}
		if got.Mode != c.mode || got.Run != c.run || got.Task != c.task {
			t.Errorf("%s: mode %v, run %q, task %q; want %v, %q, %q", c.args, got.Mode, got.Run, got.Task, c.mode, c.run, c.task)
		}
	}
}

// --quiet (-q) turns the progress lines off and nothing else: every mode
// takes it. Off a terminal there is no meter, with or without it, and
// GIT_PROGRESS_DELAY is not read (git reads it only to show progress).
func TestQuiet(t *testing.T) {
	t.Setenv("GIT_PROGRESS_DELAY", "soon")
	for _, c := range []struct {
		args  string
		quiet bool
	}{
		{"x1y2z3 --quiet", true}, {"x1y2z3 -q --json", true}, {"x1y2z3 --next -q", true},
		{"--list --quiet", true}, {"--check-plan specs/a/plan.md -q", true},
		{"x1y2z3 --claim --as a --quiet", true}, {"x1y2z3 --sizes", false},
	} {
		var got Options
		app := App(&bytes.Buffer{})
		app.ErrWriter = &bytes.Buffer{}
		clitest.Parse(t, app, c.args, func(ctx *cli.Context) (err error) {
			got, err = optionsFrom(ctx)
			return err
		})
		if got.Quiet != c.quiet || got.Progress != nil {
			t.Errorf("%s: quiet %v, meter %v; want quiet %v and no meter", c.args, got.Quiet, got.Progress, c.quiet)
		}
	}
}
