package noloss

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/taskresume/git-taskresume/internal/testbin"
)

// Regression tests for what an adversary found: each builds the smallest
// stale worktree that showed the problem and checks the behaviour the
// promise asks for.

// backdate moves the times of everything under root but git's own files two
// seconds back: a file written in the last second is "racily clean" and
// hashed, which would make these tests about the clock rather than about
// the bytes.
func backdate(t *testing.T, root string) {
	t.Helper()
	old := time.Now().Add(-2 * time.Second)
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Name() == ".git" {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type()&fs.ModeSymlink != 0 {
			return nil // Chtimes would follow it
		}
		return os.Chtimes(p, old, old)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// moveBase makes main's newest commit part of the run's base: a commit a
// fixture adds to main is then no task's own work, and a task branch made
// from main stays incomplete (its worktree stale).
func moveBase(t *testing.T, repo string) {
	t.Helper()
	git(t, repo, "branch", "-f", run+"-main", "main")
}

// reachable says whether object id is reachable from a ref of repo
// (refs/taskclean included).
func reachable(t *testing.T, repo, id string) bool {
	t.Helper()
	for _, line := range strings.Split(git(t, repo, "rev-list", "--objects", "--all"), "\n") {
		if oid, _, _ := strings.Cut(line, " "); oid == id {
			return true
		}
	}
	return false
}

// requireBytes checks that path holds exactly want.
func requireBytes(t *testing.T, path string, want []byte) {
	t.Helper()
	got, err := os.ReadFile(path)
	if err != nil {
		t.Errorf("after --restore: %v", err)
		return
	}
	if !bytes.Equal(got, want) {
		t.Errorf("after --restore %s holds %q, want %q", path, got, want)
	}
}

// Bytes git converts on their way into the index (a clean filter, ident, a
// CRLF conversion) must be saved as they are on disk, and come back so.
func TestAdversaryConvertedBytes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, file, data string
		setup            func(t *testing.T, repo string) (wt string)
	}{
		{"clean-filter", "a.ipynb", "cell1\nOUTPUT: result 42\n", func(t *testing.T, repo string) string {
			git(t, repo, "config", "filter.strip.clean", "sed /OUTPUT/d")
			git(t, repo, "config", "filter.strip.smudge", "cat")
			testbin.WriteFile(t, filepath.Join(repo, ".gitattributes"), "*.ipynb filter=strip\n")
			git(t, repo, "add", ".gitattributes")
			git(t, repo, "commit", "-q", "-m", "strip notebook output")
			moveBase(t, repo)
			return addWorktree(t, repo, "2.2")
		}},
		{"ident", "n.txt", "$Id: precious $\n", func(t *testing.T, repo string) string {
			wt := addWorktree(t, repo, "2.2")
			testbin.WriteFile(t, filepath.Join(wt, ".gitattributes"), "*.txt ident\n")
			return wt
		}},
		{"autocrlf-mixed", "m.txt", "a\r\nb\n", func(t *testing.T, repo string) string {
			// Set before the checkout, as a user's setting is: the
			// tracked files are written with CRLF too.
			git(t, repo, "config", "core.autocrlf", "true")
			wt := addWorktree(t, repo, "2.2")
			if data, _ := os.ReadFile(filepath.Join(wt, "src", "f1.txt")); !bytes.Contains(data, []byte("\r\n")) {
				t.Fatalf("fixture: src/f1.txt was checked out as %q, want CRLF", data)
			}
			return wt
		}},
		{"autocrlf-after-checkout", "m.txt", "a\r\nb\n", func(t *testing.T, repo string) string {
			// Set after the checkout: the tracked files stay LF on disk,
			// and a restore must not write them with CRLF.
			wt := addWorktree(t, repo, "2.2")
			git(t, repo, "config", "core.autocrlf", "true")
			return wt
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			repo := newRepo(t)
			wt := tc.setup(t, repo)
			testbin.WriteFile(t, filepath.Join(wt, tc.file), tc.data)
			backdate(t, wt)
			want := treeState(t, wt)
			snap := snapshotForLoss(t, repo)

			doc := cleanOK(t, repo, nil)
			requireRemoved(t, doc, wt)
			// The checker hashes raw bytes; this names the one file that
			// matters should it not be reachable.
			if raw := blobID([]byte(tc.data)); !reachable(t, repo, raw) {
				t.Errorf("the raw bytes of %s (blob %s) are reachable from no ref", tc.file, raw)
			}
			assertNoLoss(t, snap, repo)
			if t.Failed() {
				return
			}
			restore(t, repo, "2.2")
			requireBytes(t, filepath.Join(wt, tc.file), []byte(tc.data))
			if got := treeState(t, wt); got != want {
				t.Errorf("files differ after --restore:\nbefore:\n%s\nafter:\n%s", want, got)
			}
		})
	}
}

