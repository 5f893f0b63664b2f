package doccheck

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/taskresume/git-taskresume/internal/gitcmd"
)

// The oldest git the documents give is the one the code supports: the
// newest minimum of gitcmd.Features.
func TestMinimumGit(t *testing.T) {
	want := gitcmd.Short(gitcmd.MinVersion())
	top := filepath.Join("..", "..")
	for _, d := range []struct{ file, pattern string }{
		{"README.md", `\bgit \(([0-9][0-9.]*[0-9]) or newer\)`},
		{"docs/CONTRIBUTING.md", `(?m)^Minimum git: ([0-9][0-9.]*[0-9])\b`},
	} {
		data, err := os.ReadFile(filepath.Join(top, d.file))
		if err != nil {
			t.Fatal(err)
		}
		ms := regexp.MustCompile(d.pattern).FindAllSubmatch(data, -1)
		if len(ms) != 1 {
			t.Errorf("%s: %d places match %s, want one: the oldest git it gives", d.file, len(ms), d.pattern)
			continue
		}
		if got := string(ms[0][1]); got != want {
			t.Errorf("%s gives git %s as the oldest; the code needs %s (gitcmd.Features)", d.file, got, want)
		}
	}
}
