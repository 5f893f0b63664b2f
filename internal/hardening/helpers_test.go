// Package hardening_test drives the real git-taskresume and git-taskclean
// binaries through real git dispatch (`git taskresume ...` finds
// git-taskresume on PATH) against real repositories built with plain git,
// feeding them hostile input: bad run ids, broken plans, odd repository
// layouts and damaged worktree metadata. docs/HARDENING.md summarises what a
// user sees for each class of input.
package hardening_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// binDir holds the freshly built git-taskresume and git-taskclean.
var binDir string

// privDrop is the command prefix that makes file permissions bind when the
// tests run as root (root ignores chmod 000 through CAP_DAC_OVERRIDE); nil
// when not needed or not available.
var privDrop []string

func TestMain(m *testing.M) {
	os.Exit(testMain(m))
}

func testMain(m *testing.M) int {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		fmt.Fprintln(os.Stderr, "hardening:", err)
		return 1
	}
	tmp, err := os.MkdirTemp("", "taskresume-hardening-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "hardening:", err)
		return 1
	}
	defer os.RemoveAll(tmp)
	binDir = filepath.Join(tmp, "bin")
	build := exec.Command("go", "build", "-o", binDir+string(filepath.Separator), "./cmd/...")
	build.Dir = root
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "hardening: build the commands:", err)
		return 1
	}
	home := filepath.Join(tmp, "home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "hardening:", err)
		return 1
	}
	gitconfig := "[user]\n\tname = Hardening Test\n\temail = hardening@example.com\n[init]\n\tdefaultBranch = main\n[advice]\n\tdetachedHead = false\n"
	if err := os.WriteFile(filepath.Join(home, ".gitconfig"), []byte(gitconfig), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "hardening:", err)
		return 1
	}
	// The environment every git and every command under test sees.
	for _, v := range []string{"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR",
		"GIT_OBJECT_DIRECTORY", "GIT_CEILING_DIRECTORIES", "GIT_CONFIG", "GIT_CONFIG_GLOBAL",
		"GIT_CONFIG_COUNT", "GIT_TASKRESUME_TRACE", "GIT_TASKCLEAN_CRASH_AFTER", "XDG_CONFIG_HOME"} {
		os.Unsetenv(v)
	}
	os.Setenv("PATH", binDir+string(os.PathListSeparator)+os.Getenv("PATH"))
	os.Setenv("HOME", home)
	os.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	os.Setenv("NO_COLOR", "1")
	os.Setenv("LC_ALL", "C")
	os.Setenv("GIT_TERMINAL_PROMPT", "0")

	privDrop = probePrivDrop(tmp)
	return m.Run()
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

// result is what a command did.
type result struct {
	Code           int
	Stdout, Stderr string
	Args           []string
}

func (r result) String() string {
	return fmt.Sprintf("%q: exit %d\nstdout: %s\nstderr: %s", r.Args, r.Code, clip(r.Stdout), clip(r.Stderr))
}

func clip(s string) string {
	if len(s) > 2000 {
		return s[:2000] + fmt.Sprintf("... (%d bytes)", len(s))
	}
	return s
}

// run runs `git args...` in dir, as a user would type it.
func run(t testing.TB, dir string, args ...string) result {
	t.Helper()
	return runWith(t, dir, nil, nil, args...)
}

// runWith runs `prefix... git args...` in dir with extra environment.
func runWith(t testing.TB, dir string, prefix, env []string, args ...string) result {
	t.Helper()
	argv := append(append([]string{}, prefix...), "git")
	argv = append(argv, args...)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatalf("run %q: %v", argv, err)
		}
		code = ee.ExitCode()
	}
	return result{Code: code, Stdout: stdout.String(), Stderr: stderr.String(), Args: args}
}

// git runs a plain git command that must succeed and returns its output,
// trimmed.
func git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	r := run(t, dir, args...)
	if r.Code != 0 {
		t.Fatalf("git %s (in %s): exit %d: %s", strings.Join(args, " "), dir, r.Code, r.Stderr)
	}
	return strings.TrimSpace(r.Stdout)
}

func writeFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readFile(t testing.TB, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	return string(data)
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
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
	dir := filepath.Join(t.TempDir(), "repo")
	git(t, filepath.Dir(dir), append(append([]string{"init", "-q"}, initArgs...), dir)...)
	writeFile(t, filepath.Join(dir, "specs", run1, "plan.md"), standardPlan)
	writeFile(t, filepath.Join(dir, "src", "app.txt"), "app\n")
	writeFile(t, filepath.Join(dir, "docs", "guide.txt"), "guide\n")
	writeFile(t, filepath.Join(dir, ".gitignore"), "*.log\n")
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
func assertUnchanged(t testing.TB, dir, before string, r result) {
	t.Helper()
	if after := snapshot(t, dir); after != before {
		t.Errorf("%s\nthe repository changed on bad input:\nbefore:\n%s\nafter:\n%s", r, before, after)
	}
}

// assertBadInput checks what bad usage or input must get:
// exit code exactly 2, nothing on stdout, and exactly one stderr line that
// starts with "error: " and holds every want.
func assertBadInput(t testing.TB, r result, want ...string) {
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

func assertOneErrorLine(t testing.TB, r result) {
	t.Helper()
	if !strings.HasPrefix(r.Stderr, "error: ") || !strings.HasSuffix(r.Stderr, "\n") || strings.Count(r.Stderr, "\n") != 1 {
		t.Errorf("%s\nwant stderr to be exactly one line starting with \"error: \"", r)
	}
}

func assertNoPanic(t testing.TB, r result) {
	t.Helper()
	for _, s := range []string{r.Stderr, r.Stdout} {
		if strings.Contains(s, "panic:") || strings.Contains(s, "goroutine ") {
			t.Errorf("%s\nthe command panicked", r)
		}
	}
}

// assertOK checks a successful run: exit 0, nothing on stderr.
func assertOK(t testing.TB, r result) {
	t.Helper()
	if r.Code != 0 || r.Stderr != "" {
		t.Fatalf("%s\nwant exit 0 and an empty stderr", r)
	}
}

// decodeOne parses stdout as exactly one JSON document with nothing but
// white space around it.
func decodeOne(t testing.TB, r result, v any) {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(r.Stdout))
	if err := dec.Decode(v); err != nil {
		t.Fatalf("%s\nstdout is not JSON: %v", r, err)
	}
	var extra json.RawMessage
	if err := dec.Decode(&extra); err != io.EOF {
		t.Fatalf("%s\nstdout holds more than one JSON document (next: %v)", r, err)
	}
}

// Report is the part of the taskresume JSON document these tests read.
type Report struct {
	SchemaVersion  int     `json:"schema_version"`
	RunID          string  `json:"run_id"`
	Plan           *string `json:"plan"`
	Status         string  `json:"status"`
	CompletedTasks int     `json:"completed_tasks"`
	TotalTasks     int     `json:"total_tasks"`
	PhasesTotal    int     `json:"phases_total"`
	Base           struct {
		Ref, Commit string
	} `json:"base"`
	Phases []struct {
		Number int    `json:"number"`
		Status string `json:"status"`
		Tasks  []struct {
			ID         string  `json:"id"`
			Name       string  `json:"name"`
			Title      string  `json:"title"`
			Status     string  `json:"status"`
			Branch     *string `json:"branch"`
			Commit     *string `json:"commit"`
			OwnCommits int     `json:"own_commits"`
		} `json:"tasks"`
	} `json:"phases"`
	Worktrees []struct {
		Path      string `json:"path"`
		Task      string `json:"task"`
		State     string `json:"state"`
		Missing   bool   `json:"missing"`
		Stale     bool   `json:"stale"`
		Staged    int    `json:"staged"`
		Unstaged  int    `json:"unstaged"`
		Untracked int    `json:"untracked"`
		Error     string `json:"error"`
	} `json:"worktrees"`
	StaleWorktrees []string `json:"stale_worktrees"`
	Problems       []struct {
		Kind, Message string
	} `json:"problems"`
}

// taskStatus returns id's status in the report ("" when absent).
func (r *Report) taskStatus(id string) string {
	for _, ph := range r.Phases {
		for _, t := range ph.Tasks {
			if t.ID == id {
				return t.Status
			}
		}
	}
	return ""
}

func (r *Report) taskBranch(id string) string {
	for _, ph := range r.Phases {
		for _, t := range ph.Tasks {
			if t.ID == id && t.Branch != nil {
				return *t.Branch
			}
		}
	}
	return ""
}

// report runs `git taskresume <run> --json extra...` in dir and parses it.
func report(t testing.TB, dir string, extra ...string) *Report {
	t.Helper()
	r := run(t, dir, append([]string{"taskresume", run1, "--json"}, extra...)...)
	assertOK(t, r)
	var rep Report
	decodeOne(t, r, &rep)
	return &rep
}

// CleanResult is the taskclean JSON document.
type CleanResult struct {
	RunID   string `json:"run_id"`
	DryRun  bool   `json:"dry_run"`
	Backup  string `json:"backup_prefix"`
	Actions []struct {
		Op      string `json:"action"`
		Task    string `json:"task"`
		Path    string `json:"path"`
		Branch  string `json:"branch"`
		Ref     string `json:"ref"`
		Commit  string `json:"commit"`
		Reason  string `json:"reason"`
		Command string `json:"command"`
		Done    bool   `json:"done"`
	} `json:"actions"`
}

// ops lists "op path-or-branch" for each action, for messages and checks.
func (c *CleanResult) ops() []string {
	var out []string
	for _, a := range c.Actions {
		what := a.Path
		if what == "" {
			what = a.Branch
		}
		out = append(out, a.Op+" "+what)
	}
	return out
}

func (c *CleanResult) find(op, path string) (int, bool) {
	for i, a := range c.Actions {
		if a.Op == op && (path == "" || a.Path == path) {
			return i, true
		}
	}
	return -1, false
}

// clean runs `git taskclean --run x1 --json extra...` in dir.
func clean(t testing.TB, dir string, extra ...string) *CleanResult {
	t.Helper()
	return cleanWith(t, dir, nil, extra...)
}

func cleanWith(t testing.TB, dir string, prefix []string, extra ...string) *CleanResult {
	t.Helper()
	r := runWith(t, dir, prefix, nil, append([]string{"taskclean", "--run", run1, "--json"}, extra...)...)
	assertOK(t, r)
	var res CleanResult
	decodeOne(t, r, &res)
	return &res
}

// addWorktree registers a worktree at path on a new branch from start.
func addWorktree(t testing.TB, dir, path, branch, start string) {
	t.Helper()
	git(t, dir, "worktree", "add", "-q", "-b", branch, path, start)
}
