// Package hardening_test drives the real git-taskresume and git-taskclean
// binaries through real git dispatch (`git taskresume ...` finds
// git-taskresume on PATH) against real repositories built with plain git,
// feeding them hostile input: bad run ids, broken plans, odd repository
// layouts and damaged worktree metadata. docs/HARDENING.md summarises what a
// user sees for each class of input.
package hardening_test

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/taskresume/git-taskresume/internal/testbin"
)

// privDrop is the command prefix that makes file permissions bind when the
// tests run as root (root ignores chmod 000 through CAP_DAC_OVERRIDE); nil
// when not needed or not available.
var privDrop []string

func TestMain(m *testing.M) {
	os.Exit(testbin.Main(m, testbin.Options{Setup: func(scratch string) error {
		privDrop = probePrivDrop(scratch)
		return nil
	}}))
}

// probePrivDrop returns a command prefix under which chmod 000 really denies
// access: nothing when not root, setpriv without the DAC capabilities when
// root and setpriv can drop them. It checks that the prefix works.
func probePrivDrop(tmp string) []string {
	if os.Geteuid() != 0 {
		return nil
	}
	sp, err := exec.LookPath("setpriv")
	if err != nil {
		return nil
	}
	prefix := []string{sp, "--bounding-set", "-dac_override,-dac_read_search"}
	dir := filepath.Join(tmp, "probe")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil
	}
	os.Chmod(dir, 0)
	defer os.Chmod(dir, 0o755)
	cmd := exec.Command(prefix[0], append(prefix[1:], "ls", dir)...)
	if err := cmd.Run(); err == nil {
		return nil // still readable: the prefix does not help
	}
	// The prefix must not break ordinary commands.
	if err := exec.Command(prefix[0], append(prefix[1:], "true")...).Run(); err != nil {
		return nil
	}
	return prefix
}

// run runs `git args...` in dir, as a user would type it.
func run(t testing.TB, dir string, args ...string) testbin.Result {
	t.Helper()
	return runWith(t, dir, nil, nil, args...)
}

// runWith runs `prefix... git args...` in dir with extra environment; a
// command that does not run to its end fails the test.
func runWith(t testing.TB, dir string, prefix, env []string, args ...string) testbin.Result {
	t.Helper()
	argv := append(append(append([]string{}, prefix...), "git"), args...)
	r := testbin.Run(dir, env, argv[0], argv[1:]...)
	if r.Code == -1 {
		t.Fatalf("%s", r)
	}
	return r
}

// git runs a plain git command that must succeed and returns its output,
// trimmed.
func git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	return testbin.Git(t, dir, args...)
}

func readFile(t testing.TB, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	return string(data)
}

// The standard run of these tests: two phases, four tasks.
const run1 = "x1"

const standardPlan = `# Implementation Plan

Run ID: x1

## Phase 1: Setup (Sequential)

### Task 1.1: Create schema (M - 1h)
- Files: ` + "`db/schema.sql`" + `

### Task 1.2: Second step (S - 30m)

## Phase 2: Core (Parallel)

### Task 2.1: User service (M - 2h)

### Task 2.2: Other service
`

// Branch names of the standard plan.
const (
	br11 = "x1-task-1-1-create-schema"
	br12 = "x1-task-1-2-second-step"
	br21 = "x1-task-2-1-user-service"
	br22 = "x1-task-2-2-other-service"
)

// newRepo makes a repository whose main branch holds the plan (and a couple
// of files for sparse checkouts), with extra `git init` arguments.
func newRepo(t testing.TB, initArgs ...string) string {
	t.Helper()
	// Real path: the reports name worktrees by git's real paths.
	dir := filepath.Join(testbin.TempDir(t), "repo")
	git(t, filepath.Dir(dir), append(append([]string{"init", "-q"}, initArgs...), dir)...)
	testbin.WriteFile(t, filepath.Join(dir, "specs", run1, "plan.md"), standardPlan)
	testbin.WriteFile(t, filepath.Join(dir, "src", "app.txt"), "app\n")
	testbin.WriteFile(t, filepath.Join(dir, "docs", "guide.txt"), "guide\n")
	testbin.WriteFile(t, filepath.Join(dir, ".gitignore"), "*.log\n")
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", "add plan")
	return dir
}

// commitOnBranch creates branch from start (if it does not exist) and adds a
// commit to it, without touching any working tree (plumbing only), so it
// works in every layout including bare repositories.
func commitOnBranch(t testing.TB, dir, branch, start, file, content string) string {
	t.Helper()
	parent := start
	if r := run(t, dir, "rev-parse", "-q", "--verify", "refs/heads/"+branch); r.Code == 0 {
		parent = strings.TrimSpace(r.Stdout)
	}
	parent = git(t, dir, "rev-parse", "--verify", parent+"^{commit}")
	idx := filepath.Join(t.TempDir(), "index")
	env := []string{"GIT_INDEX_FILE=" + idx}
	mustEnv := func(stdin string, args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), env...)
		cmd.Stdin = strings.NewReader(stdin)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %s: %v: %s", strings.Join(args, " "), err, out)
		}
		return strings.TrimSpace(string(out))
	}
	mustEnv("", "read-tree", parent)
	blob := mustEnv(content, "hash-object", "-w", "--stdin")
	mustEnv("", "update-index", "--add", "--cacheinfo", "100644,"+blob+","+file)
	tree := mustEnv("", "write-tree")
	// The subject names the task, as orchestrators write it: a branch
	// made at this tip for the next task must not take the commit.
	c := mustEnv("", "commit-tree", tree, "-p", parent, "-m", taskSubject(branch), "-m", "work on "+branch)
	git(t, dir, "update-ref", "refs/heads/"+branch, c)
	return c
}

