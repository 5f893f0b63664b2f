package stress

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/taskresume/git-taskresume/internal/testbin"
)

// The claim loops: many resumers racing for the tasks of one run (on one
// machine, through a shared remote, over expired claims), and a clean racing
// the renewal of a claim that has just expired. Their setup is fixed; only
// the timing is left to chance.

// claimers is how many processes race in every round.
const claimers = 32

// claimPrefix is where the claims of the run live.
const claimPrefix = "refs/taskclaims/" + run + "/"

// noneFree is what a claimer that found every runnable task held says.
const noneFree = "no runnable task of run " + run + " is free"

// call is one git command of a race: where it runs, its arguments, how long
// after the common start it begins, and what it did.
type call struct {
	dir   string
	args  []string
	delay time.Duration
	res   testbin.Result
	took  time.Duration
}

// together starts every call at the same moment, each after its own delay,
// and waits for all of them.
func together(calls []*call) {
	var wg sync.WaitGroup
	start := make(chan struct{})
	for _, c := range calls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			if c.delay > 0 {
				time.Sleep(c.delay)
			}
			t0 := time.Now()
			c.res = testbin.Run(c.dir, nil, "git", c.args...)
			c.took = time.Since(t0)
		}()
	}
	close(start)
	wg.Wait()
}

// claimDir is a new temporary folder under its real path (git prints real
// paths; compare like with like).
func claimDir(t *testing.T) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// claimRepo makes at dir a repository of the seven-task run with phase 1
// done, so that the tasks of phase 2 are runnable at once: 2.1, 2.2 and 2.3,
// and with fourth also 2.4 (the plan then has one more task in phase 2,
// committed on main and <run>-main before phase 1's branches start).
func claimRepo(t *testing.T, dir string, fourth bool) string {
	t.Helper()
	repo := testbin.NewRun(t, dir, run)
	want := []string{"2.1", "2.2", "2.3"}
	if fourth {
		plan := testbin.SevenTaskPlan(run)
		next := "## Phase 3: Integration (Sequential)\n"
		if !strings.Contains(plan, next) {
			t.Fatalf("the seven-task plan has no line %q", next)
		}
		plan = strings.Replace(plan, next, "### Task 2.4: Payment service (M - 2h)\n\n"+next, 1)
		testbin.WriteFile(t, filepath.Join(repo, "specs", run, "plan.md"), plan)
		testbin.Git(t, repo, "commit", "-q", "-am", "Add task 2.4")
		testbin.Git(t, repo, "branch", "-f", run+"-main", "main")
		want = append(want, "2.4")
	}
	b := testbin.Finish(t, repo, run, "1.1", "create-database-schema", run+"-main")
	testbin.Finish(t, repo, run, "1.2", "install-dependencies", b)
	if got := testbin.Git(t, repo, "taskresume", run, "--next"); got != strings.Join(want, "\n") {
		t.Fatalf("runnable tasks %q, want %q", got, want)
	}
	return repo
}

