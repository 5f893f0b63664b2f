// Package taskresume is the git-taskresume command: flags in, a report out.
package taskresume

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/taskresume/git-taskresume/internal/claims"
	"github.com/taskresume/git-taskresume/internal/cliutil"
	"github.com/taskresume/git-taskresume/internal/gitcmd"
	"github.com/taskresume/git-taskresume/internal/planfind"
	"github.com/taskresume/git-taskresume/internal/resume"
	"github.com/taskresume/git-taskresume/internal/ui"
	"github.com/taskresume/git-taskresume/internal/worktree"
)

// Version is set at build time by install.sh.
var Version = "dev"

// App returns the command definition; Manual documents every flag.
func App(stdout io.Writer) *cli.App {
	return &cli.App{
		Name:    "git-taskresume",
		Usage:   "show where a crashed plan run stopped and what can run next",
		Version: Version,
		Writer:  stdout,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json"},
			&cli.BoolFlag{Name: "exit-code"},
			&cli.BoolFlag{Name: "sizes"},
			&cli.BoolFlag{Name: "next"},
			&cli.BoolFlag{Name: "list"},
			&cli.BoolFlag{Name: "check-plan"},
			&cli.StringFlag{Name: "base"},
			&cli.StringFlag{Name: "plan"},
			&cli.IntFlag{Name: "from-phase"},
			&cli.StringFlag{Name: "remote"},
			&cli.BoolFlag{Name: "claim"},
			&cli.StringFlag{Name: "as"},
			cliutil.DurationFlag("ttl", 30*time.Minute, ""),
			&cli.StringFlag{Name: "renew"},
			&cli.StringFlag{Name: "release"},
			&cli.BoolFlag{Name: "man", Hidden: true},
			&cli.BoolFlag{Name: "version"},
		},
		Action: func(c *cli.Context) error { return action(c, stdout) },
	}
}

// hints answer the flags of git taskclean given to git taskresume.
var hints = map[string]string{
	"run": "git taskresume takes the run as its argument: git taskresume <run> (see -h)",
}

// Main runs the command and returns its exit code.
func Main(args []string, stdout, stderr io.Writer) int {
	return cliutil.Run(cliutil.Command{App: App(stdout), Page: Manual(), Hints: hints}, args, stdout, stderr)
}

func action(c *cli.Context, stdout io.Writer) error {
	ctx := c.Context
	if err := checkModes(c); err != nil {
		return err
	}
	if c.Bool("check-plan") {
		return checkPlan(ctx, c, stdout)
	}
	if c.Bool("list") {
		if c.NArg() > 0 {
			return &cliutil.UsageError{Msg: "--list takes no run id"}
		}
		return list(ctx, c, stdout)
	}
	switch c.NArg() {
	case 0:
		return &cliutil.UsageError{Msg: "missing run id: git taskresume <run> (or --list to see the runs)"}
	case 1:
	default:
		return &cliutil.UsageError{Msg: fmt.Sprintf("one run id expected, got %d: %s", c.NArg(), strings.Join(c.Args().Slice(), " "))}
	}
	cwd, _ := os.Getwd()
	if _, err := resume.ValidRun(c.Args().First()); err != nil {
		return err
	}
	// The repository is found beside the first reads; git's version is
	// asked only if something fails.
	st, err := resume.GatherOpening(ctx, resume.StartOpen(ctx, ""), resume.Options{
		Run: c.Args().First(), PlanPath: c.String("plan"), Base: c.String("base"),
		FromPhase: c.Int("from-phase"), Cwd: cwd, Remote: c.String("remote"), Sizes: c.Bool("sizes"),
	})
	if err != nil {
		return resume.Explain(ctx, "git-taskresume", err)
	}
	repo := st.Repo
	rep := st.Report
	// Without a plan nothing says what remains: a gate, a scheduler or a
	// claimer must not read silence as "the run is complete".
	if st.Plan == nil {
		for _, f := range []string{"next", "exit-code", "claim"} {
			if c.Bool(f) {
				return &resume.InputError{Msg: "--" + f + ": " + st.NoPlan()}
			}
		}
	}
	for _, f := range []string{"claim", "next", "renew", "release"} {
		if modeSet(c, f) {
			if err := st.HandOutError("--" + f); err != nil {
				return err
			}
		}
	}
	if c.Bool("claim") || c.IsSet("renew") || c.IsSet("release") {
		return claim(ctx, c, repo, st, stdout)
	}
	switch {
	case c.Bool("json"):
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return err
		}
	case c.Bool("next"):
		// Tasks someone else holds are not for this resumer.
		holder := c.String("as")
		if rep.Resume != nil {
			for _, id := range rep.Resume.Tasks {
				if cl := st.Claims[id]; cl != nil && !cl.Expired && (holder == "" || cl.Holder != holder) {
					continue
				}
				fmt.Fprintln(stdout, id)
			}
		}
	default:
		f, _ := stdout.(*os.File)
		style := ui.Style{}
		if f != nil {
			style = ui.StyleForSetting(f, st.ColorSetting("taskresume"))
		}
		resume.Render(stdout, rep, style, cwd)
	}
	if c.Bool("exit-code") && rep.Status != resume.RunCompleted {
		return &cliutil.ExitError{Code: cliutil.ExitIncomplete}
	}
	return nil
}

