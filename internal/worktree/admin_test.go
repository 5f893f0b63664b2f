package worktree_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/taskresume/git-taskresume/internal/gitcmd"
	"github.com/taskresume/git-taskresume/internal/worktree"
)

// admRepo makes a repository (object format "sha1" or "sha256") with one
// commit on main, and a linked worktree "wt" beside it: detached at that
// commit, or on a new branch "task".
func admRepo(t *testing.T, format string, onBranch bool) (root, wt string) {
	t.Helper()
	gitEnv(t)
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root = filepath.Join(base, "repo")
	git(t, base, "init", "-q", "--object-format="+format, root)
	write(t, filepath.Join(root, "a.txt"), "a\n")
	git(t, root, "add", ".")
	git(t, root, "commit", "-q", "-m", "root")
	wt = filepath.Join(base, "wt")
	if onBranch {
		git(t, root, "worktree", "add", "-q", "-b", "task", wt)
	} else {
		git(t, root, "worktree", "add", "-q", "--detach", wt)
	}
	return root, wt
}

// admFails runs a git command that must fail (a conflict that stops an
// operation).
func admFails(t *testing.T, dir string, env []string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	if out, err := cmd.CombinedOutput(); err == nil {
		t.Fatalf("git %s succeeded, want a stop:\n%s", strings.Join(args, " "), out)
	}
}

// admEnv runs a git command with extra environment.
func admEnv(t *testing.T, dir string, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// admCommit commits content to name in dir and returns the commit id.
func admCommit(t *testing.T, dir, name, content string) string {
	t.Helper()
	write(t, filepath.Join(dir, name), content)
	git(t, dir, "add", name)
	git(t, dir, "commit", "-q", "-m", "set "+name+" to "+strings.TrimSpace(content))
	return git(t, dir, "rev-parse", "HEAD")
}

// admDangling makes a commit on top of parent that no ref, reflog or index
// names, adding name with content; it returns the commit and blob ids.
func admDangling(t *testing.T, dir, parent, name, content string) (commit, blob string) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "content")
	write(t, file, content)
	blob = git(t, dir, "hash-object", "-w", file)
	idx := filepath.Join(t.TempDir(), "index")
	env := []string{"GIT_INDEX_FILE=" + idx}
	admEnv(t, dir, env, "read-tree", parent)
	admEnv(t, dir, env, "update-index", "--add", "--cacheinfo", "100644,"+blob+","+name)
	tree := admEnv(t, dir, env, "write-tree")
	return git(t, dir, "commit-tree", tree, "-p", parent, "-m", "dangling "+name), blob
}

func admAdminDir(t *testing.T, wt string) string {
	t.Helper()
	return git(t, wt, "rev-parse", "--absolute-git-dir")
}

// admGone removes the worktree and everything git would keep only for it,
// then collects garbage, and reports which of ids are still in the
// repository.
func admGone(t *testing.T, root, wt string, ids []string) map[string]bool {
	t.Helper()
	if err := os.RemoveAll(wt); err != nil {
		t.Fatal(err)
	}
	git(t, root, "worktree", "prune")
	git(t, root, "reflog", "expire", "--expire=now", "--all")
	git(t, root, "gc", "-q", "--prune=now")
	have := map[string]bool{}
	for _, id := range ids {
		have[id] = exec.Command("git", "-C", root, "cat-file", "-e", id).Run() == nil
	}
	return have
}

// admCase builds, in the worktree wt of root, state that only the
// worktree's admin directory keeps, and returns the ids of the objects that
// must survive the worktree's removal.
type admCase struct {
	name     string
	format   string
	onBranch bool
	build    func(t *testing.T, root, wt string) []string
	op, br   string
}

