package branches

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// commits builds commits from "id:parent1,parent2|subject" specs, listed
// as given (git log lists children first; the rule must not depend on
// it). Parents not listed are outside the set.
func commits(specs ...string) []CommitInfo {
	var cs []CommitInfo
	for _, s := range specs {
		spec, subject, _ := strings.Cut(s, "|")
		id, ps, _ := strings.Cut(spec, ":")
		c := CommitInfo{OID: id, Subject: subject}
		if ps != "" {
			c.Parents = strings.Split(ps, ",")
		}
		cs = append(cs, c)
	}
	return cs
}

func TestBranchRun(t *testing.T) {
	for name, want := range map[string]string{
		"bbbbbb-task-1-1-project-setup": "bbbbbb",
		"bbbbbb-task-4":                 "bbbbbb",
		"my-run.2-task-2-1-x/wip":       "my-run.2",
		"bbbbbb-main":                   "bbbbbb",
		"aaaaaa-task-1-1-main":          "aaaaaa", // a task branch, whatever its slug
		"main":                          "",
		"origin/bbbbbb-main":            "", // "/" is no run id's: the caller tries the suffix
		"-main":                         "",
		"x-task-":                       "",
		"x-task-a":                      "", // "-task-" then no number: no task branch
		"feature-tasks":                 "",
		"a..b-main":                     "", // no valid run id
	} {
		if got := newRunReader("aaaaaa").branchRun(name); got != want {
			t.Errorf("branchRun(%q) = %q, want %q", name, got, want)
		}
	}
}

func TestMergeRuns(t *testing.T) {
	cases := []struct {
		subject string
		others  int
		want    []string
	}{
		{"Merge branch 'bbbbbb-task-1-1-project-setup'", 1, []string{"bbbbbb"}},
		{"Merge branch 'main' into aaaaaa-main", 1, []string{""}},
		{"Merge branch 'bbbbbb-main' into 'main'", 1, []string{"bbbbbb"}},
		{"Merge remote-tracking branch 'origin/bbbbbb-main'", 1, []string{"bbbbbb"}},
		{"Merge pull request #7 from owner/bbbbbb-task-1-1-project-setup", 1, []string{"bbbbbb"}},
		{"Merge branch 'bbbbbb-task-1-1-x' of github.com:owner/repo", 1, []string{"bbbbbb"}},
		// An octopus names its parents in order.
		{"Merge branches 'aaaaaa-task-1-1-x', 'feature' and 'bbbbbb-task-1-1-y'", 3, []string{"aaaaaa", "", "bbbbbb"}},
		{"Merge branch 'aaaaaa-task-1-1-x', remote-tracking branch 'origin/cccccc-main'", 2, []string{"aaaaaa", "cccccc"}},
		// Names that cannot be matched to parents: the run named, another
		// run's before this one's.
		{"Merge aaaaaa-task-1-1-x and bbbbbb-task-1-1-y", 2, []string{"bbbbbb", "bbbbbb"}},
		{"Merge commit '0123abc'", 1, []string{""}},
	}
	for _, c := range cases {
		if got := newRunReader("aaaaaa").mergeRuns(c.subject, c.others); !reflect.DeepEqual(got, c.want) {
			t.Errorf("mergeRuns(%q) = %q, want %q", c.subject, got, c.want)
		}
	}
}

