package taskclean

import (
	"bytes"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/taskresume/git-taskresume/internal/cliutil/clitest"
)

// Flags that only shape a clean are refused by the other modes, and modes
// that exclude each other are refused together: exit 2, one error line,
// before anything is read (no repository is needed to see it).
func TestModesRefused(t *testing.T) {
	for _, c := range []struct{ args, want string }{
		{"--run x --undo --remote origin", "--remote is for a clean; it cannot be used with --undo"},
		{"--run x --undo --completed", "--completed is for a clean; it cannot be used with --undo"},
		{"--run x --restore 2.1 --no-backup", "--no-backup is for a clean; it cannot be used with --restore"},
		{"--run x --backups --plan p.md", "--plan is for a clean; it cannot be used with --backups"},
		{"--run x --expire-backups 1d --older-than 2d", "--older-than is for a clean; it cannot be used with --expire-backups"},
		{"--run x --undo --all", "cannot be combined"},
		{"--run x --task 1.1 --all", "cannot be combined"},
		{"--run x --backups --restore 2.1", "cannot be combined"},
		// --from names the clean whose save --restore takes: nothing else.
		{"--run x --from 20260101T000000.000000000Z", "--from 20260101T000000.000000000Z: goes with --restore"},
		{"--run x --backups --from 20260101T000000.000000000Z", "goes with --restore"},
		{"--run x --all --from 20260101T000000.000000000Z", "goes with --restore"},
		{"--run x --undo --from 20260101T000000.000000000Z", "--undo takes the stamp as its own word: git taskclean --run x --undo 20260101T000000.000000000Z"},
		{"--run x --restore 2.1 --from yesterday", "--from yesterday: not a stamp"},
		// --plan-run-id accepts the --plan plan: nothing without one.
		{"--run x --plan-run-id y", "--plan-run-id goes with --plan PATH"},
		{"--run x --plan p.md --plan-run-id a/b", `--plan-run-id: run id "a/b" contains "/"`},
		{"--run x --undo --plan-run-id y", "--plan-run-id is for a clean; it cannot be used with --undo"},
	} {
		t.Run(c.args, func(t *testing.T) { clitest.Refused(t, Main, "git-taskclean", c.args, c.want) })
	}
}

// Each mode reads its own flags; the clean reads them all.
func TestOptionsCarryFlags(t *testing.T) {
	for _, c := range []struct {
		args string
		mode Mode
	}{
		{"--run x", ModeClean},
		{"--run x --all --remote origin --no-backup", ModeClean},
		{"--run x --undo", ModeUndo},
		{"--run x --restore 2.1 -n", ModeRestore},
		{"--run x --restore 2.1 --from 20260101T000000.000000000Z", ModeRestore},
		{"--run x --backups --json", ModeBackups},
		{"--run x --expire-backups 2w --dry-run", ModeExpire},
		{"--run x --plan p.md --plan-run-id y", ModeClean},
	} {
		var got Options
		clitest.Parse(t, App(&bytes.Buffer{}), c.args, func(ctx *cli.Context) (err error) {
			got, err = optionsFrom(ctx)
			return err
		})
		if got.Mode != c.mode || got.Clean.Run != "x" {
			t.Errorf("%s: mode %v, run %q; want %v, x", c.args, got.Mode, got.Clean.Run, c.mode)
		}
		if _, id, _ := strings.Cut(c.args, "--plan-run-id "); got.Clean.PlanRunID != id {
			t.Errorf("%s: --plan-run-id read as %q, want %q", c.args, got.Clean.PlanRunID, id)
		}
		if _, from, _ := strings.Cut(c.args, "--from "); got.Clean.From != from {
			t.Errorf("%s: --from read as %q, want %q", c.args, got.Clean.From, from)
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
		{"--run x --quiet", true}, {"--run x -q --json", true}, {"--run x -n -q", true},
		{"--run x --undo -q", true}, {"--run x --restore 2.1 --quiet", true},
		{"--run x --backups -q", true}, {"--run x --expire-backups 2w -q", true}, {"--run x --all", false},
	} {
		var got Options
		app := App(&bytes.Buffer{})
		app.ErrWriter = &bytes.Buffer{}
		clitest.Parse(t, app, c.args, func(ctx *cli.Context) (err error) {
			got, err = optionsFrom(ctx)
			return err
		})
		if got.Quiet != c.quiet || got.Clean.Progress != nil {
			t.Errorf("%s: quiet %v, meter %v; want quiet %v and no meter", c.args, got.Quiet, got.Clean.Progress, c.quiet)
		}
	}
}
