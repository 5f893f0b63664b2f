package resume

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/taskresume/git-taskresume/internal/branches"
	"github.com/taskresume/git-taskresume/internal/gitcmd"
	"github.com/taskresume/git-taskresume/internal/ui"
)

// The run's remote (docs/DESIGN.md, "Which remote a run is read from"): a
// clone holds a finished run's branches as remote-tracking refs only, so
// a report that read local branches alone would call the run unfinished
// in every clone but the one that ran it. Without --remote or git config
// taskresume.remote, the run is read from the one remote that holds its
// branches, as git switch takes a branch found on exactly one remote.

// remoteChoice is which remote's copies of the run's branches are read.
type remoteChoice struct {
	name   string // "" for none
	source RemoteSource
	// same are the other remotes whose copies of the run's branches are
	// the chosen one's, ref for ref: one remote, as far as the run goes.
	same []string
	// differ are the remotes whose copies disagree when no setting
	// decides between them: none is read (remote_ambiguous).
	differ []string
}

// remoteSet is the configured remotes: their names, as git spells them
// (a remote's name is case-sensitive), URLs and fetch refspecs, which say
// where each one's branches are. A remote-tracking ref that no refspec
// maps a branch to (a narrowed or moved refspec, a remote's section removed
// by hand) is no fetch's: prune never touches it and no fetch updates it,
// so it is never read.
type remoteSet struct {
	names []string
	urls  map[string]string
	specs map[string][]refspec
}

// refspec is one fetch refspec: src to dst, each with at most one "*";
// a negative one ("^src") has no dst and takes branches out.
type refspec struct {
	src, dst string
	neg      bool
}

// readRemoteSet reads the remotes from git config's remote.* entries.
func readRemoteSet(entries []gitcmd.ConfigEntry) remoteSet {
	rs := remoteSet{names: remoteNames(entries), urls: map[string]string{}, specs: map[string][]refspec{}}
	for _, e := range entries {
		rest, _ := strings.CutPrefix(e.Key, "remote.")
		i := strings.LastIndexByte(rest, '.')
		if i <= 0 || !strings.HasPrefix(e.Key, "remote.") {
			continue
		}
		name, key := rest[:i], strings.ToLower(rest[i+1:])
		switch key {
		case "url":
			if rs.urls[name] == "" {
				rs.urls[name] = e.Value
			}
		case "fetch":
			v := strings.TrimPrefix(e.Value, "+")
			if neg, ok := strings.CutPrefix(v, "^"); ok {
				rs.specs[name] = append(rs.specs[name], refspec{src: neg, neg: true})
			} else if src, dst, ok := strings.Cut(v, ":"); ok && dst != "" {
				rs.specs[name] = append(rs.specs[name], refspec{src: src, dst: dst})
			}
		}
	}
	return rs
}

// has says whether name is a configured remote.
func (rs remoteSet) has(name string) bool { return slices.Contains(rs.names, name) }

// globMatch matches name against a pattern with at most one "*",
// returning what the "*" stands for.
func globMatch(pattern, name string) (string, bool) {
	pre, suf, star := strings.Cut(pattern, "*")
	if !star {
		return "", name == pattern
	}
	if len(name) < len(pre)+len(suf) || !strings.HasPrefix(name, pre) || !strings.HasSuffix(name, suf) {
		return "", false
	}
	return name[len(pre) : len(name)-len(suf)], true
}

// excluded says whether a negative refspec of remote takes src out.
func (rs remoteSet) excluded(remote, src string) bool {
	for _, sp := range rs.specs[remote] {
		if _, ok := globMatch(sp.src, src); sp.neg && ok {
			return true
		}
	}
	return false
}

// trackingRef is the ref where remote's branch is fetched to, "" when no
// refspec of it fetches that branch.
func (rs remoteSet) trackingRef(remote, branch string) string {
	src := "refs/heads/" + branch
	if rs.excluded(remote, src) {
		return ""
	}
	for _, sp := range rs.specs[remote] {
		if sp.neg {
			continue
		}
		if c, ok := globMatch(sp.src, src); ok && strings.Count(sp.dst, "*") == strings.Count(sp.src, "*") {
			return strings.Replace(sp.dst, "*", c, 1)
		}
	}
	return ""
}