var admCases = []admCase{
	{name: "worktree ref", format: "sha1", build: func(t *testing.T, root, wt string) []string {
		c, blob := admDangling(t, wt, "HEAD", "kept.txt", "only on refs/worktree/keep\n")
		git(t, wt, "update-ref", "refs/worktree/keep", c)
		// An annotated tag object held by a per-worktree ref: its commit
		// must be kept although the tag is a tag, not a commit.
		c2, _ := admDangling(t, wt, "HEAD", "tagged.txt", "behind a tag\n")
		git(t, wt, "tag", "-a", "-m", "tag", "tmp", c2)
		git(t, wt, "update-ref", "refs/worktree/tagged", git(t, wt, "rev-parse", "tmp"))
		git(t, wt, "tag", "-d", "tmp")
		return []string{c, blob, c2}
	}},
	{name: "bisect", format: "sha1", onBranch: true, op: "bisect", br: "task", build: func(t *testing.T, root, wt string) []string {
		var cs []string
		parent := "HEAD"
		for i := range 3 {
			c, _ := admDangling(t, wt, parent, fmt.Sprintf("b%d.txt", i), fmt.Sprintf("step %d\n", i))
			cs, parent = append(cs, c), c
		}
		git(t, wt, "bisect", "start", cs[2], "task")
		return cs
	}},
	{name: "reflog only", format: "sha1", build: admReflogOnly},
	{name: "sha256", format: "sha256", build: admReflogOnly},
	{name: "rebase edit", format: "sha1", onBranch: true, op: "rebase", br: "task", build: func(t *testing.T, root, wt string) []string {
		a := admCommit(t, wt, "a1.txt", "first\n")
		b := admCommit(t, wt, "b1.txt", "second\n")
		admEnv(t, wt, []string{"GIT_SEQUENCE_EDITOR=sed -i.orig 1s/^pick/edit/"}, "rebase", "-q", "-i", "HEAD~2")
		write(t, filepath.Join(wt, "a2.txt"), "amended\n")
		git(t, wt, "add", "a2.txt")
		git(t, wt, "commit", "-q", "--amend", "--no-edit")
		amended := git(t, wt, "rev-parse", "HEAD")
		if amended == a {
			t.Fatal("amend made no new commit")
		}
		// taskclean deletes the task branch after saving its tip; here it
		// goes so that only the rebase state names the originals.
		git(t, root, "update-ref", "-d", "refs/heads/task")
		return []string{a, b, amended}
	}},
	{name: "am", format: "sha1", op: "am", build: func(t *testing.T, root, wt string) []string {
		patches := t.TempDir()
		git(t, root, "switch", "-q", "-c", "p")
		admCommit(t, root, "a.txt", "patched once\n")
		admCommit(t, root, "a.txt", "patched twice\n")
		git(t, root, "format-patch", "-q", "-2", "-o", patches)
		git(t, root, "switch", "-q", "main")
		git(t, root, "branch", "-q", "-D", "p")
		admCommit(t, wt, "a.txt", "conflicting\n")
		files, _ := filepath.Glob(filepath.Join(patches, "*.patch"))
		if len(files) != 2 {
			t.Fatalf("patches: %v", files)
		}
		admFails(t, wt, nil, append([]string{"am"}, files...)...)
		admin := admAdminDir(t, wt)
		var blobs []string
		for _, f := range []string{"0001", "0002"} {
			blobs = append(blobs, git(t, wt, "hash-object", filepath.Join(admin, "rebase-apply", f)))
		}
		return blobs
	}},
	// A cherry-pick of three commits stopped on the first: the other two
	// are named only by abbreviated ids in the sequencer's to-do list.
	{name: "cherry-pick sequence", format: "sha1", op: "cherry-pick", build: func(t *testing.T, root, wt string) []string {
		d1, _ := admDangling(t, wt, "HEAD", "a.txt", "theirs\n")
		d2, _ := admDangling(t, wt, d1, "b.txt", "second\n")
		d3, _ := admDangling(t, wt, d2, "c.txt", "third\n")
		admCommit(t, wt, "a.txt", "ours\n")
		admFails(t, wt, nil, "cherry-pick", d1, d2, d3)
		todo, err := os.ReadFile(filepath.Join(admAdminDir(t, wt), "sequencer", "todo"))
		if err != nil || strings.Contains(string(todo), d2) {
			t.Fatalf("the to-do list should name %s abbreviated: %q (%v)", d2, todo, err)
		}
		return []string{d1, d2, d3}
	}},
	{name: "merge", format: "sha1", op: "merge", build: func(t *testing.T, root, wt string) []string {
		git(t, root, "switch", "-q", "-c", "other")
		other := admCommit(t, root, "a.txt", "theirs\n")
		git(t, root, "switch", "-q", "main")
		admCommit(t, wt, "a.txt", "ours\n")
		admFails(t, wt, nil, "merge", "other")
		git(t, root, "branch", "-q", "-D", "other")
		return []string{other}
	}},
}

