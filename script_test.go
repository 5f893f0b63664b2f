// Scenario tests for the git subcommands, run through real git dispatch:
// testscript puts this test binary on PATH as git-taskresume and
// git-taskclean, so a script's `exec git taskresume ...` goes
// git -> git-taskresume -> taskresume.Main.
//
// Scripts live in testdata/script/*.txtar; each starts with a comment saying
// what it proves. The custom commands below build a run's git state with
// plain git, the way examples/demo.sh does, so scenario files stay short.
package scripttest_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/taskresume/git-taskresume/internal/cli/taskclean"
	"github.com/taskresume/git-taskresume/internal/cli/taskresume"
	"github.com/taskresume/git-taskresume/internal/testbin"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"git-taskresume": func() { os.Exit(taskresume.Main(os.Args, os.Stdout, os.Stderr)) },
		"git-taskclean":  func() { os.Exit(taskclean.Main(os.Args, os.Stdout, os.Stderr)) },
	})
}

func TestScripts(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		Setup:               setup,
		RequireExplicitExec: true,
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"mkplan":    cmdMkplan,
			"finish":    cmdFinish,
			"crash":     cmdCrash,
			"finishall": cmdFinishall,
		},
	})
}

// fixedDate keeps commit ids stable between runs; completion never depends
// on dates.
const fixedDate = "2026-01-01T00:00:00Z"

// setup gives every script the environment of the end-to-end tests
// (testbin.Vars, a HOME holding testbin.GitConfig) with fixed dates, $ROOT,
// and no repository above $WORK.
func setup(env *testscript.Env) error {
	home := filepath.Join(env.WorkDir, "home")
	if err := testbin.WriteHome(home); err != nil {
		return err
	}
	root, err := os.Getwd() // the module root: scripts reach examples/ and completion/
	if err != nil {
		return err
	}
	env.Setenv("ROOT", root)
	for _, kv := range testbin.Vars(home, testbin.Options{Date: fixedDate}) {
		k, v, _ := strings.Cut(kv, "=")
		env.Setenv(k, v)
	}
	// Never find a repository above $WORK (the "not a repository" case).
	env.Setenv("GIT_CEILING_DIRECTORIES", filepath.Dir(env.WorkDir))
	// GIT_TASKRESUME_TEST_SHARED=1 go test: every report read through the
	// reads a list shares, to show they answer as git does
	// (CONTRIBUTING.md).
	if v := os.Getenv("GIT_TASKRESUME_TEST_SHARED"); v != "" {
		env.Setenv("GIT_TASKRESUME_TEST_SHARED", v)
	}
	return nil
}

// gitEnvKeys are the script variables the custom commands hand to git.
var gitEnvKeys = append([]string{"PATH", "TMPDIR", "GIT_CEILING_DIRECTORIES"}, testbin.VarNames()...)

// git runs real git in dir (relative to the script's current directory) and
// returns its trimmed standard output; any failure ends the script with
// git's stderr.
func git(ts *testscript.TestScript, dir string, args ...string) string {
	cmd := exec.Command("git", args...)
	cmd.Dir = ts.MkAbs(dir)
	for _, k := range gitEnvKeys {
		cmd.Env = append(cmd.Env, k+"="+ts.Getenv(k))
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		ts.Fatalf("git %s (in %s): %v\n%s", strings.Join(args, " "), dir, err, stderr.String())
	}
	return strings.TrimSpace(stdout.String())
}

func dashed(id string) string { return strings.ReplaceAll(id, ".", "-") }

func taskWorktree(run, id string) string {
	return filepath.Join(".worktrees", run+"-task-"+dashed(id))
}

// generatedPlan is a plan of n tasks: phases of five parallel tasks each.
func generatedPlan(run string, n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Implementation Plan\n\nRun ID: %s\n", run)
	for i := 0; i < n; i++ {
		phase, task := i/5+1, i%5+1
		if task == 1 {
			fmt.Fprintf(&b, "\n## Phase %d: Batch %d (Parallel)\n", phase, phase)
		}
		fmt.Fprintf(&b, "\n### Task %d.%d: Generated task %d (S - 1h)\n- Files: `gen/%d.txt`\n", phase, task, i+1, i+1)
	}
	return b.String()
}

// mkplan RUN [N]
//
// Writes specs/RUN/plan.md (the seven-task plan of examples/demo.sh, or a
// generated plan of N tasks), commits it on the current branch, adds
// .worktrees/ to .git/info/exclude and creates branch RUN-main there.
func cmdMkplan(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("unsupported: ! mkplan")
	}
	if len(args) < 1 || len(args) > 2 {
		ts.Fatalf("usage: mkplan RUN [seven|N]")
	}
	run := args[0]
	text := testbin.SevenTaskPlan(run)
	if len(args) == 2 && args[1] != "seven" {
		n, err := strconv.Atoi(args[1])
		if err != nil || n < 1 {
			ts.Fatalf("mkplan: task count %q is not a positive number", args[1])
		}
		text = generatedPlan(run, n)
	}
	dir := filepath.Join("specs", run)
	ts.Check(os.MkdirAll(ts.MkAbs(dir), 0o755))
	ts.Check(os.WriteFile(ts.MkAbs(filepath.Join(dir, "plan.md")), []byte(text), 0o644))
	git(ts, ".", "add", "--", filepath.Join(dir, "plan.md"))
	git(ts, ".", "commit", "-q", "-m", "Add plan for run "+run)
	exclude := filepath.Join(git(ts, ".", "rev-parse", "--path-format=absolute", "--git-common-dir"), "info", "exclude")
	ts.Check(os.MkdirAll(filepath.Dir(exclude), 0o755))
	f, err := os.OpenFile(exclude, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	ts.Check(err)
	_, err = f.WriteString(".worktrees/\n")
	ts.Check(err)
	ts.Check(f.Close())
	git(ts, ".", "branch", run+"-main")
}