// taskSubject is "[Task 1.2]" for a branch "<run>-task-1-2-<name>", the
// branch name for any other branch.
func taskSubject(branch string) string {
	_, rest, ok := strings.Cut(branch, "-task-")
	if !ok {
		return branch
	}
	var nums []string
	for _, f := range strings.Split(rest, "-") {
		if f == "" || strings.Trim(f, "0123456789") != "" || len(nums) == 2 {
			break
		}
		nums = append(nums, f)
	}
	if len(nums) == 0 {
		return branch
	}
	return "[Task " + strings.Join(nums, ".") + "]"
}

// snapshot is everything a command must leave alone on bad input: every
// ref with its value, the worktree list, the main worktree's status, and
// the names of the files in the git directory.
func snapshot(t testing.TB, dir string) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("refs:\n" + git(t, dir, "for-each-ref", "--format=%(refname) %(objectname) %(symref)") + "\n")
	b.WriteString("worktrees:\n" + strings.ReplaceAll(git(t, dir, "worktree", "list", "--porcelain", "-z"), "\x00", "|") + "\n")
	if git(t, dir, "rev-parse", "--is-bare-repository") == "false" {
		b.WriteString("status:\n" + strings.ReplaceAll(git(t, dir, "--no-optional-locks", "status", "--porcelain=v2", "-z", "--untracked-files=all", "--ignored"), "\x00", "|") + "\n")
	}
	common := git(t, dir, "rev-parse", "--path-format=absolute", "--git-common-dir")
	var files []string
	filepath.WalkDir(common, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(common, p)
		files = append(files, rel)
		return nil
	})
	sort.Strings(files)
	b.WriteString("gitdir files:\n" + strings.Join(files, "\n") + "\n")
	return b.String()
}

// assertUnchanged compares a snapshot with the repository now.
func assertUnchanged(t testing.TB, dir, before string, r testbin.Result) {
	t.Helper()
	if after := snapshot(t, dir); after != before {
		t.Errorf("%s\nthe repository changed on bad input:\nbefore:\n%s\nafter:\n%s", r, before, after)
	}
}

// assertBadInput checks what bad usage or input must get:
// exit code exactly 2, nothing on stdout, and exactly one stderr line that
// starts with "error: " and holds every want.
func assertBadInput(t testing.TB, r testbin.Result, want ...string) {
	t.Helper()
	if r.Code != 2 {
		t.Errorf("%s\nwant exit code 2", r)
	}
	if r.Stdout != "" {
		t.Errorf("%s\nwant nothing on stdout for bad input", r)
	}
	assertOneErrorLine(t, r)
	for _, w := range want {
		if !strings.Contains(r.Stderr, w) {
			t.Errorf("%s\nstderr should mention %q", r, w)
		}
	}
	assertNoPanic(t, r)
}

func assertOneErrorLine(t testing.TB, r testbin.Result) {
	t.Helper()
	if !strings.HasPrefix(r.Stderr, "error: ") || !strings.HasSuffix(r.Stderr, "\n") || strings.Count(r.Stderr, "\n") != 1 {
		t.Errorf("%s\nwant stderr to be exactly one line starting with \"error: \"", r)
	}
}

func assertNoPanic(t testing.TB, r testbin.Result) {
	t.Helper()
	for _, s := range []string{r.Stderr, r.Stdout} {
		if strings.Contains(s, "panic:") || strings.Contains(s, "goroutine ") {
			t.Errorf("%s\nthe command panicked", r)
		}
	}
}

// assertOK checks a successful run: exit 0, nothing on stderr.
func assertOK(t testing.TB, r testbin.Result) {
	t.Helper()
	if r.Code != 0 || r.Stderr != "" {
		t.Fatalf("%s\nwant exit 0 and an empty stderr", r)
	}
}

// report runs `git taskresume <run> --json extra...` in dir and parses it.
func report(t testing.TB, dir string, extra ...string) *testbin.Report {
	t.Helper()
	r := run(t, dir, append([]string{"taskresume", run1, "--json"}, extra...)...)
	assertOK(t, r)
	var rep testbin.Report
	testbin.DecodeJSON(t, r, &rep)
	return &rep
}

// clean runs `git taskclean --run x1 --json extra...` in dir.
func clean(t testing.TB, dir string, extra ...string) *testbin.CleanResult {
	t.Helper()
	return cleanWith(t, dir, nil, extra...)
}

func cleanWith(t testing.TB, dir string, prefix []string, extra ...string) *testbin.CleanResult {
	t.Helper()
	r := runWith(t, dir, prefix, nil, append([]string{"taskclean", "--run", run1, "--json"}, extra...)...)
	assertOK(t, r)
	var res testbin.CleanResult
	testbin.DecodeJSON(t, r, &res)
	return &res
}

// addWorktree registers a worktree at path on a new branch from start.
func addWorktree(t testing.TB, dir, path, branch, start string) {
	t.Helper()
	git(t, dir, "worktree", "add", "-q", "-b", branch, path, start)
}
