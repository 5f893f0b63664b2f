package noloss

import (
	"bytes"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/taskresume/git-taskresume/internal/testbin"
)

// The loss checker: what a repository holds before a clean, and whether all
// of it is still somewhere afterwards. A byte is kept when a file with the
// same content is in a worktree that still exists, or when its blob is
// reachable from a ref; a blob an index entry names (any stage: a staged
// version that differs from the file, a conflict's sides) when it is
// reachable or still named by the index of a worktree that stays; a commit
// is kept when a ref, or a kept worktree's HEAD, per-worktree ref or HEAD
// reflog, reaches it. Before the clean every
// reflog counts; afterwards no other reflog does: a clean that leaves work
// only in a branch's reflog has left it to expire.

// regenerated are trees a build or a package manager makes again; they are
// not work, and the promise does not cover them.
var regenerated = map[string]bool{"node_modules": true, "target": true, ".venv": true, "venv": true, "__pycache__": true}

// fileRec is one file that existed before the clean.
type fileRec struct {
	where string // the worktree or admin directory it was in
	rel   string
	blob  string
}

// indexRec is one index entry that existed before the clean.
type indexRec struct {
	gitDir string // the git directory whose index held it
	stage  string
	path   string
	blob   string
}

type lossSnap struct {
	common  string
	extra   []string
	files   []fileRec
	index   []indexRec
	commits map[string]string // id -> where it was seen
	// untouched are refs the clean must leave alone (a branch an alias of
	// the run points to): their reflogs, as they are after the clean, keep
	// what they name, as they did before it.
	untouched []string
}

// keepReflog marks ref as one the clean must leave alone: what its reflog
// names after the clean is not lost. The caller checks that the ref and its
// reflog are still there.
func (s *lossSnap) keepReflog(ref string) { s.untouched = append(s.untouched, ref) }

// expect adds a file written after the snapshot (a late writer whose write
// succeeded): it must survive like the rest.
func (s *lossSnap) expect(where, rel string, data []byte) {
	s.files = append(s.files, fileRec{where: where, rel: rel, blob: blobID(data)})
}

// snapshotForLoss records everything a clean of repo must not lose. extra
// names worktree directories git's list does not show where they are (a
// worktree moved by hand).
func snapshotForLoss(t *testing.T, repo string, extra ...string) *lossSnap {
	t.Helper()
	s, err := takeSnapshot(repo, extra)
	if err != nil {
		t.Fatalf("loss snapshot of %s: %v", repo, err)
	}
	return s
}

// assertNoLoss fails the test with every file and commit of snap that is
// gone.
func assertNoLoss(t *testing.T, snap *lossSnap, repo string) {
	t.Helper()
	lost := lossesOf(snap, repo)
	if len(lost) == 0 {
		return
	}
	const show = 40
	msg := lost
	if len(msg) > show {
		msg = append(msg[:show:show], fmt.Sprintf("... and %d more", len(lost)-show))
	}
	t.Errorf("%d loss(es) after the clean:\n  %s", len(lost), strings.Join(msg, "\n  "))
}

