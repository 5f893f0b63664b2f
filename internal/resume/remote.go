package resume

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/taskresume/git-taskresume/internal/branches"
	"github.com/taskresume/git-taskresume/internal/claims"
	"github.com/taskresume/git-taskresume/internal/exit"
	"github.com/taskresume/git-taskresume/internal/gitcmd"
	"github.com/taskresume/git-taskresume/internal/ui"
)

// chooseRemote is the remote the user named: --remote, else git config
// taskresume.remote ("" for none), checked to be a name git takes, one
// whose remote-tracking refs can be told from another remote's, and one
// that exists.
func chooseRemote(flag string, cfg map[string]string, rs remoteSet) (string, RemoteSource, error) {
	remote, source, what := flag, RemoteFromFlag, "--remote"
	if remote == "" {
		remote, source, what = cfg["taskresume.remote"], RemoteFromConfig, "git config taskresume.remote"
	}
	if remote == "" {
		return "", "", nil
	}
	if strings.HasPrefix(remote, "-") || plumbing.ReferenceName("refs/remotes/"+remote+"/x").Validate() != nil {
		return "", "", exit.BadInput("remote %q (from %s) is not a valid remote name", remote, what)
	}
	if strings.Contains(remote, "/") {
		// refs/remotes/a/b/<branch> cannot be told from remote a's
		// branch b/<branch>: the run's branches would go unread.
		return "", "", exit.BadInput("remote %q (from %s): names with a / are not supported; git remote rename %s to a name without one", remote, what, remote)
	}
	if !rs.has(remote) {
		known := "this repository has no remote"
		if len(rs.names) > 0 {
			known = "the remotes are " + strings.Join(rs.names, ", ")
		}
		return "", "", exit.BadInput("remote %q (from %s) does not exist (%s): name one of them, or git remote add %s URL", remote, what, known, remote)
	}
	return remote, source, nil
}

// remoteNames are the remotes git config defines, as git spells them (a
// remote's name is case-sensitive), in the order first defined.
func remoteNames(entries []gitcmd.ConfigEntry) []string {
	var names []string
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Key, "remote.")
		if i := strings.LastIndexByte(rest, '.'); ok && i > 0 && !slices.Contains(names, rest[:i]) {
			names = append(names, rest[:i])
		}
	}
	return names
}

// unreadMessage says which task branches only a remote not read has, and
// what reads them.
func (st *State) unreadMessage() string {
	var remotes []string
	seen := map[string]bool{}
	for _, name := range st.Unread {
		r, _, _ := strings.Cut(name, "/"+branches.TaskPrefix(st.opts.Run))
		if !seen[r] {
			seen[r] = true
			remotes = append(remotes, r)
		}
	}
	how := make([]string, len(remotes))
	for i, r := range remotes {
		switch {
		case strings.HasPrefix(r, "refs/remotes/"):
			how[i] = fmt.Sprintf("when a fetch updates them, and none does: no remote's fetch refspec puts a branch at %s/ (a removed remote's leftovers, a narrowed or moved refspec: git remote -v, git config --get-all remote.<name>.fetch); delete them (git update-ref -d) or fetch them", r)
		case strings.Contains(r, "/"):
			how[i] = fmt.Sprintf("after renaming remote %s (its name holds a /, and such a remote is never read: git remote rename %s %s)", r, r, strings.ReplaceAll(r, "/", "-"))
		default:
			how[i] = "with --remote " + r
		}
	}
	return fmt.Sprintf("%d task branch(es) of run %s exist only as remote-tracking branches (%s): they are read only %s; without it their tasks look not started",
		len(st.Unread), st.opts.Run, ui.FirstFew(st.Unread), strings.Join(how, " or "))
}

