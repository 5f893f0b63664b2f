package testbin_test

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/taskresume/git-taskresume/internal/testbin"
)

const run = "r1"

// crashedRun is the seven-task run with phase 1 done and phase 2 crashed:
// 2.1's worktree on its branch, dirty in every way; 2.2 claimed; 2.3's
// worktree detached and locked; a branch of a task the plan does not have.
func crashedRun(t *testing.T) string {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	repo := testbin.NewRun(t, filepath.Join(base, "repo"), run)
	b11 := testbin.Finish(t, repo, run, "1.1", "create-database-schema", run+"-main")
	b12 := testbin.Finish(t, repo, run, "1.2", "install-dependencies", b11)
	wt21 := filepath.Join(repo, ".worktrees", run+"-task-2-1")
	testbin.Git(t, repo, "worktree", "add", "-q", "-b", run+"-task-2-1-user-service", wt21, b12)
	testbin.WriteFile(t, filepath.Join(wt21, "src", "user.go"), "package src\n")
	testbin.Git(t, wt21, "add", "src/user.go")
	testbin.WriteFile(t, filepath.Join(wt21, "task-1-1.txt"), "changed\n")
	testbin.WriteFile(t, filepath.Join(wt21, "NOTES.md"), "notes\n")
	wt23 := filepath.Join(repo, ".worktrees", run+"-task-2-3")
	testbin.Git(t, repo, "worktree", "add", "-q", "--detach", wt23, b12)
	testbin.Git(t, repo, "worktree", "lock", "--reason", "an agent works here", wt23)
	testbin.Git(t, repo, "branch", run+"-task-9-9-unknown", b12)
	// The first claim takes 2.1, whose worktree would then be live work;
	// the second keeps 2.2 once the first is let go.
	testbin.Git(t, repo, "taskresume", run, "--claim", "--as", "agent-b")
	testbin.Git(t, repo, "taskresume", run, "--claim", "--as", "agent-a")
	testbin.Git(t, repo, "taskresume", run, "--release", "2.1", "--as", "agent-b")
	return repo
}

// Every field the mirror names is in the documents the commands print, at
// its place: a field misspelt in the mirror, or renamed in the commands,
// fails here rather than leaving a test reading a zero value. And the
// documents decode into the mirror.
func TestMirrorNamesPrintedFields(t *testing.T) {
	repo := crashedRun(t)
	report := testbin.Must(t, testbin.Taskresume(repo, nil, run, "--json"))
	dry := testbin.Must(t, testbin.Taskclean(repo, nil, "--run", run, "--json", "--dry-run"))
	dryTask := testbin.Must(t, testbin.Taskclean(repo, nil, "--run", run, "--json", "--dry-run", "--task", "1.1", "--with-dependents"))
	clean := testbin.Must(t, testbin.Taskclean(repo, nil, "--run", run, "--json"))
	// A clone reads the run from origin: remote_read is filled there.
	cloned := filepath.Join(filepath.Dir(repo), "clone")
	testbin.Git(t, "", "clone", "-q", repo, cloned)
	fromClone := testbin.Must(t, testbin.Taskresume(cloned, nil, run, "--json"))

	for _, c := range []struct {
		what string
		typ  reflect.Type
		docs []testbin.Result
	}{
		{"report", reflect.TypeOf(testbin.Report{}), []testbin.Result{report, fromClone}},
		{"clean", reflect.TypeOf(testbin.CleanResult{}), []testbin.Result{dry, dryTask, clean}},
	} {
		var docs []any
		for _, r := range c.docs {
			var doc any
			testbin.DecodeJSON(t, r, &doc)
			docs = append(docs, doc)
		}
		for _, miss := range unprinted(c.typ, docs, "") {
			t.Errorf("the %s mirror names %s, which the %s documents do not have", c.what, miss, c.what)
		}
	}

	var rep testbin.Report
	testbin.DecodeJSON(t, report, &rep)
	if rep.RunID != run || rep.TotalTasks != 7 || rep.CompletedTasks != 2 || rep.PhasesTotal != 3 || len(rep.Phases) != 3 {
		t.Errorf("report: run %q, %d/%d tasks, %d phases (%d listed); want %s, 2/7, 3", rep.RunID, rep.CompletedTasks, rep.TotalTasks, rep.PhasesTotal, len(rep.Phases), run)
	}
	if rep.TaskStatus("1.2") != "completed" || rep.TaskBranch("1.1") != run+"-task-1-1-create-database-schema" || rep.Task("9.9") != nil {
		t.Errorf("report: 1.2 %s, 1.1 on %q, 9.9 %v", rep.TaskStatus("1.2"), rep.TaskBranch("1.1"), rep.Task("9.9"))
	}
	claimed := false
	for _, ph := range rep.Phases {
		for _, tk := range ph.Tasks {
			claimed = claimed || tk.Claim != nil && tk.Claim.Holder == "agent-a" && tk.Claim.Expires.After(time.Now())
		}
	}
	if !claimed {
		t.Error("report: no task held by agent-a")
	}
	dirty := false
	for _, w := range rep.Worktrees {
		dirty = dirty || w.Task == "2.1" && w.Stale && w.Staged > 0 && w.Unstaged > 0 && w.Untracked > 0
	}
	if !dirty || len(rep.StaleWorktrees) == 0 || rep.CleanCommand == "" {
		t.Errorf("report: worktrees %+v, stale %v, clean command %q; want 2.1 stale and dirty", rep.Worktrees, rep.StaleWorktrees, rep.CleanCommand)
	}

	var res testbin.CleanResult
	testbin.DecodeJSON(t, clean, &res)
	saves := res.Find("save_worktree", "")
	if res.RunID != run || res.DryRun || res.Stamp == "" || !strings.HasPrefix(res.Backup, "refs/taskclean/"+run+"/") || len(saves) == 0 {
		t.Fatalf("clean: %+v\n%s", res, res.String())
	}
	if a := saves[0]; a.Ref == "" || a.Commit == "" || a.Command == "" || !strings.Contains(a.Raw, `"action"`) {
		t.Errorf("clean: save %+v", a)
	}
	if len(res.Ops()) != len(res.Actions) || !strings.Contains(res.String(), "save_worktree") {
		t.Errorf("clean: ops %v, printed %s", res.Ops(), res.String())
	}
}

