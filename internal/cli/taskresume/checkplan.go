package taskresume

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/taskresume/git-taskresume/internal/exit"
	"github.com/taskresume/git-taskresume/internal/gitcmd"
	"github.com/taskresume/git-taskresume/internal/plan"
	"github.com/taskresume/git-taskresume/internal/planfind"
	"github.com/taskresume/git-taskresume/internal/resume"
	"github.com/taskresume/git-taskresume/internal/ui"
	"github.com/taskresume/git-taskresume/internal/version"
)

// CheckedPlan is what --check-plan read (its JSON document).
type CheckedPlan struct {
	SchemaVersion int                `json:"schema_version"`
	Plan          string             `json:"plan"`
	PlanSource    *resume.PlanSource `json:"plan_source"`
	// GivenBy names what chose this plan: "--check-plan", "--plan" or
	// "git config taskresume.plan"; "" when it was found by looking.
	GivenBy string `json:"given_by,omitempty"`
	// RunID is nil when neither the plan, its directory nor the command
	// line names the run (branch names are then unknown).
	RunID *string `json:"run_id"`
	// RunIDFrom: "plan", "directory" or "command_line".
	RunIDFrom string `json:"run_id_from,omitempty"`
	// TaskresumeVersion is the front matter's taskresume-version, and
	// whether it allows this binary; absent when the plan sets none.
	TaskresumeVersion *CheckedVersion `json:"taskresume_version,omitempty"`
	Phases            []CheckedPhase  `json:"phases"`
	TotalTasks        int             `json:"total_tasks"`
	Warnings          []string        `json:"warnings"`
	// Problems are what the report would also say about the plan's copies
	// (plan_differs, plan_diverged).
	Problems []resume.Problem `json:"problems"`
	// Errors are every error of the plan, by file and line; [] when it has
	// none. A plan with errors is not read into phases: Phases is empty,
	// TotalTasks 0 and RunID nil.
	Errors []CheckedError `json:"errors"`
}

// CheckedVersion is the versions of the tool the plan allows.
type CheckedVersion struct {
	Constraint string `json:"constraint"`
	Source     string `json:"source"`
	// This is this binary's version; Allowed, whether the constraint
	// allows it (a development build always).
	This    string `json:"this"`
	Allowed bool   `json:"allowed"`
}

// CheckedError is one error of the plan, at the line to fix.
type CheckedError struct {
	File    string `json:"file"`
	Line    int    `json:"line"`
	Message string `json:"message"`
}

// CheckedPhase is one phase as read.
type CheckedPhase struct {
	Number    int           `json:"number"`
	Title     string        `json:"title"`
	Mode      string        `json:"mode"`
	ModeGiven bool          `json:"mode_given"`
	Estimate  string        `json:"estimate,omitempty"`
	File      string        `json:"file"`
	Line      int           `json:"line"`
	Tasks     []CheckedTask `json:"tasks"`
}

// CheckedTask is one task as read.
type CheckedTask struct {
	ID        string   `json:"id"`
	Title     string   `json:"title"`
	Branch    *string  `json:"branch"`
	Size      string   `json:"size,omitempty"`
	Estimate  string   `json:"estimate,omitempty"`
	DependsOn []string `json:"depends_on"`
	File      string   `json:"file"`
	Line      int      `json:"line"`
}

// checkPlanSchema is the version of CheckedPlan's JSON.
const checkPlanSchema = 1

// maxErrorLines is how many of a plan's errors --check-plan prints: enough
// to fix in one sitting, few enough to read; --json has them all.
const maxErrorLines = 20

// checkPlan is --check-plan: the plan as the commands read it, before a
// run starts or when a report looks wrong. A plan with errors gets one
// "error:" line per error on stderr (at most maxErrorLines), then exit 2;
// with --json the document, with its errors, is printed too.
func checkPlan(ctx context.Context, o Options, stdout, stderr io.Writer) error {
	cwd, _ := os.Getwd()
	run, file, err := checkPlanArgs(o.Args, cwd)
	if err != nil {
		return err
	}
	if file != "" && o.PlanSet {
		return &exit.BadInputError{Msg: "--check-plan " + file + " and --plan " + o.Plan + ": name the plan once"}
	}
	if run != "" {
		if _, err := resume.ValidRun(run); err != nil {
			return err
		}
	}
	var out *CheckedPlan
	if file != "" {
		out, err = readGivenPlan(ctx, file, run, cwd)
	} else {
		out, err = readRunPlan(ctx, o, run, cwd)
	}
	if err != nil {
		return err
	}
	out.SchemaVersion = checkPlanSchema
	if o.JSON {
		if err := writeJSON(stdout, out); err != nil {
			return err
		}
	}
	if len(out.Errors) > 0 {
		writeErrors(stderr, out.Errors)
		return &exit.SilentError{Code: exit.Refused}
	}
	if o.JSON {
		return nil
	}
	return renderChecked(stdout, out, cwd)
}