// An untracked .gitattributes that changes how tracked files are written
// (eol=crlf) must not change what --restore writes: every file comes back
// byte for byte.
func TestAdversaryRestoreUntrackedAttributes(t *testing.T) {
	t.Parallel()
	repo := newRepo(t)
	wt := addWorktree(t, repo, "2.2")
	testbin.WriteFile(t, filepath.Join(wt, ".gitattributes"), "*.txt eol=crlf\n")
	edited := []byte("one\r\nmod\r\n")
	testbin.WriteFile(t, filepath.Join(wt, "src", "f1.txt"), string(edited))
	backdate(t, wt)
	want := treeState(t, wt)
	snap := snapshotForLoss(t, repo)

	doc := cleanOK(t, repo, nil)
	requireRemoved(t, doc, wt)
	assertNoLoss(t, snap, repo)
	if t.Failed() {
		return
	}
	restore(t, repo, "2.2")
	requireBytes(t, filepath.Join(wt, "src", "f1.txt"), edited)
	if got := treeState(t, wt); got != want {
		t.Errorf("files differ after --restore:\nbefore:\n%s\nafter:\n%s", want, got)
	}
}

// An ignored file inside a tracked folder that happens to be called target
// is work, not a regenerated tree: it is saved and restored. A wholly
// ignored node_modules/ is still let go.
func TestAdversaryTrackedTargetFolder(t *testing.T) {
	t.Parallel()
	repo := newRepo(t)
	testbin.WriteFile(t, filepath.Join(repo, "deploy", "target", "app.yaml"), "replicas: 3\n")
	testbin.WriteFile(t, filepath.Join(repo, ".gitignore"), "*.secret\nnode_modules/\n")
	git(t, repo, "add", "-A")
	git(t, repo, "commit", "-q", "-m", "deploy target")
	moveBase(t, repo)
	wt := addWorktree(t, repo, "2.2")
	secret := []byte("KEY=only-here\n")
	testbin.WriteFile(t, filepath.Join(wt, "deploy", "target", "prod.secret"), string(secret))
	testbin.WriteFile(t, filepath.Join(wt, "node_modules", "pkg", "index.js"), "module.exports = 1\n")
	backdate(t, wt)
	if st := git(t, wt, "status", "--porcelain", "--ignored"); !strings.Contains(st, "!! deploy/target/prod.secret") {
		t.Fatalf("fixture: prod.secret is not an ignored file:\n%s", st)
	}
	snap := snapshotForLoss(t, repo)

	doc := cleanOK(t, repo, nil)
	requireRemoved(t, doc, wt)
	for _, a := range doc.Find("remove_worktree", wt) {
		if strings.Contains(a.Raw, "deploy/target") {
			t.Errorf("the removal treats deploy/target as a regenerated tree: %s", a)
		}
	}
	// The checker leaves every folder called target alone; this file is
	// checked here.
	if id := blobID(secret); !reachable(t, repo, id) {
		t.Errorf("deploy/target/prod.secret (blob %s) is reachable from no ref\nactions:\n%s", id, doc)
	}
	assertNoLoss(t, snap, repo)
	if t.Failed() {
		return
	}
	restore(t, repo, "2.2")
	requireBytes(t, filepath.Join(wt, "deploy", "target", "prod.secret"), secret)
}