// claimClones makes a bare origin (a clone of src) and n clones of it, all
// under dir. The clones see phase 1 done only through --remote origin.
func claimClones(t *testing.T, dir, src string, n int) (string, []string) {
	t.Helper()
	origin := filepath.Join(dir, "origin.git")
	testbin.Git(t, "", "clone", "-q", "--bare", src, origin)
	var clones []string
	for i := range n {
		c := filepath.Join(dir, fmt.Sprintf("clone%d", i))
		testbin.Git(t, "", "clone", "-q", origin, c)
		f, err := os.OpenFile(filepath.Join(c, ".git", "info", "exclude"), os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(".worktrees/\n")
		f.Close()
		clones = append(clones, c)
	}
	return origin, clones
}

// heldClaim is one claim ref as a repository holds it.
type heldClaim struct {
	commit, holder string
	expires        time.Time
	// refs are the spellings of the task's id that hold the claim;
	// split: another spelling holds another commit.
	refs  int
	split bool
}

// readClaims returns the claims of the run that dir holds, by dotted task
// id (by full ref name for a ref outside the run's folder). A claim is
// written under both spellings of its id ("2.1", "2-1") at one commit.
func readClaims(t *testing.T, dir string) map[string]heldClaim {
	t.Helper()
	out := testbin.Git(t, dir, "for-each-ref", "--format=%(refname)%00%(objectname)%00%(contents)%01", "refs/taskclaims/")
	m := map[string]heldClaim{}
	for _, rec := range strings.Split(out, "\x01") {
		rec = strings.TrimLeft(rec, "\n")
		if rec == "" {
			continue
		}
		f := strings.SplitN(rec, "\x00", 3)
		if len(f) != 3 {
			t.Fatalf("for-each-ref in %s: bad record %q", dir, rec)
		}
		c := heldClaim{commit: f[1]}
		for _, l := range strings.Split(f[2], "\n") {
			k, v, _ := strings.Cut(l, " ")
			switch k {
			case "holder":
				c.holder = v
			case "expires":
				c.expires, _ = time.Parse(time.RFC3339Nano, v)
			}
		}
		id, ok := strings.CutPrefix(f[0], claimPrefix)
		if !ok {
			id = f[0]
		} else {
			id = strings.ReplaceAll(id, "-", ".")
		}
		if o, seen := m[id]; seen {
			o.refs++
			o.split = o.split || o.commit != c.commit
			m[id] = o
			continue
		}
		c.refs = 1
		m[id] = c
	}
	return m
}

// clearClaims deletes every claim ref of each repository.
func clearClaims(t *testing.T, dirs ...string) {
	t.Helper()
	for _, d := range dirs {
		refs := testbin.Git(t, d, "for-each-ref", "--format=%(refname)", "refs/taskclaims/")
		for _, r := range strings.Fields(refs) {
			testbin.Git(t, d, "update-ref", "-d", r)
		}
	}
}

// raceClaims starts one claimer per name at once, spread over dirs, each
// with extra arguments.
func raceClaims(dirs, names []string, extra ...string) []*call {
	calls := make([]*call, len(names))
	for i, n := range names {
		args := append([]string{"taskresume", run, "--claim", "--as", n}, extra...)
		calls[i] = &call{dir: dirs[i%len(dirs)], args: args}
	}
	together(calls)
	return calls
}

func claimerNames(prefix string, n int) []string {
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("%s%d", prefix, i)
	}
	return names
}

var hexRun = regexp.MustCompile(`\b[0-9a-f]{7,64}\b`)

// errorKind is the first line of what a command printed on failure, with
// object ids and the test's folder left out, so that alike errors count as
// one kind.
func errorKind(stderr, tmp string) string {
	l, _, _ := strings.Cut(strings.TrimSpace(stderr), "\n")
	if tmp != "" {
		l = strings.ReplaceAll(l, tmp, "…")
	}
	l = hexRun.ReplaceAllString(l, "<oid>")
	if len(l) > 160 {
		l = l[:160] + "…"
	}
	return l
}

// kinds counts error kinds; its String lists the most frequent first.
type kinds map[string]int

func (k kinds) String() string {
	if len(k) == 0 {
		return "none"
	}
	ks := make([]string, 0, len(k))
	for s := range k {
		ks = append(ks, s)
	}
	sort.Slice(ks, func(i, j int) bool { return k[ks[i]] > k[ks[j]] || k[ks[i]] == k[ks[j]] && ks[i] < ks[j] })
	var out []string
	for i, s := range ks {
		if i == 4 {
			out = append(out, fmt.Sprintf("%d more kinds", len(ks)-i))
			break
		}
		out = append(out, fmt.Sprintf("%d× %q", k[s], s))
	}
	return strings.Join(out, ", ")
}

