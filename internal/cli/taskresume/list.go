package taskresume

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/taskresume/git-taskresume/internal/gitcmd"
	"github.com/taskresume/git-taskresume/internal/planfind"
	"github.com/taskresume/git-taskresume/internal/resume"
	"github.com/taskresume/git-taskresume/internal/ui"
	"github.com/taskresume/git-taskresume/internal/worktree"
)

// ListEntry is one run of --list.
type ListEntry struct {
	RunID          string  `json:"run_id"`
	Status         string  `json:"status"`
	CompletedTasks int     `json:"completed_tasks"`
	TotalTasks     int     `json:"total_tasks"`
	Plan           *string `json:"plan"`
	ResumePhase    *int    `json:"resume_phase"`
	// RemoteRead is the remote the run's branches were read from, as in
	// its report (nil: local branches only).
	RemoteRead *resume.RemoteRead `json:"remote_read"`
	// RemoteAmbiguous: several remotes hold the run's branches, their
	// copies differ, and nothing chose one: none was read.
	RemoteAmbiguous bool `json:"remote_ambiguous,omitempty"`
	// RemoteBranchesUnread counts the run's branches held only where they
	// are not read (task branches, <run>-main).
	RemoteBranchesUnread int    `json:"remote_branches_unread,omitempty"`
	Error                string `json:"error,omitempty"`
}

// ListReport is the JSON document of --list --json.
type ListReport struct {
	SchemaVersion int         `json:"schema_version"`
	Runs          []ListEntry `json:"runs"`
}

