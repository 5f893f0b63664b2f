// Package completiontest checks the bash, zsh and fish completion files
// against the commands' flag definitions, without any shell: a flag added
// to a command and missing from a completion file fails here even on a
// machine where the shell tests (testdata/script/completion_*.txtar) skip
// because a shell is not installed.
package completiontest_test

import (
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
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
		for _, n := range f.Names() {
			if !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
	}
	return names
}

// takesValue says whether flag n of app is given a value (--n=VALUE).
func takesValue(app *cli.App, n string) bool {
	for _, f := range app.Flags {
		if slices.Contains(f.Names(), n) {
			v, ok := f.(cli.DocGenerationFlag)
			return ok && v.TakesValue()
		}
	}
	return false
}

// bashOffers returns the words of every `__gitcomp "..."` list in the bash
// function fn (the flags it offers), and fails when fn is not there.
func bashOffers(t *testing.T, bash, fn string) []string {
	t.Helper()
	_, body, ok := strings.Cut(bash, "\n"+fn+" () {\n")
	if !ok {
		t.Fatalf("completion/git-taskresume.bash has no function %s", fn)
	}
	body, _, _ = strings.Cut(body, "\n}\n")
	var words []string
	for _, m := range regexp.MustCompile(`__gitcomp "([^"$]*)"`).FindAllStringSubmatch(body, -1) {
		words = append(words, strings.Fields(m[1])...)
	}
	return words
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
		fn := "_git_" + strings.TrimPrefix(c.cmd, "git-")
		offered := bashOffers(t, read(t, "git-taskresume.bash"), fn)
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
			// bash: git's completion offers long options only, with "="
			// when they take a value, as git's own commands do.
			if len(n) > 1 {
				want := "--" + n
				if takesValue(c.app, n) {
					want += "="
				}
				if !slices.Contains(offered, want) {
					t.Errorf("completion/git-taskresume.bash: %s does not offer %s", fn, want)
				}
			}
			fishSpec := regexp.MustCompile(`(?m)^complete -c ` + regexp.QuoteMeta(c.cmd) + ` .*` + fishOpt + ` ` + regexp.QuoteMeta(n) + `( |$)`)
			if !fishSpec.MatchString(fish) {
				t.Errorf("completion/%s.fish does not complete %s%s", c.cmd, dash, n)
			}
		}
		// And bash offers nothing the command does not take.
		for _, w := range offered {
			if !slices.Contains(names, strings.TrimSuffix(strings.TrimPrefix(w, "--"), "=")) {
				t.Errorf("completion/git-taskresume.bash: %s offers %s, which %s does not define", fn, w, c.cmd)
			}
		}
	}
}