// Edits hidden from git status by skip-worktree, set by hand or by a
// sparse checkout, are saved and the worktree goes: not kept as if its
// files differed from the save.
func TestAdversarySkipWorktree(t *testing.T) {
	t.Parallel()
	t.Run("skip-worktree", func(t *testing.T) {
		t.Parallel()
		repo := newRepo(t)
		wt := addWorktree(t, repo, "2.2")
		git(t, wt, "update-index", "--skip-worktree", "src/f1.txt")
		testbin.WriteFile(t, filepath.Join(wt, "src", "f1.txt"), "hidden edit\n")
		backdate(t, wt)
		if st := git(t, wt, "status", "--porcelain"); st != "" {
			t.Fatalf("fixture: git status should see nothing, sees %q", st)
		}
		snap := snapshotForLoss(t, repo)
		doc := cleanOK(t, repo, nil)
		requireRemoved(t, doc, wt)
		assertNoLoss(t, snap, repo)
	})
	t.Run("sparse-checkout", func(t *testing.T) {
		t.Parallel()
		repo := newRepo(t)
		testbin.WriteFile(t, filepath.Join(repo, "b", "f"), "b\n")
		git(t, repo, "add", "b/f")
		git(t, repo, "commit", "-q", "-m", "b")
		moveBase(t, repo)
		wt := addWorktree(t, repo, "2.2")
		git(t, wt, "sparse-checkout", "set", "a")
		if testbin.Exists(filepath.Join(wt, "b", "f")) {
			t.Fatal("fixture: b/f is still checked out outside the cone")
		}
		testbin.WriteFile(t, filepath.Join(wt, "b", "f"), "edited outside the cone\n")
		backdate(t, wt)
		snap := snapshotForLoss(t, repo)
		doc := cleanOK(t, repo, nil)
		requireRemoved(t, doc, wt)
		assertNoLoss(t, snap, repo)
	})
}

// With core.fileMode=false an executable untracked file still matches its
// save: the worktree goes, and --restore brings the file back executable.
func TestAdversaryFileModeFalse(t *testing.T) {
	t.Parallel()
	repo := newRepo(t)
	git(t, repo, "config", "core.fileMode", "false")
	wt := addWorktree(t, repo, "2.2")
	script := []byte("#!/bin/sh\necho run\n")
	p := filepath.Join(wt, "run.sh")
	if err := os.WriteFile(p, script, 0o755); err != nil {
		t.Fatal(err)
	}
	backdate(t, wt)
	snap := snapshotForLoss(t, repo)

	doc := cleanOK(t, repo, nil)
	requireRemoved(t, doc, wt)
	assertNoLoss(t, snap, repo)
	if t.Failed() {
		return
	}
	restore(t, repo, "2.2")
	requireBytes(t, p, script)
	if fi, err := os.Stat(p); err == nil && fi.Mode().Perm()&0o100 == 0 {
		t.Errorf("after --restore run.sh has mode %v, want it executable", fi.Mode())
	}
}