// attribute says whose a remote-tracking ref is: the first configured
// remote with a refspec that fetches a branch to it (tracked), else its
// first path component, whose refs no fetch updates (not tracked: never
// read). ok is false for a ref that is not under refs/remotes/.
func (rs remoteSet) attribute(ref string) (remote, branch string, tracked, ok bool) {
	for _, n := range rs.names {
		for _, sp := range rs.specs[n] {
			if sp.neg {
				continue
			}
			c, ok := globMatch(sp.dst, ref)
			if !ok || strings.Count(sp.dst, "*") != strings.Count(sp.src, "*") {
				continue
			}
			src := strings.Replace(sp.src, "*", c, 1)
			if b, ok := strings.CutPrefix(src, "refs/heads/"); ok && b != "" && !rs.excluded(n, src) {
				return n, b, true, true
			}
		}
	}
	rest, ok := strings.CutPrefix(ref, "refs/remotes/")
	if !ok {
		return "", "", false, false
	}
	remote, branch, ok = strings.Cut(rest, "/")
	return remote, branch, false, ok && branch != ""
}

// readable says whether a remote's copies can be read: a configured
// remote whose name holds no "/" (refs/remotes/a/b/x cannot be told from
// remote a's branch b/x by anyone reading the refs without this config).
func (rs remoteSet) readable(remote string) bool {
	return rs.has(remote) && !strings.Contains(remote, "/")
}

// copyOf says whether ref is a readable remote's copy of one of its
// branches, fetched there.
func (rs remoteSet) copyOf(ref string) bool {
	r, _, tracked, ok := rs.attribute(ref)
	return ok && tracked && rs.readable(r)
}

// isRunBranch is a name of the run's branches: a task branch or <run>-main.
func isRunBranch(name, run string) bool {
	return strings.HasPrefix(name, branches.TaskPrefix(run)) || name == branches.MainBranch(run)
}

// runCopies are the run's branches each remote holds, where its fetches
// put them: branch -> commit.
func runCopies(refs []gitcmd.Ref, rs remoteSet, run string) map[string]map[string]string {
	held := map[string]map[string]string{}
	for _, r := range refs {
		remote, branch, tracked, ok := rs.attribute(r.Name)
		if !ok || !tracked || !isRunBranch(branch, run) {
			continue
		}
		if held[remote] == nil {
			held[remote] = map[string]string{}
		}
		held[remote][branch] = r.OID
	}
	return held
}

// beyondLocal is, for each remote, the copies that could change the
// reading: a copy equal to the local branch of its name, or behind it, is
// never read (the local branch wins), so a remote holding only such copies
// reads as the local branches do. isAncestor answers whether a commit is
// an ancestor of another (ok false: it cannot tell, and the copy stays).
func beyondLocal(held map[string]map[string]string, local map[string]string, isAncestor func(anc, desc string) (yes, ok bool)) map[string]map[string]string {
	out := make(map[string]map[string]string, len(held))
	for r, copies := range held {
		out[r] = map[string]string{}
		for b, oid := range copies {
			l, ok := local[b]
			if ok && l == oid {
				continue
			}
			if ok {
				if yes, known := isAncestor(oid, l); known && yes {
					continue
				}
			}
			out[r][b] = oid
		}
	}
	return out
}

// pickRemote chooses the run's remote. explicit is --remote or
// taskresume.remote (source says which); defaultRemote is git's
// checkout.defaultRemote, read only when several remotes differ. held are
// the run's branches on each remote, as compared (what they hold beyond the
// local branches: beyondLocal); inSync counts each remote's copies equal to
// the local branches.
func pickRemote(held map[string]map[string]string, inSync map[string]int, readable func(string) bool, explicit string, source RemoteSource, defaultRemote string) remoteChoice {
	var names []string
	var c remoteChoice
	for r := range held {
		// A remote that cannot be read (a "/" in its name, or refs no
		// configured remote fetches into): its task branches are said as
		// unread.
		if readable(r) {
			names = append(names, r)
		}
	}
	if explicit != "" {
		c.name, c.source = explicit, source
		return c
	}
	// Remotes whose copies are equal count as one.
	var groups [][]string
	for _, r := range orderRemotes(names, defaultRemote, inSync) {
		placed := false
		for i, g := range groups {
			if sameCopies(held[g[0]], held[r]) {
				groups[i] = append(g, r)
				placed = true
				break
			}
		}
		if !placed {
			groups = append(groups, []string{r})
		}
	}
	// A remote that holds nothing beyond the local branches adds nothing
	// to the reading: it defers to the one that does.
	var full [][]string
	for _, g := range groups {
		if len(held[g[0]]) > 0 {
			full = append(full, g)
		}
	}
	switch {
	case len(groups) == 0:
		return c
	case len(full) <= 1:
		g := groups[0]
		if len(full) == 1 {
			g = full[0]
		}
		c.name, c.same, c.source = g[0], g[1:], RemoteImplicit
		return c
	}
	// Several differ: git's own setting picks one, if it holds the run.
	for _, g := range groups {
		for _, r := range g {
			if r == defaultRemote {
				c.name, c.source = r, RemoteDefault
				for _, o := range g {
					if o != r {
						c.same = append(c.same, o)
					}
				}
				return c
			}
		}
	}
	for _, g := range full {
		c.differ = append(c.differ, g...)
	}
	sort.Strings(c.differ)
	return c
}

