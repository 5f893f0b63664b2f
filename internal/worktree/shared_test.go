package worktree

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/taskresume/git-taskresume/internal/gitcmd"
)

// A save made with what a clean shares (the configuration read once, the
// commit and tree writers) is the save made without it, commit for commit:
// with dates fixed, the same ids. Worktrees of every kind: clean, dirty
// (staged, unstaged, untracked, ignored), converted files, hidden edits,
// intent-to-add entries, a conflict, an unborn HEAD, executable files and
// symbolic links, a submodule's entry.
func TestSaveSharedEqualsAlone(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, root, wt string)
	}{
		{"clean", func(t *testing.T, root, wt string) {}},
		{"dirty", func(t *testing.T, root, wt string) {
			idxWrite(t, filepath.Join(wt, "a.txt"), "edited\n")
			idxWrite(t, filepath.Join(wt, "new", "staged.txt"), "staged\n")
			idxGit(t, wt, nil, "add", "new/staged.txt")
			idxWrite(t, filepath.Join(wt, "untracked", "deep", "u.txt"), "untracked\n")
			idxWrite(t, filepath.Join(wt, ".env"), "SECRET=1\n")
			idxWrite(t, filepath.Join(wt, "node_modules", "p", "i.js"), "x\n")
		}},
		{"converted", func(t *testing.T, root, wt string) {
			idxWrite(t, filepath.Join(wt, ".gitattributes"), "*.id ident\n")
			idxWrite(t, filepath.Join(wt, "n.id"), "$Id: precious $\n")
			idxWrite(t, filepath.Join(wt, "d", "crlf.txt"), "a\r\nb\r\n")
			idxGit(t, root, nil, "config", "core.autocrlf", "input")
		}},
		{"hidden-and-intent", func(t *testing.T, root, wt string) {
			idxGit(t, wt, nil, "update-index", "--assume-unchanged", "a.txt")
			idxWrite(t, filepath.Join(wt, "a.txt"), "hidden edit\n")
			idxWrite(t, filepath.Join(wt, "ita.txt"), "intent\n")
			idxGit(t, wt, nil, "add", "-N", "ita.txt")
		}},
		{"modes-and-submodule", func(t *testing.T, root, wt string) {
			idxWrite(t, filepath.Join(wt, "run.sh"), "#!/bin/sh\n")
			os.Chmod(filepath.Join(wt, "run.sh"), 0o755)
			os.Symlink("a.txt", filepath.Join(wt, "link"))
			idxGit(t, wt, nil, "add", "run.sh", "link")
			head := idxGit(t, wt, nil, "rev-parse", "HEAD")
			idxGit(t, wt, nil, "update-index", "--add", "--cacheinfo", "160000,"+head+",mod")
			os.MkdirAll(filepath.Join(wt, "mod"), 0o755)
		}},
		{"conflict", func(t *testing.T, root, wt string) {
			idxGit(t, wt, nil, "checkout", "-q", "-b", "side")
			idxWrite(t, filepath.Join(wt, "a.txt"), "side\n")
			idxGit(t, wt, nil, "commit", "-q", "-am", "side")
			idxGit(t, wt, nil, "checkout", "-q", "-")
			idxWrite(t, filepath.Join(wt, "a.txt"), "mine\n")
			idxGit(t, wt, nil, "commit", "-q", "-am", "mine")
			gitOutput(context.Background(), wt, os.Environ(), "merge", "side")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := idxNewRepo(t, "sha1")
			t.Setenv("GIT_AUTHOR_DATE", "1700000000 +0100")
			t.Setenv("GIT_COMMITTER_DATE", "1700000000 +0100")
			idxWrite(t, filepath.Join(root, "a.txt"), "a\n")
			idxWrite(t, filepath.Join(root, ".gitignore"), ".env\nnode_modules/\n")
			idxGit(t, root, nil, "add", ".")
			idxGit(t, root, nil, "commit", "-q", "-m", "root")
			wt := filepath.Join(filepath.Dir(root), "wt")
			idxGit(t, root, nil, "worktree", "add", "-q", "--detach", wt)
			tc.setup(t, root, wt)
			// Files older than the index: nothing is racily clean.
			old := time.Now().Add(-3 * time.Second)
			filepath.Walk(wt, func(p string, fi os.FileInfo, err error) error {
				if err == nil && fi.Mode()&os.ModeSymlink == 0 && fi.Name() != ".git" {
					os.Chtimes(p, old, old)
				}
				return nil
			})
			ctx := context.Background()
			repo, err := gitcmd.Open(ctx, root)
			if err != nil {
				t.Fatal(err)
			}
			admin, err := GitDirOf(wt)
			if err != nil {
				t.Fatal(err)
			}
			head := idxGit(t, wt, nil, "rev-parse", "HEAD")
			save := func(shared *Shared) *Snapshot {
				in := SaveInput{Dir: wt, AdminDir: admin, Head: head, TmpDir: t.TempDir(), Msg: "taskclean r: worktree wt\n",
					Budget: DefaultBudget, HashLen: 20, Shared: shared}
				snap, err := Save(ctx, repo, in)
				if err != nil {
					t.Fatal(err)
				}
				return snap
			}
			alone := save(nil)
			shared := OpenShared(ctx, repo.CommonDir, t.TempDir(), 20, Identity)
			defer shared.Close()
			withShared := save(shared)
			if shared.Writer == nil || shared.Writer.Written == 0 {
				t.Error("the commit writer made no commit")
			}
			if shared.Trees.Indexes == 0 && tc.name != "clean" {
				t.Error("the tree writer made no tree")
			}
			for _, c := range []struct{ what, a, b string }{
				{"commit", alone.Commit, withShared.Commit},
				{"ignored", alone.Ignored, withShared.Ignored},
				{"raw", alone.Raw, withShared.Raw},
				{"stages", alone.Stages, withShared.Stages},
			} {
				if c.a != c.b {
					t.Errorf("%s: alone %s, shared %s\nalone:\n%s\nshared:\n%s", c.what, c.a, c.b,
						lsTree(t, root, c.a), lsTree(t, root, c.b))
				}
			}
			if alone.Staged != withShared.Staged || alone.Unstaged != withShared.Unstaged ||
				alone.Untracked != withShared.Untracked || alone.Hidden != withShared.Hidden ||
				len(alone.RawPaths) != len(withShared.RawPaths) {
				t.Errorf("counts differ: alone %+v, shared %+v", alone, withShared)
			}
			if (tc.name == "conflict") != (alone.Stages != "") {
				t.Errorf("stages %q: a commit only with a conflict", alone.Stages)
			}
			if tc.name == "converted" && alone.Raw == "" {
				t.Error("fixture: nothing was saved raw")
			}
			idxGit(t, root, nil, "fsck", "--no-dangling", "--connectivity-only")
		})
	}
}

