package agree

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/taskresume/git-taskresume/internal/testbin"
)

func TestMain(m *testing.M) { os.Exit(testbin.Main(m, testbin.Options{})) }

const run = "x1y2z3"

// answer is what every mode said of one state.
type answer struct {
	rep      *testbin.Report
	kinds    []string // the report's problem kinds
	gateCode int      // --exit-code
	nextCode int      // --next
	next     []string
	cleanOK  bool // the plain clean's dry run answered
	stale    []string
}

// taskLine is a task's line in the human report: its id and status.
var taskLine = regexp.MustCompile(`^\s+(?:-> )?\s*(\S+)\s+(landed|completed|interrupted|empty|pending)\s`)

// ask runs every mode in dir on run and checks that they agree: the human
// report and --json give each task the same status; --exit-code is 0 for
// a complete run and 1 for another, or 2 with a problem in the report
// that says why; --next prints the resume tasks, or exits 2 with such a
// problem; --list gives the run the report's status, counts and remote; a
// plain clean's dry run removes exactly the report's stale worktrees, or
// refuses with such a problem.
func ask(t *testing.T, dir string) answer {
	t.Helper()
	var a answer
	a.rep = testbin.ReadReport(t, dir, run)
	for _, p := range a.rep.Problems {
		a.kinds = append(a.kinds, p.Kind)
	}
	refusal := slices.Contains(a.kinds, "remote_ambiguous") || slices.Contains(a.kinds, "remote_branches_unread")

	human := testbin.Must(t, testbin.Taskresume(dir, nil, run))
	seen := map[string]string{}
	for _, line := range strings.Split(human.Stdout, "\n") {
		if m := taskLine.FindStringSubmatch(line); m != nil {
			seen[m[1]] = m[2]
		}
	}
	for _, ph := range a.rep.Phases {
		for _, tk := range ph.Tasks {
			if seen[tk.ID] != tk.Status {
				t.Errorf("%s: task %s is %s in --json, %q in the report:\n%s", dir, tk.ID, tk.Status, seen[tk.ID], human.Stdout)
			}
		}
	}

	gate := testbin.Taskresume(dir, nil, run, "--exit-code")
	a.gateCode = gate.Code
	switch {
	case gate.Code == 0 && a.rep.Status == "completed", gate.Code == 1 && a.rep.Status != "completed":
	case gate.Code == 2 && refusal && strings.HasPrefix(gate.Stderr, "error: --exit-code: "):
	default:
		t.Errorf("%s: --exit-code exits %d on a %s run (problems %v)\n%s", dir, gate.Code, a.rep.Status, a.kinds, gate)
	}

	next := testbin.Taskresume(dir, nil, run, "--next")
	a.nextCode = next.Code
	var want []string
	if a.rep.Resume != nil {
		want = a.rep.Resume.Tasks
	}
	a.next = strings.Fields(next.Stdout)
	switch {
	case next.Code == 0 && slices.Equal(a.next, want):
	case next.Code == 2 && refusal && next.Stdout == "":
	default:
		t.Errorf("%s: --next exits %d printing %q; the report resumes at %q (problems %v)\n%s", dir, next.Code, a.next, want, a.kinds, next)
	}

	var list struct {
		Runs []struct {
			RunID          string `json:"run_id"`
			Status         string `json:"status"`
			CompletedTasks int    `json:"completed_tasks"`
			RemoteRead     *struct {
				Name string `json:"name"`
			} `json:"remote_read"`
		} `json:"runs"`
	}
	testbin.DecodeJSON(t, testbin.Must(t, testbin.Taskresume(dir, nil, "--list", "--json")), &list)
	found := false
	for _, e := range list.Runs {
		if e.RunID != run {
			continue
		}
		found = true
		remote, listed := "", ""
		if a.rep.RemoteRead != nil {
			remote = a.rep.RemoteRead.Name
		}
		if e.RemoteRead != nil {
			listed = e.RemoteRead.Name
		}
		if e.Status != a.rep.Status || e.CompletedTasks != a.rep.CompletedTasks || listed != remote {
			t.Errorf("%s: --list says %s, %d done, read from %q; the report %s, %d, %q", dir, e.Status, e.CompletedTasks, listed, a.rep.Status, a.rep.CompletedTasks, remote)
		}
	}
	if !found {
		t.Errorf("%s: --list does not list run %s: %+v", dir, run, list.Runs)
	}

	dry := testbin.Taskclean(dir, nil, "--run", run, "--dry-run", "--json")
	switch {
	case dry.Code == 0:
		a.cleanOK = true
		var res testbin.CleanResult
		testbin.DecodeJSON(t, dry, &res)
		for _, act := range res.Find("remove_worktree", "") {
			a.stale = append(a.stale, act.Path)
		}
		got, wantStale := canon(a.stale), canon(a.rep.StaleWorktrees)
		if !slices.Equal(got, wantStale) {
			t.Errorf("%s: the clean would remove %q; the report calls %q stale", dir, got, wantStale)
		}
	case dry.Code == 2 && (slices.Contains(a.kinds, "remote_ambiguous") || a.rep.RemoteRead == nil && slices.Contains(a.kinds, "remote_branches_unread")):
	default:
		t.Errorf("%s: the clean's dry run exits %d (problems %v)\n%s", dir, dry.Code, a.kinds, dry)
	}
	return a
}

