package gitcmd_test

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/taskresume/git-taskresume/internal/gitcmd"
)

// The shared refs answer every pattern as for-each-ref does: globs whose
// "*" stops at "/", "**" for directories, whole names, prefixes ending at
// a "/", for the patterns a report asks and some harder ones.
func TestSharedRefsMatchForEachRef(t *testing.T) {
	dir, root := newRepo(t)
	ctx := context.Background()
	for _, name := range []string{
		"refs/heads/x1y2z3-task-1-1-schema", "refs/heads/x1y2z3-task-2-2-fix/wip", "refs/heads/x1y2z3-task-2-2-fix/a/b",
		"refs/heads/x1y2z3-main", "refs/heads/x1y2z3-mainline", "refs/heads/x1y2z3-task", "refs/heads/ax1y2z3-task-1-1",
		"refs/remotes/origin/x1y2z3-task-1-2-api", "refs/remotes/up/stream/x1y2z3-task-1-3-ui", "refs/remotes/a/b/c/x1y2z3-main",
		"refs/remotes/origin/main", "refs/remotes/origin/mainx/deeper", "refs/taskclean/x1y2z3/worktree/1", "refs/taskclean/x1y2z3x/1",
		"refs/taskclaims/x1y2z3/1.1", "refs/heads/main", "refs/heads/mai", "refs/tags/v1",
	} {
		git(t, dir, "update-ref", name, root)
	}
	r := open(t, dir)
	s, err := gitcmd.ReadShared(ctx, r, true)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	shared := r.WithShared(s)
	for _, pats := range [][]string{
		{"refs/heads/x1y2z3-task-*"},
		{"refs/heads/x1y2z3-task-*/**"},
		{"refs/heads/x1y2z3-main"},
		{"refs/heads/main", "refs/heads/master", "refs/remotes/origin/HEAD"},
		{"refs/remotes/*/x1y2z3-task-*", "refs/remotes/*/x1y2z3-task-*/**"},
		{"refs/remotes/*/*/**/x1y2z3-task-*", "refs/remotes/*/*/**/x1y2z3-main"},
		{"refs/taskclean/x1y2z3/"},
		{"refs/taskclean/x1y2z3"},
		{"refs/remotes/origin/main"},
		{"refs/heads/ma?"},
		{"refs/heads/*"},
		{"refs/**"},
		{"**/x1y2z3-main"},
		{"refs/remotes/"},
		{"refs/heads/x1y2z3-task"},
		{},
	} {
		args := append([]string{"for-each-ref", "--format=%(refname)"}, pats...)
		want := append([]string{}, strings.Fields(git(t, dir, args...))...)
		got, err := shared.Refs(ctx, pats...)
		if err != nil {
			t.Fatal(err)
		}
		if g := refNames(got); !reflect.DeepEqual(g, want) {
			t.Errorf("Refs(%q) = %q, for-each-ref says %q", pats, g, want)
		}
	}
}

// The shared walk answers what git's log and rev-list answer, on a
// history with merges, a side line merged late and two roots.
func TestSharedWalkMatchesGit(t *testing.T) {
	dir, root := newRepo(t)
	ctx := context.Background()
	c := map[string]string{"root": root}
	git(t, dir, "checkout", "-q", "-b", "side")
	c["s1"] = commit(t, dir, "s1")
	c["s2"] = commit(t, dir, "s2")
	git(t, dir, "checkout", "-q", "main")
	c["m1"] = commit(t, dir, "m1")
	git(t, dir, "merge", "-q", "--no-ff", "-m", "merge side", "side")
	c["merge"] = git(t, dir, "rev-parse", "HEAD")
	c["m2"] = commit(t, dir, "m2")
	git(t, dir, "checkout", "-q", "-b", "task", c["m1"])
	c["t1"] = commit(t, dir, "Revert \"m1\"\n\nThis reverts commit "+c["m1"]+".")
	c["t2"] = commit(t, dir, "t2\n\nRun-Id: x1y2z3\nTask-Id: 1.1")
	git(t, dir, "checkout", "-q", "--orphan", "other")
	c["o1"] = commit(t, dir, "o1")
	git(t, dir, "checkout", "-q", "main")

	r := open(t, dir)
	s, err := gitcmd.ReadShared(ctx, r, true)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	shared := r.WithShared(s)
	cases := []struct{ in, ex []string }{
		{[]string{c["m2"]}, nil},
		{[]string{c["m2"]}, []string{c["m1"]}},
		{[]string{c["m2"]}, []string{c["s1"]}},
		{[]string{c["t2"]}, []string{c["m2"]}},
		{[]string{c["t2"], c["m2"]}, []string{c["merge"] + "^@"}},
		{[]string{c["m2"]}, []string{c["t2"]}},
		{[]string{c["o1"]}, []string{c["m2"]}},
		{[]string{c["m1"]}, []string{c["m2"]}},
	}
	for _, k := range cases {
		name := fmt.Sprintf("in %v ex %v", short(k.in), short(k.ex))
		want, wantTrees, err := r.LogWalk(ctx, k.in, k.ex)
		if err != nil {
			t.Fatal(err)
		}
		got, gotTrees, err := shared.LogWalk(ctx, k.in, k.ex)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(asListed(got), asListed(want)) {
			t.Errorf("%s: LogWalk = %+v, git says %+v", name, got, want)
		}
		if !reflect.DeepEqual(gotTrees, wantTrees) && !(len(gotTrees) == 0 && len(wantTrees) == 0) {
			t.Errorf("%s: boundary trees = %v, git says %v", name, gotTrees, wantTrees)
		}
		wantSet, _ := r.RevSet(ctx, k.in, k.ex)
		gotSet, _ := shared.RevSet(ctx, k.in, k.ex)
		if !reflect.DeepEqual(gotSet, wantSet) {
			t.Errorf("%s: RevSet = %v, git says %v", name, gotSet, wantSet)
		}
	}
	for _, a := range []string{"root", "s1", "m1", "t1", "o1"} {
		for _, d := range []string{"m2", "t2", "s2", "o1"} {
			want, _ := r.IsAncestor(ctx, c[a], c[d])
			got, _ := shared.IsAncestor(ctx, c[a], c[d])
			if got != want {
				t.Errorf("IsAncestor(%s, %s) = %v, git says %v", a, d, got, want)
			}
		}
	}
	// A commit the walk did not read is git's to answer.
	loose := strings.TrimSpace(git(t, dir, "commit-tree", "-m", "loose", "-p", c["m2"], c["m2"]+"^{tree}"))
	got, _, err := shared.LogWalk(ctx, []string{loose}, []string{c["m2"]})
	if err != nil || len(got) != 1 || got[0].OID != loose {
		t.Errorf("LogWalk of a commit no ref holds = %+v, %v; want it alone", got, err)
	}
}

func short(l []string) []string {
	var out []string
	for _, s := range l {
		out = append(out, s[:7])
	}
	return out
}

// asListed are the entries as they are listed, a root's missing
// parents spelled one way: the shared walk lists each log's commits in
// that log's own order (TestSharedWalkOrderIsTheLogsOwn checks the order
// on random histories).
func asListed(cs []gitcmd.LogEntry) []gitcmd.LogEntry {
	out := append([]gitcmd.LogEntry(nil), cs...)
	for i := range out {
		if len(out[i].Parents) == 0 {
			out[i].Parents = nil // a root's: no parent, however spelled
		}
	}
	return out
}