func takeSnapshot(repo string, extra []string) (*lossSnap, error) {
	common, err := gitOut(repo, "rev-parse", "--path-format=absolute", "--git-common-dir")
	if err != nil {
		return nil, err
	}
	s := &lossSnap{common: common, extra: extra, commits: map[string]string{}}
	roots, err := worktreeRoots(repo)
	if err != nil {
		return nil, err
	}
	for _, root := range append(roots, extra...) {
		if !testbin.Exists(root) {
			continue // a worktree whose directory is already gone has no files
		}
		files, err := walkTree(root, worktreeSkip)
		if err != nil {
			return nil, fmt.Errorf("read worktree %s: %w", root, err)
		}
		for rel, blob := range files {
			s.files = append(s.files, fileRec{where: root, rel: rel, blob: blob})
		}
	}
	gitDirs := []string{common}
	admins, _ := filepath.Glob(filepath.Join(common, "worktrees", "*"))
	for _, a := range admins {
		files, err := walkTree(a, adminSkip)
		if err != nil {
			return nil, fmt.Errorf("read admin entry %s: %w", a, err)
		}
		for rel, blob := range files {
			s.files = append(s.files, fileRec{where: a, rel: rel, blob: blob})
		}
		gitDirs = append(gitDirs, a)
	}
	for _, gd := range gitDirs {
		entries, err := indexBlobs(gd)
		if err != nil {
			return nil, err
		}
		s.index = append(s.index, entries...)
	}
	// Commits: everything any worktree's refs, HEAD or reflogs reach, and
	// what an operation in progress names in its state files.
	var named []string
	for _, gd := range gitDirs {
		out, err := gitOut("", "--git-dir="+gd, "rev-list", "--all", "--reflog")
		if err != nil {
			return nil, err
		}
		for _, id := range strings.Fields(out) {
			s.commits[id] = gd
		}
		named = append(named, stateIDs(gd)...)
	}
	if len(named) > 0 {
		out, err := gitIn(repo, strings.Join(named, "\n")+"\n", "cat-file", "--batch-check")
		if err != nil {
			return nil, err
		}
		for _, line := range strings.Split(out, "\n") {
			if f := strings.Fields(line); len(f) >= 2 && f[1] == "commit" {
				if _, ok := s.commits[f[0]]; !ok {
					s.commits[f[0]] = "state files"
				}
			}
		}
	}
	return s, nil
}

// emptyBlob holds no bytes; it is also what an intent-to-add entry names.
const emptyBlob = "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"

