package claims_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/taskresume/git-taskresume/internal/testbin"
)

const run = "x1y2z3"

func TestMain(m *testing.M) { os.Exit(testbin.Main(m, testbin.Options{})) }

// phase2Ready makes a repository where phase 1 is done, so 2.1, 2.2 and 2.3
// are runnable at once.
func phase2Ready(t *testing.T, dir string) string {
	repo := testbin.NewRun(t, dir, run)
	b := testbin.Finish(t, repo, run, "1.1", "create-database-schema", run+"-main")
	testbin.Finish(t, repo, run, "1.2", "install-dependencies", b)
	return repo
}

type outcome struct {
	id   string
	code int
	err  string
}

// race starts n claimers at once (each its own process, through git) and
// returns their outcomes.
func race(t *testing.T, dirs []string, n int, extra ...string) []outcome {
	t.Helper()
	cmds := make([]*exec.Cmd, n)
	outs := make([]*strings.Builder, n)
	errs := make([]*strings.Builder, n)
	for i := range cmds {
		args := append([]string{"taskresume", run, "--claim", "--as", fmt.Sprintf("agent%d", i)}, extra...)
		cmds[i] = exec.Command("git", args...)
		cmds[i].Dir = dirs[i%len(dirs)]
		outs[i], errs[i] = &strings.Builder{}, &strings.Builder{}
		cmds[i].Stdout, cmds[i].Stderr = outs[i], errs[i]
	}
	var wg sync.WaitGroup
	start := make(chan struct{})
	for _, c := range cmds {
		wg.Add(1)
		go func(c *exec.Cmd) {
			defer wg.Done()
			<-start
			c.Run()
		}(c)
	}
	close(start)
	wg.Wait()
	res := make([]outcome, n)
	for i, c := range cmds {
		res[i] = outcome{id: strings.TrimSpace(outs[i].String()), code: c.ProcessState.ExitCode(), err: errs[i].String()}
	}
	return res
}

// winners checks the race: exactly want processes exit 0 with distinct
// task ids; every other exits 1 saying nothing is free.
func winners(t *testing.T, res []outcome, want int) []string {
	t.Helper()
	var ids []string
	seen := map[string]bool{}
	for _, o := range res {
		switch o.code {
		case 0:
			if seen[o.id] {
				t.Errorf("task %s claimed twice", o.id)
			}
			seen[o.id] = true
			ids = append(ids, o.id)
		case 1:
			if !strings.Contains(o.err, "no runnable task") {
				t.Errorf("loser exit 1 without the message: %q", o.err)
			}
		default:
			t.Errorf("claimer exit %d: %s", o.code, o.err)
		}
	}
	if len(ids) != want {
		t.Errorf("%d winners %v, want %d", len(ids), ids, want)
	}
	sort.Strings(ids)
	return ids
}

func TestSixteenClaimersThreeTasks(t *testing.T) {
	repo := phase2Ready(t, filepath.Join(t.TempDir(), "repo"))
	for round := 0; round < 5; round++ {
		ids := winners(t, race(t, []string{repo}, 16), 3)
		if strings.Join(ids, " ") != "2.1 2.2 2.3" {
			t.Fatalf("round %d: winners took %v, want 2.1 2.2 2.3", round, ids)
		}
		// Each claim is written under both spellings of its task's id.
		refs := testbin.Git(t, repo, "for-each-ref", "--format=%(refname)", "refs/taskclaims/"+run+"/")
		if len(strings.Fields(refs)) != 6 {
			t.Fatalf("round %d: claim refs %q", round, refs)
		}
		for _, id := range ids {
			testbin.Git(t, repo, "update-ref", "-d", "refs/taskclaims/"+run+"/"+id)
			testbin.Git(t, repo, "update-ref", "-d", "refs/taskclaims/"+run+"/"+strings.ReplaceAll(id, ".", "-"))
		}
	}
}

