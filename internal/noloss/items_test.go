package noloss

import (
	"crypto/rand"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taskresume/git-taskresume/internal/testbin"
)

// bugReport is the shell of the report in which a clean run from a linked
// worktree deleted the whole repository: the main worktree is checked out on
// task 1.1's branch, so it looked like 1.1's stale worktree.
const bugReport = `git init -q -b main repo && cd repo && mkdir -p specs/x1y2z3
printf '# Plan\n\nRun ID: x1y2z3\n\n## Phase 1: Setup (Sequential)\n\n### Task 1.1: Schema (S - 1h)\n\n### Task 1.2: Deps (S - 1h)\n' > specs/x1y2z3/plan.md
git add -A && git commit -qm plan && git checkout -q -b x1y2z3-task-1-1-schema
git worktree add -q --detach ../side main`

// The main worktree is never removed by any selection, even when it is
// checked out on a task's branch and the clean runs from a linked worktree
// outside it.
func TestNoLossMainWorktreeOnTaskBranch(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		args   []string
		finish bool // commit on 1.1's branch first, so 1.1 is complete
		// refusal: the selection deletes the branch the main worktree has
		// checked out; refusing that (exit 2, nothing changed) is allowed.
		refusal bool
	}{
		{name: "default"},
		{name: "completed", args: []string{"--completed"}, finish: true},
		{name: "task", args: []string{"--task", "1.1"}, refusal: true},
		{name: "all", args: []string{"--all"}, refusal: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			base := realTemp(t)
			if r := testbin.Run(base, nil, "sh", "-c", bugReport); r.Code != 0 {
				t.Fatalf("fixture: %s%s", r.Stdout, r.Stderr)
			}
			repo, side := filepath.Join(base, "repo"), filepath.Join(base, "side")
			if tc.finish {
				testbin.WriteFile(t, filepath.Join(repo, "schema.sql"), "create table t (id int);\n")
				git(t, repo, "add", "schema.sql")
				git(t, repo, "commit", "-q", "-m", "schema")
			}
			snap := snapshotForLoss(t, repo)
			refs := refState(t, repo)

			r, doc := clean(t, side, nil, tc.args...)
			for _, p := range []string{repo, filepath.Join(repo, ".git"), filepath.Join(repo, "specs", run, "plan.md")} {
				if !testbin.Exists(p) {
					t.Errorf("%s is gone after the clean run from ../side", p)
				}
			}
			switch {
			case r.Code == 0:
				if head := testbin.Run(repo, nil, "git", "symbolic-ref", "HEAD"); strings.TrimSpace(head.Stdout) != "refs/heads/x1y2z3-task-1-1-schema" {
					t.Errorf("main worktree's HEAD is %q (exit %d), want refs/heads/x1y2z3-task-1-1-schema", head.Stdout, head.Code)
				}
				if v := testbin.Run(repo, nil, "git", "rev-parse", "--verify", "-q", "refs/heads/x1y2z3-task-1-1-schema"); v.Code != 0 {
					t.Errorf("the branch the main worktree has checked out was deleted")
				}
				for _, a := range doc.Find("remove_worktree", repo) {
					t.Errorf("the clean chose to remove the main worktree: %s", a)
				}
			case r.Code == 2 && tc.refusal:
				if n := strings.Count(r.Stderr, "error:"); n != 1 {
					t.Errorf("a refusal prints one error: line, got %d:\n%s", n, r.Stderr)
				}
				if after := refState(t, repo); after != refs {
					t.Errorf("a refusal changed refs or worktrees:\nbefore:\n%s\nafter:\n%s", refs, after)
				}
			default:
				t.Errorf("exit %d, want 0\n%s", r.Code, printed(r, doc))
			}
			if st := testbin.Run(repo, nil, "git", "status", "--porcelain"); st.Code != 0 {
				t.Errorf("git status in the repository fails afterwards: %s", st.Stderr)
			}
			assertNoLoss(t, snap, repo)
		})
	}
}

// Edits to files git was told not to look at (skip-worktree,
// assume-unchanged) are invisible to git status, but they are work.
func TestNoLossHiddenEdits(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{nil, {"--task", "2.2"}} {
		t.Run(strings.Join(append([]string{"clean"}, args...), " "), func(t *testing.T) {
			t.Parallel()
			repo := newRepo(t)
			wt := addWorktree(t, repo, "2.2")
			git(t, wt, "update-index", "--skip-worktree", "src/f1.txt")
			git(t, wt, "update-index", "--assume-unchanged", "src/f2.txt")
			testbin.WriteFile(t, filepath.Join(wt, "src", "f1.txt"), "hidden edit behind skip-worktree\n")
			testbin.WriteFile(t, filepath.Join(wt, "src", "f2.txt"), "hidden edit behind assume-unchanged\n")
			if st := git(t, wt, "status", "--porcelain"); st != "" {
				t.Fatalf("fixture: git status should see nothing, sees %q", st)
			}
			snap := snapshotForLoss(t, repo)
			cleanOK(t, repo, nil, args...)
			assertNoLoss(t, snap, repo)
		})
	}
}