// indexBlobs lists the entries of a git directory's index (every stage)
// that name a blob: a submodule's commit is in the submodule's repository,
// and the empty blob holds nothing to lose.
func indexBlobs(gitDir string) ([]indexRec, error) {
	out, err := gitOut("", "--git-dir="+gitDir, "ls-files", "--stage", "-z")
	if err != nil {
		return nil, err
	}
	var recs []indexRec
	for _, rec := range strings.Split(out, "\x00") {
		meta, p, ok := strings.Cut(rec, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 3 || f[0] == "160000" || f[1] == emptyBlob {
			continue
		}
		recs = append(recs, indexRec{gitDir: gitDir, stage: f[2], path: p, blob: f[1]})
	}
	return recs, nil
}

var fullID = regexp.MustCompile(`\b[0-9a-f]{40}\b`)

// stateIDs are the object ids in a git directory's rebase, am and merge
// state: commits an interrupted operation needs that no ref may hold.
func stateIDs(gitDir string) []string {
	var ids []string
	for _, name := range []string{"rebase-merge", "rebase-apply", "ORIG_HEAD", "MERGE_HEAD"} {
		p := filepath.Join(gitDir, name)
		fi, err := os.Stat(p)
		if err != nil {
			continue
		}
		paths := []string{p}
		if fi.IsDir() {
			paths = nil
			entries, _ := os.ReadDir(p)
			for _, e := range entries {
				if e.Type().IsRegular() {
					paths = append(paths, filepath.Join(p, e.Name()))
				}
			}
		}
		for _, f := range paths {
			data, _ := os.ReadFile(f)
			ids = append(ids, fullID.FindAllString(string(data), -1)...)
		}
	}
	return ids
}

// lossesOf lists every file and commit of s that is neither in a kept
// worktree nor reachable from a ref of repo. A repository git can no longer
// read has lost everything.
func lossesOf(s *lossSnap, repo string) []string {
	var lost []string
	// Kept worktrees: registered ones whose directory is still there, and
	// the extra directories that are still worktrees of this repository.
	var kept []string
	if roots, err := worktreeRoots(repo); err == nil {
		for _, r := range roots {
			if testbin.Exists(r) {
				kept = append(kept, r)
			}
		}
	} else {
		lost = append(lost, "the repository cannot be read: "+err.Error())
	}
	for _, e := range s.extra {
		if c, err := gitOut(e, "rev-parse", "--path-format=absolute", "--git-common-dir"); err == nil && testbin.SamePath(c, s.common) {
			kept = append(kept, e)
		}
	}
	present := map[string]bool{}
	indexed := map[string]bool{} // blobs the index of a kept worktree names
	reach := map[string]bool{}
	gitDirs := map[string]bool{}
	if testbin.Exists(s.common) {
		gitDirs[s.common] = true
	}
	for _, root := range kept {
		if files, err := walkTree(root, worktreeSkip); err == nil {
			for _, b := range files {
				present[b] = true
			}
		}
		if gd, err := gitOut(root, "rev-parse", "--absolute-git-dir"); err == nil {
			gitDirs[gd] = true
			if gd != s.common {
				if files, err := walkTree(gd, adminSkip); err == nil {
					for _, b := range files {
						present[b] = true
					}
				}
			}
		}
	}
	for gd := range gitDirs {
		if recs, err := indexBlobs(gd); err == nil {
			for _, r := range recs {
				indexed[r.blob] = true
			}
		}
		// Objects reachable from refs (refs/taskclean included), from the
		// HEAD and per-worktree refs of each kept worktree, and from the
		// HEAD reflog of a kept worktree (it is still in that worktree);
		// no other reflog counts.
		heads, _ := gitOut("", "--git-dir="+gd, "log", "-g", "--format=%H", "HEAD")
		if gd == s.common {
			for _, ref := range s.untouched {
				// rev-list --stdin stops at an empty line.
				if more, err := gitOut("", "--git-dir="+gd, "log", "-g", "--format=%H", ref, "--"); err == nil && more != "" {
					heads = strings.TrimSpace(heads + "\n" + more)
				}
			}
		}
		out, err := gitIn("", heads+"\n", "--git-dir="+gd, "rev-list", "--objects", "--all", "--stdin")
		if err != nil {
			lost = append(lost, fmt.Sprintf("rev-list in %s failed: %v", gd, err))
			continue
		}
		for _, line := range strings.Split(out, "\n") {
			if id, _, _ := strings.Cut(line, " "); id != "" {
				reach[id] = true
			}
		}
	}
	for _, f := range s.files {
		if !present[f.blob] && !reach[f.blob] {
			lost = append(lost, fmt.Sprintf("file %s (blob %s)", filepath.Join(f.where, f.rel), f.blob))
		}
	}
	for _, e := range s.index {
		if !reach[e.blob] && !indexed[e.blob] && !present[e.blob] {
			lost = append(lost, fmt.Sprintf("index entry %s stage %s of %s (blob %s)", e.path, e.stage, e.gitDir, e.blob))
		}
	}
	for id, where := range s.commits {
		if !reach[id] {
			lost = append(lost, fmt.Sprintf("commit %s (seen from %s)", id, where))
		}
	}
	sort.Strings(lost)
	return lost
}

// worktreeRoots are the paths of repo's worktrees as git lists them.
func worktreeRoots(repo string) ([]string, error) {
	out, err := gitOut(repo, "worktree", "list", "--porcelain", "-z")
	if err != nil {
		return nil, err
	}
	var roots []string
	for _, field := range strings.Split(out, "\x00") {
		if p, ok := strings.CutPrefix(field, "worktree "); ok {
			roots = append(roots, p)
		}
	}
	return roots, nil
}

// worktreeSkip leaves out git's own directory, regenerated trees, and
// directories that are another repository or worktree (they are walked as
// their own worktree, or are not this one's files).
func worktreeSkip(rel string, isDir bool, r *os.Root) bool {
	name := path.Base(rel)
	if name == ".git" {
		return true
	}
	if !isDir {
		return false
	}
	if regenerated[name] {
		return true
	}
	_, err := r.Lstat(path.Join(name, ".git"))
	return err == nil
}

// adminSkip leaves out of a worktree's admin entry what git rewrites or
// derives: the index, locks and the two link files; and the text of HEAD,
// ORIG_HEAD and the HEAD reflog, which `git worktree remove` drops too: the
// commits they name are checked as commits (a save records HEAD itself).
// Everything else there (per-worktree refs, a stopped rebase's or am's
// files) must be kept byte for byte.
func adminSkip(rel string, isDir bool, r *os.Root) bool {
	switch rel {
	case "index", "gitdir", "commondir", "HEAD", "ORIG_HEAD", "logs/HEAD":
		return true
	}
	return !isDir && strings.HasSuffix(rel, ".lock")
}

// walkTree maps every regular file and symbolic link under dir to its blob
// id, by path relative to dir. Each directory is opened relative to its
// parent, so trees deeper than PATH_MAX are read too. skip is given the
// relative path, whether it is a directory, and the parent directory.
func walkTree(dir string, skip func(rel string, isDir bool, parent *os.Root) bool) (map[string]string, error) {
	r, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	out := map[string]string{}
	return out, walkRoot(r, "", skip, out)
}

func walkRoot(r *os.Root, rel string, skip func(string, bool, *os.Root) bool, out map[string]string) error {
	d, err := r.Open(".")
	if err != nil {
		return err
	}
	entries, err := d.ReadDir(-1)
	d.Close()
	if err != nil {
		return err
	}
	for _, e := range entries {
		name := e.Name()
		p := path.Join(rel, name)
		switch t := e.Type(); {
		case t.IsDir():
			if skip(p, true, r) {
				continue
			}
			sub, err := r.OpenRoot(name)
			if err != nil {
				return err
			}
			err = walkRoot(sub, p, skip, out)
			sub.Close()
			if err != nil {
				return err
			}
		case t&os.ModeSymlink != 0:
			if skip(p, false, r) {
				continue
			}
			target, err := r.Readlink(name)
			if err != nil {
				return err
			}
			out[p] = blobID([]byte(target))
		case t.IsRegular():
			if skip(p, false, r) {
				continue
			}
			data, err := r.ReadFile(name)
			if err != nil {
				return err
			}
			out[p] = blobID(data)
		}
	}
	return nil
}

// blobID is the id git gives data as a blob.
func blobID(data []byte) string {
	h := sha1.New()
	h.Write([]byte("blob " + strconv.Itoa(len(data)) + "\x00"))
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}

// gitOut runs git in dir ("" for the test's directory) and returns its
// trimmed output, or an error holding what it printed.
func gitOut(dir string, args ...string) (string, error) {
	return gitIn(dir, "", args...)
}

func gitIn(dir, stdin string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(errb.String()))
	}
	return strings.TrimSpace(out.String()), nil
}