// readRemote reads the remote's claims and where its copy of the run's
// branches stands, and merges the claims with this repository's.
func (st *State) readRemote(ctx context.Context, repo *gitcmd.Repo, objs *gitcmd.Objects, cfg map[string]string, allRefs map[string]gitcmd.Ref) {
	remote, run := st.Remote, st.opts.Run
	pushes := cfg["remote."+strings.ToLower(remote)+".pushurl"] != ""
	for k := range cfg {
		pushes = pushes || strings.HasSuffix(k, ".pushinsteadof")
	}
	if pushes {
		// Only where the push URL really differs: a pushInsteadOf for
		// other hosts, or a pushurl equal to the url, changes nothing.
		var push, fetch []byte
		err := parallel(
			func() (err error) {
				push, err = repo.Run(ctx, "remote", "get-url", "--push", "--all", "--end-of-options", remote)
				return err
			},
			func() (err error) {
				fetch, err = repo.Run(ctx, "remote", "get-url", "--all", "--end-of-options", remote)
				return err
			},
		)
		if err != nil {
			st.ClaimsErr = fmt.Errorf("read the claims on %s: %s", remote, gitcmd.OneLine(err))
			return
		}
		urls := strings.Fields(string(push))
		if len(urls) != 1 {
			st.ClaimsErr = fmt.Errorf("remote %s pushes to %d URLs: claims need one place to live", remote, len(urls))
			return
		}
		if f := strings.Fields(string(fetch)); len(f) != 1 || f[0] != urls[0] {
			st.ReadFrom = urls[0]
		}
	}
	tp := branches.TaskPrefix(run)
	// The run's branches, and the default branches the landing search
	// reads (origin's): where this repository's copy is behind, a task
	// another machine finished or merged looks not done here.
	heads := []string{"refs/heads/" + tp + "*", "refs/heads/" + branches.MainBranch(run)}
	if remote == "origin" {
		heads = append(heads, "refs/heads/main", "refs/heads/master")
	}
	v, err := claims.ReadRemote(ctx, repo, objs, remote, st.ReadFrom, run, time.Now(), heads...)
	if err != nil {
		st.ClaimsErr = err
		return
	}
	local := st.Claims
	st.Claims = claims.Merge(local, v.Claims, remote)
	st.StaleCopies = claims.StaleCopies(local, v.Claims, remote)
	for _, id := range slices.Sorted(maps.Keys(v.Claims)) {
		if c := v.Claims[id]; c.Alias != "" {
			st.claimProblems = append(st.claimProblems, Problem{Kind: ProblemClaimAlias, Task: st.PlanID(id), Message: fmt.Sprintf(
				"task %s cannot be claimed: %s", st.PlanID(id), &claims.AliasError{Claim: c})})
		}
	}
	for _, id := range claims.Conflicts(local, v.Claims, remote) {
		if v.Claims[id].Alias != "" {
			continue // named above
		}
		st.claimProblems = append(st.claimProblems, Problem{Kind: ProblemClaimConflict, Task: st.PlanID(id), Message: fmt.Sprintf(
			"task %s is claimed twice: by %s in this repository only, and by %s on %s; claims taken without the remote are invisible to other machines (set git config taskresume.remote on every machine); one of them should release it",
			st.PlanID(id), local[id].Holder, v.Claims[id].Holder, remote)})
	}
	// A branch is read from here as the local branch, else as the copy:
	// it is behind when neither is at the remote's commit.
	st.movedTo = map[string]string{}
	for ref, oid := range v.Heads {
		name := strings.TrimPrefix(ref, "refs/heads/")
		tr := st.remotes.trackingRef(remote, name)
		if tr == "" && name != "main" && name != "master" {
			// No fetch refspec brings it here: no fetch will, so it is
			// not "moved" (a fetch would not help) but unread.
			if allRefs[ref].OID != oid {
				st.Unfetched = append(st.Unfetched, name)
			}
			continue
		}
		c, copied := allRefs[tr]
		copied = copied && tr != ""
		if name == "main" || name == "master" {
			if copied && c.OID != oid {
				st.Moved = append(st.Moved, remote+"/"+name)
			}
			continue
		}
		if (!copied || c.OID != oid) && allRefs[ref].OID != oid {
			st.Moved = append(st.Moved, name)
			st.movedTo[name] = oid
		}
	}
	sort.Strings(st.Moved)
	sort.Strings(st.Unfetched)
	if len(st.Unfetched) > 0 {
		st.claimProblems = append(st.claimProblems, Problem{Kind: ProblemRemoteBranchesUnread, Message: st.unfetchedMessage()})
	}
	// Copies of task branches the remote no longer has: a fetch without
	// --prune keeps them. reportMoved keeps those that a done task stands
	// on alone.
	for ref := range allRefs {
		rm, name, tracked, ok := st.remotes.attribute(ref)
		if _, held := v.Heads["refs/heads/"+name]; ok && tracked && rm == remote && isRunBranch(name, st.opts.Run) && !held {
			st.Gone = append(st.Gone, name)
		}
	}
	sort.Strings(st.Gone)
}

