package branches

import (
	"strings"
	"testing"

	"github.com/taskresume/git-taskresume/internal/plan"
)

// The quick test before the subject's regular expression never turns a
// subject it would match away: ASCII in any case, and the letters whose
// case folding leaves ASCII (the Kelvin sign is "k", the long s is "s").
func TestParseTaskSubjectPrefilter(t *testing.T) {
	for _, s := range []string{
		"[Task 1.1] Create database schema", "TASK 2.3: order service", "task 1-2 Install", "feat(api): task 3.1 - API",
		"Add stuff", "", "tas", "Tas k 1.1", "  task 1.1", "revert: [Task 2.2] x",
		"tas\u212a 1.1: Kelvin", "ta\u017fk 1.1: long s", "\u00e9t\u00e9 task 1.1", "Merge branch 'x1y2z3-task-1-1-schema'",
	} {
		want := taskSubject.MatchString(strings.TrimSpace(s)) && !strings.HasPrefix(strings.ToLower(strings.TrimSpace(s)), "revert")
		_, _, got := ParseTaskSubject(s)
		if want && !got {
			if m := taskSubject.FindStringSubmatch(strings.TrimSpace(s)); m != nil && !plan.ValidTaskID(m[1]) {
				continue // an id the plan format refuses
			}
			t.Errorf("ParseTaskSubject(%q) = not a task subject, but the regular expression matches it", s)
		}
		if !want && got {
			t.Errorf("ParseTaskSubject(%q) = a task subject, but the regular expression does not match it", s)
		}
	}
}