// Names git refuses to record cannot be saved: the worktree stays.
func TestNoLossNamesGitRefuses(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, names string // names: what the reason may name
		make        func(t *testing.T, wt string)
	}{
		{"dot-GIT", "a/.GIT", func(t *testing.T, wt string) {
			testbin.WriteFile(t, filepath.Join(wt, "a", ".GIT", "f"), "in a/.GIT\n")
		}},
		{"GIT~1", "GIT~1", func(t *testing.T, wt string) { testbin.WriteFile(t, filepath.Join(wt, "GIT~1", "f"), "in GIT~1\n") }},
		{"dot-git-space", "b/.git ", func(t *testing.T, wt string) {
			testbin.WriteFile(t, filepath.Join(wt, "b", ".git ", "f"), "in b/.git \n")
		}},
		{"dot-git-dot", "c/.git.", func(t *testing.T, wt string) {
			testbin.WriteFile(t, filepath.Join(wt, "c", ".git.", "f"), "in c/.git.\n")
		}},
		{"gitmodules-symlink", ".gitmodules", func(t *testing.T, wt string) {
			if err := os.Symlink("src/f1.txt", filepath.Join(wt, ".gitmodules")); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			repo := newRepo(t)
			wt := addWorktree(t, repo, "2.2")
			makeDirty(t, wt, "refused")
			tc.make(t, wt)
			snap := snapshotForLoss(t, repo)
			doc := cleanOK(t, repo, nil)
			requireSkip(t, doc, wt, "refuse", "cannot be saved", "not saved", strings.ToLower(tc.names))
			assertNoLoss(t, snap, repo)
		})
	}
}

