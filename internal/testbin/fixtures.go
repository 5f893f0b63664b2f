package testbin

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// SevenTaskPlan is the plan of run in examples/demo.sh, the reference
// crash: three phases, seven tasks, each with the files it writes.
func SevenTaskPlan(run string) string {
	return "# Implementation Plan\n\n" +
		"Run ID: " + run + "\n\n" +
		"## Phase 1: Setup (Sequential)\n\n" +
		"### Task 1.1: Create database schema (M - 1h)\n- Files: `db/schema.sql`\n\n" +
		"### Task 1.2: Install dependencies (S - 0.5h)\n- Files: `package.json`\n\n" +
		"## Phase 2: Core Logic (Parallel)\n\n" +
		"### Task 2.1: User service (M - 2h)\n- Files: `src/services/user-service.ts`\n\n" +
		"### Task 2.2: Product service (M - 2h)\n- Files: `src/services/product-service.ts`\n\n" +
		"### Task 2.3: Order service (M - 2.5h)\n- Files: `src/services/order-service.ts`\n\n" +
		"## Phase 3: Integration (Sequential)\n\n" +
		"### Task 3.1: API integration tests (L - 3h)\n- Files: `tests/integration/api.test.ts`\n\n" +
		"### Task 3.2: E2E tests (L - 3h)\n- Files: `tests/e2e/workflows.test.ts`\n"
}

// NewRun makes a repository at dir with the seven-task plan of run
// committed on main, .worktrees/ excluded, and the branch <run>-main, and
// returns dir.
func NewRun(t testing.TB, dir, run string) string {
	t.Helper()
	Git(t, "", "init", "-q", "-b", "main", dir)
	WriteFile(t, filepath.Join(dir, "specs", run, "plan.md"), SevenTaskPlan(run))
	f, err := os.OpenFile(filepath.Join(dir, ".git", "info", "exclude"), os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.WriteString(".worktrees/\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	Git(t, dir, "add", "-A")
	Git(t, dir, "commit", "-q", "-m", "Add plan for run "+run)
	Git(t, dir, "branch", run+"-main")
	return dir
}

// Finish records task id as done: a branch <run>-task-<dashed id>-<slug>
// with one commit of its own (a file task-<dashed id>.txt) on top of from,
// made without a worktree. It returns the branch.
func Finish(t testing.TB, dir, run, id, slug, from string) string {
	t.Helper()
	dashed := strings.ReplaceAll(id, ".", "-")
	tree := Git(t, dir, "rev-parse", from+"^{tree}")
	blob := GitStdin(t, dir, "task "+id+"\n", "hash-object", "-w", "--stdin")
	// A new tree: the parent's plus one file, in an index of its own.
	env := []string{"GIT_INDEX_FILE=" + filepath.Join(t.TempDir(), "index")}
	Must(t, Run(dir, env, "git", "read-tree", tree))
	Must(t, Run(dir, env, "git", "update-index", "--add", "--cacheinfo", "100644,"+blob+",task-"+dashed+".txt"))
	newTree := strings.TrimSpace(Must(t, Run(dir, env, "git", "write-tree")).Stdout)
	c := Git(t, dir, "commit-tree", newTree, "-p", from, "-m", "task "+id)
	branch := run + "-task-" + dashed + "-" + slug
	Git(t, dir, "branch", branch, c)
	return branch
}

// WriteFile writes content to path, making its directories.
func WriteFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Exists reports whether path exists (a symbolic link is not followed).
func Exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}