func canon(paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			p = r
		}
		out[i] = p
	}
	sort.Strings(out)
	return out
}

// statuses are the tasks' statuses, "id=status" in plan order.
func statuses(r *testbin.Report) string {
	var s []string
	for _, ph := range r.Phases {
		for _, tk := range ph.Tasks {
			s = append(s, tk.ID+"="+tk.Status)
		}
	}
	return strings.Join(s, " ")
}

func remoteName(r *testbin.Report) string {
	if r.RemoteRead == nil {
		return ""
	}
	return r.RemoteRead.Name
}

// world is an origin holding run x1y2z3 with phase 1 and task 2.1 done,
// pushed from the machine that ran it (src); older.git holds the run as it
// was before 2.1.
type world struct{ dir, src, origin, older string }

func newWorld(t *testing.T) world {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	w := world{dir: dir, origin: filepath.Join(dir, "origin.git"), older: filepath.Join(dir, "older.git")}
	w.src = testbin.NewRun(t, filepath.Join(dir, "src"), run)
	b11 := testbin.Finish(t, w.src, run, "1.1", "create-database-schema", run+"-main")
	b12 := testbin.Finish(t, w.src, run, "1.2", "install-dependencies", b11)
	testbin.Git(t, dir, "clone", "-q", "--bare", w.src, w.older)
	testbin.Finish(t, w.src, run, "2.1", "user-service", b12)
	testbin.Git(t, dir, "clone", "-q", "--bare", w.src, w.origin)
	testbin.Git(t, w.src, "remote", "add", "origin", w.origin)
	testbin.Git(t, w.src, "fetch", "-q", "origin")
	return w
}

func (w world) clone(t *testing.T, name string) string {
	t.Helper()
	d := filepath.Join(w.dir, name)
	testbin.Git(t, w.dir, "clone", "-q", w.origin, d)
	return d
}

// A fresh clone answers as the machine that ran the run: the same
// statuses, read from origin without the network.
func TestFreshCloneAnswersAsTheRun(t *testing.T) {
	w := newWorld(t)
	at := ask(t, w.src)
	ci := w.clone(t, "ci")
	if out := testbin.Git(t, ci, "for-each-ref", "--format=%(refname)", "refs/heads/"); out != "refs/heads/main" {
		t.Fatalf("the clone has local branches: %q", out)
	}
	in := ask(t, ci)
	for _, a := range []answer{at, in} {
		if got := statuses(a.rep); got != "1.1=completed 1.2=completed 2.1=completed 2.2=pending 2.3=pending 3.1=pending 3.2=pending" {
			t.Errorf("statuses %s", got)
		}
	}
	if remoteName(in.rep) != "origin" || in.rep.RemoteRead.Source != "implicit" || in.rep.RemoteRead.Live {
		t.Errorf("the clone read %+v, want origin, implicit, not live", in.rep.RemoteRead)
	}
	if in.rep.RemoteRead == nil || in.rep.RemoteRead.FetchedAt == nil {
		t.Errorf("a clone knows when it fetched: %+v", in.rep.RemoteRead)
	}
	if in.gateCode != 1 || !slices.Equal(in.next, []string{"2.2", "2.3"}) {
		t.Errorf("the clone gates %d and offers %q", in.gateCode, in.next)
	}
	// --claim hands out work on the remote: it must be named.
	r := testbin.Taskresume(ci, nil, run, "--claim", "--as", "a")
	if r.Code != 2 || !strings.Contains(r.Stderr, "pass --remote origin") || r.Stdout != "" {
		t.Errorf("--claim without --remote in a clone: %s", r)
	}
	if out := testbin.Git(t, ci, "for-each-ref", "refs/taskclaims/"); out != "" {
		t.Errorf("a refused claim wrote %q", out)
	}
	if r := testbin.Taskresume(ci, nil, run, "--claim", "--as", "a", "--remote", "origin"); r.Code != 0 || r.Stdout != "2.2\n" {
		t.Errorf("--claim --remote origin: %s", r)
	}
}

