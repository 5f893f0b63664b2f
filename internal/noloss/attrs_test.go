package noloss

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taskresume/git-taskresume/internal/testbin"
)

// The clean reads once which attributes files and which line-ending
// settings exist, and skips check-attr for a worktree when nothing can make
// git convert one of its files. Each source of a conversion must still be
// seen: the bytes on disk of a converted file are saved (raw/) and come back
// on --restore. ident is the conversion used: "$Id: precious $" is stored as
// "$Id$", so the bytes on disk are in no other tree.
func TestNoLossAttributeSources(t *testing.T) {
	t.Parallel()
	const identData = "$Id: precious $\n"
	const crlfData = "line1\r\nline2\r\n"
	for _, tc := range []struct {
		name string
		file string // relative to the worktree
		data string
		// setup prepares repo and wt, and returns the environment of the
		// clean and of the restore.
		setup func(t *testing.T, repo, wt string) []string
		// sparse: a restore checks out the skip-worktree file the
		// worktree did not have; only the converted file is compared.
		sparse bool
	}{
		{"tracked-in-subdirectory", "deep/er/n.txt", identData, func(t *testing.T, repo, wt string) []string {
			testbin.WriteFile(t, filepath.Join(wt, "deep", "er", ".gitattributes"), "*.txt ident\n")
			git(t, wt, "add", "deep/er/.gitattributes")
			git(t, wt, "commit", "-q", "-m", "attributes in a subdirectory")
			return nil
		}, false},
		{"untracked-at-top", "n.txt", identData, func(t *testing.T, repo, wt string) []string {
			testbin.WriteFile(t, filepath.Join(wt, ".gitattributes"), "*.txt ident\n")
			return nil
		}, false},
		{"untracked-in-untracked-directory", "notes/n.txt", identData, func(t *testing.T, repo, wt string) []string {
			testbin.WriteFile(t, filepath.Join(wt, "notes", ".gitattributes"), "*.txt ident\n")
			return nil
		}, false},
		{"ignored", "conf/n.txt", identData, func(t *testing.T, repo, wt string) []string {
			appendFile(t, filepath.Join(repo, ".git", "info", "exclude"), "conf/.gitattributes\n")
			testbin.WriteFile(t, filepath.Join(wt, "conf", ".gitattributes"), "*.txt ident\n")
			return nil
		}, false},
		{"index-only", "sub/n.txt", identData, func(t *testing.T, repo, wt string) []string {
			// Git reads a .gitattributes missing from the directory from the
			// index (here a skip-worktree entry, which the save keeps): the
			// tracked file's edit is converted.
			testbin.WriteFile(t, filepath.Join(wt, "sub", "n.txt"), "$Id$\n")
			testbin.WriteFile(t, filepath.Join(wt, "sub", ".gitattributes"), "*.txt ident\n")
			git(t, wt, "add", "sub")
			git(t, wt, "commit", "-q", "-m", "a tracked file and its attributes")
			git(t, wt, "update-index", "--skip-worktree", "sub/.gitattributes")
			if err := os.Remove(filepath.Join(wt, "sub", ".gitattributes")); err != nil {
				t.Fatal(err)
			}
			return nil
		}, true},
		{"info-attributes", "n.txt", identData, func(t *testing.T, repo, wt string) []string {
			testbin.WriteFile(t, filepath.Join(repo, ".git", "info", "attributes"), "*.txt ident\n")
			return nil
		}, false},
		{"core-attributesfile", "n.txt", identData, func(t *testing.T, repo, wt string) []string {
			f := filepath.Join(realTemp(t), "attrs")
			testbin.WriteFile(t, f, "*.txt ident\n")
			git(t, repo, "config", "core.attributesFile", f)
			return nil
		}, false},
		{"home-config-default", "n.txt", identData, func(t *testing.T, repo, wt string) []string {
			// No XDG_CONFIG_HOME: git reads ~/.config/git/attributes.
			home := realTemp(t)
			testbin.WriteFile(t, filepath.Join(home, ".config", "git", "attributes"), "*.txt ident\n")
			return []string{"HOME=" + home, "XDG_CONFIG_HOME="}
		}, false},
		{"autocrlf-includeif-onbranch", "crlf.txt", crlfData, func(t *testing.T, repo, wt string) []string {
			testbin.WriteFile(t, filepath.Join(repo, ".git", "crlf.cfg"), "[core]\n\tautocrlf = input\n")
			git(t, repo, "config", "includeIf.onbranch:"+run+"-task-2-2-*.path", "crlf.cfg")
			return nil
		}, false},
		{"autocrlf-includeif-gitdir", "crlf.txt", crlfData, func(t *testing.T, repo, wt string) []string {
			testbin.WriteFile(t, filepath.Join(repo, ".git", "crlf.cfg"), "[core]\n\tautocrlf = input\n")
			git(t, repo, "config", "includeIf.gitdir:"+filepath.Join(repo, ".git", "worktrees")+"/.path", "crlf.cfg")
			return nil
		}, false},
		{"autocrlf-on-the-command-line", "crlf.txt", crlfData, func(t *testing.T, repo, wt string) []string {
			// git -c core.autocrlf=input taskclean passes it on so.
			return []string{"GIT_CONFIG_PARAMETERS='core.autocrlf'='input'"}
		}, false},
		{"autocrlf-with-GIT_CONFIG", "crlf.txt", crlfData, func(t *testing.T, repo, wt string) []string {
			// GIT_CONFIG changes what `git config` reads, not what add
			// converts.
			git(t, repo, "config", "core.autocrlf", "input")
			return []string{"GIT_CONFIG=" + os.DevNull}
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			repo := newRepo(t)
			wt := addWorktree(t, repo, "2.2")
			env := tc.setup(t, repo, wt)
			testbin.WriteFile(t, filepath.Join(wt, tc.file), tc.data)
			requireConverted(t, wt, env, tc.file, tc.data)
			backdate(t, wt)
			want := treeState(t, wt)
			snap := snapshotForLoss(t, repo)

			doc := cleanOK(t, repo, env, "--task", "2.2")
			requireRemoved(t, doc, wt)
			if id := blobID([]byte(tc.data)); !reachable(t, repo, id) {
				t.Errorf("the bytes of %s on disk (blob %s) are reachable from no ref\nactions:\n%s", tc.file, id, doc)
			}
			if len(doc.Find("save_raw", wt)) == 0 {
				t.Errorf("no save_raw action\nactions:\n%s", doc)
			}
			assertNoLoss(t, snap, repo)
			if t.Failed() {
				return
			}
			if r := testbin.Run(repo, env, "git", "taskclean", "--run", run, "--undo"); r.Code != 0 {
				t.Fatalf("--undo: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
			}
			restoreEnv(t, repo, env, "2.2")
			requireBytes(t, filepath.Join(wt, tc.file), []byte(tc.data))
			if got := treeState(t, wt); got != want && !tc.sparse {
				t.Errorf("files differ after --restore:\nbefore:\n%s\nafter:\n%s", want, got)
			}
		})
	}
}

// requireConverted checks the fixture: git, adding the worktree's changes
// and then file to a copy of its index in env (as a save does), stores
// other bytes than data.
func requireConverted(t *testing.T, wt string, env []string, file, data string) {
	t.Helper()
	idx := filepath.Join(realTemp(t), "index")
	gitDir := gitEnv(t, wt, env, "rev-parse", "--path-format=absolute", "--git-dir")
	src, err := os.ReadFile(filepath.Join(gitDir, "index"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(idx, src, 0o644); err != nil {
		t.Fatal(err)
	}
	e := append([]string{"GIT_INDEX_FILE=" + idx}, env...)
	gitEnv(t, wt, e, "add", "-u")
	gitEnv(t, wt, e, "add", "--", file)
	if got := gitEnv(t, wt, e, "rev-parse", ":"+file); got == blobID([]byte(data)) {
		t.Fatalf("fixture: git stores %s as it is on disk; nothing converts it", file)
	}
}

// A clean of worktrees that nothing converts reads no configuration and
// asks no attributes per worktree, and writes its commits without a
// commit-tree each; one whose untracked .gitattributes could convert is
// still asked about. The objects it writes are whole (git fsck).
func TestNoLossSharedReadsAndCommitWriter(t *testing.T) {
	t.Parallel()
	repo := newRepo(t)
	wts := dirtyWorktrees(t, repo, "2.1", "2.2", "2.3")
	testbin.WriteFile(t, filepath.Join(wts[2], "sub", ".gitattributes"), "*.md ident\n")
	testbin.WriteFile(t, filepath.Join(wts[2], "sub", "n.md"), "$Id: precious $\n")
	backdate(t, wts[2])
	snap := snapshotForLoss(t, repo)
	trace := filepath.Join(realTemp(t), "trace")

	doc := cleanOK(t, repo, []string{"GIT_TASKRESUME_TRACE=" + trace})
	for _, wt := range wts {
		requireRemoved(t, doc, wt)
	}
	assertNoLoss(t, snap, repo)
	data, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	count := func(prefix string) int {
		n := 0
		for _, line := range strings.Split(string(data), "\n") {
			if strings.HasPrefix(strings.Join(strings.Fields(dropConfigFlags(line)), " "), prefix) {
				n++
			}
		}
		return n
	}
	if n := count("git check-attr"); n != 1 {
		t.Errorf("%d check-attr, want 1 (the worktree with a .gitattributes)\n%s", n, data)
	}
	if n := count("git config -z --get-regexp ^core"); n != 0 {
		t.Errorf("%d per-worktree reads of core.autocrlf, want 0\n%s", n, data)
	}
	if n := count("git commit-tree"); n != 0 {
		t.Errorf("%d commit-tree, want 0 (the writer makes the commits)\n%s", n, data)
	}
	if n := count("git hash-object -w --stdin-paths --no-filters -t commit"); n != 1 {
		t.Errorf("%d commit writers, want 1\n%s", n, data)
	}
	if len(doc.Find("save_raw", wts[2])) == 0 {
		t.Errorf("no save_raw for the worktree with a .gitattributes\nactions:\n%s", doc)
	}
	git(t, repo, "fsck", "--strict", "--no-dangling", "--no-progress")
}

// dropConfigFlags removes the "-c key=value" pairs of a traced git command.
func dropConfigFlags(line string) string {
	f := strings.Fields(line)
	var out []string
	for i := 0; i < len(f); i++ {
		if f[i] == "-c" && i+1 < len(f) {
			i++
			continue
		}
		out = append(out, f[i])
	}
	return strings.Join(out, " ")
}

// A commit writer that dies in the middle of a clean (killed, out of
// memory) stops the clean: it exits with an error, every worktree is back
// in its place, nothing is lost, and the same command run again removes
// them. A git on PATH that runs the writer for a few commits and then
// kills itself stands in for the death; git-taskclean is run directly,
// since git's dispatch would put its own directory first on PATH.
func TestNoLossCommitWriterDies(t *testing.T) {
	t.Parallel()
	realGit, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}
	bin := realTemp(t)
	wrapper := `#!/bin/sh
case " $* " in
*" hash-object -w --stdin-paths --no-filters -t commit "*)
	n=0
	while IFS= read -r line; do
		n=$((n+1))
		if [ "$n" -gt "$WRITER_LIVES" ]; then kill -9 $$; fi
		printf '%s\n' "$line" | "$REAL_GIT" "$@" || exit 1
	done
	exit 0 ;;
esac
exec "$REAL_GIT" "$@"
`
	testbin.WriteFile(t, filepath.Join(bin, "git"), wrapper)
	if err := os.Chmod(filepath.Join(bin, "git"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, lives := range []string{"0", "4"} {
		t.Run("after-"+lives, func(t *testing.T) {
			t.Parallel()
			repo := newRepo(t)
			wts := dirtyWorktrees(t, repo, "2.1", "2.2", "2.3")
			snap := snapshotForLoss(t, repo)
			before := refState(t, repo)
			env := []string{"PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH"),
				"REAL_GIT=" + realGit, "WRITER_LIVES=" + lives}
			r := testbin.Run(repo, env, "git-taskclean", "--run", run)
			t.Logf("exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
			if r.Code == 0 {
				t.Errorf("the clean exited 0 although its commit writer died\n%s%s", r.Stdout, r.Stderr)
			}
			if !strings.Contains(r.Stderr+r.Stdout, "hash-object") {
				t.Errorf("the error does not name the writer:\n%s%s", r.Stdout, r.Stderr)
			}
			for _, wt := range wts {
				if !testbin.Exists(wt) {
					t.Errorf("%s was not put back", wt)
				}
			}
			if after := refState(t, repo); after != before {
				t.Errorf("the refs or worktrees changed:\nbefore:\n%s\nafter:\n%s", before, after)
			}
			assertNoLoss(t, snap, repo)
			if t.Failed() {
				return
			}
			doc := cleanOK(t, repo, nil)
			for _, wt := range wts {
				requireRemoved(t, doc, wt)
			}
			assertNoLoss(t, snap, repo)
			git(t, repo, "fsck", "--strict", "--no-dangling", "--no-progress")
		})
	}
}

// dirtyWorktrees adds a dirty worktree for each task id, its files older
// than the clean (so that no write looks late), and returns their paths.
func dirtyWorktrees(t *testing.T, repo string, ids ...string) []string {
	t.Helper()
	var wts []string
	for _, id := range ids {
		wt := addWorktree(t, repo, id)
		makeDirty(t, wt, id)
		backdate(t, wt)
		wts = append(wts, wt)
	}
	return wts
}