// A file deeper than PATH_MAX cannot be read by path: the worktree stays.
func TestNoLossDeepPath(t *testing.T) {
	t.Parallel()
	repo := newRepo(t)
	wt := addWorktree(t, repo, "2.2")
	makeDirty(t, wt, "deep")
	top := filepath.Join(wt, "deep")
	t.Cleanup(func() { os.RemoveAll(top) })
	// 45 directories of 100 characters: 4.5 KB of path. Made relative to
	// each parent, since the whole path cannot be named.
	if err := os.Mkdir(top, 0o755); err != nil {
		t.Fatal(err)
	}
	r, err := os.OpenRoot(top)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 45; i++ {
		name := fmt.Sprintf("%02d", i) + strings.Repeat("d", 98)
		if err := r.Mkdir(name, 0o755); err != nil {
			t.Fatal(err)
		}
		sub, err := r.OpenRoot(name)
		r.Close()
		if err != nil {
			t.Fatal(err)
		}
		r = sub
	}
	if err := r.WriteFile("deep.txt", []byte("work 4.5 KB deep\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r.Close()
	snap := snapshotForLoss(t, repo)
	found := false
	for _, f := range snap.files {
		found = found || strings.HasSuffix(f.rel, "/deep.txt")
	}
	if !found {
		t.Fatal("the checker did not see the deep file")
	}
	doc := cleanOK(t, repo, nil)
	requireSkip(t, doc, wt)
	assertNoLoss(t, snap, repo)
}

// A .gitignore of "*" makes every file ignored: they are still work.
// Ignored files beyond the save budget keep the worktree unless
// --drop-ignored; regenerated trees are not saved but named.
func TestNoLossIgnored(t *testing.T) {
	t.Parallel()
	t.Run("gitignore-star", func(t *testing.T) {
		t.Parallel()
		repo := newRepo(t)
		wt := addWorktree(t, repo, "2.2")
		testbin.WriteFile(t, filepath.Join(wt, ".gitignore"), "*\n")
		for i := 0; i < 32; i++ {
			testbin.WriteFile(t, filepath.Join(wt, "work", fmt.Sprintf("file-%02d.go", i)), fmt.Sprintf("package work // %d\n", i))
		}
		testbin.WriteFile(t, filepath.Join(wt, ".env"), "TOKEN=only-here\n")
		snap := snapshotForLoss(t, repo)
		cleanOK(t, repo, nil)
		assertNoLoss(t, snap, repo)
	})
	bigFixture := func(t *testing.T) (string, string) {
		repo := newRepo(t)
		wt := addWorktree(t, repo, "2.2")
		makeDirty(t, wt, "big")
		testbin.WriteFile(t, filepath.Join(wt, ".gitignore"), "*.bin\n")
		big := make([]byte, 2<<20)
		rand.Read(big)
		if err := os.WriteFile(filepath.Join(wt, "model.bin"), big, 0o644); err != nil {
			t.Fatal(err)
		}
		return repo, wt
	}
	t.Run("big-ignored", func(t *testing.T) {
		t.Parallel()
		repo, wt := bigFixture(t)
		snap := snapshotForLoss(t, repo)
		doc := cleanOK(t, repo, nil)
		requireSkip(t, doc, wt)
		assertNoLoss(t, snap, repo)
	})
	t.Run("big-ignored-drop", func(t *testing.T) {
		t.Parallel()
		repo, wt := bigFixture(t)
		snap := snapshotForLoss(t, repo)
		doc := cleanOK(t, repo, nil, "--drop-ignored")
		requireRemoved(t, doc, wt)
		// The big file is the one thing allowed to go.
		for _, l := range lossesOf(snap, repo) {
			if !strings.Contains(l, "model.bin") {
				t.Errorf("lost: %s", l)
			}
		}
	})
	t.Run("node-modules", func(t *testing.T) {
		t.Parallel()
		repo := newRepo(t)
		wt := addWorktree(t, repo, "2.2")
		makeDirty(t, wt, "node")
		testbin.WriteFile(t, filepath.Join(wt, ".gitignore"), "node_modules/\n")
		for i := 0; i < 5; i++ {
			testbin.WriteFile(t, filepath.Join(wt, "node_modules", fmt.Sprintf("pkg%d", i), "index.js"), "module.exports = 1\n")
		}
		snap := snapshotForLoss(t, repo)
		doc := cleanOK(t, repo, nil)
		requireRemoved(t, doc, wt)
		named := false
		for _, a := range doc.Find("remove_worktree", wt) {
			named = named || strings.Contains(a.Raw, "node_modules")
		}
		if !named {
			t.Errorf("the removal of %s does not name node_modules\nactions:\n%s", wt, doc)
		}
		assertNoLoss(t, snap, repo)
	})
}

// A worktree moved by hand still works from its new place; a clean run in
// it must not prune its admin entry.
func TestNoLossMovedWorktree(t *testing.T) {
	t.Parallel()
	repo := newRepo(t)
	wt := addWorktree(t, repo, "2.2")
	makeDirty(t, wt, "moved")
	moved := filepath.Join(filepath.Dir(repo), "moved")
	if err := os.Rename(wt, moved); err != nil {
		t.Fatal(err)
	}
	admin := filepath.Join(repo, ".git", "worktrees", filepath.Base(wt))
	snap := snapshotForLoss(t, repo, moved)
	r, doc := clean(t, moved, nil)
	if r.Code != 0 {
		t.Errorf("exit %d, want 0\n%s", r.Code, printed(r, doc))
	}
	if st := testbin.Run(moved, nil, "git", "status"); st.Code != 0 {
		t.Errorf("git status in the moved worktree fails after the clean: %s\nactions:\n%s", st.Stderr, doc)
	}
	if !testbin.Exists(admin) {
		t.Errorf("admin entry %s of the worktree the clean ran in was removed", admin)
	}
	assertNoLoss(t, snap, repo)
}

// A worktree belongs to a run by its branch: one named like a task of this
// run but on another run's branch is none of this run's business.
func TestNoLossOtherRunBranch(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"--all"}, nil, {"--task", "2.1"}} {
		t.Run(strings.Join(append([]string{"clean"}, args...), " "), func(t *testing.T) {
			t.Parallel()
			repo := newRepo(t)
			wt := wtPath(repo, "2.1")
			git(t, repo, "worktree", "add", "-q", wt, "-b", "a0b1c2-task-1-1-x", "main")
			makeDirty(t, wt, "other-run")
			head := git(t, wt, "rev-parse", "HEAD")
			files := treeState(t, wt)
			status := statusV2(t, wt)
			snap := snapshotForLoss(t, repo)
			doc := cleanOK(t, repo, nil, args...)
			if !testbin.Exists(wt) {
				t.Fatalf("worktree of another run's branch was removed\nactions:\n%s", doc)
			}
			if b := testbin.Run(wt, nil, "git", "symbolic-ref", "HEAD"); strings.TrimSpace(b.Stdout) != "refs/heads/a0b1c2-task-1-1-x" {
				t.Errorf("HEAD is %q, want refs/heads/a0b1c2-task-1-1-x", b.Stdout)
			}
			if h := git(t, wt, "rev-parse", "HEAD"); h != head {
				t.Errorf("HEAD moved from %s to %s", head, h)
			}
			if got := treeState(t, wt); got != files {
				t.Errorf("files changed:\nbefore:\n%s\nafter:\n%s", files, got)
			}
			if got := statusV2(t, wt); got != status {
				t.Errorf("git status changed:\nbefore:\n%s\nafter:\n%s", status, got)
			}
			if v := testbin.Run(repo, nil, "git", "rev-parse", "--verify", "-q", "refs/heads/a0b1c2-task-1-1-x"); v.Code != 0 {
				t.Errorf("another run's branch was deleted")
			}
			assertNoLoss(t, snap, repo)
		})
	}
}