// Local branches and remote copies that differ: a local branch ahead
// counts, one behind gives way to its copy, a branch only the remote has
// counts; and a crashed worktree is stale for the report and the clean
// alike.
func TestLocalAndRemoteDiffer(t *testing.T) {
	w := newWorld(t)
	// Another machine continues 2.1 and finishes 2.2, and pushes.
	b := w.clone(t, "b")
	testbin.Git(t, b, "branch", run+"-task-2-1-user-service", "origin/"+run+"-task-2-1-user-service")
	testbin.Finish(t, b, run, "2.2", "product-service", "origin/"+run+"-task-1-2-install-dependencies")
	more := testbin.Finish(t, b, run, "9.9", "scratch", run+"-task-2-1-user-service")
	testbin.Git(t, b, "branch", "-f", run+"-task-2-1-user-service", more)
	testbin.Git(t, b, "branch", "-D", run+"-task-9-9-scratch")
	testbin.Git(t, b, "push", "-q", "origin", run+"-task-2-1-user-service", run+"-task-2-2-product-service")
	// Here: fetched, 2.3 finished locally and not pushed, and 3.1's
	// attempt crashed with a file written.
	testbin.Git(t, w.src, "fetch", "-q", "origin")
	testbin.Finish(t, w.src, run, "2.3", "order-service", run+"-task-1-2-install-dependencies")
	wt := filepath.Join(w.src, ".worktrees", run+"-task-3-1-api-integration-tests")
	testbin.Git(t, w.src, "worktree", "add", "-q", "-b", run+"-task-3-1-api-integration-tests", wt, run+"-task-2-3-order-service")
	testbin.WriteFile(t, filepath.Join(wt, "half.txt"), "half done\n")

	a := ask(t, w.src)
	if got := statuses(a.rep); got != "1.1=completed 1.2=completed 2.1=completed 2.2=completed 2.3=completed 3.1=empty 3.2=pending" {
		t.Errorf("statuses %s", got)
	}
	if remoteName(a.rep) != "origin" {
		t.Errorf("read %+v, want origin", a.rep.RemoteRead)
	}
	if t21 := a.rep.Task("2.1"); t21 == nil || t21.Commit == nil || !strings.HasPrefix(testbin.Git(t, w.src, "rev-parse", "origin/"+run+"-task-2-1-user-service"), *t21.Commit) {
		t.Errorf("2.1 behind its copy does not read the copy: %+v", t21)
	}
	if len(a.stale) != 1 || !a.cleanOK {
		t.Errorf("the crashed 3.1 worktree is stale for the clean: %q", a.stale)
	}
	// The clone reads the same tasks the remote has: 2.3 is only here.
	c := ask(t, w.clone(t, "c"))
	if got := statuses(c.rep); got != "1.1=completed 1.2=completed 2.1=completed 2.2=completed 2.3=pending 3.1=pending 3.2=pending" {
		t.Errorf("clone statuses %s", got)
	}
}

