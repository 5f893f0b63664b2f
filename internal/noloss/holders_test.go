package noloss

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taskresume/git-taskresume/internal/testbin"
)

// What holds a branch the clean deletes, beyond a worktree's HEAD: the HEAD
// of a bare repository, and a user's branch that is an alias of it.

// bareWithWorktree clones the run's repository bare (bare.git beside it)
// with one linked worktree (wt, detached at main) to run the clean in.
func bareWithWorktree(t *testing.T) (bare, wt string) {
	t.Helper()
	repo := newRepo(t)
	bare = filepath.Join(filepath.Dir(repo), "bare.git")
	git(t, filepath.Dir(repo), "clone", "-q", "--bare", repo, bare)
	wt = filepath.Join(filepath.Dir(repo), "wt")
	git(t, bare, "worktree", "add", "-q", "--detach", wt, "main")
	return bare, wt
}

// A bare repository's HEAD on <run>-main, directly or through aliases of
// the user's, refuses --all (exit 2, one line naming the bare repository
// and the command that frees it, nothing deleted); the command it names
// frees it, and the clean then goes through.
func TestBareHeadHoldsTheBranchItNames(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name  string
		setup func(t *testing.T, bare string)
	}{
		{"plain", func(t *testing.T, bare string) {}},
		{"alias-of-main", func(t *testing.T, bare string) {
			makeAlias(t, bare, mainAlias, "refs/heads/main")
		}},
		// HEAD -> feature -> <run>-main: the chain ends at the run's branch.
		{"through-user-alias", func(t *testing.T, bare string) {
			makeAlias(t, bare, "feature", "refs/heads/"+mainAlias)
		}},
		// HEAD -> feature -> <run>-main -> main: the alias in the middle.
		{"alias-in-the-middle", func(t *testing.T, bare string) {
			makeAlias(t, bare, mainAlias, "refs/heads/main")
			makeAlias(t, bare, "feature", "refs/heads/"+mainAlias)
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			bare, wt := bareWithWorktree(t)
			c.setup(t, bare)
			head := "refs/heads/" + mainAlias
			if branchExists(bare, "feature") {
				head = "refs/heads/feature"
			}
			git(t, bare, "symbolic-ref", "HEAD", head)
			before := git(t, bare, "for-each-ref", "--format=%(refname) %(objectname) %(symref)")

			r := testbin.Taskclean(wt, nil, "--run", run, "--all")
			if r.Code != 2 {
				t.Fatalf("--all with the bare repository's HEAD on %s: exit %d, want 2\n%s%s", mainAlias, r.Code, r.Stdout, r.Stderr)
			}
			msg := strings.TrimSpace(r.Stderr)
			for _, want := range []string{"error: refusing to delete branch " + mainAlias, "bare repository " + bare,
				"git -C " + bare + " symbolic-ref HEAD refs/heads/<branch>"} {
				if !strings.Contains(msg, want) {
					t.Errorf("the refusal does not say %q:\n%s", want, msg)
				}
			}
			if strings.Contains(msg, "\n") {
				t.Errorf("the refusal is more than one line:\n%s", msg)
			}
			if after := git(t, bare, "for-each-ref", "--format=%(refname) %(objectname) %(symref)"); after != before {
				t.Errorf("a refused clean changed the refs:\nbefore:\n%s\nafter:\n%s", before, after)
			}

			// What the refusal says to do frees the branch.
			git(t, bare, "symbolic-ref", "HEAD", "refs/heads/main")
			r, doc := clean(t, wt, nil, "--all")
			if r.Code != 0 {
				t.Fatalf("--all with HEAD on main: exit %d\n%s", r.Code, printed(r, doc))
			}
			if branchExists(bare, mainAlias) && symrefOf(bare, "refs/heads/"+mainAlias) == "" {
				t.Errorf("%s is still there once HEAD names main\n%s", mainAlias, printed(r, doc))
			}
			git(t, bare, "rev-parse", "--verify", "HEAD")
		})
	}
}

// A bare repository whose HEAD names no branch of the run holds nothing:
// --all deletes <run>-main, an alias of main, and main stays.
func TestBareHeadElsewhereHoldsNothing(t *testing.T) {
	t.Parallel()
	bare, wt := bareWithWorktree(t)
	makeAlias(t, bare, mainAlias, "refs/heads/main")
	git(t, bare, "symbolic-ref", "HEAD", "refs/heads/main")
	mainTip := git(t, bare, "rev-parse", "refs/heads/main")
	cleanOK(t, wt, nil, "--all")
	if branchExists(bare, mainAlias) {
		t.Errorf("the alias %s stays, though nothing holds it", mainAlias)
	}
	requireBranchAt(t, bare, "main", mainTip)
}

