// Package testbin is what end-to-end tests share: it builds the real
// git-taskresume and git-taskclean, puts them first on PATH so that
// `git taskresume` reaches them through git's own dispatch, and pins git's
// environment (HOME, identity, default branch) so tests do not depend on the
// machine's configuration.
package testbin

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Setup builds both commands and prepares the environment. Call it from
// TestMain; run the returned cleanup after m.Run.
func Setup() (cleanup func(), err error) {
	tmp, err := os.MkdirTemp("", "taskresume-bin-")
	if err != nil {
		return nil, err
	}
	cleanup = func() { os.RemoveAll(tmp) }
	root, err := moduleRoot()
	if err != nil {
		cleanup()
		return nil, err
	}
	bin := filepath.Join(tmp, "bin")
	build := exec.Command("go", "build", "-o", bin+string(filepath.Separator), "./cmd/...")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		cleanup()
		return nil, fmt.Errorf("build commands: %v\n%s", err, out)
	}
	home := filepath.Join(tmp, "home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		cleanup()
		return nil, err
	}
	cfg := "[user]\n\tname = Test Agent\n\temail = agent@example.com\n[init]\n\tdefaultBranch = main\n[advice]\n\tdetachedHead = false\n"
	if err := os.WriteFile(filepath.Join(home, ".gitconfig"), []byte(cfg), 0o644); err != nil {
		cleanup()
		return nil, err
	}
	for k, v := range map[string]string{
		"PATH": bin + string(os.PathListSeparator) + os.Getenv("PATH"), "HOME": home,
		"GIT_CONFIG_NOSYSTEM": "1", "NO_COLOR": "1", "GIT_TASKCLEAN_CRASH_AFTER": "",
		"GIT_AUTHOR_NAME": "Test Agent", "GIT_AUTHOR_EMAIL": "agent@example.com",
		"GIT_COMMITTER_NAME": "Test Agent", "GIT_COMMITTER_EMAIL": "agent@example.com",
	} {
		os.Setenv(k, v)
	}
	return cleanup, nil
}

func moduleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", err
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return "", errors.New("not inside the module")
	}
	return filepath.Dir(mod), nil
}

// Result is a finished command.
type Result struct {
	Stdout, Stderr string
	Code           int
}

// IsolateGit pins git's environment for one test, for package tests that
// run git without the built commands: a fresh HOME with only a default
// branch set, no system configuration, fixed identities and dates, no
// repository above the test's directories, and none of the GIT_* variables
// a git hook would pass on (they would send every command to the outer
// repository). It returns HOME.
func IsolateGit(t testing.TB) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git not installed")
	}
	home := t.TempDir()
	for k, v := range map[string]string{
		"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, ".config"),
		"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": filepath.Join(home, ".gitconfig"),
		"GIT_AUTHOR_NAME": "Ada", "GIT_AUTHOR_EMAIL": "ada@example.com",
		"GIT_COMMITTER_NAME": "Ada", "GIT_COMMITTER_EMAIL": "ada@example.com",
		"GIT_AUTHOR_DATE": "1700000000 +0000", "GIT_COMMITTER_DATE": "1700000000 +0000",
		"GIT_CEILING_DIRECTORIES": filepath.Dir(home), "GIT_TASKRESUME_TRACE": "",
	} {
		t.Setenv(k, v)
	}
	for _, k := range []string{"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR", "GIT_OBJECT_DIRECTORY", "GIT_NAMESPACE"} {
		t.Setenv(k, "")
		os.Unsetenv(k)
	}
	cfg := "[init]\n\tdefaultBranch = main\n[advice]\n\tdetachedHead = false\n"
	if err := os.WriteFile(filepath.Join(home, ".gitconfig"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	return home
}

// Run runs a command in dir with extra environment and returns what it
// printed and its exit code.
func Run(dir string, env []string, name string, args ...string) Result {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		code = -1
	}
	return Result{Stdout: out.String(), Stderr: errb.String(), Code: code}
}

// Git runs git in dir and fails the test when it fails.
func Git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	r := Run(dir, nil, "git", args...)
	if r.Code != 0 {
		t.Fatalf("git %s: exit %d\n%s%s", strings.Join(args, " "), r.Code, r.Stdout, r.Stderr)
	}
	return strings.TrimSpace(r.Stdout)
}

// SevenTaskPlan is the plan of the reference crash example.
func SevenTaskPlan(run string) string {
	return "# Implementation Plan\n\nRun ID: " + run + `

## Phase 1: Setup (Sequential)

### Task 1.1: Create database schema (M - 1h)
### Task 1.2: Install dependencies (S - 0.5h)

## Phase 2: Core Logic (Parallel)

### Task 2.1: User service (M - 2h)
### Task 2.2: Product service (M - 2h)
### Task 2.3: Order service (M - 2.5h)

## Phase 3: Integration (Sequential)

### Task 3.1: API integration tests (L - 3h)
### Task 3.2: E2E tests (L - 3h)
`
}

// NewRun makes a repository at dir with the seven-task plan of run
// committed on main and the branch <run>-main, and returns its top.
func NewRun(t testing.TB, dir, run string) string {
	t.Helper()
	Git(t, "", "init", "-q", "-b", "main", dir)
	if err := os.MkdirAll(filepath.Join(dir, "specs", run), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "specs", run, "plan.md"), []byte(SevenTaskPlan(run)), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(filepath.Join(dir, ".git", "info", "exclude"), os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(".worktrees/\n")
	f.Close()
	Git(t, dir, "add", "-A")
	Git(t, dir, "commit", "-q", "-m", "Add plan for run "+run)
	Git(t, dir, "branch", run+"-main")
	return dir
}

// Finish records task id as done: a branch <run>-task-<dashed>-<slug> with
// one commit of its own on top of from.
func Finish(t testing.TB, dir, run, id, slug, from string) string {
	t.Helper()
	dashed := strings.ReplaceAll(id, ".", "-")
	tree := Git(t, dir, "rev-parse", from+"^{tree}")
	blob := Run(dir, nil, "sh", "-c", "echo 'task "+id+"' | git hash-object -w --stdin")
	if blob.Code != 0 {
		t.Fatalf("hash-object: %s", blob.Stderr)
	}
	// A new tree: the parent's plus one file, written without a worktree.
	idx := filepath.Join(t.TempDir(), "index")
	env := []string{"GIT_INDEX_FILE=" + idx}
	for _, args := range [][]string{{"read-tree", tree}, {"update-index", "--add", "--cacheinfo", "100644," + strings.TrimSpace(blob.Stdout) + ",task-" + dashed + ".txt"}} {
		if r := Run(dir, env, "git", args...); r.Code != 0 {
			t.Fatalf("git %v: %s", args, r.Stderr)
		}
	}
	wt := Run(dir, env, "git", "write-tree")
	if wt.Code != 0 {
		t.Fatalf("write-tree: %s", wt.Stderr)
	}
	c := Git(t, dir, "commit-tree", strings.TrimSpace(wt.Stdout), "-p", from, "-m", "task "+id)
	branch := run + "-task-" + dashed + "-" + slug
	Git(t, dir, "branch", branch, c)
	return branch
}
