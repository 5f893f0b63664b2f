package resume

// This file holds the hints a person needs when a run reads wrong: a plan
// written under a run id one character from the run's own (the branches
// carry one id, the plan another), and the run ids nearest an unknown one.

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/taskresume/git-taskresume/internal/branches"
	"github.com/taskresume/git-taskresume/internal/gitcmd"
	"github.com/taskresume/git-taskresume/internal/plan"
	"github.com/taskresume/git-taskresume/internal/planfind"
	"github.com/taskresume/git-taskresume/internal/ui"
	"github.com/taskresume/git-taskresume/internal/worktree"
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
	// named: the plan names RunID, or its specs/ directory does, so
	// --plan reads it for another run only with --plan-run-id; a plan
	// that names none (a directory that is no run's, as a worktree
	// pattern may give) is read by --plan alone, which refuses
	// --plan-run-id.
	named bool
}

// ReadFlags are the flags that read the plan for the run, as the hint
// and the one-line refusals give them.
func (n NearPlan) ReadFlags() string {
	flags := "--plan " + ui.ShellQuote(n.Plan)
	if n.named {
		flags += " --plan-run-id " + n.RunID
	}
	return flags
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
		"if it is this run's plan, read it with " + n.ReadFlags(),
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
func findNearPlans(ctx context.Context, repo *gitcmd.Repo, objs *gitcmd.Objects, run, cwd string, places []planfind.Place, bs []branches.Branch) []NearPlan {
	if len(bs) == 0 {
		return nil
	}
	var out []NearPlan
	for _, id := range planfind.NearIDs(run, planfind.SpecsDirs(objs, places)) {
		// A directory's name is anyone's to choose: an id that is no run
		// id, or a path holding control characters, would carry a line
		// break or a terminal's escape sequence into the hint's command
		// and into a refusal's one line. Such a plan is no orchestrator's.
		if !ValidRunName(id) {
			continue
		}
		found, err := planfind.Find(ctx, repo, objs, id, places)
		if err != nil || found.Copy == nil || found.Copy.Err != nil || found.Copy.Plan == nil {
			continue // a hint, not a report of that run: its problems are its own
		}
		n := NearPlan{RunID: id, Plan: planArg(found.Copy, cwd), named: found.Copy.Plan.RunID != "" || len(found.Copy.RepoPaths) > 0 && dirRun(found.Copy.RepoPaths[0], run) == id}
		if ui.Display(n.Plan) != n.Plan {
			continue
		}
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

// planArg names a copy as --plan takes it from cwd, where the command
// runs: --plan reads a file relative to it, so a worktree's file is named
// from there (from a subdirectory, "../specs/..."), or by its absolute
// path when cwd is outside that worktree; a commit's copy as REV:PATH.
func planArg(c *planfind.Copy, cwd string) string {
	if c.Place.Dir == "" || cwd == "" {
		return c.Name
	}
	file := filepath.Join(c.Place.Dir, filepath.FromSlash(c.RepoPaths[0]))
	if in, err := filepath.Rel(c.Place.Dir, cwd); err != nil || in == ".." || strings.HasPrefix(in, ".."+string(filepath.Separator)) {
		return file
	}
	if rel, err := filepath.Rel(cwd, file); err == nil {
		return rel
	}
	return file
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

// maxSuggestions bounds the run ids an unknown one suggests.
const maxSuggestions = 5

// nearRuns suggests, for an unknown run id, the known ids nearest it by
// name, as git's "did you mean" does for a mistyped command: the run ids
// that ref names, worktree directories and specs/ directories spell, at
// the smallest edit distance (adjacent swaps count one, as in git's
// help.c), within suggestDistance, sorted, at most maxSuggestions. Names
// only: one for-each-ref that prints names, the worktrees and places
// already listed, no history and no plan read, so that it stays cheap in
// a repository of thousands of runs.
func nearRuns(ctx context.Context, repo *gitcmd.Repo, objs *gitcmd.Objects, run string, places []planfind.Place, wts []*worktree.Worktree) []string {
	ids := map[string]bool{}
	if out, err := repo.Run(ctx, "for-each-ref", "--format=%(refname)", "refs/heads/", "refs/remotes/"); err == nil {
		// Read in place: thousands of names, a few hundred runs, and
		// only a run's id is kept (its branches sort together).
		var last []byte
		for len(out) > 0 {
			name := out
			if i := bytes.IndexByte(out, '\n'); i >= 0 {
				name, out = out[:i], out[i+1:]
			} else {
				out = nil
			}
			if short, ok := bytes.CutPrefix(name, []byte("refs/heads/")); ok {
				name = short
			} else {
				// refs/remotes/<remote>/<branch>: a run id holds no "/".
				name = name[bytes.LastIndexByte(name, '/')+1:]
			}
			if id, ok := runOfName(name); ok && !bytes.Equal(id, last) {
				ids[string(id)], last = true, id
			}
		}
	}
	for _, w := range wts {
		if !w.Main && !w.Bare {
			if id, ok := runOfName([]byte(filepath.Base(w.Path))); ok {
				ids[string(id)] = true
			}
		}
	}
	for _, d := range planfind.SpecsDirs(objs, places) {
		ids[planfind.RunOfDir(d)] = true
	}
	delete(ids, run)
	limit := suggestDistance(run)
	best := limit + 1
	var near []string
	for id := range ids {
		// Lengths alone can rule most ids out before the table is filled.
		if d := len(id) - len(run); d > limit || -d > limit {
			continue
		}
		// Only the few that are near are checked to be run ids at all.
		switch d := ui.EditDistance(run, id); {
		case d > limit || !ValidRunName(id):
		case d < best:
			best, near = d, []string{id}
		case d == best:
			near = append(near, id)
		}
	}
	sort.Strings(near)
	if len(near) > maxSuggestions {
		near = near[:maxSuggestions]
	}
	return near
}

// runOfName takes what may be a run id out of a branch or worktree
// directory name: "<run>-task-<digit>...", or "<hex6>-main" (the forms
// --list reads). Whether it is a valid id is left to the caller: of
// thousands of names, only the few near the id typed need the check.
func runOfName(name []byte) ([]byte, bool) {
	if i := bytes.Index(name, []byte("-task-")); i > 0 && i+6 < len(name) && name[i+6] >= '0' && name[i+6] <= '9' {
		return name[:i], true
	}
	if run, ok := bytes.CutSuffix(name, []byte("-main")); ok && len(run) == 6 && planfind.RunOfDir(string(run)) == string(run) {
		return run, true
	}
	return nil, false
}

// suggestDistance is how far a suggestion may be from the id typed: one
// edit for short ids, two from six characters (an orchestrator's
// "a1b2c3"), so that "r1" suggests "r2" but not every two-character id.
func suggestDistance(run string) int {
	if len(run) < 6 {
		return 1
	}
	return 2
}

// didYouMean is the end of the unknown-run message: the ids to try.
func didYouMean(ids []string) string {
	switch len(ids) {
	case 0:
		return ""
	case 1:
		return "; did you mean " + ids[0] + "?"
	}
	return "; did you mean " + strings.Join(ids[:len(ids)-1], ", ") + " or " + ids[len(ids)-1] + "?"
}