// claimTally sums the rounds of a claim race.
type claimTally struct {
	rounds, tries, winners, doubles, losers, silentLosers, errors int
	badRounds, orphans, unheld                                    int
	errKinds                                                      kinds
}

// judge checks one round: calls were made as names; exactly the tasks want
// must have been won, each by one process, every other process must have
// exited 1 saying nothing is free, and record (the claims afterwards, where
// they are the truth) must hold exactly want, each naming its winner.
func (s *claimTally) judge(calls []*call, names, want []string, record map[string]heldClaim, tmp string) []string {
	if s.errKinds == nil {
		s.errKinds = kinds{}
	}
	s.rounds++
	var problems []string
	wonBy := map[string][]string{}
	racer := map[string]bool{}
	// Failures of a kind are reported once a round, with who failed so.
	type failure struct {
		kind string
		who  []string
	}
	var fails []*failure
	byKind := map[string]*failure{}
	fail := func(kind, who string) {
		f := byKind[kind]
		if f == nil {
			f = &failure{kind: kind}
			byKind[kind] = f
			fails = append(fails, f)
		}
		f.who = append(f.who, who)
	}
	for i, c := range calls {
		s.tries++
		racer[names[i]] = true
		switch c.res.Code {
		case 0:
			id := strings.TrimSpace(c.res.Stdout)
			s.winners++
			wonBy[id] = append(wonBy[id], names[i])
		case 1:
			if strings.Contains(c.res.Stderr, noneFree) {
				s.losers++
			} else {
				s.silentLosers++
				fail(fmt.Sprintf("exit 1 without %q: %q", noneFree, errorKind(c.res.Stderr, tmp)), names[i])
			}
		default:
			s.errors++
			k := errorKind(c.res.Stderr, tmp)
			s.errKinds[k]++
			fail(fmt.Sprintf("error other than taken: exit %d: %s", c.res.Code, k), names[i])
		}
	}
	for _, f := range fails {
		who := f.who
		if len(who) > 3 {
			who = append(who[:3:3], "…")
		}
		problems = append(problems, fmt.Sprintf("%s (%d: %s)", f.kind, len(f.who), strings.Join(who, ", ")))
	}
	wantSet := map[string]bool{}
	for _, id := range want {
		wantSet[id] = true
	}
	var ids []string
	for id, ws := range wonBy {
		ids = append(ids, id)
		if len(ws) > 1 {
			s.doubles++
			problems = append(problems, fmt.Sprintf("double holder: task %q won by %v", id, ws))
		}
		if !wantSet[id] {
			problems = append(problems, fmt.Sprintf("wrong task: %v printed %q, want one of %v", ws, id, want))
		}
	}
	sort.Strings(ids)
	if strings.Join(ids, " ") != strings.Join(want, " ") {
		problems = append(problems, fmt.Sprintf("winners: tasks %v won, want each of %v once", ids, want))
	}
	bad := len(record) != len(want)
	if bad {
		var held []string
		for id, c := range record {
			held = append(held, id+" by "+c.holder)
		}
		sort.Strings(held)
		problems = append(problems, fmt.Sprintf("claim refs: %d (%s), want %d", len(record), strings.Join(held, ", "), len(want)))
	}
	now := time.Now()
	for _, id := range want {
		c, ok := record[id]
		switch {
		case !ok || !racer[c.holder]:
			s.unheld++
			bad = true
			problems = append(problems, fmt.Sprintf("not held by a racer: task %s is held by %q afterwards (held: %v), its winners were %v", id, c.holder, ok, wonBy[id]))
		case len(wonBy[id]) != 1 || c.holder != wonBy[id][0]:
			// Held on the record by a racer that was not told it won.
			s.orphans++
			bad = true
			problems = append(problems, fmt.Sprintf("orphan claim: task %s is held by %q, its winners were %v", id, c.holder, wonBy[id]))
		case !c.expires.After(now):
			bad = true
			problems = append(problems, fmt.Sprintf("expired claim: task %s, held by %s, expired %v", id, c.holder, c.expires))
		case c.split || strings.Contains(id, ".") && c.refs != 2:
			bad = true
			problems = append(problems, fmt.Sprintf("claim of task %s is under %d spellings (split between commits: %v), want both at one commit", id, c.refs, c.split))
		}
	}
	if bad {
		s.badRounds++
	}
	return problems
}