// ListEntry is one run of --list.
type ListEntry struct {
	RunID          string  `json:"run_id"`
	Status         string  `json:"status"`
	CompletedTasks int     `json:"completed_tasks"`
	TotalTasks     int     `json:"total_tasks"`
	Plan           *string `json:"plan"`
	ResumePhase    *int    `json:"resume_phase"`
	Error          string  `json:"error,omitempty"`
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
// that lives only on <run>-main is found through it).
func runsOf(ctx context.Context, repo *gitcmd.Repo, remote string) ([]string, error) {
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
	patterns := []string{"refs/heads/"}
	if remote != "" {
		patterns = append(patterns, "refs/remotes/"+remote+"/")
	}
	refs, err := repo.Refs(ctx, patterns...)
	if err != nil {
		return nil, err
	}
	for _, r := range refs {
		name := strings.TrimPrefix(strings.TrimPrefix(r.Name, "refs/heads/"), "refs/remotes/"+remote+"/")
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

func list(ctx context.Context, c *cli.Context, stdout io.Writer) error {
	repo, err := resume.OpenChecked(ctx, "git-taskresume")
	if err != nil {
		return err
	}
	remote := c.String("remote")
	ids, err := runsOf(ctx, repo, remote)
	if err != nil {
		return err
	}
	entries := []ListEntry{}
	cwd, _ := os.Getwd()
	for _, id := range ids {
		e := ListEntry{RunID: id}
		st, err := resume.Gather(ctx, repo, resume.Options{Run: id, Base: c.String("base"), Cwd: cwd, Remote: remote})
		if err != nil {
			e.Status, e.Error = "error", err.Error()
		} else {
			r := st.Report
			e.Status, e.CompletedTasks, e.TotalTasks, e.Plan = string(r.Status), r.CompletedTasks, r.TotalTasks, r.Plan
			if r.Resume != nil {
				e.ResumePhase = &r.Resume.Phase
			}
		}
		entries = append(entries, e)
	}
	if c.Bool("json") {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(ListReport{SchemaVersion: resume.ListSchemaVersion, Runs: entries})
	}
	for _, e := range entries {
		switch {
		case e.Error != "":
			fmt.Fprintf(stdout, "%-20s error: %s\n", e.RunID, e.Error)
		case e.Plan == nil:
			fmt.Fprintf(stdout, "%-20s %-12s (no plan)\n", e.RunID, e.Status)
		default:
			extra := ""
			if e.ResumePhase != nil {
				extra = fmt.Sprintf("  resume at phase %d", *e.ResumePhase)
			}
			fmt.Fprintf(stdout, "%-20s %-12s %d/%d tasks%s  plan %s\n", e.RunID, e.Status, e.CompletedTasks, e.TotalTasks, extra, ui.Display(*e.Plan))
		}
	}
	return nil
}

// claim takes, renews or releases a task claim.
func claim(ctx context.Context, c *cli.Context, repo *gitcmd.Repo, st *resume.State, stdout io.Writer) error {
	rep := st.Report
	req := claims.Request{Run: rep.RunID, Remote: st.Remote, ReadFrom: st.ReadFrom, Holder: c.String("as"),
		TTL: cliutil.DurationOf(c, "ttl"), Now: time.Now(), Held: st.Claims, Named: c.String("as") != "",
		Warn: func(msg string) { fmt.Fprintln(os.Stderr, "warning: "+msg) }}
	if req.Holder == "" {
		req.Holder = claims.DefaultHolder()
	}
	for _, f := range []string{"renew", "release"} {
		if !c.IsSet(f) {
			continue
		}
		id := c.String(f)
		if st.Plan == nil {
			return &resume.InputError{Msg: "--" + f + ": " + st.NoPlan()}
		}
		t := st.Plan.Task(id)
		if t == nil {
			return &cliutil.UsageError{Msg: fmt.Sprintf("--%s %s: no such task in the plan of run %s", f, id, rep.RunID)}
		}
		id = t.ID // either separator: the claim is kept under the plan's spelling
		var err error
		if f == "renew" {
			err = claims.Renew(ctx, repo, req, id)
		} else {
			err = claims.Release(ctx, repo, req, id)
		}
		return err
	}
	if st.Plan == nil {
		return &cliutil.UsageError{Msg: "--claim needs the run's plan to know what is runnable"}
	}
	if rep.Resume != nil {
		req.Runnable = rep.Resume.Tasks
	}
	req.NotDone = map[string]bool{}
	for _, ph := range rep.Phases {
		for _, t := range ph.Tasks {
			if t.Status != resume.TaskCompleted && t.Status != resume.TaskLanded {
				req.NotDone[t.ID] = true
			}
		}
	}
	got, again, err := claims.Take(ctx, repo, req)
	if errors.Is(err, claims.ErrNoneFree) {
		if rep.Status == resume.RunCompleted {
			fmt.Fprintf(os.Stderr, "run %s is complete: no task is left to claim\n", rep.RunID)
		} else {
			fmt.Fprintf(os.Stderr, "no runnable task of run %s is free\n", rep.RunID)
		}
		return &cliutil.ExitError{Code: cliutil.ExitIncomplete}
	}
	if err != nil {
		return err
	}
	id := got.Task
	if again {
		fmt.Fprintf(os.Stderr, "warning: %s already holds task %s (since %s): one name is one holder; give each resumer its own --as\n",
			req.Holder, id, ui.When(got.Since))
	}
	if !c.Bool("json") {
		fmt.Fprintln(stdout, id)
		return nil
	}
	for _, ph := range rep.Phases {
		for _, t := range ph.Tasks {
			if t.ID == id {
				t.Claim = got
				enc := json.NewEncoder(stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(t)
			}
		}
	}
	return nil
}

// checkModes refuses flags that ask for two things at once, or for nothing
// they could do: one mode per call, so that no flag is dropped silently.
func checkModes(c *cli.Context) error {
	var modes []string
	for _, f := range []string{"list", "next", "claim", "renew", "release", "check-plan"} {
		if modeSet(c, f) {
			modes = append(modes, "--"+f)
		}
	}
	if len(modes) > 1 {
		return &cliutil.UsageError{Msg: strings.Join(modes, " and ") + " cannot be used together: one of them per call"}
	}
	mode := "the report"
	if len(modes) == 1 {
		mode = modes[0]
	}
	switch {
	case c.Bool("json") && (mode == "--next" || mode == "--renew" || mode == "--release"):
		return &cliutil.UsageError{Msg: "--json and " + mode + " cannot be used together"}
	case c.Bool("exit-code") && mode != "the report" && mode != "--next":
		return &cliutil.UsageError{Msg: "--exit-code cannot be used with " + mode + ": it gates on the report"}
	case c.IsSet("as") && (mode == "the report" || mode == "--list" || mode == "--check-plan"):
		return &cliutil.UsageError{Msg: "--as names a claimer: use it with --claim, --renew, --release or --next"}
	case c.IsSet("ttl") && mode != "--claim" && mode != "--renew":
		return &cliutil.UsageError{Msg: "--ttl is for --claim and --renew"}
	case mode == "--check-plan" && c.IsSet("from-phase"):
		return &cliutil.UsageError{Msg: "--from-phase cannot be used with --check-plan: it prints the whole plan"}
	case (mode == "--renew" || mode == "--release") && c.String("as") == "":
		return &cliutil.UsageError{Msg: mode + " needs --as NAME: the name the claim was taken with"}
	case c.IsSet("ttl") && cliutil.DurationOf(c, "ttl") < time.Second:
		return &cliutil.UsageError{Msg: fmt.Sprintf("--ttl %s: must be at least 1s, e.g. 30m, 12h or 1d: a claim expires when it ends", cliutil.FormatDuration(cliutil.DurationOf(c, "ttl")))}
	}
	if c.IsSet("as") {
		if err := claims.ValidHolder(c.String("as")); err != nil {
			return &cliutil.UsageError{Msg: err.Error()}
		}
	}
	return nil
}

// modeSet reports whether mode flag f was asked for: --claim=false asks for
// nothing; --renew and --release take an id.
func modeSet(c *cli.Context, f string) bool {
	return (f == "renew" || f == "release") && c.IsSet(f) || c.Bool(f)
}