// orderRemotes puts the remote a group is named by first: the one with
// most copies equal to the local branches (where this machine pushes),
// then git's checkout.defaultRemote, then origin, then by name.
func orderRemotes(names []string, defaultRemote string, inSync map[string]int) []string {
	rank := func(r string) int {
		switch r {
		case defaultRemote:
			return 0
		case "origin":
			return 1
		}
		return 2
	}
	sort.Slice(names, func(i, j int) bool {
		if si, sj := inSync[names[i]], inSync[names[j]]; si != sj {
			return si > sj
		}
		if ri, rj := rank(names[i]), rank(names[j]); ri != rj {
			return ri < rj
		}
		return names[i] < names[j]
	})
	return names
}

func sameCopies(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// ambiguousMessage says why no remote was read, and how to choose one.
func (c remoteChoice) ambiguousMessage(run string, held map[string]map[string]string) string {
	parts := make([]string, len(c.differ))
	for i, r := range c.differ {
		parts[i] = fmt.Sprintf("%s (%s)", r, ui.Plural(len(held[r]), "branch"))
	}
	return fmt.Sprintf("the branches of run %s are on several remotes whose copies differ: %s; none is read, so tasks done only there look not done: pass --remote NAME, or set git config taskresume.remote (or git's checkout.defaultRemote) to the one the run's agents push to",
		run, strings.Join(parts, ", "))
}

// RemoteRead says which remote's copies of the run's branches a report
// read (Report.RemoteRead; null when none was).
type RemoteRead struct {
	Name   string       `json:"name"`
	Source RemoteSource `json:"source"`
	// Live: the remote itself was asked (its claims, and whether its
	// branches moved since the fetch); else only its remote-tracking refs
	// were read, as last fetched, and no network was used.
	Live bool `json:"live"`
	// FetchedAt is when this repository last fetched the run's branches
	// from it, as far as it records (lastFetched); null when it does not.
	FetchedAt *time.Time `json:"fetched_at"`
	// Same are other remotes holding the same copies of the run's
	// branches, ref for ref.
	Same []string `json:"same,omitempty"`
}

// lastFetched is when the run's branches (held, each fetched to its
// tracking ref) were last fetched from their remote: FETCH_HEAD's time when
// the last fetch brought one of them from the remote's URL (one file read:
// a fetch writes it every time), else the newest reflog entry of their
// remote-tracking refs (a fetch that changed one), else the clone's time
// for refs no fetch changed since; nil when none says. commonDir holds the
// reflogs, gitDir FETCH_HEAD (it belongs to the worktree that fetched).
func lastFetched(commonDir, gitDir string, tracking func(branch string) string, held map[string]string, url string) *time.Time {
	var newest time.Time
	for _, dir := range slices.Compact([]string{gitDir, commonDir}) {
		if t, ok := fetchHeadTime(filepath.Join(dir, "FETCH_HEAD"), url, held); ok && t.After(newest) {
			newest = t
		}
	}
	if newest.IsZero() {
		for branch := range held {
			if t, ok := lastReflogTime(filepath.Join(commonDir, "logs", filepath.FromSlash(tracking(branch)))); ok && t.After(newest) {
				newest = t
			}
		}
	}
	if newest.IsZero() {
		// git clone writes no reflog for the remote-tracking refs it
		// makes: unchanged since, they are as the clone fetched them.
		if t, ok := cloneTime(filepath.Join(commonDir, "logs", "HEAD"), url); ok {
			newest = t
		}
	}
	if newest.IsZero() {
		return nil
	}
	newest = newest.UTC().Truncate(time.Second)
	return &newest
}

// lastReflogTime is the time of a reflog file's last entry; only the
// file's end is read (a long-lived ref's reflog can be large).
func lastReflogTime(path string) (time.Time, bool) {
	f, err := os.Open(path)
	if err != nil {
		return time.Time{}, false
	}
	defer f.Close()
	const tail = 4096
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return time.Time{}, false
	}
	off := fi.Size() - tail
	if off < 0 {
		off = 0
	}
	buf := make([]byte, fi.Size()-off)
	if _, err := f.ReadAt(buf, off); err != nil {
		return time.Time{}, false
	}
	lines := strings.Split(strings.TrimRight(string(buf), "\n"), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if t, ok := reflogTime(lines[i]); ok {
			return t, true
		}
	}
	return time.Time{}, false
}