// Several remotes: equal copies count as one; copies that differ and no
// setting: none is read, the report says so and the answers that hand
// out work refuse; checkout.defaultRemote then chooses, and every mode
// follows it.
func TestSeveralRemotes(t *testing.T) {
	w := newWorld(t)
	ci := w.clone(t, "ci")
	testbin.Git(t, ci, "remote", "add", "mirror", w.origin)
	testbin.Git(t, ci, "fetch", "-q", "mirror")
	a := ask(t, ci)
	if remoteName(a.rep) != "origin" || statuses(a.rep) != "1.1=completed 1.2=completed 2.1=completed 2.2=pending 2.3=pending 3.1=pending 3.2=pending" {
		t.Errorf("equal copies: read %+v, %s", a.rep.RemoteRead, statuses(a.rep))
	}

	testbin.Git(t, ci, "remote", "add", "backup", w.older)
	testbin.Git(t, ci, "fetch", "-q", "backup")
	a = ask(t, ci)
	if a.rep.RemoteRead != nil || !slices.Contains(a.kinds, "remote_ambiguous") {
		t.Errorf("differing copies: read %+v, problems %v", a.rep.RemoteRead, a.kinds)
	}
	if a.gateCode != 2 || a.nextCode != 2 || a.cleanOK {
		t.Errorf("differing copies: --exit-code %d, --next %d, clean answered %v; want 2, 2, refused", a.gateCode, a.nextCode, a.cleanOK)
	}
	if r := testbin.Must(t, testbin.Taskresume(ci, nil, "--list")); !regexp.MustCompile(`(?m)^x1y2z3 .*  remotes differ: none read \(remote_ambiguous\)$`).MatchString(r.Stdout) {
		t.Errorf("--list does not say the remotes differ:\n%s", r.Stdout)
	}
	// A named task is still cleaned: it does not depend on the verdicts.
	if r := testbin.Taskclean(ci, nil, "--run", run, "--dry-run", "--task", "2.1"); r.Code != 0 {
		t.Errorf("--task on an ambiguous reading: %s", r)
	}

	testbin.Git(t, ci, "config", "checkout.defaultRemote", "backup")
	a = ask(t, ci)
	if remoteName(a.rep) != "backup" || a.rep.RemoteRead.Source != "default_remote" || statuses(a.rep) != "1.1=completed 1.2=completed 2.1=pending 2.2=pending 2.3=pending 3.1=pending 3.2=pending" {
		t.Errorf("checkout.defaultRemote backup: read %+v, %s", a.rep.RemoteRead, statuses(a.rep))
	}
	testbin.Git(t, ci, "config", "checkout.defaultRemote", "nowhere")
	if a = ask(t, ci); !slices.Contains(a.kinds, "remote_ambiguous") {
		t.Errorf("a checkout.defaultRemote that holds no branch of the run decides nothing: %v", a.kinds)
	}
	testbin.Git(t, ci, "config", "taskresume.remote", "origin")
	a = ask(t, ci)
	if remoteName(a.rep) != "origin" || a.rep.RemoteRead.Source != "config" {
		t.Errorf("taskresume.remote origin: read %+v", a.rep.RemoteRead)
	}
}

// A remote whose name holds a "/" is never read: never a silent "not
// started", and no gate passes or fails on it.
func TestSlashedRemote(t *testing.T) {
	w := newWorld(t)
	ci := w.clone(t, "ci")
	testbin.Git(t, ci, "remote", "rename", "origin", "team/origin")
	// A retry of 2.1 (done on the remote) left a worktree: whether it is
	// stale depends on the branches the remote holds.
	wt := filepath.Join(ci, ".worktrees", run+"-task-2-1")
	testbin.Git(t, ci, "worktree", "add", "-q", "--detach", wt, "team/origin/"+run+"-task-1-2-install-dependencies")
	testbin.WriteFile(t, filepath.Join(wt, "retry.txt"), "retry\n")
	a := ask(t, ci)
	if a.rep.RemoteRead != nil || !slices.Contains(a.kinds, "remote_branches_unread") {
		t.Errorf("read %+v, problems %v", a.rep.RemoteRead, a.kinds)
	}
	for _, p := range a.rep.Problems {
		if p.Kind == "remote_branches_unread" && !strings.Contains(p.Message, "git remote rename team/origin team-origin") {
			t.Errorf("the problem does not say how to read them: %s", p.Message)
		}
	}
	if a.gateCode != 2 || a.nextCode != 2 || a.cleanOK {
		t.Errorf("--exit-code %d, --next %d, clean answered %v; want 2, 2, refused", a.gateCode, a.nextCode, a.cleanOK)
	}
	if !testbin.Exists(filepath.Join(wt, "retry.txt")) {
		t.Error("the retry's worktree is gone")
	}
	if r := testbin.Taskresume(ci, nil, run, "--claim", "--as", "a"); r.Code != 2 || !strings.Contains(r.Stderr, "git remote rename team/origin team-origin") {
		t.Errorf("--claim with the run on a remote never read: %s", r)
	}
	list := testbin.Must(t, testbin.Taskresume(ci, nil, "--list"))
	if !strings.Contains(list.Stdout, "branches on remotes not read (remote_branches_unread)") {
		t.Errorf("--list does not say the run's branches are not read:\n%s", list.Stdout)
	}
}