func TestTwoClonesRaceThroughRemote(t *testing.T) {
	tmp := t.TempDir()
	src := phase2Ready(t, filepath.Join(tmp, "src"))
	origin := filepath.Join(tmp, "origin.git")
	testbin.Git(t, "", "clone", "-q", "--bare", src, origin)
	a, b := filepath.Join(tmp, "a"), filepath.Join(tmp, "b")
	testbin.Git(t, "", "clone", "-q", origin, a)
	testbin.Git(t, "", "clone", "-q", origin, b)
	for round := 0; round < 3; round++ {
		res := race(t, []string{a, b}, 8, "--remote", "origin")
		ids := winners(t, res, 3)
		if strings.Join(ids, " ") != "2.1 2.2 2.3" {
			t.Fatalf("round %d: winners %v", round, ids)
		}
		remote := testbin.Git(t, origin, "for-each-ref", "--format=%(refname)", "refs/taskclaims/")
		if len(strings.Fields(remote)) != 6 {
			t.Fatalf("round %d: origin holds claims %q, want 3 under two spellings each", round, remote)
		}
		for _, id := range ids {
			testbin.Git(t, origin, "update-ref", "-d", "refs/taskclaims/"+run+"/"+id)
			testbin.Git(t, origin, "update-ref", "-d", "refs/taskclaims/"+run+"/"+strings.ReplaceAll(id, ".", "-"))
		}
	}
}

// TestSpellingsRaceThroughRemote: half the claimers read a plan that
// spells phase 2's ids 2-1, 2-2, 2-3, the other half one that spells them
// 2.1, 2.2, 2.3. One task is one claim whichever spelling takes it: three
// winners, three distinct tasks, every round.
func TestSpellingsRaceThroughRemote(t *testing.T) { spellingsRace(t, true) }

// TestSpellingsRaceWithoutAtomicPush: a remote that refuses atomic pushes
// gets the spellings one at a time, the first moved back when the second
// fails. Two racers may then both give a task back (fewer winners), but
// never hold one task both.
func TestSpellingsRaceWithoutAtomicPush(t *testing.T) { spellingsRace(t, false) }

func spellingsRace(t *testing.T, atomic bool) {
	tmp := t.TempDir()
	src := phase2Ready(t, filepath.Join(tmp, "src"))
	origin := filepath.Join(tmp, "origin.git")
	testbin.Git(t, "", "clone", "-q", "--bare", src, origin)
	if !atomic {
		testbin.Git(t, origin, "config", "receive.advertiseAtomic", "false")
	}
	a, b := filepath.Join(tmp, "a"), filepath.Join(tmp, "b")
	testbin.Git(t, "", "clone", "-q", origin, a)
	testbin.Git(t, "", "clone", "-q", origin, b)
	plan := filepath.Join(a, "specs", run, "plan.md")
	text, err := os.ReadFile(plan)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"2.1", "2.2", "2.3"} {
		text = []byte(strings.ReplaceAll(string(text), "Task "+id+":", "Task "+strings.ReplaceAll(id, ".", "-")+":"))
	}
	testbin.WriteFile(t, plan, string(text))
	testbin.Git(t, a, "commit", "-q", "-am", "Respell phase 2")
	for round := 0; round < 5; round++ {
		res := race(t, []string{a, b}, 8, "--remote", "origin")
		for i := range res {
			res[i].id = strings.ReplaceAll(res[i].id, "-", ".")
		}
		want := 3
		if !atomic {
			want = 0
			for _, o := range res {
				if o.code == 0 {
					want++
				}
			}
		}
		ids := winners(t, res, want)
		if atomic && strings.Join(ids, " ") != "2.1 2.2 2.3" {
			t.Fatalf("round %d: winners %v", round, ids)
		}
		refs := testbin.Git(t, origin, "for-each-ref", "--format=delete %(refname)", "refs/taskclaims/")
		if len(ids) == 0 {
			continue
		}
		if n := strings.Count(refs, "\n") + 1; n != 2*len(ids) {
			t.Fatalf("round %d: origin holds %d claim refs, want 3 tasks under two spellings each:\n%s", round, n, refs)
		}
		testbin.GitStdin(t, origin, refs+"\n", "update-ref", "--stdin")
	}
}

// report is the tasks of the run's report, by id.
func report(t *testing.T, repo string) map[string]testbin.Task {
	t.Helper()
	m := map[string]testbin.Task{}
	for _, p := range testbin.ReadReport(t, repo, run).Phases {
		for _, tk := range p.Tasks {
			m[tk.ID] = tk
		}
	}
	return m
}

func TestExpiryAndTakeover(t *testing.T) {
	repo := phase2Ready(t, filepath.Join(t.TempDir(), "repo"))
	if got := testbin.Git(t, repo, "taskresume", run, "--claim", "--as", "old", "--ttl", "3s"); got != "2.1" {
		t.Fatalf("first claim took %q", got)
	}
	if got := testbin.Git(t, repo, "taskresume", run, "--claim", "--as", "other"); got != "2.2" {
		t.Fatalf("second claim took %q, want 2.2 while 2.1 is held", got)
	}
	time.Sleep(3500 * time.Millisecond)
	if tk := report(t, repo)["2.1"]; tk.Claim == nil || !tk.Claim.Expired {
		t.Fatalf("2.1 claim should read expired: %+v", tk.Claim)
	}
	// Two takers race for the expired claim: one gets 2.1, the other 2.3.
	ids := winners(t, race(t, []string{repo}, 2), 2)
	if strings.Join(ids, " ") != "2.1 2.3" {
		t.Fatalf("takers got %v, want 2.1 and 2.3", ids)
	}
	if tk := report(t, repo)["2.1"]; tk.Claim == nil || tk.Claim.Holder == "old" || tk.Claim.Expired {
		t.Fatalf("2.1 not taken over: %+v", tk.Claim)
	}
}