// movedMessage says that the remote-tracking copies are behind the remote.
func (st *State) movedMessage() string {
	if len(st.Moved) == 0 {
		return st.goneMessage()
	}
	return fmt.Sprintf("%s has moved on since the last fetch: %d of the run's branches differ from %s/ here (%s); git fetch %s, then read again",
		st.Remote, len(st.Moved), st.Remote, ui.FirstFew(st.Moved), st.Remote)
}

// goneMessage says that the remote deleted branches whose copies here
// make tasks done.
func (st *State) goneMessage() string {
	return fmt.Sprintf("%s has deleted %d of the run's branches since the last fetch (%s), whose copies here are all that makes their tasks done (deleted to run them again, or given up); git fetch --prune %s, then read again",
		st.Remote, len(st.Gone), ui.FirstFew(st.Gone), st.Remote)
}

// HandOutError says why tasks cannot be handed out (mode is --claim or
// --next) or held (--renew, --release) on this reading, or is nil: a claim
// or a schedule must see every claim and every task branch there is.
func (st *State) HandOutError(mode string) error {
	claiming := mode == "--claim" || mode == "--renew" || mode == "--release"
	switch {
	case st.ClaimsErr != nil:
		return st.ClaimsErr
	case mode != "--next" && !claiming:
		return nil
	case st.Ambiguous != "":
		return exit.BadInput("%s: %s", mode, st.Ambiguous)
	case claiming && st.Remote == "" && st.remote.name != "":
		// A claim held here alone would not hold the task for the
		// machines that read the run from its remote.
		r := st.remote.name
		return exit.BadInput("%s: run %s is read from remote %s, where its branches are: a claim must live there to hold the task for every machine; pass --remote %s, or set git config taskresume.remote %s",
			mode, st.opts.Run, r, r, r)
	case mode != "--claim" && mode != "--next":
		return nil // --renew, --release: the claim is the task's already
	case len(st.Moved) > 0 || len(st.Gone) > 0:
		return &exit.BadInputError{Msg: st.movedMessage()}
	case len(st.Unfetched) > 0:
		return exit.BadInput("%s: %s", mode, st.unfetchedMessage())
	case len(st.unreadMain) > 0 && st.remote.name == "" && len(st.Unread) == 0:
		return exit.BadInput("%s: %s", mode, st.unreadMainMessage())
	case len(st.Unread) > 0:
		r, _, _ := strings.Cut(st.Unread[0], "/"+branches.TaskPrefix(st.opts.Run))
		if !st.remotes.readable(r) {
			return exit.BadInput("%s: %s", mode, st.unreadMessage())
		}
		return exit.BadInput("%s: %s and the run's other task branches on that remote are not read: pass --remote %s, or git config taskresume.remote",
			mode, st.Unread[0], r)
	}
	return nil
}

// unfetchedMessage says which of the run's branches the remote holds
// that no fetch refspec of it brings here.
func (st *State) unfetchedMessage() string {
	return fmt.Sprintf("%s holds %d of the run's branches that no fetch refspec of it brings here (%s): they are not read, and no fetch will read them; git remote set-branches --add %s '%s-*' (or widen remote.%s.fetch), then git fetch %s",
		st.Remote, len(st.Unfetched), ui.FirstFew(st.Unfetched), st.Remote, st.opts.Run, st.Remote, st.Remote)
}

