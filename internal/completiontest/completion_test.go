// Package completiontest checks the zsh and fish completion files against
// the commands' flag definitions, without any shell: a flag added to a
// command and missing from a completion file fails here even on a machine
// where the shell tests (testdata/script/completion_*.txtar) skip because
// zsh or fish is not installed.
package completiontest_test

import (
	"io"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/taskresume/git-taskresume/internal/cli/taskclean"
	"github.com/taskresume/git-taskresume/internal/cli/taskresume"
)

// flagNames are the names a user can type for app's visible flags, with
// -h, --help and --version, which both commands answer.
func flagNames(app *cli.App) []string {
	names := []string{"h", "help", "version"}
	for _, f := range app.Flags {
		if v, ok := f.(cli.VisibleFlag); ok && !v.IsVisible() {
			continue
		}
		names = append(names, f.Names()...)
	}
	return names
}

func read(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "completion", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestEveryFlagIsCompleted(t *testing.T) {
	for _, c := range []struct {
		cmd string
		app *cli.App
	}{
		{"git-taskresume", taskresume.App(io.Discard)},
		{"git-taskclean", taskclean.App(io.Discard)},
	} {
		zsh := read(t, "_"+c.cmd)
		fish := read(t, c.cmd+".fish")
		names := flagNames(c.app)
		if len(names) < 10 {
			t.Fatalf("%s: only %d flag names found: %v", c.cmd, len(names), names)
		}
		for _, n := range names {
			dash, fishOpt := "--", "-l"
			if len(n) == 1 {
				dash, fishOpt = "-", "-s"
			}
			// zsh: an _arguments spec, '--name[...]', '--name=[...]' or
			// one of a brace list {-n,--dry-run}.
			zshSpec := regexp.MustCompile(`[\s'"({,)*]` + regexp.QuoteMeta(dash+n) + `(=-?)?[\[,}]`)
			if !zshSpec.MatchString(zsh) {
				t.Errorf("completion/_%s does not complete %s%s", c.cmd, dash, n)
			}
			fishSpec := regexp.MustCompile(`(?m)^complete -c ` + regexp.QuoteMeta(c.cmd) + ` .*` + fishOpt + ` ` + regexp.QuoteMeta(n) + `( |$)`)
			if !fishSpec.MatchString(fish) {
				t.Errorf("completion/%s.fish does not complete %s%s", c.cmd, dash, n)
			}
		}
	}
}
