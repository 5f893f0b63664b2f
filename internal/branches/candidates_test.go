package branches

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/taskresume/git-taskresume/internal/plan"
)

// A subject is held only against the titles its words' keys lead to: every
// task whose whole title the words cover must be among them, whatever the
// words (prefixes either way, short words, letters past ASCII).
func TestCandidatesHoldEveryCoveredTitle(t *testing.T) {
	vocab := []string{"add", "adds", "test", "tests", "testing", "implement", "implementation", "api", "apis",
		"über", "übersetzung", "db", "dbs", "schema", "schemas", "fix", "fixes", "user", "users", "auth", "authn"}
	r := rand.New(rand.NewSource(1))
	words := func(n int) string {
		var w []string
		for i := 0; i < n; i++ {
			w = append(w, vocab[r.Intn(len(vocab))])
		}
		return strings.Join(w, " ")
	}
	for round := 0; round < 200; round++ {
		var b strings.Builder
		b.WriteString("# Plan\n\n## Phase 1: All (parallel)\n\n")
		for i := 1; i <= 12; i++ {
			fmt.Fprintf(&b, "### Task 1.%d: %s\n\n", i, words(1+r.Intn(3)))
		}
		p, _, err := plan.Parse("plan.md", []byte(b.String()))
		if err != nil {
			t.Fatal(err)
		}
		n := NewNames("r1", p)
		for q := 0; q < 20; q++ {
			text := titleWords(words(1 + r.Intn(5)))
			in := map[int]bool{}
			for _, i := range n.candidates(text) {
				in[i] = true
			}
			for i, tw := range n.titles {
				if len(tw) > 0 && covers(text, tw) == len(tw) && !in[i] {
					t.Fatalf("text %q covers title %q (task %s), which is not among the candidates", text, tw, n.tasks[i].ID)
				}
			}
		}
	}
}
