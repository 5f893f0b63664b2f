package taskclean

import (
	"bytes"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
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
	} {
		t.Run(c.args, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := Main(append([]string{"git-taskclean"}, strings.Fields(c.args)...), &out, &errb)
			if code != 2 || out.Len() != 0 {
				t.Fatalf("exit %d, stdout %q; want exit 2 and nothing", code, out.String())
			}
			if got := errb.String(); !strings.HasPrefix(got, "error: ") || strings.Count(got, "\n") != 1 || !strings.Contains(got, c.want) {
				t.Fatalf("stderr %q; want one error line with %q", got, c.want)
			}
		})
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
		{"--run x --backups --json", ModeBackups},
		{"--run x --expire-backups 2w --dry-run", ModeExpire},
	} {
		app := App(&bytes.Buffer{})
		app.HideHelp, app.HideHelpCommand, app.HideVersion = true, true, true
		var got Options
		app.Action = func(ctx *cli.Context) error {
			o, err := optionsFrom(ctx)
			got = o
			return err
		}
		if err := app.Run(append([]string{"git-taskclean"}, strings.Fields(c.args)...)); err != nil {
			t.Fatalf("%s: %v", c.args, err)
		}
		if got.Mode != c.mode || got.Clean.Run != "x" {
			t.Errorf("%s: mode %v, run %q; want %v, x", c.args, got.Mode, got.Clean.Run, c.mode)
		}
	}
}