func TestRenewAndRelease(t *testing.T) {
	repo := phase2Ready(t, filepath.Join(t.TempDir(), "repo"))
	testbin.Git(t, repo, "taskresume", run, "--claim", "--as", "me", "--ttl", "1m")
	before := report(t, repo)["2.1"].Claim.Expires
	refsBefore := testbin.Git(t, repo, "for-each-ref")

	r := testbin.Run(repo, nil, "git", "taskresume", run, "--renew", "2.1", "--as", "intruder")
	if r.Code != 2 || !strings.HasPrefix(r.Stderr, "error: ") || strings.Count(r.Stderr, "\n") != 1 || !strings.Contains(r.Stderr, "claimed by me") {
		t.Fatalf("renew by a non-holder: exit %d, stderr %q", r.Code, r.Stderr)
	}
	if r := testbin.Run(repo, nil, "git", "taskresume", run, "--release", "2.1", "--as", "intruder"); r.Code != 2 {
		t.Fatalf("release by a non-holder: exit %d", r.Code)
	}
	if got := testbin.Git(t, repo, "for-each-ref"); got != refsBefore {
		t.Fatalf("refused calls changed refs")
	}

	testbin.Git(t, repo, "taskresume", run, "--renew", "2.1", "--as", "me", "--ttl", "2h")
	if after := report(t, repo)["2.1"].Claim.Expires; !after.After(before) {
		t.Fatalf("renew did not extend: %v -> %v", before, after)
	}
	if got := testbin.Git(t, repo, "taskresume", run, "--next"); got != "2.2\n2.3" {
		t.Fatalf("--next shows held tasks: %q", got)
	}
	if got := testbin.Git(t, repo, "taskresume", run, "--next", "--as", "me"); got != "2.1\n2.2\n2.3" {
		t.Fatalf("--next --as holder: %q", got)
	}
	testbin.Git(t, repo, "taskresume", run, "--release", "2.1", "--as", "me")
	if c := report(t, repo)["2.1"].Claim; c != nil {
		t.Fatalf("claim still there after release: %+v", c)
	}
}

func TestClaimNeverDecidesCompletion(t *testing.T) {
	repo := phase2Ready(t, filepath.Join(t.TempDir(), "repo"))
	testbin.Git(t, repo, "taskresume", run, "--claim", "--as", "me")
	if tk := report(t, repo)["2.1"]; tk.Status != "pending" || tk.Claim == nil {
		t.Fatalf("claimed 2.1: %+v", tk)
	}
	testbin.Finish(t, repo, run, "2.1", "user-service", run+"-task-1-2-install-dependencies")
	if tk := report(t, repo)["2.1"]; tk.Status != "completed" {
		t.Fatalf("2.1 with commits: %s", tk.Status)
	}
	// A live claim of a finished task stays through a clean: by the rule a
	// task is done at its first commit, while its holder may go on.
	if out := testbin.Git(t, repo, "taskclean", "--run", run); strings.Contains(out, "drop claim") {
		t.Fatalf("clean dropped a live claim of a finished task:\n%s", out)
	}
	// Once it expires, the next clean drops it, saved first.
	testbin.Git(t, repo, "taskresume", run, "--renew", "2.1", "--as", "me", "--ttl", "1s")
	time.Sleep(1100 * time.Millisecond)
	out := testbin.Git(t, repo, "taskclean", "--run", run)
	if !strings.Contains(out, "drop claim of task 2.1") {
		t.Fatalf("clean did not drop the finished task's expired claim:\n%s", out)
	}
	if refs := testbin.Git(t, repo, "for-each-ref", "refs/taskclaims/"); refs != "" {
		t.Fatalf("claims left: %s", refs)
	}
	if saved := testbin.Git(t, repo, "for-each-ref", "--format=%(refname)", "refs/taskclean/"); !strings.Contains(saved, "/claim/2.1") {
		t.Fatalf("claim not saved before removal: %q", saved)
	}
}