// unprinted lists the JSON names of typ's fields (and theirs, below them)
// that none of the objects in vals has; at is where vals are.
func unprinted(typ reflect.Type, vals []any, at string) []string {
	for typ.Kind() == reflect.Pointer || typ.Kind() == reflect.Slice {
		if typ.Kind() == reflect.Slice {
			var elems []any
			for _, v := range vals {
				if a, ok := v.([]any); ok {
					elems = append(elems, a...)
				}
			}
			vals, at = elems, at+"[]"
		}
		typ = typ.Elem()
	}
	if typ.Kind() != reflect.Struct || typ == reflect.TypeOf(time.Time{}) {
		return nil
	}
	var out []string
	for i := 0; i < typ.NumField(); i++ {
		f := typ.Field(i)
		tag := f.Tag.Get("json")
		name, _, _ := strings.Cut(tag, ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		if name == "" {
			out = append(out, at+"."+f.Name+" (no json tag)")
			continue
		}
		var sub []any
		found := false
		for _, v := range vals {
			if o, ok := v.(map[string]any); ok {
				if x, ok := o[name]; ok {
					found = true
					sub = append(sub, x)
				}
			}
		}
		if !found {
			out = append(out, at+"."+name)
			continue
		}
		out = append(out, unprinted(f.Type, sub, at+"."+name)...)
	}
	return out
}

// A misspelt field is caught.
func TestUnprintedCatchesMisspelling(t *testing.T) {
	type task struct {
		ID    string `json:"id"`
		Sttus string `json:"sttus"`
	}
	type doc struct {
		Tasks []*task `json:"tasks"`
		Run   string
	}
	var v any
	if err := json.Unmarshal([]byte(`{"tasks": [{"id": "1.1", "status": "completed"}], "Run": "x"}`), &v); err != nil {
		t.Fatal(err)
	}
	got := strings.Join(unprinted(reflect.TypeOf(doc{}), []any{v}, ""), ", ")
	if got != ".tasks[].sttus, .Run (no json tag)" {
		t.Errorf("unprinted: %s", got)
	}
}
