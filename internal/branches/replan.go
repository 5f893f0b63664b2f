package branches

import "github.com/taskresume/git-taskresume/internal/plan"

// Replans says whether cur, a later version of the plan, re-plans prev: half
// or fewer of prev's tasks remain in it (docs/DESIGN.md, "The input"). A re-plan starts a new run under the same id; an edit that adds
// a task, corrects a title or renumbers keeps the run. A version with no
// tasks (a draft, a file that does not parse) answers nothing: the caller
// compares the versions around it.
func Replans(prev, cur *plan.Plan) bool {
	remain, total := Remaining(prev, cur)
	return total > 0 && cur != nil && len(cur.Tasks()) > 0 && 2*remain <= total
}

// Remaining counts prev's tasks that remain in cur, and prev's tasks. A task
// remains when cur has its id with a title sharing at least half of its
// words (a corrected title), or has its title under another id (a
// renumbering).
func Remaining(prev, cur *plan.Plan) (remain, total int) {
	if prev == nil {
		return 0, 0
	}
	var curTasks []*plan.Task
	var curTitles [][]string
	if cur != nil {
		curTasks = cur.Tasks()
		for _, t := range curTasks {
			curTitles = append(curTitles, titleWords(t.Title))
		}
	}
	for _, t := range prev.Tasks() {
		total++
		words := titleWords(t.Title)
		if remains(t, words, cur, curTasks, curTitles) {
			remain++
		}
	}
	return remain, total
}

func remains(t *plan.Task, words []string, cur *plan.Plan, curTasks []*plan.Task, curTitles [][]string) bool {
	if cur == nil {
		return false
	}
	if same := cur.Task(t.ID); same != nil {
		sw := titleWords(same.Title)
		if len(words) == 0 || 2*coversTypos(sw, words) >= len(words) {
			return true
		}
	}
	if len(words) == 0 {
		return false
	}
	for i := range curTasks {
		tw := curTitles[i]
		if len(tw) > 0 && covers(tw, words) == len(words) && covers(words, tw) == len(tw) {
			return true // the same title under another id
		}
	}
	return false
}

// coversTypos is covers where a word also matches the same word with one
// typo (a letter added, dropped, changed, or two swapped: "Frist" for
// "First"), for words of four letters or more: a corrected title is the
// same task.
func coversTypos(text, title []string) int {
	n := 0
	for _, tw := range title {
		for _, w := range text {
			if sameWord(w, tw) || len(w) >= 4 && len(tw) >= 4 && oneTypo(w, tw) {
				n++
				break
			}
		}
	}
	return n
}

// oneTypo says whether a and b differ by one edit: a letter inserted,
// deleted or replaced, or two neighbours swapped.
func oneTypo(a, b string) bool {
	ra, rb := []rune(a), []rune(b)
	if len(ra) < len(rb) {
		ra, rb = rb, ra
	}
	switch len(ra) - len(rb) {
	case 0:
		var diff []int
		for i := range ra {
			if ra[i] != rb[i] {
				diff = append(diff, i)
			}
		}
		switch len(diff) {
		case 1:
			return true
		case 2:
			i, j := diff[0], diff[1]
			return j == i+1 && ra[i] == rb[j] && ra[j] == rb[i]
		}
		return false
	case 1:
		i := 0
		for i < len(rb) && ra[i] == rb[i] {
			i++
		}
		return string(ra[i+1:]) == string(rb[i:])
	}
	return false
}
