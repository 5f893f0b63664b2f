package branches

import (
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode"

	"github.com/taskresume/git-taskresume/internal/gitcmd"
	"github.com/taskresume/git-taskresume/internal/plan"
)

// CommitInfo is a commit with what can name a task: its subject and its
// Run-Id / Task-Id trailers.
type CommitInfo = gitcmd.LogEntry

func isMerge(c *CommitInfo) bool { return len(c.Parents) > 1 }

// Naming is what a commit's own words say about which task it is.
type Naming struct {
	// Task is the id of the task named; "" when none of this plan's.
	Task string
	// Also are more tasks the commit names (Task-Id trailers may name
	// several: one commit carrying two tasks' work).
	Also []string
	// Marked is true when the commit carries a task mark at all (a
	// "[Task X]" subject, a Task-Id trailer, a Run-Id trailer): with Task
	// "", it names work that is not this plan's (an earlier plan that
	// reused the run id, another run, a follow-up fix numbered past the
	// plan).
	Marked bool
	// How: "trailer", "subject", or "merge" (By's merge brought it).
	How string
	// By is the other run whose branch's merge brought the commit, when
	// that decided: the commit is that run's, whatever its subject says.
	By string
}

// taskSubject finds "[Task 2.1] Title", the orchestrators' form, and the
// forms agents write instead: "Task 2.1: Title", "feat: Task 4.2 - Title",
// "[Task 1-1]: Title".
//
// A conventional-commit type before it must be one that does work: a
// "chore:" or "wip:" commit about a task (an orchestrator's progress note,
// a half-done step) names no finished work.
var taskSubject = regexp.MustCompile(`(?i)^(?:(?:feat|fix|refactor|perf|test|tests|docs|style|build|ci)(?:\([^)]*\))?!?:\s*)?\[?task\s+([0-9]+(?:[.-][0-9]+)*)\]?(?:\s*[:\-–—]\s*|\s+|$)(.*)$`)

// ParseTaskSubject returns the id and text of a task subject; ok is false
// when the subject is not one.
func ParseTaskSubject(subject string) (id, text string, ok bool) {
	if !mayNameTask(subject) {
		return "", "", false // most subjects: no regular expression run
	}
	subject = strings.TrimSpace(subject)
	// "revert: [Task 2.2] ..." undoes the task's work; it names no work.
	if len(subject) >= 6 && strings.EqualFold(subject[:6], "revert") {
		return "", "", false
	}
	m := taskSubject.FindStringSubmatch(subject)
	if m == nil || !plan.ValidTaskID(m[1]) {
		return "", "", false
	}
	return m[1], strings.TrimSpace(m[2]), true
}

// mayNameTask says whether taskSubject can match s: it needs the word
// "task" in any case. Outside ASCII, case folding reaches further (the
// Kelvin sign folds to "k"), and the regular expression decides.
func mayNameTask(s string) bool {
	for i := 0; i+4 <= len(s); i++ {
		if c := s[i] | 0x20; c == 't' && s[i+1]|0x20 == 'a' && s[i+2]|0x20 == 's' && s[i+3]|0x20 == 'k' {
			return true
		}
	}
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return true
		}
	}
	return false
}

// Name says which task of the plan a commit names. shared is true for a
// commit on a branch other runs share (the default branch): there a
// subject names a task only by its id and every word of its title, since
// another run's "[Task 4] Add tests" must not land this run's task 4.
func (n *Names) Name(c *CommitInfo, shared bool) Naming {
	if n.p == nil {
		return Naming{}
	}
	if len(c.RunIDs) > 0 {
		mine := false
		for _, r := range c.RunIDs {
			mine = mine || r == n.run
		}
		if !mine {
			return Naming{Marked: true, How: "trailer"}
		}
		if len(c.TaskIDs) > 0 {
			nm := Naming{Marked: true, How: "trailer"}
			for _, id := range c.TaskIDs {
				if t := n.TaskByID(id); t != nil {
					if nm.Task == "" {
						nm.Task = t.ID
					} else if t.ID != nm.Task {
						nm.Also = append(nm.Also, t.ID)
					}
				}
			}
			return nm
		}
	}
	id, text, ok := ParseTaskSubject(c.Subject)
	if !ok {
		return Naming{}
	}
	t := n.subjectTask(id, text, shared)
	if t == nil {
		return Naming{Marked: true, How: "subject"}
	}
	return Naming{Task: t.ID, Marked: true, How: "subject"}
}

// nameBrought is Name for a commit that a merge naming run by's branch
// brought where it is (by "" when none did). Provenance beats words: a
// commit another run's merge brought is that run's, whatever its subject
// says, unless its own Run-Id trailer names this run.
func (n *Names) nameBrought(c *CommitInfo, shared bool, by string) Naming {
	if by != "" && by != n.run && !slices.Contains(c.RunIDs, n.run) {
		return Naming{Marked: true, How: "merge", By: by}
	}
	return n.Name(c, shared)
}

// subjectTask applies the subject rule. On the run's own branches: a
// subject whose words hold every word of a task's title names that task
// (the title decides over the id: the plan may have been renumbered);
// else the task of that id (agents describe their work in their own
// words); an id that only a plan numbered through explains ("5.2" as phase
// 5's second task) needs most of that task's title. On shared branches:
// the id and every word of the title.
func (n *Names) subjectTask(id, text string, shared bool) *plan.Task {
	k := subjectKey{id, text, shared}
	n.subjectsMu.Lock()
	t, ok := n.subjects[k]
	n.subjectsMu.Unlock()
	if ok {
		return t
	}
	t = n.readSubject(id, text, shared)
	n.subjectsMu.Lock()
	n.subjects[k] = t
	n.subjectsMu.Unlock()
	return t
}

