package formatcmp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/storage/filesystem"
	"github.com/go-git/go-git/v5/storage/filesystem/dotgit"

	"github.com/taskresume/git-taskresume/internal/worktree"
)

// headCase is a HEAD to follow: the worktree's git directory and the
// repository's common one.
type headCase struct {
	name, worktree, gitDir, commonDir string
}

func headCases(tb testing.TB) []headCase {
	r := newRepo(tb, "heads", "sha1")
	fill(tb, r, false)
	common := filepath.Join(r, ".git")
	var cs []headCase
	add := func(name string) { cs = append(cs, headCase{name, r, common, common}) }
	add("HEAD: ref: refs/heads/main")
	git(tb, r, nil, "", "symbolic-ref", "refs/heads/alias", "refs/heads/main")
	git(tb, r, nil, "", "symbolic-ref", "HEAD", "refs/heads/alias")
	add("HEAD -> refs/heads/alias -> refs/heads/main")
	git(tb, r, nil, "", "-c", "core.preferSymlinkRefs=true", "symbolic-ref", "HEAD", "refs/heads/main")
	if fi, err := os.Lstat(filepath.Join(common, "HEAD")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		tb.Fatalf("HEAD is no symbolic link: %v", err)
	}
	add("HEAD a symbolic link (core.preferSymlinkRefs)")
	wt := filepath.Join(need(tb), "heads-wt")
	git(tb, r, nil, "", "symbolic-ref", "HEAD", "refs/heads/main")
	git(tb, r, nil, "", "worktree", "add", "-q", "-b", "task", wt)
	cs = append(cs, headCase{"linked worktree: HEAD in its admin dir", wt, filepath.Join(common, "worktrees", "heads-wt"), common})
	return cs
}

// gitHead is the ref git says HEAD ends at, "" when detached.
func gitHead(tb testing.TB, dir string) string {
	out, _, err := gitRun(dir, nil, "", "rev-parse", "--symbolic-full-name", "HEAD")
	if err != nil || out == "HEAD\n" {
		return ""
	}
	return strings.TrimSpace(out)
}

// goGitHead follows HEAD through go-git's loose ref reader (dotgit), as its
// storer does, the common directory joined as go-git does for worktrees.
func goGitHead(c headCase) string {
	var d *dotgit.DotGit
	if c.gitDir == c.commonDir {
		d = dotgit.New(osfs.New(c.gitDir))
	} else {
		d = dotgit.New(dotgit.NewRepositoryFilesystem(osfs.New(c.gitDir), osfs.New(c.commonDir)))
	}
	name := plumbing.HEAD
	last := ""
	for range worktree.MaxSymrefDepth {
		ref, err := d.Ref(name)
		if err != nil {
			return "error: " + err.Error()
		}
		if ref.Type() != plumbing.SymbolicReference {
			return last
		}
		name = ref.Target()
		last = name.String()
	}
	return "too deep"
}

// TestHeadReaders follows HEAD with ours (worktree.HeadRef) and go-git.
func TestHeadReaders(t *testing.T) {
	need(t)
	var rows [][]string
	for _, c := range headCases(t) {
		want := gitHead(t, c.worktree)
		ours := worktree.HeadRef(c.gitDir, c.commonDir)
		gg := goGitHead(c)
		judge := func(got string) string {
			if got == want {
				return "same: " + got
			}
			return "WRONG: " + got
		}
		if ours != want {
			t.Errorf("ours on %s: %q, git %q", c.name, ours, want)
		}
		rows = append(rows, []string{c.name, want, judge(ours), judge(gg)})
	}
	table(t, []string{"HEAD", "git rev-parse --symbolic-full-name", "ours (worktree.HeadRef)", "go-git (dotgit.Ref)"}, rows)
}

// TestShallowSHA256 reads a SHA-256 repository's shallow file with go-git's
// storer (ours keeps each line as the string it is, whatever its length).
func TestShallowSHA256(t *testing.T) {
	src := newRepo(t, "shallow-src", "sha256")
	fill(t, src, false)
	git(t, src, nil, "", "commit", "-q", "--allow-empty", "-m", "two")
	dst := filepath.Join(need(t), "shallow-clone")
	git(t, need(t), nil, "", "clone", "-q", "--depth=1", "file://"+src, dst)
	data, err := os.ReadFile(filepath.Join(dst, ".git", "shallow"))
	if err != nil {
		t.Fatal(err)
	}
	want := strings.TrimSpace(string(data))
	st := filesystem.NewStorage(osfs.New(filepath.Join(dst, ".git")), cache.NewObjectLRUDefault())
	hs, err := st.Shallow()
	var got []string
	for _, h := range hs {
		got = append(got, h.String())
	}
	verdict := "same"
	if err != nil || strings.Join(got, "\n") != want {
		verdict = "WRONG"
	}
	table(t, []string{"shallow file", "git wrote", "go-git (filesystem.Storage.Shallow)"},
		[][]string{{"SHA-256 clone --depth=1", want, verdict + ": " + strings.Join(got, " ") + errText(err)}})
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return " (" + err.Error() + ")"
}

// BenchmarkHead follows a HEAD that names a branch.
func BenchmarkHead(b *testing.B) {
	need(b)
	c := headCases(b)[0]
	git(b, c.worktree, nil, "", "symbolic-ref", "HEAD", "refs/heads/main")
	b.Run("ours", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			worktree.HeadRef(c.gitDir, c.commonDir)
		}
	})
	b.Run("go-git", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			goGitHead(c)
		}
	})
}