// admReflogOnly leaves a commit that only the worktree's HEAD reflog (and
// ORIG_HEAD) names.
func admReflogOnly(t *testing.T, root, wt string) []string {
	c := admCommit(t, wt, "lost.txt", "committed then reset away\n")
	blob := git(t, wt, "rev-parse", "HEAD:lost.txt")
	git(t, wt, "reset", "-q", "--hard", "HEAD~1")
	return []string{c, blob}
}

// TestAdminKeeps builds each kind of state, saves the admin directory,
// removes the worktree and collects garbage: what the state named survives
// through a ref to the saved commit. The same run without that ref (the
// control) must lose it, or the case proves nothing.
func TestAdminKeeps(t *testing.T) {
	for _, c := range admCases {
		t.Run(c.name, func(t *testing.T) {
			for _, keep := range []bool{true, false} {
				root, wt := admRepo(t, c.format, c.onBranch)
				want := c.build(t, root, wt)
				admin := admAdminDir(t, wt)
				hexLen := len(git(t, root, "rev-parse", "HEAD"))
				st, err := worktree.ReadAdmin(admin, hexLen)
				if err != nil {
					t.Fatal(err)
				}
				if st.Op != c.op || st.Branch != c.br {
					t.Errorf("ReadAdmin: op %q branch %q, want %q %q", st.Op, st.Branch, c.op, c.br)
				}
				if len(st.IDs) == 0 || len(st.IDs[0]) != hexLen {
					t.Errorf("ids %v, want ids of %d digits", st.IDs, hexLen)
				}
				repo := openRepo(t, root)
				before := gitcmd.Processes()
				saved, err := worktree.SaveAdmin(context.Background(), repo, st, nil, "admin of wt")
				if err != nil {
					t.Fatal(err)
				}
				// cat-file, hash-object, mktree, commit-tree; peeling the
				// tag is one more.
				procs := int64(4)
				if c.name == "worktree ref" {
					procs = 5
				}
				if n := gitcmd.Processes() - before; n != procs {
					t.Errorf("SaveAdmin ran %d git processes, want %d", n, procs)
				}
				if keep {
					git(t, root, "update-ref", "refs/keep/admin", saved)
				}
				have := admGone(t, root, wt, want)
				for _, id := range want {
					if keep && !have[id] {
						t.Errorf("%s is lost although the admin directory was saved", id)
					}
					if !keep && have[id] {
						t.Errorf("control: %s survives without the saved commit", id)
					}
				}
				if keep {
					// The saved tree holds the files themselves.
					head := git(t, root, "cat-file", "-p", saved+":HEAD")
					if len(head) < hexLen {
						t.Errorf("saved HEAD file = %q", head)
					}
					git(t, root, "fsck", "--no-dangling", "--strict")
				}
			}
		})
	}
}

// TestAdminAmFiles: the patches of a stopped `git am` are saved at their
// paths, byte for byte.
func TestAdminAmFiles(t *testing.T) {
	root, wt := admRepo(t, "sha1", false)
	var am admCase
	for _, c := range admCases {
		if c.name == "am" {
			am = c
		}
	}
	blobs := am.build(t, root, wt)
	st, err := worktree.ReadAdmin(admAdminDir(t, wt), 40)
	if err != nil {
		t.Fatal(err)
	}
	saved, err := worktree.SaveAdmin(context.Background(), openRepo(t, root), st, nil, "am")
	if err != nil {
		t.Fatal(err)
	}
	for i, f := range []string{"rebase-apply/0001", "rebase-apply/0002"} {
		if got := git(t, root, "rev-parse", saved+":"+f); got != blobs[i] {
			t.Errorf("%s saved as %s, want %s", f, got, blobs[i])
		}
	}
	if !slices.Contains(st.Files, "rebase-apply/applying") {
		t.Errorf("files %v lack rebase-apply/applying", st.Files)
	}
}