// --task 2.1 while the main worktree is rebasing 2.1's branch: refused with
// nothing changed, and the rebase can still finish.
func TestNoLossTaskWhileMainRebasing(t *testing.T) {
	t.Parallel()
	repo := newRepo(t)
	git(t, repo, "checkout", "-q", "-b", br21)
	for _, n := range []string{"a", "b"} {
		testbin.WriteFile(t, filepath.Join(repo, "user-"+n+".go"), "package user // "+n+"\n")
		git(t, repo, "add", "-A")
		git(t, repo, "commit", "-q", "-m", "user "+n)
	}
	if r := testbin.Run(repo, []string{"GIT_SEQUENCE_EDITOR=sed -i.orig 1s/^pick/edit/"}, "git", "rebase", "-i", "HEAD~2"); r.Code != 0 {
		t.Fatalf("rebase -i: %s%s", r.Stdout, r.Stderr)
	}
	if !testbin.Exists(filepath.Join(repo, ".git", "rebase-merge")) {
		t.Fatal("fixture: the rebase did not stop")
	}
	testbin.WriteFile(t, filepath.Join(repo, "user-a.go"), "package user // a, amended\n")
	git(t, repo, "commit", "-q", "-a", "--amend", "-m", "user a, amended")
	refs := refState(t, repo)
	files := treeState(t, repo)
	snap := snapshotForLoss(t, repo)

	r, doc := clean(t, repo, nil, "--task", "2.1")
	if r.Code != 2 {
		t.Errorf("exit %d, want 2 (a refusal)\n%s", r.Code, printed(r, doc))
	}
	var errLines []string
	for _, l := range strings.Split(r.Stderr, "\n") {
		if strings.HasPrefix(l, "error:") {
			errLines = append(errLines, l)
		}
	}
	if len(errLines) != 1 || !strings.Contains(errLines[0], "rebase --") {
		t.Errorf("want one error: line naming the command that frees the branch (git rebase --continue or --abort), got:\n%s", r.Stderr)
	}
	if after := refState(t, repo); after != refs {
		t.Errorf("refs or worktrees changed:\nbefore:\n%s\nafter:\n%s\nactions:\n%s", refs, after, doc)
	}
	if got := treeState(t, repo); got != files {
		t.Errorf("files of the main worktree changed:\nbefore:\n%s\nafter:\n%s", files, got)
	}
	assertNoLoss(t, snap, repo)
	if c := testbin.Run(repo, nil, "git", "rebase", "--continue"); c.Code != 0 {
		t.Errorf("git rebase --continue fails after the clean: %s%s", c.Stdout, c.Stderr)
	}
	if h := testbin.Run(repo, nil, "git", "symbolic-ref", "HEAD"); strings.TrimSpace(h.Stdout) != "refs/heads/"+br21 {
		t.Errorf("after the rebase HEAD is %q, want refs/heads/%s", h.Stdout, br21)
	}
}

// The dry run with the new flags changes nothing: not refs, not worktrees,
// not files.
func TestNoLossDryRunChangesNothing(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"-n", "--ignore-live"}, {"-n", "--drop-ignored"}, {"-n", "--all", "--ignore-live", "--drop-ignored"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			t.Parallel()
			repo := newRepo(t)
			wt1, wt2 := addWorktree(t, repo, "2.1"), addWorktree(t, repo, "2.2")
			makeDirty(t, wt1, "dry1")
			makeDirty(t, wt2, "dry2")
			testbin.WriteFile(t, filepath.Join(wt2, ".gitignore"), "*.bin\n")
			big := make([]byte, 2<<20)
			rand.Read(big)
			if err := os.WriteFile(filepath.Join(wt2, "model.bin"), big, 0o644); err != nil {
				t.Fatal(err)
			}
			live := startIn(t, wt1, "sleep", "60")
			defer stop(live)
			refs := refState(t, repo)
			state := treeState(t, repo) + treeState(t, wt1) + treeState(t, wt2) + adminState(t, repo)
			r, doc := clean(t, repo, nil, args...)
			if r.Code != 0 || doc == nil || !doc.DryRun {
				t.Errorf("exit %d, want 0 and a dry run document\n%s", r.Code, printed(r, doc))
			}
			if after := refState(t, repo); after != refs {
				t.Errorf("refs or worktrees changed:\nbefore:\n%s\nafter:\n%s", refs, after)
			}
			if after := treeState(t, repo) + treeState(t, wt1) + treeState(t, wt2) + adminState(t, repo); after != state {
				t.Errorf("files changed:\nbefore:\n%s\nafter:\n%s", state, after)
			}
		})
	}
}