// broughtBy splits a history into first-parent lines; what each merge
// naming a run's branch brought is that run's, the innermost such merge
// deciding.
func TestBroughtBy(t *testing.T) {
	cases := []struct {
		name string
		cs   []CommitInfo
		want map[string]string // commits left out are no run's
	}{
		{
			name: "another run's branch merged into main",
			cs: commits("M:m1,b1|Merge branch 'bbbbbb-task-1-1-project-setup'",
				"b1:m1|[Task 1.1] Project setup", "m1:B|[Task 1.1] Project setup"),
			want: map[string]string{"b1": "bbbbbb"},
		},
		{
			// aaaaaa-main merged main, which holds bbbbbb's merge: the merge
			// of main names no run's branch, the one inside it does.
			name: "nested in a merge naming no run",
			cs: commits("A2:A1,M|Merge branch 'main' into aaaaaa-main", "A1:P|work",
				"M:m1,b2|Merge branch 'bbbbbb-task-1-1-project-setup'", "b2:b1", "b1:m1", "m1:P", "P:B|plans"),
			want: map[string]string{"b1": "bbbbbb", "b2": "bbbbbb"},
		},
		{
			// This run's task branch merged into bbbbbb-main, then
			// bbbbbb-main into main: the innermost merge decides.
			name: "this run's merge inside another run's",
			cs: commits("M:m0,x2|Merge branch 'bbbbbb-main'",
				"x2:x1,a2|Merge branch 'aaaaaa-task-1-1-x' into bbbbbb-main", "x1:m0",
				"a2:a1", "a1:m0", "m0:B"),
			want: map[string]string{"x2": "bbbbbb", "x1": "bbbbbb", "a2": "aaaaaa", "a1": "aaaaaa"},
		},
		{
			// Inside another run's merge, a merge naming no run's branch
			// passes that run on.
			name: "a plain merge inside another run's inherits it",
			cs: commits("M:m0,x2|Merge branch 'bbbbbb-task-2-1-api'",
				"x2:x1,f1|Merge branch 'feature' into bbbbbb-task-2-1-api", "x1:m0", "f1:m0", "m0:B"),
			want: map[string]string{"x2": "bbbbbb", "x1": "bbbbbb", "f1": "bbbbbb"},
		},
		{
			name: "octopus",
			cs: commits("O:m0,a1,b1,f1|Merge branches 'aaaaaa-task-1-1-x', 'bbbbbb-task-1-1-y' and 'feature'",
				"a1:m0", "b1:m0", "f1:m0", "m0:B"),
			want: map[string]string{"a1": "aaaaaa", "b1": "bbbbbb"},
		},
		{
			// Parents outside the set: a merge of something older than the
			// start, a side line that leaves the set.
			name: "parents leaving the set",
			cs: commits("M2:M1,OLD|Merge branch 'cccccc-main'", "M1:m0,b2|Merge branch 'bbbbbb-main'",
				"b2:b1", "b1:OLD2", "m0:B"),
			want: map[string]string{"b1": "bbbbbb", "b2": "bbbbbb"},
		},
		{
			// b1 reached main by bbbbbb's older merge; cccccc's branch, made
			// from it, merged later, brings only its own commit.
			name: "a commit reachable through two merges",
			cs: commits("M2:M1,c1|Merge branch 'cccccc-task-1-1-z'", "c1:b1",
				"M1:m0,b1|Merge branch 'bbbbbb-task-1-1-y'", "b1:m0", "m0:B"),
			want: map[string]string{"b1": "bbbbbb", "c1": "cccccc"},
		},
		{
			// The same merged the other way round: cccccc's merge came
			// first and brought b1 with c1; bbbbbb's then brings nothing.
			name: "a commit reachable through two merges, the other first",
			cs: commits("M2:M1,b1|Merge branch 'bbbbbb-task-1-1-y'",
				"M1:m0,c1|Merge branch 'cccccc-task-1-1-z'", "c1:b1", "b1:m0", "m0:B"),
			want: map[string]string{"b1": "cccccc", "c1": "cccccc"},
		},
		{
			// Two tips: a commit on a tip's own first-parent line came by
			// no merge, whatever another tip's merge holds it.
			name: "a tip's own line",
			cs: commits("T1:a1,b1|Merge branch 'bbbbbb-task-1-1-y' into aaaaaa-task-1-1-x", "a1:B",
				"T2:b1", "b1:b0", "b0:B"),
			want: map[string]string{},
		},
		{
			name: "no merge names a run",
			cs:   commits("M:m0,f1|Merge branch 'feature'", "f1:m0", "m0:B"),
			want: map[string]string{},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// The order git lists the commits in must not matter.
			for _, cs := range [][]CommitInfo{c.cs, reversedCommits(c.cs)} {
				by := broughtBy(cs, nil, "aaaaaa")
				got := map[string]string{}
				for i, r := range by {
					if r != "" {
						got[cs[i].OID] = r
					}
				}
				if !reflect.DeepEqual(got, c.want) {
					t.Errorf("broughtBy = %v, want %v", got, c.want)
				}
			}
		})
	}
}

func reversedCommits(cs []CommitInfo) []CommitInfo {
	out := make([]CommitInfo, len(cs))
	for i, c := range cs {
		out[len(cs)-1-i] = c
	}
	return out
}

// bigHistory is a shared main as an old run leaves it: n commits, one in
// ten a merge of a two-commit branch, most of them runs' task branches,
// some nested (a task branch that merged main on its way).
func bigHistory(n int) []CommitInfo {
	cs := make([]CommitInfo, 0, n)
	prev := "root"
	id := 0
	next := func() string { id++; return fmt.Sprintf("%040x", id) }
	for len(cs) < n {
		if len(cs)%10 == 9 {
			b1 := next()
			cs = append(cs, CommitInfo{OID: b1, Parents: []string{prev}, Subject: "[Task 1.1] Project setup"})
			b2 := next()
			side := []string{b1}
			subject := fmt.Sprintf("Merge branch 'run%04d-task-1-1-project-setup'", id%997)
			if len(cs)%30 == 0 {
				// the task branch merged main's tip on its way
				side = []string{b1, prev}
				subject = "Merge branch 'main' into x"
			}
			cs = append(cs, CommitInfo{OID: b2, Parents: side, Subject: subject})
			m := next()
			cs = append(cs, CommitInfo{OID: m, Parents: []string{prev, b2}, Subject: fmt.Sprintf("Merge branch 'run%04d-task-1-1-project-setup'", id%991)})
			prev = m
			continue
		}
		c := next()
		cs = append(cs, CommitInfo{OID: c, Parents: []string{prev}, Subject: "Fix CI cache key"})
		prev = c
	}
	// newest first, as git log lists them
	return reversedCommits(cs)
}

func TestBroughtByBigHistory(t *testing.T) {
	cs := bigHistory(5000)
	by := broughtBy(cs, nil, "aaaaaa")
	mains, brought := 0, 0
	for i, c := range cs {
		if c.Subject == "Fix CI cache key" && by[i] != "" {
			t.Fatalf("main's own commit %d brought by %q", i, by[i])
		}
		if c.Subject == "[Task 1.1] Project setup" {
			brought++
			if by[i] == "" {
				t.Fatalf("a task branch's commit %d brought by no run", i)
			}
		}
		if by[i] == "" {
			mains++
		}
	}
	if brought == 0 || mains == 0 {
		t.Fatalf("history holds %d brought and %d main commits", brought, mains)
	}
}

// BenchmarkBroughtBy: a shared main of 50,000 commits and 5,000 merges.
func BenchmarkBroughtBy(b *testing.B) {
	cs := bigHistory(50000)
	b.ResetTimer()
	for range b.N {
		broughtBy(cs, nil, "aaaaaa")
	}
}