// TestReadAdminFiles: what is listed, what is left out, and the ids found.
func TestReadAdminFiles(t *testing.T) {
	root, wt := admRepo(t, "sha1", false)
	head := git(t, root, "rev-parse", "HEAD")
	git(t, root, "worktree", "lock", "--reason", "agent 7", wt)
	admin := admAdminDir(t, wt)
	write(t, filepath.Join(admin, "refs", "worktree", "x.lock"), head+"\n")
	write(t, filepath.Join(admin, "sharedindex."+head), "split index part")
	other := strings.Repeat("ab", 20)
	write(t, filepath.Join(admin, "info", "notes"), "x"+other+"y "+strings.Repeat("c", 41)+" "+strings.Repeat("0", 40)+" "+strings.ToUpper(other)+"\n")

	st, err := worktree.ReadAdmin(admin, 40)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"HEAD", "logs/HEAD", "locked", "info/notes"} {
		if !slices.Contains(st.Files, f) {
			t.Errorf("files %v lack %s", st.Files, f)
		}
	}
	for _, f := range st.Files {
		if f == "index" || f == "commondir" || f == "gitdir" || strings.HasSuffix(f, ".lock") ||
			strings.HasPrefix(f, "sharedindex.") || strings.HasPrefix(f, "modules/") {
			t.Errorf("files list %s", f)
		}
	}
	if data, _ := os.ReadFile(filepath.Join(admin, "locked")); strings.TrimSpace(string(data)) != "agent 7" {
		t.Errorf("locked = %q", data)
	}
	// HEAD is read before info/ (walk order), the 41-digit run and the
	// null id are no ids, upper case is not how git writes ids.
	if want := []string{head, other}; !reflect.DeepEqual(st.IDs, want) {
		t.Errorf("ids = %v, want %v", st.IDs, want)
	}
	if st.Dir != admin || st.Op != "" || len(st.Modules) != 0 {
		t.Errorf("state = %+v", st)
	}
	if _, err := worktree.ReadAdmin(admin, 41); err == nil {
		t.Errorf("ReadAdmin with 41-digit ids: no error")
	}
	if _, err := worktree.ReadAdmin(filepath.Join(admin, "missing"), 40); err == nil {
		t.Errorf("ReadAdmin of a missing directory: no error")
	}
}

// TestSaveAdminTree: parents, skip, ids naming no object, trees and blobs
// under objects/, and a file name holding a newline and a quote.
func TestSaveAdminTree(t *testing.T) {
	root, wt := admRepo(t, "sha1", false)
	head := git(t, root, "rev-parse", "HEAD")
	c, _ := admDangling(t, wt, "HEAD", "c.txt", "c\n")
	tree := git(t, root, "rev-parse", "HEAD^{tree}")
	blob := git(t, root, "rev-parse", "HEAD:a.txt")
	ghost := strings.Repeat("7", 40)
	admin := admAdminDir(t, wt)
	odd := "info/odd\n\"name"
	content := "c " + c + "\ntree " + tree + "\nblob " + blob + "\nghost " + ghost + "\n"
	write(t, filepath.Join(admin, filepath.FromSlash(odd)), content)

	st, err := worktree.ReadAdmin(admin, 40)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(st.IDs, ghost) {
		t.Fatalf("ids %v lack %s", st.IDs, ghost)
	}
	repo := openRepo(t, root)
	saved, err := worktree.SaveAdmin(context.Background(), repo, st, map[string]bool{head: true}, "msg\n\nbody")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Fields(git(t, root, "rev-list", "--parents", "-n1", saved))[1:]; !reflect.DeepEqual(got, []string{c}) {
		t.Errorf("parents = %v, want [%s] (HEAD skipped, the ghost ignored)", got, c)
	}
	if got := git(t, root, "cat-file", "-t", saved+":objects/"+tree); got != "tree" {
		t.Errorf("objects/%s is a %s", tree, got)
	}
	if got := git(t, root, "cat-file", "-t", saved+":objects/"+blob); got != "blob" {
		t.Errorf("objects/%s is a %s", blob, got)
	}
	if err := exec.Command("git", "-C", root, "cat-file", "-e", saved+":objects/"+ghost).Run(); err == nil {
		t.Errorf("the ghost id is in the tree")
	}
	out, err := exec.Command("git", "-C", root, "cat-file", "blob", saved+":"+odd).Output()
	if err != nil || string(out) != content {
		t.Errorf("%q saved as %q, %v", odd, out, err)
	}
	if got := git(t, root, "log", "-1", "--format=%an <%ae>%n%B", saved); !strings.HasPrefix(got, "git-taskclean <git-taskclean@localhost>\nmsg\n\nbody") {
		t.Errorf("commit = %q", got)
	}
	git(t, root, "fsck", "--no-dangling", "--strict")

	// Nothing to keep: no commit.
	if got, err := worktree.SaveAdmin(context.Background(), repo, &worktree.AdminState{Dir: admin, IDs: []string{ghost, head}}, map[string]bool{head: true}, "m"); got != "" || err != nil {
		t.Errorf("SaveAdmin of nothing = %q, %v", got, err)
	}
	// Only ids: an empty tree with parents.
	got, err := worktree.SaveAdmin(context.Background(), repo, &worktree.AdminState{Dir: admin, IDs: []string{c}}, nil, "m")
	if err != nil || got == "" {
		t.Fatalf("SaveAdmin of an id = %q, %v", got, err)
	}
	if tr := git(t, root, "rev-parse", got+"^{tree}"); tr != "4b825dc642cb6eb9a060e54bf8d69288fbee4904" {
		t.Errorf("tree = %s, want the empty tree", tr)
	}
}