// Behind says why a live reading is behind the remote (it moved, or
// deleted a branch a done task stands on, since the fetch), or "": what
// follows from the verdicts must wait for a fetch.
func (st *State) Behind() string {
	if len(st.Moved) > 0 || len(st.Gone) > 0 {
		return st.movedMessage()
	}
	if len(st.Unfetched) > 0 {
		return st.unfetchedMessage()
	}
	return ""
}

// unreadMainMessage says that the run's own branch is only where it is
// never read, and what reads it.
func (st *State) unreadMainMessage() string {
	mb := branches.MainBranch(st.opts.Run)
	how := make([]string, len(st.unreadMain))
	for i, name := range st.unreadMain {
		r := strings.TrimSuffix(name, "/"+mb)
		if st.remotes.has(r) {
			how[i] = fmt.Sprintf("%s: its remote's name holds a /, and such a remote is never read (git remote rename %s %s)", name, r, strings.ReplaceAll(r, "/", "-"))
		} else {
			how[i] = fmt.Sprintf("%s: no remote's fetch refspec puts a branch there (a removed remote's leftovers, a narrowed or moved refspec)", name)
		}
	}
	return fmt.Sprintf("the run's own branch %s exists only where it is never read (%s); the tasks merged into it look not done here",
		mb, strings.Join(how, "; "))
}

// UnreadCount counts the run's branches held only where they are not
// read: task branches, and copies of <run>-main.
func (st *State) UnreadCount() int { return len(st.Unread) + len(st.unreadMain) + len(st.Unfetched) }

// Undecided says why this reading cannot tell which tasks are done, or is
// "": remotes that differ with none chosen, or no remote read while one
// that cannot be read holds task branches of the run. An answer that
// follows from the verdicts (the gate, the clean's choice of stale
// worktrees) is then refused rather than guessed.
func (st *State) Undecided() string {
	switch {
	case st.Ambiguous != "":
		return st.Ambiguous
	case len(st.Unread) > 0 && st.remote.name == "":
		return st.unreadMessage()
	case len(st.unreadMain) > 0 && st.remote.name == "":
		return st.unreadMainMessage()
	}
	return ""
}

// GateError says why --exit-code cannot answer on this reading, or is
// nil (Undecided). A run that reads complete all the same passes: more
// branches elsewhere cannot undo a task. Where a remote was read, branches
// only another remote holds are said (remote_branches_unread) and the gate
// answers from the remote read, as --remote asks.
func (st *State) GateError() error {
	if why := st.Undecided(); why != "" && (st.Ambiguous != "" || st.Report.Status != RunCompleted) {
		return exit.BadInput("--exit-code: %s", why)
	}
	return nil
}

// preferNewerCopies: a local task branch behind its remote copy is an
// older state of the same work (another machine went on): the copy counts.
func (st *State) preferNewerCopies(walk []gitcmd.LogEntry) {
	st.behind = map[string]branches.Branch{}
	for i, b := range st.TaskBranches {
		rb, ok := st.RemoteCopies[b.Name]
		if !ok || b.Remote != "" || Relation(branches.Relate(walk, b.OID, rb.OID)) != RelationBehind {
			continue
		}
		st.behind[b.Name] = b
		st.TaskBranches[i] = rb
	}
}

// LocalBehind is the local task branch name when it is behind its remote
// copy, which counts in its place.
func (st *State) LocalBehind(name string) (branches.Branch, bool) {
	b, ok := st.behind[name]
	return b, ok
}

