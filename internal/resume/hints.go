package resume

// This file holds the hints a person needs when a run reads wrong: a plan
// written under a run id one character from the run's own (the branches
// carry one id, the plan another).

import (
	"context"
	"fmt"
	"strings"

	"github.com/taskresume/git-taskresume/internal/branches"
	"github.com/taskresume/git-taskresume/internal/gitcmd"
	"github.com/taskresume/git-taskresume/internal/plan"
	"github.com/taskresume/git-taskresume/internal/planfind"
	"github.com/taskresume/git-taskresume/internal/ui"
)

// NearPlan is the plan of another run id, found where this run's plan
// would be, that may be this run's all the same: its id is as long as the
// run's with exactly one character different, and at least one of the
// run's branches is named like one of its tasks. It is never read unasked
// (a wrong plan could call an unfinished run complete): the hint names
// the --plan and --plan-run-id that read it.
type NearPlan struct {
	// RunID is the run id the plan names (or its directory, when the plan
	// names none).
	RunID string `json:"run_id"`
	// Plan is the copy found, as --plan takes it: a path or REV:PATH.
	Plan string `json:"plan"`
	// Branches are the run's branches named like one of its tasks.
	Branches []string `json:"branches"`
}

// Hint is what the human report says of a near plan, as git's "hint:"
// lines (without the prefix).
func (n NearPlan) Hint(run string) []string {
	named := "branch " + ui.Display(n.Branches[0]) + " is named like one of its tasks"
	switch bs := n.Branches; {
	case len(bs) == 2:
		named = fmt.Sprintf("branches %s and %s are named like its tasks", ui.Display(bs[0]), ui.Display(bs[1]))
	case len(bs) > 2:
		named = fmt.Sprintf("branches %s, %s and %d more are named like its tasks", ui.Display(bs[0]), ui.Display(bs[1]), len(bs)-2)
	}
	return []string{
		fmt.Sprintf("%s is the plan of run %s, one character from %s; %s", ui.Display(n.Plan), n.RunID, run, named),
		fmt.Sprintf("if it is this run's plan, read it with --plan %s --plan-run-id %s", ui.ShellQuote(n.Plan), n.RunID),
	}
}

// Hints are every hint line of a report, in order.
func (rep *Report) Hints() []string {
	var out []string
	for _, n := range rep.NearPlans {
		out = append(out, n.Hint(rep.RunID)...)
	}
	return out
}

// findNearPlans looks, in the places where run's plan would be, for plans
// of near run ids (planfind.NearIDs) that the run's branches name. Only
// the names of specs/ directories are listed; a plan is read only for a
// directory of a near id, so a run without a plan costs no more than
// before however many runs the repository holds.
func findNearPlans(ctx context.Context, repo *gitcmd.Repo, objs *gitcmd.Objects, run string, places []planfind.Place, bs []branches.Branch) []NearPlan {
	if len(bs) == 0 {
		return nil
	}
	var out []NearPlan
	for _, id := range planfind.NearIDs(run, planfind.SpecsDirs(objs, places)) {
		found, err := planfind.Find(ctx, repo, objs, id, places)
		if err != nil || found.Copy == nil || found.Copy.Err != nil || found.Copy.Plan == nil {
			continue // a hint, not a report of that run: its problems are its own
		}
		n := NearPlan{RunID: id, Plan: found.Copy.Name}
		for _, b := range bs {
			if namesTaskOf(run, b.Name, found.Copy.Plan) {
				n.Branches = appendUniq(n.Branches, b.Name)
			}
		}
		if len(n.Branches) > 0 {
			out = append(out, n)
		}
	}
	return out
}

// namesTaskOf says whether branch, one of run's task branches
// ("<run>-task-<id>-<slug>"), is named like a task of p: its slug is the
// slug of a task's title (plan.Slug), or one of the two is the other's
// first words, two words at least ("list-command" of "List command
// implementation": an agent shortens the title, an edit lengthens it).
// The id is not compared: a plan written under another id may number its
// tasks otherwise.
func namesTaskOf(run, branch string, p *plan.Plan) bool {
	rest, ok := strings.CutPrefix(branch, branches.TaskPrefix(run))
	if !ok {
		return false
	}
	for _, t := range p.Tasks() {
		s := plan.Slug(t.Title)
		if s == "" {
			continue
		}
		// The id's own dashes make the split ambiguous ("1-1-2fa-login"):
		// every split after an id-shaped prefix is tried.
		for i := 0; i < len(rest); i++ {
			if rest[i] == '-' && idShaped(rest[:i]) && slugsMatch(rest[i+1:], s) {
				return true
			}
		}
	}
	return false
}

// idShaped: digits, groups joined by "." or "-" ("2", "1-1", "2.3").
func idShaped(s string) bool {
	if s == "" {
		return false
	}
	digit := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case '0' <= c && c <= '9':
			digit = true
		case (c == '.' || c == '-') && digit:
			digit = false
		default:
			return false
		}
	}
	return digit
}

// slugsMatch: equal, or the shorter is the longer's first words and has
// two words at least (one word, "tests", is too common to say anything).
func slugsMatch(a, b string) bool {
	if a == b {
		return true
	}
	if len(a) > len(b) {
		a, b = b, a
	}
	return strings.Contains(a, "-") && strings.HasPrefix(b, a+"-")
}