// TestSaveAdminManyParents: more commits than one commit takes as parents
// are gathered by intermediate commits, all reachable.
func TestSaveAdminManyParents(t *testing.T) {
	root, _ := admRepo(t, "sha1", false)
	const n = 5003
	var in bytes.Buffer
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&in, "reset refs/many/tmp\ncommit refs/many/tmp\nmark :%d\ncommitter A <a@b> 1700000000 +0000\ndata %d\n%d\n", i, len(fmt.Sprint(i))+1, i)
	}
	marks := filepath.Join(t.TempDir(), "marks")
	cmd := exec.Command("git", "fast-import", "--quiet", "--export-marks="+marks)
	cmd.Dir, cmd.Stdin = root, &in
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("fast-import: %v\n%s", err, out)
	}
	git(t, root, "update-ref", "-d", "refs/many/tmp")
	data, err := os.ReadFile(marks)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		ids = append(ids, strings.Fields(l)[1])
	}
	if len(ids) != n {
		t.Fatalf("%d commits made", len(ids))
	}
	saved, err := worktree.SaveAdmin(context.Background(), openRepo(t, root), &worktree.AdminState{Dir: root, IDs: ids}, nil, "many")
	if err != nil {
		t.Fatal(err)
	}
	parents := strings.Fields(git(t, root, "rev-list", "--parents", "-n1", saved))[1:]
	if len(parents) != 2 {
		t.Errorf("saved commit has %d parents, want 2 gathering ones", len(parents))
	}
	// Every commit, the two gathering ones and the saved one.
	if got := git(t, root, "rev-list", "--count", saved); got != fmt.Sprint(n+3) {
		t.Errorf("%s commits reachable, want %d", got, n+3)
	}
}

// TestAdminModules: a submodule initialised in a linked worktree and then
// de-initialised leaves its repository in the admin directory.
func TestAdminModules(t *testing.T) {
	root, _ := admRepo(t, "sha1", false)
	sub := filepath.Join(filepath.Dir(root), "sub")
	git(t, filepath.Dir(root), "init", "-q", sub)
	admCommit(t, sub, "s.txt", "s\n")
	git(t, root, "-c", "protocol.file.allow=always", "submodule", "add", "-q", sub, "lib")
	git(t, root, "commit", "-q", "-m", "add lib")
	wt := filepath.Join(filepath.Dir(root), "wt2")
	git(t, root, "worktree", "add", "-q", "--detach", wt)
	git(t, wt, "-c", "protocol.file.allow=always", "submodule", "update", "-q", "--init")
	git(t, wt, "submodule", "deinit", "-q", "-f", "lib")
	admin := admAdminDir(t, wt)
	if _, err := os.Stat(filepath.Join(admin, "modules", "lib", "HEAD")); err != nil {
		t.Fatalf("the submodule's repository is not in the admin directory: %v", err)
	}
	st, err := worktree.ReadAdmin(admin, 40)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(st.Modules, []string{"modules/lib"}) {
		t.Errorf("modules = %v", st.Modules)
	}
	for _, f := range st.Files {
		if strings.HasPrefix(f, "modules/") {
			t.Errorf("files list %s", f)
		}
	}
}