// dirState is every file under dir with its content id: what a write
// anywhere in it would change.
func dirState(t *testing.T, dir string) string {
	t.Helper()
	files, err := walkTree(dir, func(string, bool, *os.Root) bool { return false })
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, k := range sortedKeys(files) {
		b.WriteString(files[k] + " " + k + "\n")
	}
	return b.String()
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// A worktree whose .git no longer leads to its own admin entry (it names
// another repository, or is a repository itself) is left alone: git run
// there would read and write that other repository. The run's other stale
// worktree is still cleaned.
func TestAdversaryForeignGitFile(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		// redirect points wt's .git elsewhere and returns the git
		// directory that must not be written.
		redirect func(t *testing.T, repo, wt string) string
	}{
		{"names-a-clone", func(t *testing.T, repo, wt string) string {
			clone := filepath.Join(realTemp(t), "clone")
			git(t, "", "clone", "-q", repo, clone)
			testbin.WriteFile(t, filepath.Join(wt, ".git"), "gitdir: "+filepath.Join(clone, ".git")+"\n")
			return filepath.Join(clone, ".git")
		}},
		{"is-a-repository", func(t *testing.T, repo, wt string) string {
			if err := os.Remove(filepath.Join(wt, ".git")); err != nil {
				t.Fatal(err)
			}
			git(t, wt, "init", "-q")
			return filepath.Join(wt, ".git")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			repo := newRepo(t)
			odd, other := addWorktree(t, repo, "2.1"), addWorktree(t, repo, "2.2")
			makeDirty(t, other, "other")
			testbin.WriteFile(t, filepath.Join(odd, "w"), "w\n")
			foreign := tc.redirect(t, repo, odd)
			backdate(t, odd)
			backdate(t, other)
			before := dirState(t, foreign)
			snap := snapshotForLoss(t, repo)

			r, doc := clean(t, repo, nil)
			if r.Code != 0 {
				t.Errorf("exit %d, want 0\n%s", r.Code, printed(r, doc))
			}
			requireSkip(t, doc, odd, ".git")
			requireRemoved(t, doc, other)
			if after := dirState(t, foreign); after != before {
				t.Errorf("the clean wrote into %s:\nbefore:\n%s\nafter:\n%s", foreign, before, after)
			}
			assertNoLoss(t, snap, repo)
		})
	}
}

// An unborn worktree with an empty index and nothing but an ignored file
// comes back from its save: on its unborn branch, with the file.
func TestAdversaryRestoreUnbornEmpty(t *testing.T) {
	t.Parallel()
	repo := newRepo(t)
	wt := wtPath(repo, "2.3")
	git(t, repo, "worktree", "add", "-q", "--detach", wt)
	git(t, wt, "checkout", "-q", "--orphan", br23)
	git(t, wt, "rm", "-r", "-q", "--cached", ".")
	entries, err := os.ReadDir(wt)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() != ".git" {
			if err := os.RemoveAll(filepath.Join(wt, e.Name())); err != nil {
				t.Fatal(err)
			}
		}
	}
	appendFile(t, filepath.Join(repo, ".git", "info", "exclude"), ".env\n")
	env := []byte("SECRET=only-here\n")
	testbin.WriteFile(t, filepath.Join(wt, ".env"), string(env))
	backdate(t, wt)
	want := stateOf(t, wt)
	if want.symref != "refs/heads/"+br23 || want.head != "" || git(t, wt, "ls-files") != "" {
		t.Fatalf("fixture: HEAD %q at %q, want unborn %s with an empty index", want.symref, want.head, br23)
	}
	snap := snapshotForLoss(t, repo)

	doc := cleanOK(t, repo, nil, "--task", "2.3")
	requireRemoved(t, doc, wt)
	assertNoLoss(t, snap, repo)
	if t.Failed() {
		return
	}
	restore(t, repo, "2.3")
	requireBytes(t, filepath.Join(wt, ".env"), env)
	compareState(t, wt, want, stateOf(t, wt))
}

// Two cleans of the same path, the second of a worktree whose task had
// committed its work: --restore brings back the newer state, not the older
// save that held uncommitted work.
func TestAdversaryRestoreNewest(t *testing.T) {
	t.Parallel()
	repo := newRepo(t)
	wt := addWorktree(t, repo, "2.2")
	testbin.WriteFile(t, filepath.Join(wt, "w.txt"), "w1\n")
	backdate(t, wt)
	requireRemoved(t, cleanOK(t, repo, nil), wt)
	restore(t, repo, "2.2")
	git(t, wt, "add", "w.txt")
	git(t, wt, "commit", "-q", "-m", "done")
	backdate(t, wt)
	want := stateOf(t, wt)
	if want.symref != "refs/heads/"+br22 || strings.TrimSpace(git(t, wt, "status", "--porcelain")) != "" {
		t.Fatalf("fixture: want a clean worktree on %s, HEAD is %q", br22, want.symref)
	}

	requireRemoved(t, cleanOK(t, repo, nil, "--completed"), wt)
	restore(t, repo, "2.2")
	compareState(t, wt, want, stateOf(t, wt))
}

