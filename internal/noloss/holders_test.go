package noloss

import (
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