// TestNoLossCheckerSeesLoss proves the checker can fail: a dirty worktree
// deleted by hand and pruned loses its files, its admin state, the commit
// only its HEAD reflog held and the blob only its index held (a file
// staged, then edited again); the same repository untouched loses nothing.
func TestNoLossCheckerSeesLoss(t *testing.T) {
	t.Parallel()
	repo := newRepo(t)
	wt := addWorktree(t, repo, "2.2")
	git(t, wt, "checkout", "-q", "--detach")
	testbin.WriteFile(t, filepath.Join(wt, "lost-commit.txt"), "only in a reflog\n")
	git(t, wt, "add", "lost-commit.txt")
	git(t, wt, "commit", "-q", "-m", "only in the HEAD reflog")
	lostCommit := git(t, wt, "rev-parse", "HEAD")
	git(t, wt, "checkout", "-q", br22)
	git(t, wt, "update-ref", "refs/worktree/keep", "HEAD")
	makeDirty(t, wt, "gone")
	deep := filepath.Join(wt, "deep")
	for i := 0; i < 3; i++ {
		deep = filepath.Join(deep, strings.Repeat("d", 100))
	}
	testbin.WriteFile(t, filepath.Join(deep, "deep.txt"), "deep work\n")
	testbin.WriteFile(t, filepath.Join(wt, "index-only.txt"), "only in the index\n")
	git(t, wt, "add", "index-only.txt")
	testbin.WriteFile(t, filepath.Join(wt, "index-only.txt"), "on disk\n")
	indexOnly := blobID([]byte("only in the index\n"))
	snap := snapshotForLoss(t, repo)

	if lost := lossesOf(snap, repo); len(lost) != 0 {
		t.Fatalf("nothing changed, yet the checker reports losses:\n%s", strings.Join(lost, "\n"))
	}
	if r := testbin.Run(repo, nil, "rm", "-rf", wt); r.Code != 0 {
		t.Fatal(r.Stderr)
	}
	git(t, repo, "worktree", "prune")
	lost := strings.Join(lossesOf(snap, repo), "\n")
	for _, want := range []string{
		filepath.Join(wt, "untracked-gone.txt"),
		filepath.Join(wt, "notes", "gone", "todo.md"),
		filepath.Join(wt, "staged-gone.txt"),
		filepath.Join(wt, "src", "f1.txt"),
		filepath.Join(deep, "deep.txt"),
		filepath.Join("worktrees", filepath.Base(wt), "refs", "worktree", "keep"),
		"commit " + lostCommit,
		"index entry index-only.txt stage 0 of " + filepath.Join(repo, ".git", "worktrees", filepath.Base(wt)) + " (blob " + indexOnly + ")",
	} {
		if !strings.Contains(lost, want) {
			t.Errorf("the checker does not report %s as lost; it reports:\n%s", want, lost)
		}
	}
	// Tracked files identical to a commit are not lost: their blobs are
	// reachable.
	if strings.Contains(lost, filepath.Join(wt, "src", "f2.txt")) {
		t.Errorf("the checker reports a committed, unchanged file as lost:\n%s", lost)
	}
}