func lsTree(t *testing.T, root, commit string) string {
	if commit == "" {
		return "(none)"
	}
	return idxGit(t, root, nil, "log", "--format=%H %P", "-3", commit) + "\n" + idxGit(t, root, nil, "ls-tree", "-r", commit)
}

// PruneEntryAt removes the entry it is given only when that entry
// registers the path; otherwise it finds the one that does, and never
// removes another worktree's entry.
func TestPruneEntryAt(t *testing.T) {
	root := idxNewRepo(t, "sha1")
	idxWrite(t, filepath.Join(root, "a.txt"), "a\n")
	idxGit(t, root, nil, "add", ".")
	idxGit(t, root, nil, "commit", "-q", "-m", "root")
	common := filepath.Join(root, ".git")
	var wts, admins []string
	for _, n := range []string{"one", "two", "three"} {
		wt := filepath.Join(filepath.Dir(root), n)
		idxGit(t, root, nil, "worktree", "add", "-q", "--detach", wt)
		admin, err := GitDirOf(wt)
		if err != nil {
			t.Fatal(err)
		}
		wts, admins = append(wts, wt), append(admins, admin)
	}
	// The right entry.
	if err := PruneEntryAt(common, wts[0], admins[0]); err != nil {
		t.Fatal(err)
	}
	// Another worktree's entry given: it stays, the right one goes.
	if err := PruneEntryAt(common, wts[1], admins[2]); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(admins[2]); err != nil {
		t.Errorf("the entry of %s was removed for %s", wts[2], wts[1])
	}
	for _, a := range admins[:2] {
		if _, err := os.Stat(a); !os.IsNotExist(err) {
			t.Errorf("%s is still there", a)
		}
	}
	// No entry registers the path.
	if err := PruneEntryAt(common, filepath.Join(root, "nowhere"), admins[2]); err == nil {
		t.Error("no error for a path no entry registers")
	}
	if _, err := os.Stat(admins[2]); err != nil {
		t.Errorf("the entry of %s was removed", wts[2])
	}
}
