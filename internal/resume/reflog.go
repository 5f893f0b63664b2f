package resume

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"github.com/taskresume/git-taskresume/internal/gitcmd"
)

// LostWork is work a task branch's reflog holds that nothing else does: the
// branch was reset or rewound past commits that held the task's work.
type LostWork struct {
	Branch  string // short branch name
	Commit  string // the newest such commit (full id) the reflog names
	Subject string
	Count   int // commits reachable from the reflog's entries and from no ref (branch, tag, remote-tracking, refs/taskclean/*) nor HEAD of any worktree
	// Tips are the lost commits no other lost commit leads to, newest
	// reflog entry first: keeping them keeps all Count commits.
	Tips []string
}

// ReflogLost reads, for each named local branch, its reflog file directly
// (<common dir>/logs/refs/heads/<name>; format per line: "<old> <new> <name> <email> <time> <tz>\t<message>"),
// collects the entries' new ids that differ from the branch's current tip,
// and asks git once (one process for all branches together, revisions on stdin) which commits
// reachable from those ids no ref and no worktree HEAD holds.
//
// Ids the reflog itself shows to be ancestors of the tip (a run of entries
// that only moved the branch forward and ends at the tip) are left out
// without asking git, so that a branch that was only ever committed to
// costs no process at all. Whatever else the reflog names, git decides.
func ReflogLost(ctx context.Context, repo *gitcmd.Repo, tips map[string]string) (map[string]LostWork, error) {
	dir := repo.CommonDir
	if dir == "" {
		dir = repo.GitDir
	}
	// Branches in a fixed order so that the input git reads, and so any
	// error, is the same from run to run.
	branches := make([]string, 0, len(tips))
	for b := range tips {
		branches = append(branches, b)
	}
	sort.Strings(branches)

	cands := map[string][]reflogCandidate{}
	var input strings.Builder
	sent := map[string]bool{}
	for _, b := range branches {
		entries, err := readBranchReflog(dir, b)
		if err != nil {
			return nil, err
		}
		cs := reflogCandidates(entries, tips[b])
		if len(cs) == 0 {
			continue
		}
		cands[b] = cs
		for _, c := range cs {
			if !sent[c.id] {
				sent[c.id] = true
				input.WriteString(c.id + "\n")
			}
		}
	}
	if len(cands) == 0 {
		return map[string]LostWork{}, nil
	}

	// --all stands for every ref under refs/ (branches, tags, remotes, the
	// refs/taskclean/ backups, stashes) and for HEAD of every worktree, not
	// just this one's, unless --single-worktree is given: work any of them
	// holds is not lost. --ignore-missing drops reflog entries whose commit
	// gc has already removed: there is nothing left of them to save. Every
	// revision comes on stdin; there are no other arguments.
	// --encoding=UTF-8: the subjects as the reports read them, whatever
	// i18n.logOutputEncoding says (in UTF-16 no line could be read).
	out, err := repo.RunInput(ctx, []byte(input.String()), "rev-list", "--no-commit-header",
		"--format=%H %P%x00%s", "--encoding=UTF-8", "--ignore-missing", "--stdin", "--not", "--all")
	if err != nil {
		return nil, err
	}
	lost, err := parseLostCommits(out)
	if err != nil {
		return nil, err
	}

	res := map[string]LostWork{}
	for _, b := range branches {
		if w, ok := lostFor(b, cands[b], lost); ok {
			res[b] = w
		}
	}
	return res, nil
}

// reflogEntry is one line of a reflog file.
type reflogEntry struct {
	old, new string
	msg      string
}

// reflogCandidate is an id a branch's reflog names that may hold lost work,
// with the position of the last entry naming it (later is newer).
type reflogCandidate struct {
	id  string
	pos int
}

// readBranchReflog reads the reflog of local branch name. A branch without
// a reflog file (a bare repository, logAllRefUpdates off, refs in reftable)
// has no entries; that is not an error.
func readBranchReflog(dir, name string) ([]reflogEntry, error) {
	if !usableBranchName(name) {
		return nil, fmt.Errorf("reflog: unusable branch name %q", name)
	}
	path := filepath.Join(dir, "logs", "refs", "heads", filepath.FromSlash(name))
	data, err := os.ReadFile(path)
	if err != nil {
		// A directory where the file would be (left by a deleted
		// branch a/b when a exists) or a file where a directory would be
		// mean the same as no file: git keeps no reflog there either.
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) || errors.Is(err, syscall.EISDIR) {
			return nil, nil
		}
		return nil, fmt.Errorf("reflog of %s: %w", name, err)
	}
	var entries []reflogEntry
	for _, line := range strings.Split(string(data), "\n") {
		if e, ok := parseReflogLine(line); ok {
			entries = append(entries, e)
		}
	}
	return entries, nil
}

// usableBranchName refuses names that would lead the reflog path out of
// logs/refs/heads. Names read from refs never do (git refuses "..", empty
// components and backslashes in ref names); this only guards against a
// caller passing something else.
func usableBranchName(name string) bool {
	if name == "" || strings.ContainsAny(name, "\\\x00") {
		return false
	}
	for _, part := range strings.Split(name, "/") {
		if part == "" || part == "." || part == ".." {
			return false
		}
	}
	return true
}

// parseReflogLine reads "<old> <new> <name> <email> <time> <tz>\t<message>".
// Lines that do not start with two object ids are skipped: a torn last
// line from a crash must not hide the other entries.
func parseReflogLine(line string) (reflogEntry, bool) {
	head, msg, _ := strings.Cut(line, "\t")
	f := strings.SplitN(head, " ", 3)
	if len(f) < 3 || !isObjectID(f[0]) || !isObjectID(f[1]) {
		return reflogEntry{}, false
	}
	return reflogEntry{old: f[0], new: f[1], msg: msg}, true
}