func (s *claimTally) String() string {
	return fmt.Sprintf("%d rounds, %d tries, %d winners, %d double holders, %d losers saying none is free (%d exit 1 without it), %d errors other than taken (%s); %d rounds with wrong claims afterwards (%d tasks not held by a racer, %d orphan claims: held by a racer not told it won)",
		s.rounds, s.tries, s.winners, s.doubles, s.losers, s.silentLosers, s.errors, s.errKinds, s.badRounds, s.unheld, s.orphans)
}

// TestClaimRaceOneMachine: 32 claimers with distinct names start at once in
// one repository where 2.1, 2.2 and 2.3 are runnable; exactly three win,
// each a different task, the others exit 1 saying nothing is free, and the
// repository then holds exactly the winners' three claims.
func TestClaimRaceOneMachine(t *testing.T) {
	t.Parallel()
	rounds := envCount(t, "STRESS_CLAIM_ROUNDS", 1)
	tmp := claimDir(t)
	repo := claimRepo(t, filepath.Join(tmp, "repo"), false)
	want := []string{"2.1", "2.2", "2.3"}
	var sum claimTally
	found := &findings{t: t}
	for r := range rounds {
		names := claimerNames(fmt.Sprintf("r%d-agent", r), claimers)
		calls := raceClaims([]string{repo}, names)
		found.add(fmt.Sprintf("round %d", r), sum.judge(calls, names, want, readClaims(t, repo), tmp))
		clearClaims(t, repo)
	}
	found.close(rounds)
	t.Logf("claim race (one machine, %d claimers a round) summary: %v", claimers, &sum)
}

// TestClaimRaceThreeClones: the same race through a shared bare origin, the
// claimers spread over three clones, all with --remote origin; the origin
// must hold exactly the winners' claims. A round through the origin costs
// about twice a round on one machine, hence its own count (one by default).
func TestClaimRaceThreeClones(t *testing.T) {
	t.Parallel()
	rounds := envCount(t, "STRESS_CLONE_ROUNDS", 1)
	tmp := claimDir(t)
	src := claimRepo(t, filepath.Join(tmp, "src"), false)
	origin, clones := claimClones(t, tmp, src, 3)
	want := []string{"2.1", "2.2", "2.3"}
	var sum claimTally
	found := &findings{t: t}
	for r := range rounds {
		names := claimerNames(fmt.Sprintf("r%d-agent", r), claimers)
		calls := raceClaims(clones, names, "--remote", "origin")
		found.add(fmt.Sprintf("round %d", r), sum.judge(calls, names, want, readClaims(t, origin), tmp))
		clearClaims(t, append([]string{origin}, clones...)...)
	}
	found.close(rounds)
	t.Logf("claim race (3 clones through origin, %d claimers a round) summary: %v", claimers, &sum)
}

