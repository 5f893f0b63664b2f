// Package oldgit runs the real commands with a git older than they need,
// and with the installed one: an older git gets one line naming what it
// lacks, and git's version is asked only once something failed.
package oldgit

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taskresume/git-taskresume/internal/testbin"
)

func TestMain(m *testing.M) { os.Exit(testbin.Main(m, testbin.Options{})) }

const run = "x1y2z3"

// fakeGit returns the PATH that finds testbin.OldGit's git of version
// first.
func fakeGit(t *testing.T, version string, echoPathFormat bool) string {
	t.Helper()
	return testbin.OldGit(t, version, echoPathFormat) + string(os.PathListSeparator) + os.Getenv("PATH")
}

// commands are the ways in. Every one finds the repository first, which
// git before 2.31 fails; all but two read the worktrees (or, changing refs
// before they would, check git's version first), which git before 2.36
// fails. The binaries are run by name, not through `git taskresume`: git's
// dispatch puts its own directory, which holds the real git, first on PATH.
var commands = []struct {
	prog string
	args []string
	// works on a git that finds the repository but has no worktree
	// list -z: a plan read from a commit, the list of saves.
	worksOn235 bool
}{
	{"git-taskresume", []string{run}, false},
	{"git-taskresume", []string{run, "--json"}, false},
	{"git-taskresume", []string{"--list"}, false},
	{"git-taskresume", []string{run, "--check-plan"}, false},
	{"git-taskresume", []string{"--check-plan", "main:specs/" + run + "/plan.md"}, true},
	{"git-taskclean", []string{"--run", run}, false},
	{"git-taskclean", []string{"--run", run, "--dry-run"}, false},
	{"git-taskclean", []string{"--run", run, "--backups"}, true},
	{"git-taskclean", []string{"--run", run, "--undo"}, false},
	{"git-taskclean", []string{"--run", run, "--expire-backups", "1d"}, false},
	{"git-taskclean", []string{"--run", run, "--restore", "1.1"}, false},
}

func newRun(t *testing.T) string {
	dir := testbin.NewRun(t, filepath.Join(t.TempDir(), "repo"), run)
	testbin.Finish(t, dir, run, "1.1", "schema", "main")
	return dir
}

// An older git gets one line, naming the feature it lacks (the newest of
// those: the version that has it has them all) and the version that has it,
// and nothing on stdout; exit 2, as for any refusal before a change. Git
// 2.35 finds the repository and fails at the worktree list; git 2.30
// already at the rev-parse, whose answer would be read one line off.
func TestOldGit(t *testing.T) {
	dir := newRun(t)
	for _, old := range []struct {
		version string
		echo    bool
	}{
		{"2.35.2", false},
		{"2.30.1", true},
		{"2.30.9 (Apple Git-130)", true},
	} {
		path := fakeGit(t, old.version, old.echo)
		short := strings.Fields(old.version)[0]
		for _, c := range commands {
			r := testbin.Run(dir, []string{"PATH=" + path}, c.prog, c.args...)
			want := "error: git " + short + " is too old for " + c.prog +
				": `git worktree list --porcelain -z` needs git 2.36 or newer; upgrade git\n"
			if c.worksOn235 && !old.echo {
				if r.Code != 0 || r.Stdout == "" {
					t.Errorf("git %s, %s: exit %d, stderr %q; it needs nothing git %s lacks", old.version, strings.Join(r.Args, " "), r.Code, r.Stderr, old.version)
				}
				continue
			}
			if r.Code != 2 || r.Stderr != want || r.Stdout != "" {
				t.Errorf("git %s, %s:\nexit %d, stderr %q, stdout %q\nwant exit 2, stderr %q", old.version, strings.Join(r.Args, " "), r.Code, r.Stderr, r.Stdout, want)
			}
		}
	}
}

// With a git that is new enough, a command that works starts no `git
// version`: only a failure asks it. --undo, --restore and --expire-backups
// are the exception (they change refs before reading the worktrees).
func TestNoVersionOnTheWay(t *testing.T) {
	dir := newRun(t)
	trace := filepath.Join(t.TempDir(), "trace")
	env := []string{"GIT_TASKRESUME_TRACE=" + trace}
	for _, c := range commands {
		os.Remove(trace)
		r := testbin.Run(dir, env, c.prog, c.args...)
		data, _ := os.ReadFile(trace)
		line := strings.Join(r.Args, " ")
		if len(data) == 0 {
			t.Errorf("%s: no trace written", line)
		}
		asked := strings.Contains("\n"+string(data), "\ngit version")
		mode := c.args[len(c.args)-1]
		if c.prog == "git-taskclean" && (mode == "--undo" || mode == "1.1" || mode == "1d") {
			if !asked {
				t.Errorf("%s: changes refs before reading the worktrees, and did not check git's version first", line)
			}
			continue
		}
		if r.Code != 0 {
			t.Errorf("%s: exit %d: %s", line, r.Code, r.Stderr)
		}
		if asked {
			t.Errorf("%s: asked git's version on the way to an answer:\n%s", line, data)
		}
	}
}

// A git whose version cannot be read says nothing about a failure: the
// failure's own words are the line, not "cannot read git's version" (and
// the modes that check first are not refused for it).
func TestUnreadableVersionBlamesNothing(t *testing.T) {
	dir := newRun(t)
	path := fakeGit(t, "garbage", false)
	for _, c := range commands {
		r := testbin.Run(dir, []string{"PATH=" + path}, c.prog, c.args...)
		if strings.Contains(r.Stderr, "version") {
			t.Errorf("%s: a version that cannot be read is blamed: %q", strings.Join(r.Args, " "), r.Stderr)
		}
		if r.Code != 0 && !strings.Contains(r.Stderr, "unknown switch") && !strings.Contains(r.Stderr, "nothing to undo") && !strings.Contains(r.Stderr, "no save") {
			t.Errorf("%s: exit %d, stderr %q: not the failure's own words", strings.Join(r.Args, " "), r.Code, r.Stderr)
		}
	}
}