// --backups with several cleans: the example of undoing an older one names
// an older stamp, not the newest.
func TestAdversaryBackupsHint(t *testing.T) {
	t.Parallel()
	repo := newRepo(t)
	testbin.Finish(t, repo, run, "2.1", "user-service", "main")
	testbin.Finish(t, repo, run, "2.2", "product-service", "main")
	first := cleanOK(t, repo, nil, "--task", "2.1")
	second := cleanOK(t, repo, nil, "--task", "2.2")
	if first.Stamp == "" || second.Stamp == "" || first.Stamp == second.Stamp {
		t.Fatalf("want two distinct stamps, got %q and %q", first.Stamp, second.Stamp)
	}
	r := testbin.Run(repo, nil, "git", "taskclean", "--run", run, "--backups")
	if r.Code != 0 {
		t.Fatalf("--backups: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	_, hint, ok := strings.Cut(r.Stdout, "an older one:")
	if !ok {
		t.Fatalf("--backups with two cleans shows no example for an older one:\n%s", r.Stdout)
	}
	_, stamp, _ := strings.Cut(hint, "--undo ")
	if f := strings.Fields(stamp); len(f) == 0 || f[0] != first.Stamp {
		t.Errorf("the example for an older one names %q, want the older stamp %s (newest: %s):\n%s", strings.TrimSpace(hint), first.Stamp, second.Stamp, r.Stdout)
	}
}

// A worktree whose deletion failed after its save was recorded (a file
// that cannot be unlinked) stays recoverable: once the obstacle is gone a
// rerun finishes the deletion, and --restore brings the worktree back.
// An immutable file is the one obstacle that binds root too.
func TestAdversaryDeletionFails(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("chattr"); err != nil {
		t.Log("no chattr: nothing stops root from deleting a file, so this case cannot be built")
		return
	}
	repo := newRepo(t)
	wt := addWorktree(t, repo, "2.2")
	makeDirty(t, wt, "stuck")
	stuck := filepath.Join(wt, "stuck", "f")
	testbin.WriteFile(t, stuck, "cannot be unlinked\n")
	backdate(t, wt)
	want := stateOf(t, wt)
	if r := testbin.Run("", nil, "chattr", "+i", stuck); r.Code != 0 {
		t.Logf("chattr +i fails here (%s): this case cannot be built", strings.TrimSpace(r.Stderr))
		return
	}
	gone := wt + ".taskclean-deleting"
	unstick := func() {
		for _, p := range []string{stuck, filepath.Join(gone, "stuck", "f")} {
			if testbin.Exists(p) {
				testbin.Run("", nil, "chattr", "-i", p)
			}
		}
	}
	t.Cleanup(unstick) // else the temporary directory cannot be removed
	snap := snapshotForLoss(t, repo)

	r, doc := clean(t, repo, nil)
	if r.Code != 0 && r.Code != 3 {
		t.Errorf("exit %d, want 0 (kept, with a reason) or 3\n%s", r.Code, printed(r, doc))
	}
	assertNoLoss(t, snap, repo)
	if !testbin.Exists(stuck) && !testbin.Exists(filepath.Join(gone, "stuck", "f")) {
		t.Fatalf("fixture: the immutable file is gone; the deletion did not fail\nactions:\n%s", doc)
	}
	unstick()
	r2, doc2 := clean(t, repo, nil)
	if r2.Code != 0 {
		t.Errorf("rerun: exit %d, want 0\n%s", r2.Code, printed(r2, doc2))
	}
	for _, p := range []string{gone, wt} {
		if testbin.Exists(p) {
			t.Errorf("the rerun left %s of the half-deleted worktree\nactions:\n%s", p, doc2)
		}
	}
	assertNoLoss(t, snap, repo)
	if t.Failed() {
		return
	}
	restore(t, repo, "2.2")
	compareState(t, wt, want, stateOf(t, wt))
}