// isObjectID is true for a full SHA-1 or SHA-256 id in lower-case hex.
func isObjectID(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// isNullID is the all-zero id a reflog writes for "no value" (before a
// branch was created).
func isNullID(s string) bool {
	return strings.Trim(s, "0") == ""
}

// reflogCandidates returns the ids of entries that may hold work the tip
// does not: every new id except the tip and except those the reflog shows
// to be the tip's ancestors. Walking back from the last entry, as long as
// that entry names the tip and each entry moved the branch forward from
// the one before (its old id is the previous entry's new id), the previous
// new id is an ancestor of the tip. The first entry that breaks the run
// (a reset, an amend, a rebase, a gap) ends it; everything before it goes
// to git.
func reflogCandidates(entries []reflogEntry, tip string) []reflogCandidate {
	held := len(entries) // entries[held:] are known ancestors of the tip
	if len(entries) > 0 && tip != "" && entries[len(entries)-1].new == tip {
		held = len(entries) - 1
		for held > 0 {
			e := entries[held]
			if e.old != entries[held-1].new || !movesForward(e) {
				break
			}
			held--
		}
	}
	last := map[string]int{}
	var order []string
	for i, e := range entries[:held] {
		if e.new == tip || isNullID(e.new) {
			continue
		}
		if _, ok := last[e.new]; !ok {
			order = append(order, e.new)
		}
		last[e.new] = i
	}
	cs := make([]reflogCandidate, 0, len(order))
	for _, id := range order {
		cs = append(cs, reflogCandidate{id: id, pos: last[id]})
	}
	return cs
}

// movesForward is true when the entry's new id is its old id or a
// descendant of it, going by the messages git writes for such moves: a
// commit made on top of the branch, a cherry-pick or revert (also new
// commits on top), a fast-forward or a merge, and a rename (which keeps
// the id). An amend, reset, rebase or forced update can leave commits
// behind, so they are not on this list, and neither is anything else: an
// unknown message only costs a question to git.
func movesForward(e reflogEntry) bool {
	if e.old == e.new {
		return true
	}
	for _, p := range []string{"commit: ", "commit (initial): ", "commit (merge): ", "cherry-pick: ", "revert: "} {
		if strings.HasPrefix(e.msg, p) {
			return true
		}
	}
	// "merge topic: Fast-forward", "pull origin main: Merge made by the
	// 'ort' strategy." (pull names its arguments in the message).
	if strings.HasPrefix(e.msg, "merge ") || strings.HasPrefix(e.msg, "pull ") || strings.HasPrefix(e.msg, "pull:") {
		return strings.HasSuffix(e.msg, ": Fast-forward") || strings.Contains(e.msg, ": Merge made by the ")
	}
	return false
}

// lostCommit is one commit rev-list reported: reachable from a reflog and
// from no ref nor worktree HEAD.
type lostCommit struct {
	parents []string
	subject string
}

// parseLostCommits reads rev-list output in the format "%H %P%x00%s", one
// commit a line (a subject never holds a newline: git joins the lines of
// the first paragraph with spaces).
func parseLostCommits(out []byte) (map[string]lostCommit, error) {
	lost := map[string]lostCommit{}
	for _, line := range strings.Split(string(out), "\n") {
		if line == "" {
			continue
		}
		ids, subject, ok := strings.Cut(line, "\x00")
		f := strings.Fields(ids)
		if !ok || len(f) == 0 || !isObjectID(f[0]) {
			return nil, fmt.Errorf("rev-list: unexpected line %q", line)
		}
		lost[f[0]] = lostCommit{parents: f[1:], subject: subject}
	}
	return lost, nil
}

// lostFor sums up what one branch's reflog holds alone. It walks from the
// branch's candidates through parents, staying inside lost: a commit on a
// path from a lost commit to another cannot be held by a ref (the ref
// would hold what lies below it too), so the walk finds all of the lost
// commits the reflog leads to and nothing else. The commit it names is the
// latest reflog entry among those no other candidate leads to, so that a
// branch rewound step by step names its furthest work, not its last step.
func lostFor(branch string, cs []reflogCandidate, lost map[string]lostCommit) (LostWork, bool) {
	isCand := map[string]bool{}
	for _, c := range cs {
		if _, ok := lost[c.id]; ok {
			isCand[c.id] = true
		}
	}
	if len(isCand) == 0 {
		return LostWork{}, false
	}
	seen := map[string]bool{}
	covered := map[string]bool{}
	for _, c := range cs {
		if !isCand[c.id] || seen[c.id] {
			continue
		}
		seen[c.id] = true
		stack := []string{c.id}
		for len(stack) > 0 {
			id := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for _, p := range lost[id].parents {
				if _, ok := lost[p]; !ok {
					continue
				}
				// Marked even when already seen: the candidate may
				// have been a starting point before this walk reached
				// it.
				if isCand[p] {
					covered[p] = true
				}
				if !seen[p] {
					seen[p] = true
					stack = append(stack, p)
				}
			}
		}
	}
	best := reflogCandidate{pos: -1}
	var tips []reflogCandidate
	for _, c := range cs {
		if isCand[c.id] && !covered[c.id] {
			tips = append(tips, c)
			if c.pos > best.pos {
				best = c
			}
		}
	}
	sort.SliceStable(tips, func(i, j int) bool { return tips[i].pos > tips[j].pos })
	w := LostWork{Branch: branch, Commit: best.id, Subject: lost[best.id].subject, Count: len(seen)}
	for _, c := range tips {
		w.Tips = append(w.Tips, c.id)
	}
	return w, true
}
