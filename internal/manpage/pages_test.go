package manpage_test

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/taskresume/git-taskresume/internal/cli/taskclean"
	"github.com/taskresume/git-taskresume/internal/cli/taskresume"
	"github.com/taskresume/git-taskresume/internal/manpage"
)

type command struct {
	page     *manpage.Page
	app      *cli.App
	sections []string
}

func commands() map[string]command {
	common := []string{"NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "EXIT STATUS", "EXAMPLES", "CONFIGURATION", "ENVIRONMENT", "FILES", "SEE ALSO"}
	return map[string]command{
		"git-taskresume": {taskresume.Manual(), taskresume.App(io.Discard), append(slices.Clone(common), "PLAN FORMAT")},
		"git-taskclean":  {taskclean.Manual(), taskclean.App(io.Discard), common},
	}
}

func roffOf(t *testing.T, p *manpage.Page) string {
	t.Helper()
	var b strings.Builder
	if err := p.Roff(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestPagesDocumentEveryFlag: the manual and the flags the program accepts
// are one list, each way.
func TestPagesDocumentEveryFlag(t *testing.T) {
	for name, c := range commands() {
		documented := map[string]bool{}
		for _, o := range c.page.Options() {
			for _, n := range o.Names {
				documented[strings.TrimLeft(n, "-")] = true
			}
		}
		accepted := map[string]bool{"h": true, "help": true} // answered before the flags are parsed
		for _, f := range c.app.Flags {
			for _, n := range f.Names() {
				accepted[n] = true
				if !documented[n] {
					t.Errorf("%s: flag --%s is not in the manual", name, n)
				}
			}
		}
		for n := range documented {
			if !accepted[n] {
				t.Errorf("%s: the manual documents --%s, which the program does not accept", name, n)
			}
		}
		out := roffOf(t, c.page)
		for _, o := range c.page.Options() {
			for _, n := range o.Names {
				esc := `\fB` + strings.ReplaceAll(n, "-", `\-`) + `\fR`
				if !strings.Contains(out, esc) {
					t.Errorf("%s: the page has no heading for %s", name, n)
				}
			}
		}
	}
}

func TestPagesRoff(t *testing.T) {
	for name, c := range commands() {
		out := roffOf(t, c.page)
		for _, s := range c.sections {
			if !strings.Contains(out, "\n.SH "+strings.ReplaceAll(s, "-", `\-`)+"\n") {
				t.Errorf("%s: no %s section", name, s)
			}
		}
		// The forms that used to vanish as HTML tags.
		for _, want := range []string{"refs/taskclean/<run>/", "refs/taskclaims/<run>/<id>", "specs/<run>\\-*/plan.md", ".worktrees/", "<run>\\-main"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s: page lacks %q", name, want)
			}
		}
		if regexp.MustCompile(`\[-*\\?-?[a-z-]+\]=\[`).MatchString(out) || strings.Contains(out, "]=[") {
			t.Errorf("%s: urfave-style [--x]=[value] synopsis", name)
		}
		if !strings.Contains(out, "git\\-worktree(1)") {
			t.Errorf("%s: SEE ALSO lacks git-worktree(1)", name)
		}
		other := map[string]string{"git-taskresume": "git\\-taskclean(1)", "git-taskclean": "git\\-taskresume(1)"}[name]
		if !strings.Contains(out, other) {
			t.Errorf("%s: SEE ALSO lacks %s", name, other)
		}
		// Each usage line of -h is a SYNOPSIS line.
		for _, u := range c.page.Synopsis {
			cmd := c.page.Command()
			rest, _ := strings.CutPrefix(u, cmd)
			line := `\fB` + strings.ReplaceAll(cmd, "-", `\-`) + `\fR ` + strings.ReplaceAll(strings.TrimSpace(rest), "-", `\-`)
			if !strings.Contains(out, "\n"+line+"\n") {
				t.Errorf("%s: SYNOPSIS lacks %q", name, line)
			}
		}
	}
	// The story of a crashed run, from report to restore.
	tr := roffOf(t, taskresume.Manual())
	for _, ex := range []string{"git taskresume x1y2z3", "git taskresume x1y2z3 \\-\\-next", "git taskresume x1y2z3 \\-\\-json",
		"git taskresume x1y2z3 \\-\\-exit\\-code", "git taskclean \\-\\-run x1y2z3 \\-n\n", "git taskclean \\-\\-run x1y2z3\n",
		"git taskclean \\-\\-run x1y2z3 \\-\\-undo", "git taskclean \\-\\-run x1y2z3 \\-\\-restore"} {
		if !strings.Contains(tr, ex) {
			t.Errorf("git-taskresume(1) EXAMPLES lack %q", ex)
		}
	}
	for _, form := range []string{"## Phase 2: Core Logic (Parallel)", "**Strategy**: Parallel", "### Task 2.1: User service (M \\- 2h)",
		"### Task 1\\-1: Project setup", "\\- [ ] **Task 1.1**", "**Dependencies**: 1\\-1, 1\\-2", "plan\\-phase1.md", "Run ID: x1y2z3"} {
		if !strings.Contains(tr, form) {
			t.Errorf("git-taskresume(1) PLAN FORMAT lacks the form %q", form)
		}
	}
}

// TestPagesRender formats the pages with the tools on this machine (any
// of man, groff, nroff): no warning, and the text a reader sees.
func TestPagesRender(t *testing.T) {
	type tool struct {
		name string
		args func(file string) []string
	}
	tools := []tool{
		{"groff", func(f string) []string { return []string{"-man", "-Tutf8", "-ww", "-P-cbou", f} }},
		{"nroff", func(f string) []string { return []string{"-man", "-ww", f} }},
		{"man", func(f string) []string { return []string{"-l", f} }},
	}
	ran := 0
	for _, tl := range tools {
		if _, err := exec.LookPath(tl.name); err != nil {
			t.Logf("%s is not installed: not rendered with it", tl.name)
			continue
		}
		for name, c := range commands() {
			file := filepath.Join(t.TempDir(), name+".1")
			if err := os.WriteFile(file, []byte(roffOf(t, c.page)), 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(tl.name, tl.args(file)...)
			cmd.Env = append(os.Environ(), "MANPAGER=cat", "PAGER=cat", "MANWIDTH=80", "LC_ALL=C.UTF-8", "MAN_KEEP_FORMATTING=")
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Run(); err != nil {
				t.Errorf("%s %s: %v\n%s", tl.name, name, err, stderr.String())
				continue
			}
			ran++
			if stderr.Len() > 0 {
				t.Errorf("%s %s warns:\n%s", tl.name, name, stderr.String())
			}
			// Overstrike (bold) as nroff and man may print it.
			out := regexp.MustCompile(".\b").ReplaceAllString(stdout.String(), "")
			for _, s := range c.sections {
				if !regexp.MustCompile(`(?m)^` + s + `$`).MatchString(out) {
					t.Errorf("%s %s: no %s heading in:\n%s", tl.name, name, s, out)
				}
			}
			for _, want := range []string{"<run>", "refs/taskclean/<run>/", "refs/taskclaims/<run>/<id>", "--run x1y2z3", "--json"} {
				if !strings.Contains(out, want) {
					t.Errorf("%s %s: the rendered page lacks %q", tl.name, name, want)
				}
			}
		}
	}
	if ran == 0 {
		t.Log("no man, groff or nroff here: the roff itself is checked by TestPagesRoff")
	}
}

// TestShortHelp: -h fits one screen and reads as one.
func TestShortHelp(t *testing.T) {
	for name, c := range commands() {
		var b strings.Builder
		if err := c.page.Usage(&b); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		if len(lines) >= 25 {
			t.Errorf("%s -h is %d lines, want under 25:\n%s", name, len(lines), out)
		}
		for _, l := range lines {
			if len([]rune(l)) > 80 {
				t.Errorf("%s -h: line over 80 columns: %q", name, l)
			}
		}
		for _, bad := range []string{"(default: false)", "VERSION", "GLOBAL OPTIONS", "(default: 0"} {
			if strings.Contains(out, bad) {
				t.Errorf("%s -h holds %q:\n%s", name, bad, out)
			}
		}
		if want := "Full manual: " + c.page.Command() + " help"; lines[len(lines)-1] != want {
			t.Errorf("%s -h ends %q, want %q", name, lines[len(lines)-1], want)
		}
		brief := 0
		for _, l := range lines[len(c.page.Synopsis):] {
			if l == "" {
				break
			}
			brief++
		}
		if brief != 2 {
			t.Errorf("%s -h: the description is %d lines, want 2:\n%s", name, brief, out)
		}
		for _, o := range c.page.Options() {
			if !o.NoSummary && !strings.Contains(out, "\n  "+o.Tag()+" ") {
				t.Errorf("%s -h lacks %s", name, o.Tag())
			}
		}
	}
}
