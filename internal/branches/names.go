package branches

import (
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/taskresume/git-taskresume/internal/plan"
)

// Names reads task ids out of the names of a run's branches and worktree
// directories. Agents choose the part after the id, so the id is what
// identifies the task; the plan says how ids are numbered.
type Names struct {
	run   string
	p     *plan.Plan
	exact map[string]string // whole branch name -> task id
	// byID maps a canonical id ("2.1") to its task.
	byID map[string]*plan.Task
	// through: every id is one number, numbered through the whole plan.
	through bool
	// tasks and titles: the plan's tasks and their title words, split
	// once: every commit's subject is held against every title.
	tasks  []*plan.Task
	titles [][]string
	// index: a task's position in tasks; byKey: the tasks indexed under
	// a wordKey, each under the rarest key of its title's words. A text
	// can hold a whole title only if it holds that word, so a subject is
	// held against the titles its own words' keys lead to, not all.
	index map[*plan.Task]int
	byKey map[string][]int
	// subjects remembers what a subject named (the same subjects are
	// read again by each decision over the same plan); decisions may run
	// in several goroutines.
	subjectsMu sync.Mutex
	subjects   map[subjectKey]*plan.Task
}

type subjectKey struct {
	id, text string
	shared   bool
}

// NewNames prepares the readings for run's plan (p may be nil: every name
// is then unknown).
func NewNames(run string, p *plan.Plan) *Names {
	n := &Names{run: run, p: p, exact: map[string]string{}, byID: map[string]*plan.Task{},
		subjects: map[subjectKey]*plan.Task{}, index: map[*plan.Task]int{}, byKey: map[string][]int{}}
	if p == nil {
		return n
	}
	n.through = len(p.Tasks()) > 0
	for _, t := range p.Tasks() {
		if _, dup := n.exact[plan.BranchName(run, t)]; !dup {
			n.exact[plan.BranchName(run, t)] = t.ID
		}
		c := plan.CanonicalID(t.ID)
		if _, dup := n.byID[c]; !dup {
			n.byID[c] = t
		}
		if strings.ContainsAny(t.ID, ".-") {
			n.through = false
		}
		if _, dup := n.index[t]; !dup {
			n.index[t] = len(n.tasks)
		}
		n.tasks = append(n.tasks, t)
		n.titles = append(n.titles, titleWords(t.Title))
	}
	freq := map[string]int{}
	for _, tw := range n.titles {
		for _, w := range tw {
			freq[wordKey(w)]++
		}
	}
	for i, tw := range n.titles {
		if len(tw) == 0 {
			continue
		}
		rarest := wordKey(tw[0])
		for _, w := range tw[1:] {
			if k := wordKey(w); freq[k] < freq[rarest] {
				rarest = k
			}
		}
		n.byKey[rarest] = append(n.byKey[rarest], i)
	}
	return n
}

// Task names the task a branch or worktree directory name belongs to, ""
// when no reading names one:
//   - the exact name "<run>-task-<id>-<slug>" of a task;
//   - "<run>-task-<id>" followed by "-" or nothing, the id dashed or
//     dotted ("1-1", "1.1"), the longest id the plan has winning, so a
//     trailing "-2" of a retry is part of the free text;
//   - in a plan numbered through ("Task 4"), "<run>-task-<p>-<n>" is
//     task n when phase p holds it, else the n-th task of phase p, and
//     never task p: two numbers there always mean phase and task.
func (n *Names) Task(name string) string {
	if id, ok := n.exact[name]; ok {
		return id
	}
	rest, ok := strings.CutPrefix(name, TaskPrefix(n.run))
	if !ok || n.p == nil {
		return ""
	}
	nums := leadingNumbers(rest)
	if len(nums) == 0 {
		return ""
	}
	if n.through && len(nums) >= 2 {
		return n.phaseTask(nums[0], nums[1])
	}
	for l := len(nums); l > 0; l-- {
		if t := n.byID[strings.Join(nums[:l], ".")]; t != nil {
			return t.ID
		}
	}
	return ""
}

// phaseTask is task n of phase p in a plan numbered through: the task
// whose id is n when phase p holds it, else phase p's n-th task.
func (n *Names) phaseTask(p, num string) string {
	pn, err1 := strconv.Atoi(p)
	k, err2 := strconv.Atoi(num)
	if err1 != nil || err2 != nil {
		return ""
	}
	for _, ph := range n.p.Phases {
		if ph.Number != pn {
			continue
		}
		for _, t := range ph.Tasks {
			if plan.CanonicalID(t.ID) == num {
				return t.ID
			}
		}
		if k >= 1 && k <= len(ph.Tasks) {
			return ph.Tasks[k-1].ID
		}
	}
	return ""
}

// TaskByID returns the plan's task with id (either separator), or nil.
func (n *Names) TaskByID(id string) *plan.Task { return n.byID[plan.CanonicalID(id)] }

// leadingNumbers splits the numbers an id is made of off the front of
// s: "1-1-core" and "1.1-core" give [1 1], "4-x" gives [4], "1-1" gives
// [1 1]. A number must end at "-", "." or the end of s, so "2fa-x" gives
// nothing.
func leadingNumbers(s string) []string {
	var nums []string
	for s != "" {
		i := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == 0 || i > 9 || i < len(s) && s[i] != '-' && s[i] != '.' {
			break
		}
		if i > 1 && s[0] == '0' {
			break
		}
		nums = append(nums, s[:i])
		if i == len(s) {
			break
		}
		sep := s[i]
		s = s[i+1:]
		// "1.1-name": a dot only separates numbers; "-" may end the id.
		if sep == '.' && (s == "" || s[0] < '0' || s[0] > '9') {
			break
		}
	}
	return nums
}

// Match assigns branches to tasks by name alone: what is known before the
// commits are read (the worktree classification uses it; Decide has the
// final word, once subjects are known).
type Match struct {
	// ByTask maps a task id to the branches named for it, in name order.
	ByTask map[string][]Branch
	// Unknown holds branches of the run whose name names no task.
	Unknown []Branch
}

// MatchNames reads each branch's name (see Names.Task).
func MatchNames(run string, p *plan.Plan, bs []Branch) Match { return NewNames(run, p).Match(bs) }

// Match is MatchNames with names prepared once (a report reads the same
// plan's names for its worktrees and then for its decision).
func (n *Names) Match(bs []Branch) Match {
	run := n.run
	m := Match{ByTask: map[string][]Branch{}}
	sorted := append([]Branch(nil), bs...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Name < sorted[j].Name })
	for _, b := range sorted {
		if !strings.HasPrefix(b.Name, TaskPrefix(run)) {
			continue
		}
		if id := n.Task(b.Name); id != "" {
			m.ByTask[id] = append(m.ByTask[id], b)
		} else {
			m.Unknown = append(m.Unknown, b)
		}
	}
	return m
}
