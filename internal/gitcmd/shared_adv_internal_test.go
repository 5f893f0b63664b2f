package gitcmd

import (
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"
)

// A run's patterns are tried on the refs that can match them, however
// the runs are named: ids that share their first bytes (run-1 ... run-2000,
// feat-login, feat-api) cost a list no more than random ones. Filed by
// the first four bytes of a component, every ref of every "run-..." was
// tried for each run: a list of n runs then tried n² refs.
func TestSharedRefIndexNarrowsSharedPrefixes(t *testing.T) {
	var refs []Ref
	for i := 1; i <= 2000; i++ {
		for _, task := range []string{"1-1-a", "1-2-b", "2-1-c", "3-1-d/wip"} {
			refs = append(refs, Ref{Name: fmt.Sprintf("refs/heads/run-%d-task-%s", i, task)})
		}
		refs = append(refs, Ref{Name: fmt.Sprintf("refs/heads/run-%d-main", i)},
			Ref{Name: fmt.Sprintf("refs/remotes/origin/run-%d-task-1-1-a", i)})
	}
	s := &Shared{refs: refs}
	tp := "run-17-task-"
	pats := []string{"refs/heads/" + tp + "*", "refs/heads/" + tp + "*/**", "refs/heads/run-17-main",
		"refs/remotes/*/" + tp + "*", "refs/remotes/*/" + tp + "*/**", "refs/remotes/*/run-17-main",
		"refs/remotes/*/*/**/" + tp + "*", "refs/remotes/*/*/**/run-17-main"}
	before := s.tried.Load()
	got, ok := s.refsMatching(pats)
	if !ok || len(got) != 6 {
		t.Fatalf("refsMatching = %d refs (%v), want run-17's 6", len(got), ok)
	}
	if tried := s.tried.Load() - before; tried > 40 {
		t.Errorf("run-17's patterns were tried on %d refs of %d; want only those a component of which starts as a pattern's does", tried, len(refs))
	}
}

// squashLines reads a body's "* <subject>" lines as the regexp squashLine
// does, on bodies made of the bytes that can tell them apart.
func TestSquashLinesAsTheRegexp(t *testing.T) {
	alphabet := []string{"*", "* ", " ", "\t", "\n", "\r", "\f", "\v", "a", "é", "\xff", "\n* "}
	rng := rand.New(rand.NewSource(1))
	for range 200000 {
		var b strings.Builder
		for range rng.Intn(14) {
			b.WriteString(alphabet[rng.Intn(len(alphabet))])
		}
		body := b.String()
		var want []string
		for _, m := range squashLine.FindAllStringSubmatch(body, -1) {
			want = append(want, m[1])
		}
		if got := squashLines(body); !slices.Equal(got, want) {
			t.Fatalf("squashLines(%q) = %q, the regexp reads %q", body, got, want)
		}
	}
}