// A user's aliases of a task branch (feature -> the task branch, and f2 ->
// feature) are named on the action deleting the branch, in the JSON and the
// text, dry run included: they are left pointing to nothing, and --undo
// brings them back. They are not deleted; an alias of another branch, and
// the run's own alias deleted with the branch it points to, are not named.
func TestUserAliasOfDeletedBranchIsNamed(t *testing.T) {
	t.Parallel()
	repo := newRepo(t)
	wt := addWorktree(t, repo, "2.2")
	commitFile(t, wt, "x.txt", "x\n")
	git(t, repo, "worktree", "remove", wt)
	tip := git(t, repo, "rev-parse", "refs/heads/"+br22)
	makeAlias(t, repo, "feature", "refs/heads/"+br22)
	git(t, repo, "-c", "core.preferSymlinkRefs=true", "symbolic-ref", "refs/heads/f2", "refs/heads/feature")
	makeAlias(t, repo, "other", "refs/heads/main")

	text := testbin.Taskclean(repo, nil, "--run", run, "--task", "2.2", "--dry-run")
	if text.Code != 0 || !strings.Contains(text.Stdout, "would delete branch "+br22) ||
		!strings.Contains(text.Stdout, "f2, feature, symbolic refs to it, are left pointing to nothing") {
		t.Errorf("the dry run's text does not name the aliases left pointing to nothing (exit %d):\n%s%s", text.Code, text.Stdout, text.Stderr)
	}

	doc := cleanOK(t, repo, nil, "--task", "2.2")
	var del *testbin.Action
	for _, a := range doc.Find("delete_branch", "") {
		if a.Branch == br22 {
			del = a
		}
	}
	if del == nil || !del.Done {
		t.Fatalf("no delete_branch done for %s\n%s", br22, doc)
	}
	for _, want := range []string{"f2, feature", "left pointing to nothing", "--undo"} {
		if !strings.Contains(del.Reason, want) {
			t.Errorf("the delete_branch reason does not say %q: %q", want, del.Reason)
		}
	}
	if strings.Contains(del.Reason, "other") {
		t.Errorf("the reason names the alias of main: %q", del.Reason)
	}
	for _, alias := range []string{"feature", "f2", "other"} {
		if !fileOrLinkExists(filepath.Join(repo, ".git", "refs", "heads", alias)) {
			t.Errorf("the user's alias %s was deleted", alias)
		}
	}

	if u := testbin.Taskclean(repo, nil, "--run", run, "--undo"); u.Code != 0 {
		t.Fatalf("--undo: exit %d\n%s%s", u.Code, u.Stdout, u.Stderr)
	}
	for _, alias := range []string{"feature", "f2"} {
		if got := strings.TrimSpace(testbin.Run(repo, nil, "git", "rev-parse", "-q", "--verify", "refs/heads/"+alias).Stdout); got != tip {
			t.Errorf("after --undo, %s resolves to %q, want %s", alias, got, tip)
		}
	}
}

// With --no-backup nothing is saved: the note gives the command that
// recreates the branch instead of --undo.
func TestUserAliasOfDeletedBranchNoBackup(t *testing.T) {
	t.Parallel()
	repo := newRepo(t)
	wt := addWorktree(t, repo, "2.2")
	git(t, repo, "worktree", "remove", wt)
	tip := git(t, repo, "rev-parse", "refs/heads/"+br22)
	makeAlias(t, repo, "feature", "refs/heads/"+br22)
	doc := cleanOK(t, repo, nil, "--task", "2.2", "--no-backup")
	for _, a := range doc.Find("delete_branch", "") {
		if a.Branch == br22 {
			want := "the branch feature, a symbolic ref to it, is left pointing to nothing (not saved (--no-backup): git branch " + br22 + " " + tip + " brings it back)"
			if a.Reason != want {
				t.Errorf("reason %q, want %q", a.Reason, want)
			}
			return
		}
	}
	t.Fatalf("no delete_branch for %s\n%s", br22, doc)
}

// fileOrLinkExists: a dangling alias resolves to nothing, so it is looked
// for as the file (or symbolic link) git keeps it in.
func fileOrLinkExists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}