// writeErrors prints the plan's errors as the command prints its one error,
// "error: file:line: message", at most maxErrorLines of them and then how
// many more there are.
func writeErrors(w io.Writer, errs []CheckedError) {
	for i, e := range errs {
		if i == maxErrorLines {
			fmt.Fprintf(w, "error: ... and %d more (--json lists them all)\n", len(errs)-i)
			return
		}
		fmt.Fprintf(w, "error: %s\n", ui.Display((&plan.Error{Path: e.File, Line: e.Line, Msg: e.Message}).Error()))
	}
}

// checkPlanArgs tells the run from the plan's path among the arguments:
// a path has a "/" or ":", ends in ".md", is no run id or names a file.
func checkPlanArgs(args []string, cwd string) (run, file string, err error) {
	isPath := func(a string) bool {
		if strings.ContainsAny(a, `/:\`) || strings.HasSuffix(a, ".md") || !resume.ValidRunName(a) {
			return true
		}
		_, err := os.Stat(filepath.Join(cwd, a))
		return err == nil
	}
	switch len(args) {
	case 0:
		return "", "", &exit.BadInputError{Msg: "--check-plan needs a plan: git taskresume --check-plan PATH, or git taskresume <run> --check-plan for the plan the report reads"}
	case 1:
		if isPath(args[0]) {
			return "", args[0], nil
		}
		return args[0], "", nil
	case 2:
		if isPath(args[0]) && !isPath(args[1]) {
			return args[1], args[0], nil
		}
		return args[0], args[1], nil
	}
	return "", "", exit.BadInput("--check-plan takes a run and a plan at most, got %d arguments: %s", len(args), strings.Join(args, " "))
}

// readGivenPlan reads the plan at spec: a file, or REV:PATH in the
// repository. The run is run when given, else the plan's, else its
// directory's under specs/.
func readGivenPlan(ctx context.Context, spec, run, cwd string) (*CheckedPlan, error) {
	src := &resume.PlanSource{Name: spec, Given: true}
	var data []byte
	repoPath := filepath.ToSlash(spec)
	if rev, p, isRev := revPath(spec, cwd); isRev {
		repo, err := resume.OpenRepo(ctx, "")
		if err != nil {
			return nil, resume.Explain(ctx, "git-taskresume", err)
		}
		if data, err = repo.ReadBlob(ctx, rev, p); err != nil {
			return nil, exit.BadInput("--check-plan %s: %v (check the revision and the path in it, e.g. main:specs/<run>-<feature>/plan.md)", spec, gitcmd.OneLine(err))
		}
		src.Place, src.Ref, src.Files, repoPath = resume.PlanInCommit, rev, []string{p}, p
		if oid, err := repo.ResolveCommit(ctx, rev); err == nil {
			src.Commit = oid
		}
	} else {
		full := spec
		if !filepath.IsAbs(full) {
			full = filepath.Join(cwd, spec)
		}
		if fi, err := os.Stat(full); err == nil && fi.IsDir() {
			return nil, &exit.BadInputError{Msg: fmt.Sprintf("--check-plan %s: a directory; give the plan file (%s), or check a plan split by phase with git taskresume <run> --check-plan",
				spec, filepath.Join(spec, "plan.md"))}
		}
		var err error
		if data, err = os.ReadFile(full); err != nil {
			return nil, exit.BadInput("--check-plan %s: cannot read it: %v", spec, unwrapPath(err))
		}
		src.Place, src.Files = resume.PlanInWorkingTree, []string{spec}
	}
	p, warns, err := plan.Parse(spec, data)
	out := &CheckedPlan{PlanSource: src, GivenBy: "--check-plan"}
	var errs plan.Errors
	if errors.As(err, &errs) {
		return withErrors(out, errs, warns), nil
	}
	if err != nil {
		return nil, &exit.BadInputError{Msg: err.Error()}
	}
	dir := specsDir(repoPath)
	switch {
	case p.RunID != "" && dir != "" && !planfind.DirAgrees(dir, p.RunID):
		return nil, &exit.BadInputError{Msg: fmt.Sprintf("%s:%d: the plan names run %q but its directory is specs/%s (rename one so the directory is the run id or starts with \"%s-\")",
			spec, p.RunIDLine, p.RunID, dir, p.RunID)}
	case run != "" && p.RunID != "" && p.RunID != run:
		return nil, exit.BadInput("%s:%d: the plan is for run %q, not %q", spec, p.RunIDLine, p.RunID, run)
	case p.RunID != "":
		out.RunID, out.RunIDFrom = &p.RunID, "plan"
	case run != "":
		out.RunID, out.RunIDFrom = &run, "command_line"
	case dir != "" && resume.ValidRunName(planfind.RunOfDir(dir)):
		id := planfind.RunOfDir(dir)
		out.RunID, out.RunIDFrom = &id, "directory"
	}
	fill(out, p, warns)
	return out, nil
}

// readRunPlan reads the plan the report of run reads, found the same way.
func readRunPlan(ctx context.Context, o Options, run, cwd string) (*CheckedPlan, error) {
	st, err := resume.GatherOpening(ctx, resume.StartOpen(ctx, ""), resume.Options{
		Run: run, PlanPath: o.Plan, PlanRunID: o.PlanRunID, Base: o.Base, Cwd: cwd, Remote: o.Remote, Light: true,
	})
	var errs plan.Errors
	if errors.As(err, &errs) {
		// The plan the report reads has errors: list them all, as for a
		// plan named by its path.
		out := withErrors(&CheckedPlan{}, errs, nil)
		out.Plan = errs[0].Path
		return out, nil
	}
	if err != nil {
		return nil, resume.Explain(ctx, "git-taskresume", err)
	}
	if st.Plan == nil {
		return nil, &exit.BadInputError{Msg: st.NoPlan()}
	}
	rep := st.Report
	out := &CheckedPlan{PlanSource: rep.PlanSource, RunID: &rep.RunID, RunIDFrom: "command_line"}
	if st.Plan.RunID == rep.RunID { // not a plan --plan-run-id read for this run
		out.RunIDFrom = "plan"
	}
	if ps := rep.PlanSource; ps != nil && ps.Given {
		out.GivenBy = "git config taskresume.plan"
		if o.PlanSet {
			out.GivenBy = "--plan"
		}
	}
	fill(out, st.Plan, nil)
	for _, pr := range rep.Problems {
		switch pr.Kind {
		case resume.ProblemPlanWarning:
			out.Warnings = append(out.Warnings, pr.Message)
		case resume.ProblemPlanDiffers, resume.ProblemPlanDiverged:
			out.Problems = append(out.Problems, pr)
		}
	}
	return out, nil
}

// withErrors fills out for a plan that has errors: no phases and no run
// id (a plan with errors is not read), every error listed.
func withErrors(out *CheckedPlan, errs plan.Errors, warns []plan.Warning) *CheckedPlan {
	fill(out, &plan.Plan{}, warns)
	for _, e := range errs {
		out.Errors = append(out.Errors, CheckedError{File: e.Path, Line: e.Line, Message: e.Msg})
	}
	return out
}

// fill copies the plan's phases and tasks into out.
func fill(out *CheckedPlan, p *plan.Plan, warns []plan.Warning) {
	if out.PlanSource != nil {
		out.Plan = out.PlanSource.Name
	}
	out.Phases, out.Warnings, out.Problems, out.Errors = []CheckedPhase{}, []string{}, []resume.Problem{}, []CheckedError{}
	for _, w := range warns {
		out.Warnings = append(out.Warnings, w.String())
	}
	if r := p.Requires; r != nil {
		this := version.Get()
		out.TaskresumeVersion = &CheckedVersion{Constraint: r.Constraint, Source: r.Source, This: this.Version, Allowed: r.Allows(this)}
	}
	for _, ph := range p.Phases {
		cp := CheckedPhase{Number: ph.Number, Title: ph.Title, Mode: string(ph.Mode), ModeGiven: ph.ModeGiven,
			Estimate: ph.Estimate, File: ph.Path, Line: ph.Line, Tasks: []CheckedTask{}}
		for _, t := range ph.Tasks {
			ct := CheckedTask{ID: t.ID, Title: t.Title, Size: t.Size, Estimate: t.Estimate,
				DependsOn: append([]string{}, t.DependsOn...), File: t.Path, Line: t.Line}
			if out.RunID != nil {
				b := plan.BranchName(*out.RunID, t)
				ct.Branch = &b
			}
			cp.Tasks = append(cp.Tasks, ct)
			out.TotalTasks++
		}
		out.Phases = append(out.Phases, cp)
	}
}

// renderChecked writes what was read for a person.
func renderChecked(w io.Writer, out *CheckedPlan, cwd string) error {
	q := ui.Display
	src := out.PlanSource
	where := ""
	switch {
	case src == nil:
	case src.Place == resume.PlanInCommit:
		where = "in commit " + ui.Short(src.Commit) + " of " + q(src.Ref)
		if src.Commit == "" {
			where = "in " + q(src.Ref)
		}
	case src.Given:
		where = "a file"
	case src.Worktree != "":
		where = "a file in the worktree " + q(src.Worktree)
		if rel, err := filepath.Rel(cwd, src.Worktree); err == nil && rel == "." {
			where = "a file in this worktree"
		}
	}
	if src != nil && src.Uncommitted {
		where += ", with uncommitted changes"
	}
	if out.GivenBy != "" && out.GivenBy != "--check-plan" {
		where += ", named by " + out.GivenBy
	}
	fmt.Fprintf(w, "plan %s (%s)\n", q(out.Plan), where)
	switch {
	case out.RunID == nil:
		fmt.Fprintln(w, "run: not named by the plan or its directory; branches below are for run <run> (give it: git taskresume <run> --check-plan PATH)")
	case out.RunIDFrom == "plan":
		fmt.Fprintf(w, "run %s (named by the plan)\n", q(*out.RunID))
	case out.RunIDFrom == "directory":
		fmt.Fprintf(w, "run %s (named by the plan's directory)\n", q(*out.RunID))
	default:
		fmt.Fprintf(w, "run %s (from the command line: the plan names none)\n", q(*out.RunID))
	}
	if v := out.TaskresumeVersion; v != nil {
		verdict := "allowed"
		if !v.Allowed {
			verdict = "not allowed: upgrade before resuming this run"
		}
		fmt.Fprintf(w, "needs git-taskresume %s (this is %s: %s)\n", q(v.Constraint), q(v.This), verdict)
	}
	idW, titleW := 0, 0
	for _, ph := range out.Phases {
		for _, t := range ph.Tasks {
			idW, titleW = max(idW, len(q(t.ID))), max(titleW, len([]rune(q(t.Title))))
		}
	}
	titleW = min(titleW, 40)
	for _, ph := range out.Phases {
		title := ""
		if ph.Title != "" {
			title = ": " + q(ph.Title)
		}
		mode := ph.Mode
		if !ph.ModeGiven {
			mode += ", no mode given"
		}
		fmt.Fprintf(w, "\nphase %d%s (%s)\n", ph.Number, title, mode)
		if len(ph.Tasks) == 0 {
			fmt.Fprintln(w, "  (no tasks)")
		}
		for _, t := range ph.Tasks {
			branch := ""
			if t.Branch != nil {
				branch = *t.Branch
			} else {
				branch = plan.BranchName("<run>", &plan.Task{ID: t.ID, Title: t.Title})
			}
			pad := max(0, titleW-len([]rune(q(t.Title))))
			fmt.Fprintf(w, "  %-*s  %s%s  %s\n", idW, q(t.ID), q(t.Title), strings.Repeat(" ", pad), branch)
		}
	}
	fmt.Fprintf(w, "\n%s in %s", ui.Plural(out.TotalTasks, "task"), ui.Plural(len(out.Phases), "phase"))
	if len(out.Warnings) > 0 {
		fmt.Fprintf(w, "; %s", ui.Plural(len(out.Warnings), "warning"))
	}
	fmt.Fprintln(w)
	for _, wn := range out.Warnings {
		fmt.Fprintf(w, "warning: %s\n", q(wn))
	}
	for _, pr := range out.Problems {
		fmt.Fprintf(w, "note: %s\n", q(pr.Message))
	}
	return nil
}

// revPath tells REV:PATH from a file path: a name with a colon is a file
// when such a file exists.
func revPath(spec, cwd string) (rev, p string, ok bool) {
	i := strings.Index(spec, ":")
	if i <= 0 {
		return "", "", false
	}
	full := spec
	if !filepath.IsAbs(full) {
		full = filepath.Join(cwd, spec)
	}
	if _, err := os.Stat(full); err == nil {
		return "", "", false
	}
	return spec[:i], spec[i+1:], true
}

// specsDir is D of a plan at .../specs/D/plan.md or
// .../specs/D/plan/plan-phase<N>.md; "" elsewhere.
func specsDir(p string) string {
	dir := path.Dir(path.Clean(p))
	if path.Base(dir) == "plan" && strings.HasPrefix(path.Base(p), "plan-phase") {
		dir = path.Dir(dir)
	}
	if path.Base(path.Dir(dir)) != "specs" {
		return ""
	}
	return path.Base(dir)
}

func unwrapPath(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}