// runsOf finds the runs of a repository, once each: by the plans in the
// specs/ of the main worktree and of worktrees named <run>-main (under the
// run id the plan names, or its directory's), by task branches "<run>-task-<n>...", and by "<run>-main"
// branches whose run has the orchestrators' six-hex-digit form (a plan
// that lives only on <run>-main is found through it), local or any
// remote's: a clone holds finished runs as remote-tracking branches only.
func runsOf(ctx context.Context, repo *gitcmd.Repo) ([]string, error) {
	runs := map[string]bool{}
	wts, err := worktree.List(ctx, repo)
	if err != nil {
		return nil, err
	}
	for _, w := range wts {
		// The main worktree, and the runs' shared worktrees (<run>-main,
		// where orchestrators write the plan, perhaps on no branch).
		if w.Bare || !w.Main && !strings.HasSuffix(w.Name(), "-main") {
			continue
		}
		for _, run := range planfind.Runs(w.Path) {
			runs[run] = true
		}
	}
	refs, err := repo.Refs(ctx, "refs/heads/", "refs/remotes/")
	if err != nil {
		return nil, err
	}
	for _, r := range refs {
		name, local := strings.CutPrefix(r.Name, "refs/heads/")
		if !local {
			// refs/remotes/<remote>/<branch>: a run id holds no "/", so
			// the last component names the run whatever the remote's name.
			name = r.Name[strings.LastIndexByte(r.Name, '/')+1:]
		}
		if run, ok := runOfBranch(name); ok {
			runs[run] = true
		}
	}
	ids := make([]string, 0, len(runs))
	for id := range runs {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids, nil
}

// runOfBranch takes the run id out of "<run>-task-<digit>..." or a
// "<hex6>-main" branch name.
func runOfBranch(name string) (string, bool) {
	if i := strings.Index(name, "-task-"); i > 0 && i+6 < len(name) && name[i+6] >= '0' && name[i+6] <= '9' {
		return name[:i], resume.ValidRunName(name[:i])
	}
	if run, ok := strings.CutSuffix(name, "-main"); ok && planfind.RunOfDir(run) == run && len(run) == 6 {
		return run, true
	}
	return "", false
}

// list is --list: every run of the repository, a line (or an entry) each.
func list(ctx context.Context, o Options, stdout io.Writer) (err error) {
	// git's version is asked only if something fails.
	defer func() { err = resume.Explain(ctx, "git-taskresume", err) }()
	repo, err := resume.OpenRepo(ctx, "")
	if err != nil {
		return err
	}
	if err := resume.CheckRemote(ctx, repo, o.Remote); err != nil {
		return err
	}
	// What every run reads alike is read once: the refs, the commits
	// they reach, git config, the worktrees, one object reader.
	// Garbage is collected at twice what is live, unless the process
	// nears listLimit, when the collector works harder: a list of a small
	// repository then rarely collects, a large one stays small.
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(listLimit))
	// The runs' plans are read while the commits are.
	var ids []string
	shared, err := gitcmd.ReadSharedThen(ctx, repo, true, func(s *gitcmd.Shared) (err error) {
		r := repo.WithShared(s)
		if ids, err = runsOf(ctx, r); err != nil {
			return err
		}
		return resume.PrefetchPlans(ctx, r, s, ids)
	})
	if err != nil {
		return err
	}
	defer shared.Close()
	// Where what the shared reads hold alone nears listLimit (a history
	// of several hundred thousand commits), the rows get half as much
	// again: a collector that can free nothing would run without end.
	if live := liveHeap(); live*3/2 > listLimit {
		debug.SetMemoryLimit(live * 3 / 2)
	}
	// The working trees' plans are read once for every run.
	defer planfind.ShareDisk()()
	repo = repo.WithShared(shared)
	entries := make([]ListEntry, len(ids))
	cwd, _ := os.Getwd()
	// One count for the runs; each run's own reads show no line of theirs.
	step := o.Progress.Start("Reading runs", len(ids))
	// The runs are read a few at a time: what one waits for (an object,
	// a file) another uses the processor meanwhile.
	var (
		next    atomic.Int64
		wg      sync.WaitGroup
		badMu   sync.Mutex
		badRepo error
	)
	// row reads run i; false once the repository's own error stops the
	// list.
	row := func(i int) bool {
		e, err := listRow(ctx, repo, ids[i], resume.Options{Run: ids[i], Base: o.Base, Schedule: o.Schedule, Cwd: cwd, Remote: o.Remote,
			Shared: shared, ListRow: true})
		if err != nil {
			badMu.Lock()
			if badRepo == nil {
				badRepo = err
			}
			badMu.Unlock()
			next.Store(int64(len(ids))) // the others stop too
			return false
		}
		entries[i] = e
		step.Add(1, 0)
		return true
	}
	// The first run alone: what a report sets from git config (the
	// remote's timeout) is set before the others read it.
	if len(ids) > 0 && row(0) {
		next.Store(1)
		for range listWorkers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := int(next.Add(1) - 1); i < len(ids); i = int(next.Add(1) - 1) {
					if !row(i) {
						return
					}
				}
			}()
		}
	}
	wg.Wait()
	if badRepo != nil {
		return badRepo
	}
	step.Done()
	o.Progress.Close()
	if o.JSON {
		return writeJSON(stdout, ListReport{SchemaVersion: resume.ListSchemaVersion, Runs: entries})
	}
	for _, e := range entries {
		switch {
		case e.Error != "":
			fmt.Fprintf(stdout, "%-20s error: %s\n", e.RunID, e.Error)
		case e.Plan == nil:
			unread := ""
			if e.RemoteBranchesUnread > 0 {
				unread = fmt.Sprintf("  %s on remotes not read (remote_branches_unread)", ui.Plural(e.RemoteBranchesUnread, "branch"))
			}
			fmt.Fprintf(stdout, "%-20s %-12s (no plan)%s\n", e.RunID, e.Status, unread)
		default:
			extra, from := "", ""
			if e.ResumePhase != nil {
				extra = fmt.Sprintf("  resume at phase %d", *e.ResumePhase)
			}
			switch {
			case e.RemoteRead != nil:
				from = "  read from " + e.RemoteRead.Name
			case e.RemoteAmbiguous:
				from = "  remotes differ: none read (remote_ambiguous)"
			}
			if e.RemoteBranchesUnread > 0 && !e.RemoteAmbiguous {
				from += fmt.Sprintf("  %s on remotes not read (remote_branches_unread)", ui.Plural(e.RemoteBranchesUnread, "branch"))
			}
			fmt.Fprintf(stdout, "%-20s %-12s %d/%d tasks%s  plan %s%s\n", e.RunID, e.Status, e.CompletedTasks, e.TotalTasks, extra, ui.Display(*e.Plan), from)
		}
	}
	return nil
}

// listLimit is the memory --list may use before its collector works
// harder (Go's soft memory limit).
const listLimit = 72 << 20

// liveHeap is the heap the last collection found live, in bytes.
func liveHeap() int64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(s[0].Value.Uint64())
}

// listWorkers is how many runs --list reads at once: more than the
// processors, since each run also waits on git (gitcmd's shared readers).
const listWorkers = 6

// listRow reads one run's row; err is an error of the repository's (a
// bad taskresume.minVersion), not the run's: one line and exit 2 then,
// rather than the same error on every row.
func listRow(ctx context.Context, repo *gitcmd.Repo, id string, opts resume.Options) (ListEntry, error) {
	e := ListEntry{RunID: id}
	st, err := resume.Gather(ctx, repo, opts)
	if errors.Is(err, resume.ErrBadVersionSetting) {
		return e, err
	}
	if err != nil {
		e.Status, e.Error = "error", err.Error()
		return e, nil
	}
	r := st.Report
	e.Status, e.CompletedTasks, e.TotalTasks, e.Plan, e.RemoteRead = string(r.Status), r.CompletedTasks, r.TotalTasks, r.Plan, r.RemoteRead
	if r.Resume != nil {
		e.ResumePhase = &r.Resume.Phase
	}
	e.RemoteAmbiguous, e.RemoteBranchesUnread = st.Ambiguous != "", st.UnreadCount()
	return e, nil
}
