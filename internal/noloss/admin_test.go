package noloss

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taskresume/git-taskresume/internal/testbin"
)

// adminCase leaves state in task 2.2's worktree that lives in its admin
// entry (<common>/worktrees/<id>/), not in its files.
type adminCase struct {
	name  string
	setup func(t *testing.T, repo, wt string)
	// keyword: a default clean must keep the worktree, with a reason
	// naming this; alwaysKept: --task must keep it too.
	keyword    string
	alwaysKept bool
}

var adminCases = []adminCase{
	{name: "worktree-ref", setup: func(t *testing.T, repo, wt string) {
		// A commit only refs/worktree/keep holds (and the HEAD reflog).
		git(t, wt, "checkout", "-q", "--detach")
		commitFile(t, wt, "kept.txt", "only on refs/worktree/keep\n")
		git(t, wt, "update-ref", "refs/worktree/keep", "HEAD")
		git(t, wt, "checkout", "-q", br22)
	}},
	{name: "bisect", keyword: "in progress", setup: func(t *testing.T, repo, wt string) {
		git(t, wt, "bisect", "start", "HEAD", git(t, repo, "rev-list", "--max-parents=0", "main"))
		requireState(t, wt, "BISECT_START")
	}},
	{name: "reset-reflog", setup: func(t *testing.T, repo, wt string) {
		// A commit left behind by reset --hard: only the HEAD reflog has it.
		git(t, wt, "checkout", "-q", "--detach")
		commitFile(t, wt, "reset.txt", "only in the HEAD reflog\n")
		git(t, wt, "reset", "-q", "--hard", "HEAD~1")
		git(t, wt, "checkout", "-q", br22)
	}},
	{name: "rebase-edit", keyword: "in progress", setup: func(t *testing.T, repo, wt string) {
		git(t, wt, "checkout", "-q", "--detach")
		commitFile(t, wt, "r1.txt", "first\n")
		commitFile(t, wt, "r2.txt", "second\n")
		if r := testbin.Run(wt, []string{"GIT_SEQUENCE_EDITOR=sed -i.orig 1s/^pick/edit/"}, "git", "rebase", "-i", "HEAD~2"); r.Code != 0 {
			t.Fatalf("rebase -i: %s%s", r.Stdout, r.Stderr)
		}
		requireState(t, wt, "rebase-merge")
		testbin.WriteFile(t, filepath.Join(wt, "r1.txt"), "first, amended\n")
		git(t, wt, "commit", "-q", "-a", "--amend", "-m", "first, amended")
	}},
	{name: "am", keyword: "in progress", setup: func(t *testing.T, repo, wt string) {
		// Patches of a branch that stays; they do not apply on this HEAD.
		git(t, repo, "branch", "am-source", "main")
		src := filepath.Join(filepath.Dir(repo), "am-source")
		git(t, repo, "worktree", "add", "-q", src, "am-source")
		testbin.WriteFile(t, filepath.Join(src, "src", "f1.txt"), "one, patched\n")
		git(t, src, "commit", "-q", "-a", "-m", "patch f1")
		testbin.WriteFile(t, filepath.Join(src, "src", "f2.txt"), "two, patched\n")
		git(t, src, "commit", "-q", "-a", "-m", "patch f2")
		patches := filepath.Join(filepath.Dir(repo), "patches")
		git(t, src, "format-patch", "-q", "-2", "HEAD", "-o", patches)
		git(t, repo, "worktree", "remove", src)
		git(t, wt, "checkout", "-q", "--detach")
		testbin.WriteFile(t, filepath.Join(wt, "src", "f1.txt"), "one, changed here\n")
		git(t, wt, "commit", "-q", "-a", "-m", "conflicting change")
		list, _ := filepath.Glob(filepath.Join(patches, "*.patch"))
		if r := testbin.Run(wt, nil, "git", append([]string{"am"}, list...)...); r.Code == 0 {
			t.Fatal("fixture: git am applied the patches; it must stop")
		}
		requireState(t, wt, "rebase-apply")
	}},
	{name: "deinit-submodule", keyword: "submodule", alwaysKept: true, setup: func(t *testing.T, repo, wt string) {
		sub := filepath.Join(filepath.Dir(repo), "subsrc")
		git(t, "", "init", "-q", "-b", "main", sub)
		commitFile(t, sub, "lib.txt", "library\n")
		git(t, wt, "-c", "protocol.file.allow=always", "submodule", "add", "-q", sub, "lib")
		git(t, wt, "submodule", "deinit", "-q", "-f", "lib")
		requireState(t, wt, "modules/lib")
	}},
}

func commitFile(t *testing.T, dir, name, content string) {
	t.Helper()
	testbin.WriteFile(t, filepath.Join(dir, name), content)
	git(t, dir, "add", name)
	git(t, dir, "commit", "-q", "-m", "add "+name)
}

// requireState checks that wt's git directory holds name.
func requireState(t *testing.T, wt, name string) {
	t.Helper()
	gd := git(t, wt, "rev-parse", "--absolute-git-dir")
	if _, err := os.Stat(filepath.Join(gd, name)); err != nil {
		t.Fatalf("fixture: %s has no %s", gd, name)
	}
}

// Work that lives in a worktree's admin entry: a default clean keeps a
// worktree with an operation in progress (and one holding a de-initialised
// submodule); --task 2.2 saves all of it and removes the worktree. Nothing
// is lost either way.
func TestNoLossAdminState(t *testing.T) {
	t.Parallel()
	for _, tc := range adminCases {
		for _, mode := range []string{"default", "task"} {
			t.Run(tc.name+"/"+mode, func(t *testing.T) {
				t.Parallel()
				repo := newRepo(t)
				wt := addWorktree(t, repo, "2.2")
				tc.setup(t, repo, wt)
				testbin.WriteFile(t, filepath.Join(wt, "untracked-admin.txt"), "untracked next to "+tc.name+"\n")
				snap := snapshotForLoss(t, repo)
				var args []string
				if mode == "task" {
					args = []string{"--task", "2.2"}
				}
				refs := refState(t, repo)
				r, doc := clean(t, repo, nil, args...)
				switch {
				case r.Code == 2 && mode == "task" && tc.alwaysKept:
					// Refusing to delete the branch of a worktree that
					// must stay is allowed, when it changes nothing.
					if !strings.Contains(r.Stderr, tc.keyword) || strings.Count(r.Stderr, "error:") != 1 {
						t.Errorf("a refusal prints one error: line naming %q, got:\n%s", tc.keyword, r.Stderr)
					}
					if after := refState(t, repo); after != refs {
						t.Errorf("a refusal changed refs or worktrees:\nbefore:\n%s\nafter:\n%s", refs, after)
					}
				case r.Code != 0:
					t.Fatalf("exit %d, want 0\n%s", r.Code, printed(r, doc))
				case mode == "default" && tc.keyword != "", tc.alwaysKept:
					requireSkip(t, doc, wt, tc.keyword)
				case mode == "task":
					requireRemoved(t, doc, wt)
				}
				if !testbin.Exists(wt) && tc.alwaysKept {
					t.Errorf("%s was removed; it must stay", wt)
				}
				assertNoLoss(t, snap, repo)
			})
		}
	}
}