// finish RUN ID SLUG FROM
//
// A task agent's whole life, as demo.sh's finish(): a detached worktree at
// FROM, one commit, branch RUN-task-<dashed ID>-SLUG, worktree removed.
func cmdFinish(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("unsupported: ! finish")
	}
	if len(args) != 4 {
		ts.Fatalf("usage: finish RUN ID SLUG FROM")
	}
	run, id, slug, from := args[0], args[1], args[2], args[3]
	wt := taskWorktree(run, id)
	git(ts, ".", "worktree", "add", "-q", "--detach", wt, from)
	name := "task-" + dashed(id) + ".txt"
	ts.Check(os.WriteFile(ts.MkAbs(filepath.Join(wt, name)), []byte("task "+id+" of "+run+"\n"), 0o644))
	git(ts, wt, "add", "--", name)
	git(ts, wt, "commit", "-q", "-m", "task "+id+": "+slug)
	git(ts, wt, "branch", run+"-task-"+dashed(id)+"-"+slug)
	git(ts, ".", "worktree", "remove", wt)
}

// crash RUN ID FROM
//
// A task agent that died mid-work: a detached worktree at FROM with a staged
// new file, an unstaged change to a tracked file and an untracked file, and
// no branch.
func cmdCrash(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("unsupported: ! crash")
	}
	if len(args) != 3 {
		ts.Fatalf("usage: crash RUN ID FROM")
	}
	run, id, from := args[0], args[1], args[2]
	wt := taskWorktree(run, id)
	git(ts, ".", "worktree", "add", "-q", "--detach", wt, from)
	// The last tracked file: a task's output rather than the plan when
	// there is one.
	files := strings.Split(git(ts, wt, "ls-files"), "\n")
	tracked := files[len(files)-1]
	if tracked == "" {
		ts.Fatalf("crash: no tracked file at %s to modify", from)
	}
	f, err := os.OpenFile(ts.MkAbs(filepath.Join(wt, tracked)), os.O_APPEND|os.O_WRONLY, 0o644)
	ts.Check(err)
	_, err = f.WriteString("unsaved edit\n")
	ts.Check(err)
	ts.Check(f.Close())
	staged := "wip-" + dashed(id) + ".txt"
	ts.Check(os.WriteFile(ts.MkAbs(filepath.Join(wt, staged)), []byte("half done\n"), 0o644))
	git(ts, wt, "add", "--", staged)
	ts.Check(os.WriteFile(ts.MkAbs(filepath.Join(wt, "NOTES.md")), []byte("notes\n"), 0o644))
}

var taskHeading = regexp.MustCompile(`(?m)^### Task ([0-9.]+): (.*?)(?: \([^()]*\))?\s*$`)

// slug is the branch-name slug, written again here so the tests do not trust the
// code under test to name branches.
func slug(title string) string {
	var b strings.Builder
	gap := false
	for _, c := range strings.ToLower(title) {
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' {
			if gap && b.Len() > 0 {
				b.WriteByte('-')
			}
			gap = false
			b.WriteRune(c)
			continue
		}
		gap = true
	}
	return b.String()
}

// finishall RUN FROM
//
// Completes every task of specs/RUN/plan.md without any worktree: one commit
// per task, each on the previous, starting at FROM, and the task's branch.
// Used for runs too large to write out task by task.
func cmdFinishall(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("unsupported: ! finishall")
	}
	if len(args) != 2 {
		ts.Fatalf("usage: finishall RUN FROM")
	}
	run, from := args[0], args[1]
	data, err := os.ReadFile(ts.MkAbs(filepath.Join("specs", run, "plan.md")))
	ts.Check(err)
	tip := git(ts, ".", "rev-parse", "--verify", from+"^{commit}")
	tree := git(ts, ".", "rev-parse", "--verify", from+"^{tree}")
	tasks := taskHeading.FindAllStringSubmatch(string(data), -1)
	if len(tasks) == 0 {
		ts.Fatalf("finishall: no tasks in specs/%s/plan.md", run)
	}
	for _, m := range tasks {
		id, title := m[1], m[2]
		tip = git(ts, ".", "commit-tree", "-p", tip, "-m", "task "+id+": "+title, tree)
		git(ts, ".", "branch", run+"-task-"+dashed(id)+"-"+slug(title), tip)
	}
}