// reportMoved says which of the run's branches the remote moved since the
// last fetch. More commits on the branch of a task already done here
// change no answer: only the other moves make the view behind. A branch
// the remote moved back or aside (reset, rewritten: the branch read is no
// ancestor of the remote's commit, when that commit is here) is such a
// move, done task or not.
func (st *State) reportMoved(ctx context.Context, v branches.Verdict) {
	done := map[string]string{} // branch -> the commit read
	for _, s := range v.States {
		if s.Branch != nil && (s.Status == branches.Completed || s.Status == branches.Landed) {
			done[s.Branch.Name] = s.Branch.OID
		}
	}
	moved := st.Moved[:0]
	for _, name := range st.Moved {
		read, isDone := done[name]
		if !isDone || !st.movedOn(ctx, read, st.movedTo[name]) {
			moved = append(moved, name)
		}
	}
	st.Moved = moved
	if len(st.Moved) > 0 {
		st.Report.Problems = append(st.Report.Problems, Problem{Kind: ProblemRemoteMoved, Message: st.movedMessage()})
	}
	// A deleted branch matters where its copy alone makes a task done (a
	// merged-and-deleted task is landed on the base: no answer changes),
	// or where the base is the remote's copy of <run>-main.
	counted := map[string]bool{}
	for _, s := range v.States {
		if s.Branch != nil && s.Branch.Remote != "" && s.Status == branches.Completed {
			counted[s.Branch.Name] = true
		}
	}
	mb := branches.MainBranch(st.opts.Run)
	if ref := st.remotes.trackingRef(st.Remote, mb); ref != "" && st.Report.Base.Ref == strings.TrimPrefix(ref, "refs/remotes/") {
		counted[mb] = true
	}
	gone := st.Gone[:0]
	for _, name := range st.Gone {
		if counted[name] {
			gone = append(gone, name)
		}
	}
	st.Gone = gone
	if len(st.Gone) > 0 {
		st.Report.Problems = append(st.Report.Problems, Problem{Kind: ProblemRemoteMoved, Message: st.goneMessage()})
	}
}

// movedOn says whether the remote's commit to is the commit read plus more
// (or cannot be told: not fetched yet, which is how more commits arrive).
func (st *State) movedOn(ctx context.Context, read, to string) bool {
	if read == "" || to == "" {
		return true
	}
	_, err := st.Repo.Run(ctx, "merge-base", "--is-ancestor", read, to)
	return err == nil || gitcmd.ExitCode(err) != 1
}

// compareRemote records, per task, how the local branch stands to its
// remote-tracking copy, so that a second machine's work is visible.
func (st *State) compareRemote(run []gitcmd.LogEntry) {
	if len(st.RemoteCopies) == 0 {
		return
	}
	for _, ph := range st.Report.Phases {
		for _, t := range ph.Tasks {
			if t.Branch == nil {
				continue
			}
			rb, ok := st.RemoteCopies[*t.Branch]
			if !ok {
				continue
			}
			if lb, ok := st.behind[*t.Branch]; ok && rb.OID == *t.Commit {
				t.Remote = &RemoteCopy{Ref: strings.TrimPrefix(rb.Ref, "refs/remotes/"), Commit: rb.OID, Relation: RelationBehind}
				st.Report.Problems = append(st.Report.Problems, Problem{Kind: ProblemRemoteDiffers, Task: t.ID,
					Message: fmt.Sprintf("local %s is behind %s: the remote copy counts (update it: git branch -f %s %s, when nothing checks it out)",
						lb.Name, t.Remote.Ref, lb.Name, t.Remote.Ref)})
				continue
			}
			rel := Relation(branches.Relate(run, *t.Commit, rb.OID))
			t.Remote = &RemoteCopy{Ref: strings.TrimPrefix(rb.Ref, "refs/remotes/"), Commit: rb.OID, Relation: rel}
			if rel != RelationSame {
				st.Report.Problems = append(st.Report.Problems, Problem{Kind: ProblemRemoteDiffers, Task: t.ID,
					Message: fmt.Sprintf("local %s %s %s (%s)", *t.Branch, relText(rel), t.Remote.Ref, relHint(rel))})
			}
		}
	}
}

// relText says a relation in words: "local B <relText> R".
func relText(rel Relation) string {
	switch rel {
	case RelationAhead, RelationBehind:
		return "is " + string(rel) + " of"
	case RelationDiverged:
		return "has diverged from"
	}
	return "differs from"
}

// relHint says what to do about a relation.
func relHint(rel Relation) string {
	switch rel {
	case RelationAhead:
		return "push it"
	case RelationBehind:
		return "pull it"
	}
	return "reconcile them; the local branch is what counts"
}