// title is a task's title words.
func (n *Names) title(t *plan.Task) []string {
	if i, ok := n.index[t]; ok {
		return n.titles[i]
	}
	return titleWords(t.Title)
}

func (n *Names) readSubject(id, text string, shared bool) *plan.Task {
	literal := n.TaskByID(id)
	var through *plan.Task
	if literal == nil && n.through {
		if nums := strings.FieldsFunc(id, func(r rune) bool { return r == '.' || r == '-' }); len(nums) == 2 {
			if tid := n.phaseTask(nums[0], nums[1]); tid != "" {
				through = n.TaskByID(tid)
			}
		}
	}
	words := titleWords(text)
	if shared {
		for _, t := range []*plan.Task{literal, through} {
			if t != nil && isTitle(words, n.title(t)) {
				return t
			}
		}
		return nil
	}
	if len(words) == 0 {
		if literal != nil {
			return literal
		}
		return through
	}
	// The task whose whole title the text holds, the longest title first;
	// a tie between two such tasks points at neither.
	var best *plan.Task
	bestLen, tie := 0, false
	for _, i := range n.candidates(words) {
		t, tw := n.tasks[i], n.titles[i]
		if len(tw) == 0 || covers(words, tw) != len(tw) {
			continue
		}
		switch {
		case len(tw) > bestLen:
			best, bestLen, tie = t, len(tw), false
		case len(tw) == bestLen && t != best:
			tie = true
		}
	}
	if best != nil && !tie {
		switch {
		case literal != nil && covers(words, n.title(literal)) == len(n.title(literal)):
			return literal // the id's own title fits as well: the id decides
		case literal == nil || isTitle(words, n.title(best)):
			// Over an id the plan has, only a text that is that other
			// title decides: "[Task 2.1] Add tests" is not task "Tests".
			return best
		}
	}
	if literal != nil {
		return literal // the text points at no other task: the id decides
	}
	if through != nil {
		tw := n.title(through)
		if 2*covers(words, tw) > len(tw) {
			return through
		}
	}
	return nil
}

// isTitle reports whether text is title: it holds every word of the title,
// and most of its words are the title's (a forge's " (#12)" is allowed;
// another run's "[Task 3] Add tests" is not the task "Tests").
func isTitle(text, title []string) bool {
	if len(text) == 0 || len(title) == 0 || covers(text, title) != len(title) {
		return false
	}
	var words []string
	for _, w := range text {
		if strings.Trim(w, "0123456789") != "" {
			words = append(words, w) // numbers ("#12") say nothing of the task
		}
	}
	return 2*covers(title, words) > len(words)
}

// stopWords carry no meaning in a title.
var stopWords = map[string]bool{"a": true, "an": true, "the": true, "and": true, "or": true, "of": true,
	"for": true, "to": true, "in": true, "on": true, "with": true, "by": true, "from": true, "into": true,
	"at": true, "as": true, "is": true}

// titleWords are the lower-case words of s, without stop words.
func titleWords(s string) []string {
	f := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	out := f[:0]
	for _, w := range f {
		if !stopWords[w] {
			out = append(out, w)
		}
	}
	return out
}

// candidates are the positions, in plan order, of the tasks indexed under
// the key of one of words: the only titles words can cover whole.
func (n *Names) candidates(words []string) []int {
	var out []int
	for i, w := range words {
		k := wordKey(w)
		dup := false
		for _, v := range words[:i] {
			dup = dup || wordKey(v) == k
		}
		if !dup {
			out = append(out, n.byKey[k]...)
		}
	}
	sort.Ints(out)
	return out
}

// wordKey is what two words sameWord matches have in common: the whole
// word under four bytes (only an equal word matches it), else its first
// four bytes (a word it starts, or that starts it, has four at least).
func wordKey(w string) string {
	if len(w) < 4 {
		return w
	}
	return w[:4]
}

// covers counts the words of title that text holds. Words match when
// equal or when one starts with the other and the shorter has at least
// four letters ("test"/"tests", "implement"/"implementation").
func covers(text, title []string) int {
	n := 0
	for _, tw := range title {
		for _, w := range text {
			if sameWord(w, tw) {
				n++
				break
			}
		}
	}
	return n
}

func sameWord(a, b string) bool {
	if a == b {
		return true
	}
	if len(a) > len(b) {
		a, b = b, a
	}
	return len(a) >= 4 && strings.HasPrefix(b, a)
}

// MergedBranches returns the run's task branches a merge subject names
// ("Merge branch 'x1-task-2-1-a'", "Merge pull request #3 from
// owner/x1-task-2-1-a/wip", "Merge remote-tracking branch
// 'origin/x1-task-2-1-a' into x1-main", and every branch of an octopus's
// "Merge branches 'a', 'b' and 'c' into x"). Only the part before " into "
// counts. The whole name counts, "/" parts included: of the suffixes of a
// word that start after a "/", the longest that starts with the run's task
// prefix.
func MergedBranches(run, subject string) []string {
	// "Merge branch 'main' into x1-task-2-1-a" names the branch merged
	// into, not one that landed.
	if i := strings.Index(subject, " into "); i >= 0 {
		subject = subject[:i]
	}
	var out []string
	for _, tok := range branchToken.FindAllString(subject, -1) {
		for cand := tok; ; {
			if strings.HasPrefix(cand, TaskPrefix(run)) {
				out = append(out, strings.TrimRight(cand, "."))
				break
			}
			i := strings.IndexByte(cand, '/')
			if i < 0 {
				break
			}
			cand = cand[i+1:]
		}
	}
	return out
}

var branchToken = regexp.MustCompile(`[A-Za-z0-9._/-]+`)