// reflogTime reads the time of "<old> <new> <name> <email> <time> <tz>\t...".
func reflogTime(line string) (time.Time, bool) {
	head, _, _ := strings.Cut(line, "\t")
	f := strings.Fields(head)
	if len(f) < 4 || !isObjectID(f[0]) || !isObjectID(f[1]) {
		return time.Time{}, false
	}
	sec, err := strconv.ParseInt(f[len(f)-2], 10, 64)
	if err != nil {
		return time.Time{}, false
	}
	return time.Unix(sec, 0), true
}

// cloneTime is when the repository was cloned from url: the time of the
// first entry of HEAD's reflog, when it says "clone: from <url>".
func cloneTime(path, url string) (time.Time, bool) {
	f, err := os.Open(path)
	if err != nil || url == "" {
		return time.Time{}, false
	}
	defer f.Close()
	buf := make([]byte, 4096)
	n, _ := f.Read(buf)
	line, _, _ := strings.Cut(string(buf[:n]), "\n")
	_, msg, _ := strings.Cut(line, "\t")
	from, ok := strings.CutPrefix(msg, "clone: from ")
	if !ok || !sameURL(from, url) {
		return time.Time{}, false
	}
	return reflogTime(line)
}

// sameURL compares URLs as git writes them in FETCH_HEAD: without a
// trailing "/" or ".git".
func sameURL(a, b string) bool {
	norm := func(u string) string { return strings.TrimSuffix(strings.TrimRight(u, "/"), ".git") }
	return norm(a) == norm(b)
}

// fetchHeadTime is FETCH_HEAD's modification time, when the fetch it
// records was from url and brought one of the run's branches (held): a
// fetch of the default branch alone says nothing of the run's copies. git
// writes each line as "<id>\t[not-for-merge]\tbranch '<name>' of <url>".
func fetchHeadTime(path, url string, held map[string]string) (time.Time, bool) {
	if url == "" {
		return time.Time{}, false
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return time.Time{}, false
	}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.SplitN(line, "\t", 3)
		if len(f) < 3 {
			continue
		}
		i := strings.LastIndex(f[2], " of ")
		name, ok := strings.CutPrefix(f[2][:max(i, 0)], "branch '")
		if i < 0 || !ok || !sameURL(f[2][i+4:], url) {
			continue
		}
		if _, run := held[strings.TrimSuffix(name, "'")]; run {
			fi, err := os.Stat(path)
			if err != nil {
				return time.Time{}, false
			}
			return fi.ModTime(), true
		}
	}
	return time.Time{}, false
}

// describe says, for the report's header, which remote was read, why, and
// how fresh its copies are.
func (r *RemoteRead) describe() string {
	why := map[RemoteSource]string{
		RemoteFromFlag:   "--remote",
		RemoteFromConfig: "git config taskresume.remote",
		RemoteImplicit:   "the remote that holds the run's branches",
		RemoteDefault:    "checkout.defaultRemote, among remotes that differ",
	}[r.Source]
	if len(r.Same) > 0 {
		why += "; " + strings.Join(r.Same, ", ") + " hold the same"
	}
	fetched := "as last fetched (fetch time unknown)"
	if r.FetchedAt != nil {
		fetched = "as fetched " + ui.When(*r.FetchedAt)
	}
	how := "its copies " + fetched
	if r.Live {
		how = "claims read live, branches " + fetched
	}
	return fmt.Sprintf("remote %s (%s): %s", r.Name, why, how)
}

// CheckRemote refuses, as every read of a run would, a --remote (flag) or
// git config taskresume.remote that names no remote: for a command that
// reads many runs (--list), where one refusal must stop it whole.
func CheckRemote(ctx context.Context, repo *gitcmd.Repo, flag string) error {
	entries, err := repo.ConfigEntries(ctx, `^(taskresume\.remote$|remote\.)`)
	if err != nil {
		return fmt.Errorf("read git config: %w", err)
	}
	_, _, err = chooseRemote(flag, gitcmd.ConfigMap(entries), readRemoteSet(entries))
	return err
}

// ancestryBudget bounds the questions one reading asks git to compare
// remotes: past it, a copy counts as differing.
const ancestryBudget = 64

// ancestry answers "is anc an ancestor of desc?" with git merge-base
// --is-ancestor, exactly (one process a question, asked only where several
// remotes hold copies that differ from the local branches), within a
// budget of questions for one reading; past it, it cannot tell.
type ancestry struct {
	repo   *gitcmd.Repo
	ctx    context.Context
	budget int
}

func (a *ancestry) isAncestor(anc, desc string) (bool, bool) {
	if a.budget--; a.budget < 0 {
		return false, false
	}
	is, err := a.repo.IsAncestor(a.ctx, anc, desc)
	return is, err == nil
}
