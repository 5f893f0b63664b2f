package resume

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/taskresume/git-taskresume/internal/branches"
	"github.com/taskresume/git-taskresume/internal/gitcmd"
	"github.com/taskresume/git-taskresume/internal/plan"
)

// Which commits change the plan's files and nothing else, read tree
// against tree through the running reader (no process) and, without one,
// by one diff-tree: both readings agree.
func TestPlanOnlyCommits(t *testing.T) {
	dir := reflogRepo(t)
	write := func(path, text string) {
		full := filepath.Join(dir, filepath.FromSlash(path))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	commit := func(msg string) string {
		reflogGit(t, dir, "add", "-A")
		return reflogCommit(t, dir, msg)
	}
	p1, p2 := "specs/x/plan/plan-phase1.md", "specs/x/plan/plan-phase2.md"
	write(p1, "one\n")
	added := commit("add the plan, its directories new") // specs/ did not exist
	write(p1, "one, ticked\n")
	ticked := commit("tick a box")
	write(p1, "one, ticked twice\n")
	write(p2, "two\n")
	both := commit("both phase files")
	write(p2, "two, ticked\n")
	write("specs/x/spec.md", "spec\n")
	beside := commit("the plan and the spec beside it")
	write("src/a.go", "package a\n")
	code := commit("code only")
	write(p1, "one, ticked thrice\n")
	write("README", "read me\n")
	withCode := commit("the plan and code")
	reflogGit(t, dir, "rm", "-q", p2)
	removed := commit("drop phase 2's file")
	reflogGit(t, dir, "commit", "-q", "--allow-empty", "-m", "nothing")
	empty := reflogGit(t, dir, "rev-parse", "HEAD")

	ctx := context.Background()
	repo, err := gitcmd.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	objs, err := repo.ObjectReader(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer objs.Close()
	p, _, err := plan.Parse("plan.md", []byte("Run ID: x\n## Phase 1: A (Sequential)\n### Task 1.1: A\n"))
	if err != nil {
		t.Fatal(err)
	}
	in := branches.Input{Names: branches.NewNames("x", p), Trees: map[string]string{}}
	for _, oid := range []string{empty, removed, withCode, code, beside, both, ticked, added} {
		c, ok, err := objs.Commit(oid)
		if err != nil || !ok {
			t.Fatalf("read %s: %v", oid, err)
		}
		in.Walk = append(in.Walk, c)
		in.Trees[oid] = c.Tree
	}
	want := map[string][]string{added: {p1}, ticked: {p1}, both: {p1, p2}, removed: {p2}}
	files := []string{p1, p2}

	before := gitcmd.Processes()
	got, err := planOnlyCommits(ctx, repo, objs, files, in)
	if err != nil {
		t.Fatal(err)
	}
	if n := gitcmd.Processes() - before; n != 0 {
		t.Errorf("through the reader: %d git processes, want none", n)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("through the reader: %v, want %v", got, want)
	}
	before = gitcmd.Processes()
	got, err = planOnlyCommits(ctx, repo, nil, files, in)
	if err != nil {
		t.Fatal(err)
	}
	if n := gitcmd.Processes() - before; n != 1 {
		t.Errorf("without a reader: %d git processes, want one", n)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("without a reader: %v, want %v", got, want)
	}
	// A plan read from outside the repository has no files in it: nothing
	// is asked.
	if got := planRepoFiles(&PlanSource{Files: []string{"/tmp/plan.md"}}); got != nil {
		t.Errorf("files of a plan outside: %v", got)
	}
}

// On a long line of commits the plan-only ones are found by halving the
// stretches where the plan's directory differs at both ends: the same as
// asking of every commit (without a reader), with a few questions.
func TestPlanOnlyCommitsLongLine(t *testing.T) {
	dir := reflogRepo(t)
	write := func(path, text string) {
		full := filepath.Join(dir, filepath.FromSlash(path))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const planPath = "specs/x/plan.md"
	write(planPath, "plan\n")
	reflogGit(t, dir, "add", "-A")
	base := reflogCommit(t, dir, "the plan")
	want := map[string][]string{}
	var oids []string
	for i := 0; i < 40; i++ {
		if i == 5 || i == 30 || i == 31 {
			write(planPath, fmt.Sprintf("plan, edit %d\n", i))
		} else {
			write(fmt.Sprintf("src/f%d.go", i), "package src\n")
		}
		reflogGit(t, dir, "add", "-A")
		oid := reflogCommit(t, dir, fmt.Sprintf("[Task 1.1] step %d", i))
		if i == 5 || i == 30 || i == 31 {
			want[oid] = []string{planPath}
		}
		oids = append(oids, oid)
	}
	ctx := context.Background()
	repo, err := gitcmd.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	objs, err := repo.ObjectReader(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer objs.Close()
	p, _, err := plan.Parse("plan.md", []byte("Run ID: x\n## Phase 1: A (Sequential)\n### Task 1.1: A\n"))
	if err != nil {
		t.Fatal(err)
	}
	bc, _, err := objs.Commit(base)
	if err != nil {
		t.Fatal(err)
	}
	in := branches.Input{Names: branches.NewNames("x", p), Trees: map[string]string{base: bc.Tree}}
	for i := len(oids) - 1; i >= 0; i-- { // newest first, as the walk
		c, ok, err := objs.Commit(oids[i])
		if err != nil || !ok {
			t.Fatalf("read %s: %v", oids[i], err)
		}
		in.Walk = append(in.Walk, c)
	}
	for _, reader := range []*gitcmd.Objects{objs, nil} {
		got, err := planOnlyCommits(ctx, repo, reader, []string{planPath}, in)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("reader %v: %v, want %v", reader != nil, got, want)
		}
	}
}