// TestClaimTakeoverAfterExpiry: four holders claim 2.1 to 2.4 (the plan has
// a fourth task in phase 2, so that there are more claims to take over than
// the seven-task plan's three) through the origin and renew them with a
// short --ttl (see expireHolders); once all four claims have expired, 32
// takers over three clones race to take them over: exactly one new holder
// per task, every other taker exits 1 saying nothing is free, no other
// error, and the origin's claim of each task names its winner.
func TestClaimTakeoverAfterExpiry(t *testing.T) {
	t.Parallel()
	rounds := envCount(t, "STRESS_TAKEOVER_ROUNDS", 1)
	tmp := claimDir(t)
	src := claimRepo(t, filepath.Join(tmp, "src"), true)
	origin, clones := claimClones(t, tmp, src, 3)
	want := []string{"2.1", "2.2", "2.3", "2.4"}
	var sum claimTally
	found := &findings{t: t}
	for r := range rounds {
		clearClaims(t, append([]string{origin}, clones...)...)
		expireHolders(t, origin, clones, fmt.Sprintf("r%d-old", r), want)
		names := claimerNames(fmt.Sprintf("r%d-taker", r), claimers)
		calls := raceClaims(clones, names, "--remote", "origin")
		found.add(fmt.Sprintf("round %d", r), sum.judge(calls, names, want, readClaims(t, origin), tmp))
	}
	found.close(rounds)
	t.Logf("claim takeover after expiry (%d expired claims, 3 clones through origin, %d takers a round) summary: %v", len(want), claimers, &sum)
}

// expireHolders has one holder per task of want claim it, one after the
// other through the origin from the clones in turn (with a --ttl of ten
// minutes, so that no claim expires while the next holder chooses), then
// has each renew its claim from its own clone with a --ttl of one second,
// as a live holder would: the other clones keep their older copies of that
// claim. It returns once every claim on the origin has expired.
func expireHolders(t *testing.T, origin string, clones []string, prefix string, want []string) {
	t.Helper()
	var got []string
	for i := range want {
		got = append(got, testbin.Git(t, clones[i%len(clones)], "taskresume", run, "--claim", "--as",
			fmt.Sprintf("%s%d", prefix, i), "--ttl", "10m", "--remote", "origin"))
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("the holders took %v, want %v", got, want)
	}
	for i, id := range want {
		testbin.Git(t, clones[i%len(clones)], "taskresume", run, "--renew", id, "--as",
			fmt.Sprintf("%s%d", prefix, i), "--ttl", "1s", "--remote", "origin")
	}
	held := readClaims(t, origin)
	var last time.Time
	for _, id := range want {
		c, ok := held[id]
		if !ok || time.Until(c.expires) > 5*time.Second {
			t.Fatalf("after the renewals the origin holds %+v for task %s (held: %v), want a claim expiring within a second", c, id, ok)
		}
		if c.expires.After(last) {
			last = c.expires
		}
	}
	time.Sleep(time.Until(last) + 50*time.Millisecond)
}

// TestCleanVersusRenew: a task worktree with an uncommitted file, held by a
// claim that has expired (taken with a --ttl of one second); a clean of the
// run and a renewal by the holder start at about the same moment (which one first, and how much
// later the other, is random). A renewal that succeeded must find the
// worktree, its file and the claim (its own, extended) still there; a clean
// that removed the worktree must have made the renewal fail. Local claims,
// and claims through --remote origin (the clean given --remote origin too).
func TestCleanVersusRenew(t *testing.T) {
	t.Parallel()
	n := envCount(t, "STRESS_CLEAN_RENEW", 10)
	for _, remote := range []bool{false, true} {
		name := "local"
		if remote {
			name = "remote"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			cleanVersusRenew(t, n, remote)
		})
	}
}

// maxStagger bounds how long after the first of a clean and a renewal the
// other starts: an unloaded clean takes about a second.
const maxStagger = 1500 * time.Millisecond

// The outcomes of a clean against a renewal.
const (
	renewWon   = iota // renewal exit 0, worktree kept
	cleanWon          // renewal failed, worktree removed
	neitherWon        // renewal failed, worktree kept
	bothWon           // renewal exit 0, worktree removed: the violation
)