// TestInProgress: each stopped operation, in a linked worktree and in the
// main one.
func TestInProgress(t *testing.T) {
	type step func(t *testing.T, root, wt string)
	conflictWith := func(args ...string) step {
		return func(t *testing.T, root, wt string) {
			git(t, root, "switch", "-q", "-c", "other")
			admCommit(t, root, "a.txt", "theirs\n")
			git(t, root, "switch", "-q", "main")
			admCommit(t, wt, "a.txt", "ours\n")
			admFails(t, wt, nil, args...)
		}
	}
	cases := []struct {
		name     string
		onBranch bool
		do       step
		op, br   string
	}{
		{"clean", false, func(t *testing.T, root, wt string) {}, "", ""},
		{"merge", false, conflictWith("merge", "other"), "merge", ""},
		{"cherry-pick", false, conflictWith("cherry-pick", "other"), "cherry-pick", ""},
		{"revert", false, func(t *testing.T, root, wt string) {
			y := admCommit(t, wt, "a.txt", "y\n")
			admCommit(t, wt, "a.txt", "z\n")
			admFails(t, wt, nil, "revert", "--no-edit", y)
		}, "revert", ""},
		{"rebase conflict", true, func(t *testing.T, root, wt string) {
			admCommit(t, root, "a.txt", "main moved\n")
			admCommit(t, wt, "a.txt", "task\n")
			admFails(t, wt, nil, "rebase", "main")
		}, "rebase", "task"},
		{"rebase apply", true, func(t *testing.T, root, wt string) {
			admCommit(t, root, "a.txt", "main moved\n")
			admCommit(t, wt, "a.txt", "task\n")
			admFails(t, wt, nil, "rebase", "--apply", "main")
		}, "rebase", "task"},
		{"bisect detached", false, func(t *testing.T, root, wt string) {
			c, _ := admDangling(t, wt, "HEAD", "x", "x\n")
			git(t, wt, "bisect", "start", c, "HEAD")
		}, "bisect", ""},
		{"picks between conflicts", false, func(t *testing.T, root, wt string) {
			git(t, root, "switch", "-q", "-c", "other")
			admCommit(t, root, "a.txt", "theirs\n")
			admCommit(t, root, "b.txt", "more\n")
			git(t, root, "switch", "-q", "main")
			admCommit(t, wt, "a.txt", "ours\n")
			admFails(t, wt, nil, "cherry-pick", "main..other")
			write(t, filepath.Join(wt, "a.txt"), "resolved\n")
			git(t, wt, "add", "a.txt")
			git(t, wt, "commit", "-q", "--no-edit")
		}, "cherry-pick", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root, wt := admRepo(t, "sha1", c.onBranch)
			c.do(t, root, wt)
			op, br := worktree.InProgress(admAdminDir(t, wt))
			if op != c.op || br != c.br {
				t.Errorf("InProgress = %q, %q; want %q, %q", op, br, c.op, c.br)
			}
			// The main worktree is clean meanwhile.
			if op, _ := worktree.InProgress(filepath.Join(root, ".git")); op != "" {
				t.Errorf("main worktree: %q", op)
			}
		})
	}
	t.Run("main worktree", func(t *testing.T) {
		root, wt := admRepo(t, "sha1", false)
		admCommit(t, wt, "a.txt", "wt\n")
		git(t, wt, "branch", "side")
		admCommit(t, root, "a.txt", "main\n")
		admFails(t, root, nil, "merge", "side")
		if op, _ := worktree.InProgress(filepath.Join(root, ".git")); op != "merge" {
			t.Errorf("main worktree: %q, want merge", op)
		}
	})
}