// The machine that ran the run, beside an older mirror: the mirror's
// copies are behind the local branches (never read: local wins), so it
// reads as origin does, and a complete run passes the gate. A clone with
// the same two remotes and no local branch cannot tell: they differ.
func TestOlderMirrorBesideTheLocalBranches(t *testing.T) {
	w := newWorld(t)
	testbin.Git(t, w.src, "remote", "add", "backup", w.older)
	testbin.Git(t, w.src, "fetch", "-q", "backup")
	// 1.2 gets a review fix after the mirror was taken, pushed to origin.
	b12 := run + "-task-1-2-install-dependencies"
	fix := testbin.Finish(t, w.src, run, "9.9", "fix", b12)
	testbin.Git(t, w.src, "branch", "-f", b12, fix)
	testbin.Git(t, w.src, "branch", "-D", fix)
	b21 := testbin.Finish(t, w.src, run, "2.1", "user-service-again", b12)
	testbin.Git(t, w.src, "branch", "-D", run+"-task-2-1-user-service")
	testbin.Git(t, w.src, "branch", "-m", b21, run+"-task-2-1-user-service")
	for _, id := range []string{"2.2", "2.3", "3.1", "3.2"} {
		testbin.Finish(t, w.src, run, id, "t"+strings.ReplaceAll(id, ".", ""), run+"-task-2-1-user-service")
	}
	testbin.Git(t, w.src, "push", "-q", "-f", "origin", "refs/heads/"+run+"-*:refs/heads/"+run+"-*")
	testbin.Git(t, w.src, "fetch", "-q", "origin")

	a := ask(t, w.src)
	if remoteName(a.rep) != "origin" || slices.Contains(a.kinds, "remote_ambiguous") || a.rep.Status != "completed" || a.gateCode != 0 || !a.cleanOK {
		t.Errorf("the machine that ran the run: read %+v, problems %v, %s, gate %d, clean answered %v", a.rep.RemoteRead, a.kinds, a.rep.Status, a.gateCode, a.cleanOK)
	}

	// Named otherwise, the remote this machine pushes to still wins over
	// the stale mirror (not the first by name).
	testbin.Git(t, w.src, "remote", "rename", "origin", "upstream")
	if a := ask(t, w.src); remoteName(a.rep) != "upstream" || a.gateCode != 0 {
		t.Errorf("upstream beside a stale backup: read %+v, gate %d", a.rep.RemoteRead, a.gateCode)
	}

	ci := w.clone(t, "ci")
	testbin.Git(t, ci, "remote", "add", "backup", w.older)
	testbin.Git(t, ci, "fetch", "-q", "backup")
	if c := ask(t, ci); !slices.Contains(c.kinds, "remote_ambiguous") || c.gateCode != 2 {
		t.Errorf("a clone with both remotes: problems %v, gate %d; want remote_ambiguous, 2", c.kinds, c.gateCode)
	}
}

// A mirror in sync with the local branches holds nothing they lack: when
// another machine pushes a task to origin, the run is read from origin,
// not called ambiguous.
func TestInSyncMirrorDefers(t *testing.T) {
	w := newWorld(t)
	mirror := filepath.Join(w.dir, "mirror.git")
	testbin.Git(t, w.dir, "clone", "-q", "--bare", w.src, mirror)
	testbin.Git(t, w.src, "remote", "add", "mirror", mirror)
	testbin.Git(t, w.src, "fetch", "-q", "mirror")
	b := w.clone(t, "b")
	testbin.Finish(t, b, run, "2.2", "product-service", "origin/"+run+"-task-1-2-install-dependencies")
	testbin.Git(t, b, "push", "-q", "origin", run+"-task-2-2-product-service")
	testbin.Git(t, w.src, "fetch", "-q", "origin")
	a := ask(t, w.src)
	if remoteName(a.rep) != "origin" || slices.Contains(a.kinds, "remote_ambiguous") || a.rep.TaskStatus("2.2") != "completed" {
		t.Errorf("read %+v, problems %v, 2.2 %s", a.rep.RemoteRead, a.kinds, a.rep.TaskStatus("2.2"))
	}
	if c := ask(t, w.clone(t, "c")); !slices.Equal(c.next, a.next) {
		t.Errorf("a clone offers %q, the machine that ran the run %q", c.next, a.next)
	}
}
