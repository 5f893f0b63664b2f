package branches

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/taskresume/git-taskresume/internal/gitcmd"
)

// Forge formats (docs/DESIGN.md, "Step 2: which task a commit names"): a
// forge's squash writes its own words. GitHub's "Squash and merge" takes
// the pull request's title and adds " (#N)"; a title GitHub made from the
// branch name is that name with its dashes and underscores turned into
// spaces and its first letter upper-cased ("X1y2z3 task 2 1 user
// service"). GitLab's squash is the merge request's title alone, made from
// the branch name the same way ("Draft: " while a draft). Such a subject
// names the branch, as a merge subject does. The body's list of the
// squashed commits (gitcmd.ListSquashed) is read commit by commit.

// titleBranch is the branch name a squash subject's title was made from,
// "" when the title cannot be one: words of a branch name only (letters,
// digits, ".", "/"), separated by single spaces, read back with dashes,
// once a leading "Draft: " and a trailing " (#N)" are taken off. The first
// letter is put back in lower case (the forge upper-cased it); a name the
// run's branches spell otherwise is not found, and nothing lands on a
// guess. Read by hand: it runs for every landed commit.
func titleBranch(subject string) string {
	// A run's branch name read back holds " task " or ends in " main":
	// most subjects stop here, with nothing allocated.
	if !strings.Contains(subject, " task ") && !strings.Contains(subject, " main") {
		return ""
	}
	t := strings.TrimSpace(subject)
	if len(t) > 6 && strings.EqualFold(t[:6], "draft:") {
		t = strings.TrimLeft(t[6:], " ")
	}
	if k := gitcmd.PRSuffix(t); k >= 0 {
		t = strings.TrimRight(t[:k], " ")
	}
	if !strings.Contains(t, " ") || strings.Contains(t, "  ") {
		return ""
	}
	for i := 0; i < len(t); i++ {
		if c := t[i]; c != ' ' && !isBranchByte(c) || c == '-' || c == '_' {
			return "" // a forge turned every dash and underscore into a space
		}
	}
	r, size := utf8.DecodeRuneInString(t)
	return string(unicode.ToLower(r)) + strings.ReplaceAll(t[size:], " ", "-")
}

// forgeNaming is what a landed commit that is a squash says (the forge
// formats of docs/DESIGN.md, "Step 2: which task a commit names"); squash
// is false when it is none (then Name reads it). A title made from one of
// this run's branch names names that branch's task (branchTask reads a
// branch name's task), and the commits the body lists add theirs; a title
// made from another run's branch name makes the squash that run's, its
// list no evidence for this run. Without such a title, the subject's own
// words name the task, else the listed subjects, each read under the rule
// of the branch the squash landed on (shared: the id and the whole title).
func (n *Names) forgeNaming(c *CommitInfo, shared bool, branchTask func(string) string) (nm Naming, squash bool) {
	if name := titleBranch(c.Subject); mayNameRun(name) {
		switch run := newRunReader(n.run).wordRun(name); run {
		case "":
		case n.run:
			var ids []string
			for _, b := range MergedBranches(n.run, name) {
				if t := branchTask(b); t != "" {
					ids = append(ids, t)
				}
			}
			for _, t := range n.listedTasks(c, shared) {
				if !slices.Contains(ids, t) {
					ids = append(ids, t)
				}
			}
			nm = Naming{Marked: true, How: "squash"}
			if len(ids) > 0 {
				nm.Task, nm.Also = ids[0], ids[1:]
			}
			return nm, true
		default:
			return Naming{Marked: true, How: "squash", By: run}, true
		}
	}
	if len(c.Listed) == 0 && gitcmd.PRSuffix(c.Subject) < 0 && strings.TrimSpace(c.Subject) != gitcmd.GitSquashSubject {
		return Naming{}, false
	}
	if nm = n.Name(c, shared); nm.Marked {
		return nm, true
	}
	if ids := n.listedTasks(c, shared); len(ids) > 0 {
		nm = Naming{Task: ids[0], Also: ids[1:], Marked: true, How: "squash"}
	}
	return nm, true
}

// NameLanded is Name for a commit of the base or the default branches,
// forge formats included: a squash's title made from a branch name, and
// the commits its message lists.
func (n *Names) NameLanded(c *CommitInfo, shared bool) Naming {
	if nm, ok := n.forgeNaming(c, shared, n.Task); ok {
		return nm
	}
	return n.Name(c, shared)
}

// listedTasks are the tasks the subjects a squash lists name, under the
// rule of the branch it landed on (shared: the id and the whole title).
func (n *Names) listedTasks(c *CommitInfo, shared bool) []string {
	var out []string
	for _, l := range c.Listed {
		one := CommitInfo{Subject: l}
		if nm := n.Name(&one, shared); nm.Task != "" && !slices.Contains(out, nm.Task) {
			out = append(out, nm.Task)
		}
	}
	return out
}