func cleanVersusRenew(t *testing.T, n int, remote bool) {
	tmp := claimDir(t)
	var extra []string
	label := "local claims"
	if remote {
		extra = []string{"--remote", "origin"}
		label = "claims through origin, clean --remote origin"
	}
	const holder = "H"
	branch := run + "-task-2-1-user-service"
	rel := filepath.Join("wip", "user_service.go")
	var (
		outcomes                                          [2][4]int // by who started first: 0 the renewal, 1 the clean
		notHis, renewFails, renewErrors, cleanFails, lost int
		localDiffers, originKept                          int
		failKinds                                         = kinds{}
		cleanTook, renewTook, maxDelay                    time.Duration
	)
	// One template per variant, copied for every try: a repository (or a
	// bare origin and one clone of it) with the worktree of 2.1, and the
	// holder's claim of 2.1 taken with a --ttl of one second, expired by the
	// first try (no rule of the clean or of a renewal goes by how long
	// ago). It is moved away from where it was built, so that `git worktree
	// repair` in a copy finds the template's links leading nowhere (as
	// newFixture).
	build, tpl := filepath.Join(tmp, "build"), filepath.Join(tmp, "template")
	sub := "repo"
	if remote {
		src := claimRepo(t, filepath.Join(build, "src"), false)
		claimClones(t, build, src, 1)
		os.RemoveAll(src)
		sub = "clone0"
	} else {
		claimRepo(t, filepath.Join(build, sub), false)
	}
	testbin.Git(t, filepath.Join(build, sub), "worktree", "add", "-q", filepath.Join(".worktrees", branch), "-b", branch)
	args := append([]string{"taskresume", run, "--claim", "--as", holder, "--ttl", "1s"}, extra...)
	if got := testbin.Git(t, filepath.Join(build, sub), args...); got != "2.1" {
		t.Fatalf("the holder claimed %q, want 2.1", got)
	}
	truth := filepath.Join(build, sub) // where the claims are the truth
	if remote {
		truth = filepath.Join(build, "origin.git")
	}
	c, ok := readClaims(t, truth)["2.1"]
	if !ok || time.Until(c.expires) > 5*time.Second {
		t.Fatalf("after the claim the record holds %+v (held: %v), want a claim of 2.1 expiring within a second", c, ok)
	}
	if err := os.Rename(build, tpl); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Until(c.expires) + 50*time.Millisecond)

	found := &findings{t: t}
	for i := range n {
		dir := filepath.Join(tmp, fmt.Sprintf("try%d", i))
		if out, err := exec.Command("cp", "-a", tpl, dir).CombinedOutput(); err != nil {
			t.Fatalf("copy the template: %v\n%s", err, out)
		}
		where := filepath.Join(dir, sub)
		wt := filepath.Join(where, ".worktrees", branch)
		testbin.Git(t, where, "worktree", "repair", wt)
		record := where
		if remote {
			record = filepath.Join(dir, "origin.git")
			testbin.Git(t, where, "remote", "set-url", "origin", record)
		}
		if !worktreeList(t, where)[wt] {
			t.Fatalf("try %d: the copy's worktree %s was not repaired", i, wt)
		}
		content := fmt.Sprintf("package wip // try %d of the holder, not committed\n", i)
		testbin.WriteFile(t, filepath.Join(wt, rel), content)

		clean := &call{dir: where, args: append([]string{"taskclean", "--run", run}, extra...)}
		renew := &call{dir: where, args: append([]string{"taskresume", run, "--renew", "2.1", "--as", holder, "--ttl", "30m"}, extra...)}
		// The renewal and the clean take turns to start first; the second
		// starts at a random moment of the first's run: up to the shortest
		// run of the first so far (the tests running alongside slow some
		// tries down), and at most maxStagger; the first tries start both
		// at once.
		first := i % 2
		if first == 0 && renewTook > 0 {
			clean.delay = rand.N(min(renewTook, maxStagger))
		} else if first == 1 && cleanTook > 0 {
			renew.delay = rand.N(min(cleanTook, maxStagger))
		}
		maxDelay = max(maxDelay, clean.delay, renew.delay)
		together([]*call{clean, renew})
		if cleanTook == 0 || clean.took < cleanTook {
			cleanTook = clean.took
		}
		if renewTook == 0 || renew.took < renewTook {
			renewTook = renew.took
		}

		var problems []string
		if clean.res.Code != 0 {
			cleanFails++
			problems = append(problems, fmt.Sprintf("clean failed: exit %d: %s", clean.res.Code, errorKind(clean.res.Stderr, tmp)))
		}
		renewed := renew.res.Code == 0
		if !renewed {
			renewFails++
			failKinds[errorKind(renew.res.Stderr, tmp)]++
			if renew.res.Code != 2 || !strings.HasPrefix(renew.res.Stderr, "error: ") || strings.Count(renew.res.Stderr, "\n") != 1 {
				renewErrors++
				problems = append(problems, fmt.Sprintf("renew error: exit %d, want 0 or 2 with one error line: %q", renew.res.Code, renew.res.Stderr))
			}
		}
		kept := worktreeList(t, where)[wt]
		data, err := os.ReadFile(filepath.Join(wt, rel))
		fileKept := kept && err == nil && string(data) == content
		outcome := neitherWon
		switch {
		case renewed && kept:
			outcome = renewWon
		case renewed:
			outcome = bothWon
		case !kept:
			outcome = cleanWon
		}
		outcomes[first][outcome]++
		if outcome == bothWon {
			problems = append(problems, "removal under a live holder: the renewal exited 0, and the clean removed the worktree")
		}
		if !fileKept && !readReachable(t, where).objects[blobID(t, where, content)] {
			lost++
			problems = append(problems, fmt.Sprintf("lost: %s is neither in the worktree nor saved", filepath.Join(wt, rel)))
		}
		if renewed && kept && !fileKept {
			problems = append(problems, fmt.Sprintf("file gone: the renewal exited 0 and %s is no longer in the kept worktree", filepath.Join(wt, rel)))
		}
		after, held := readClaims(t, record)["2.1"]
		if renewed && (!held || after.holder != holder || time.Until(after.expires) < 20*time.Minute) {
			notHis++
			problems = append(problems, fmt.Sprintf("claim not the holder's: the renewal exited 0, and afterwards the claim of 2.1 is %+v (held: %v)", after, held))
		}
		if remote {
			local, lheld := readClaims(t, where)["2.1"]
			if lheld != held || local.commit != after.commit {
				localDiffers++
			}
			if !renewed && !kept && held {
				originKept++
			}
		}
		found.add(fmt.Sprintf("try %d (%s first, clean after %v, renewal after %v; clean: exit %d, renewal: exit %d %q)",
			i, [2]string{"renewal", "clean"}[first], clean.delay.Round(time.Millisecond), renew.delay.Round(time.Millisecond),
			clean.res.Code, renew.res.Code, strings.TrimSpace(renew.res.Stderr)), problems)
		os.RemoveAll(dir)
	}
	found.close(n)
	side := func(o [4]int) string {
		return fmt.Sprintf("%d tries: renewal won %d, clean won %d, neither %d, both %d",
			o[0]+o[1]+o[2]+o[3], o[renewWon], o[cleanWon], o[neitherWon], o[bothWon])
	}
	removals := outcomes[0][bothWon] + outcomes[1][bothWon]
	msg := fmt.Sprintf("clean versus renew (%s) summary: %d tries (second start up to %v after the first); renewal first: %s; clean first: %s; %d removals under a live holder, %d claims not the holder's after its renewal, %d files lost, %d cleans failed, %d renewals failed (%d with other than one error line and exit 2; %s)",
		label, n, maxDelay.Round(time.Millisecond), side(outcomes[0]), side(outcomes[1]), removals, notHis, lost, cleanFails, renewFails, renewErrors, failKinds)
	if remote {
		msg += fmt.Sprintf("; %d tries where the clone's copy of the claim differs from the origin's, %d where the clean won and the origin still holds the claim", localDiffers, originKept)
	}
	t.Logf("%s", msg)
}