// TestNoLossCheckerAcceptsSaved proves the checker does not cry wolf: the
// same dirty worktree, saved by hand the way the promise asks (files in a
// commit, admin files as blobs, the reflog commit on a ref) and then
// removed, loses nothing.
func TestNoLossCheckerAcceptsSaved(t *testing.T) {
	t.Parallel()
	repo := newRepo(t)
	wt := addWorktree(t, repo, "2.2")
	git(t, wt, "checkout", "-q", "--detach")
	commitFile(t, wt, "reflog-only.txt", "only in the HEAD reflog\n")
	reflogOnly := git(t, wt, "rev-parse", "HEAD")
	git(t, wt, "checkout", "-q", br22)
	makeDirty(t, wt, "saved")
	snap := snapshotForLoss(t, repo)

	idx := filepath.Join(t.TempDir(), "index")
	env := []string{"GIT_INDEX_FILE=" + idx}
	if r := testbin.Run(wt, env, "git", "add", "-A"); r.Code != 0 {
		t.Fatal(r.Stderr)
	}
	tree := testbin.Run(wt, env, "git", "write-tree")
	save := git(t, wt, "commit-tree", strings.TrimSpace(tree.Stdout), "-p", "HEAD", "-m", "save")
	updates := "create refs/taskclean/selftest/worktree " + save + "\ncreate refs/taskclean/selftest/reflog " + reflogOnly + "\n"
	admin := git(t, wt, "rev-parse", "--absolute-git-dir")
	files, err := walkTree(admin, adminSkip)
	if err != nil {
		t.Fatal(err)
	}
	i := 0
	for rel := range files {
		blob := git(t, repo, "hash-object", "-w", filepath.Join(admin, rel))
		updates += fmt.Sprintf("create refs/taskclean/selftest/admin/%d %s\n", i, blob)
		i++
	}
	if _, err := gitIn(repo, updates, "update-ref", "--stdin"); err != nil {
		t.Fatal(err)
	}
	git(t, repo, "worktree", "remove", "--force", wt)
	if lost := lossesOf(snap, repo); len(lost) != 0 {
		t.Errorf("everything was saved, yet the checker reports losses:\n%s", strings.Join(lost, "\n"))
	}
}
