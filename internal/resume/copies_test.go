package resume

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taskresume/git-taskresume/internal/testbin"
)

// samePatch decides from the objects alone what git patch-id decides,
// wherever it decides at all, and leaves to patch-id only a copy re-applied
// on a parent that moved.
func TestSamePatchAgreesWithPatchID(t *testing.T) {
	testbin.IsolateGit(t)
	dir := filepath.Join(t.TempDir(), "repo")
	testbin.Git(t, filepath.Dir(dir), "init", "-q", "-b", "main", dir)
	git := func(args ...string) string { t.Helper(); return testbin.Git(t, dir, args...) }
	write := func(name string, lines ...string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		git("add", "-A")
	}
	ten := []string{"1", "2", "3", "4", "5", "6", "7", "8", "9", "10"}
	with := func(i int, s string) []string {
		l := append([]string(nil), ten...)
		l[i] = s
		return l
	}
	write("a.txt", ten...)
	git("commit", "-q", "-m", "base")
	base := git("rev-parse", "HEAD")

	// The task's commit: the last line of a.txt.
	write("a.txt", with(9, "10 task")...)
	git("commit", "-q", "-m", "[Task 2.2] work")
	task := git("rev-parse", "HEAD")
	at := func(parent string, do func()) string {
		t.Helper()
		git("checkout", "-q", "--detach", parent)
		do()
		return git("rev-parse", "HEAD")
	}
	// Another task's commit on the first line, and one on another file.
	near := at(base, func() { write("a.txt", with(0, "1 other")...); git("commit", "-q", "-m", "other") })
	apart := at(base, func() { write("b.txt", "b"); git("commit", "-q", "-m", "apart") })

	cases := []struct {
		name string
		b    string
		want verdict
	}{
		{"restacked where nothing else changed the file", at(apart, func() { git("cherry-pick", task) }), yes},
		{"restacked on a parent that changed the file", at(near, func() { git("cherry-pick", task) }), unknown},
		{"amended with another line", at(task, func() { write("a.txt", with(9, "10 redone")...); git("commit", "-q", "--amend", "--no-edit") }), no},
		{"amended with another file", at(task, func() { write("c.txt", "c"); git("commit", "-q", "--amend", "--no-edit") }), no},
		// The same change made again later on the moved parent: patch-id
		// calls it equal, but it is no copy (its own author date), and
		// asking would cost two processes on every report.
		{"done again on a parent that changed the file", at(near, func() {
			l := with(0, "1 other")
			l[9] = "10 task"
			write("a.txt", l...)
			git("commit", "-q", "--date=1800000000 +0000", "-m", "[Task 2.2] work")
		}), no},
	}
	repo, objs := openObjects(t, dir)
	f := &copyFinder{ctx: context.Background(), repo: repo, objs: objs,
		commits: map[string]*rawCommit{}, changes: map[string]map[string]string{}, ids: map[string]string{}}
	var in strings.Builder
	in.WriteString(task + "\n")
	for _, c := range cases {
		in.WriteString(c.b + "\n")
	}
	ids, err := patchIDs(context.Background(), repo, []byte(in.String()))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		got := f.samePatch(task, c.b)
		if got != c.want {
			t.Errorf("%s: samePatch %d, want %d", c.name, got, c.want)
		}
		equal := ids[task] != "" && ids[task] == ids[c.b]
		again := strings.HasPrefix(c.name, "done again")
		if got == yes && !equal || got == no && equal != again {
			t.Errorf("%s: samePatch %d, but patch-id says equal %v", c.name, got, equal)
		}
		if got == unknown && !equal {
			t.Errorf("%s: left to patch-id, which says they differ; want a copy", c.name)
		}
	}
}
