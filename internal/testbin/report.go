package testbin

import (
	"encoding/json"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The types below mirror the JSON documents the commands print, the parts
// the tests read. They are written apart from the commands' own types on
// purpose: a field renamed in the commands must fail a test, not be renamed
// in the test along with it. report_test.go checks that every field named
// here is in the documents the commands print.

// Report is the document of `git taskresume RUN --json`.
type Report struct {
	SchemaVersion  int        `json:"schema_version"`
	RunID          string     `json:"run_id"`
	Plan           *string    `json:"plan"`
	Status         string     `json:"status"`
	CompletedTasks int        `json:"completed_tasks"`
	TotalTasks     int        `json:"total_tasks"`
	PhasesTotal    int        `json:"phases_total"`
	Base           Base       `json:"base"`
	RemoteRead     *Remote    `json:"remote_read"`
	Phases         []Phase    `json:"phases"`
	Resume         *Resume    `json:"resume"`
	Worktrees      []Worktree `json:"worktrees"`
	StaleWorktrees []string   `json:"stale_worktrees"`
	CleanCommand   string     `json:"clean_command"`
	Problems       []Problem  `json:"problems"`
}

// Base is the branch own commits are counted against.
type Base struct {
	Ref    string `json:"ref"`
	Commit string `json:"commit"`
}

// Remote is the remote whose copies of the run's branches were read.
type Remote struct {
	Name      string     `json:"name"`
	Source    string     `json:"source"`
	Live      bool       `json:"live"`
	FetchedAt *time.Time `json:"fetched_at"`
}

// Resume is where the run goes on: nil when it is complete.
type Resume struct {
	Phase int      `json:"phase"`
	Tasks []string `json:"tasks"`
}

// Phase is one phase of the plan.
type Phase struct {
	Number int    `json:"number"`
	Status string `json:"status"`
	Tasks  []Task `json:"tasks"`
}

// Task is one task's state.
type Task struct {
	ID         string  `json:"id"`
	Name       string  `json:"name"`
	Title      string  `json:"title"`
	Status     string  `json:"status"`
	Branch     *string `json:"branch"`
	Commit     *string `json:"commit"`
	OwnCommits int     `json:"own_commits"`
	Claim      *Claim  `json:"claim"`
}

// Claim is who holds a task.
type Claim struct {
	Holder  string    `json:"holder"`
	Expires time.Time `json:"expires"`
	Expired bool      `json:"expired"`
}

// Worktree is one worktree of the run.
type Worktree struct {
	Path      string `json:"path"`
	Task      string `json:"task"`
	State     string `json:"state"`
	Missing   bool   `json:"missing"`
	Stale     bool   `json:"stale"`
	Staged    int    `json:"staged"`
	Unstaged  int    `json:"unstaged"`
	Untracked int    `json:"untracked"`
}

// Problem is one problem the report names. Task is nil when the document
// has no "task" key.
type Problem struct {
	Kind    string  `json:"kind"`
	Task    *string `json:"task"`
	Message string  `json:"message"`
}

// Task returns task id of the report, nil when it has none.
func (r *Report) Task(id string) *Task {
	for i := range r.Phases {
		for j := range r.Phases[i].Tasks {
			if t := &r.Phases[i].Tasks[j]; t.ID == id {
				return t
			}
		}
	}
	return nil
}

// TaskStatus is the status of task id ("" when the report has no such
// task).
func (r *Report) TaskStatus(id string) string {
	if t := r.Task(id); t != nil {
		return t.Status
	}
	return ""
}

// TaskBranch is the branch of task id ("" when it has none).
func (r *Report) TaskBranch(id string) string {
	if t := r.Task(id); t != nil && t.Branch != nil {
		return *t.Branch
	}
	return ""
}

// CleanResult is the document of `git taskclean --run RUN --json`.
type CleanResult struct {
	RunID      string    `json:"run_id"`
	DryRun     bool      `json:"dry_run"`
	Stamp      string    `json:"stamp"`
	Backup     string    `json:"backup_prefix"`
	Actions    []*Action `json:"actions"`
	FreedBytes int64     `json:"freed_bytes"`
}

// Action is one step of a clean.
type Action struct {
	Op      string `json:"action"`
	Task    string `json:"task"`
	Path    string `json:"path"`
	Branch  string `json:"branch"`
	Ref     string `json:"ref"`
	Commit  string `json:"commit"`
	Reason  string `json:"reason"`
	Command string `json:"command"`
	Bytes   int64  `json:"bytes"`
	Done    bool   `json:"done"`
	// Raw is the action as printed, for messages and for what no field
	// here reads.
	Raw string `json:"-"`
}

// UnmarshalJSON decodes an action and keeps its text in Raw.
func (a *Action) UnmarshalJSON(b []byte) error {
	type plain Action
	if err := json.Unmarshal(b, (*plain)(a)); err != nil {
		return err
	}
	a.Raw = string(b)
	return nil
}

// String is a's text as printed.
func (a *Action) String() string { return a.Raw }

// Find returns the actions of op on path, any path when path is "".
// Paths are compared after resolving symbolic links of what exists.
func (c *CleanResult) Find(op, path string) []*Action {
	if c == nil {
		return nil
	}
	var out []*Action
	for _, a := range c.Actions {
		if a.Op == op && (path == "" || SamePath(a.Path, path)) {
			out = append(out, a)
		}
	}
	return out
}

// Ops lists "op path-or-branch" for each action, for messages.
func (c *CleanResult) Ops() []string {
	if c == nil {
		return nil
	}
	var out []string
	for _, a := range c.Actions {
		what := a.Path
		if what == "" {
			what = a.Branch
		}
		out = append(out, a.Op+" "+what)
	}
	return out
}

// String is the actions as printed, one a line, for a failure message.
func (c *CleanResult) String() string {
	if c == nil {
		return "(no JSON)"
	}
	var b strings.Builder
	for _, a := range c.Actions {
		b.WriteString("  " + a.Raw + "\n")
	}
	return b.String()
}

// DecodeJSON decodes r's standard output into v; it must be exactly one
// JSON document with nothing but white space around it.
func DecodeJSON(t testing.TB, r Result, v any) {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(r.Stdout))
	if err := dec.Decode(v); err != nil {
		t.Fatalf("%s\nstdout is not JSON: %v", r, err)
	}
	var extra json.RawMessage
	if err := dec.Decode(&extra); err != io.EOF {
		t.Fatalf("%s\nstdout holds more than one JSON document (next: %v)", r, err)
	}
}

// ReadReport runs `git taskresume ARGS --json` in dir and decodes what it
// printed; a failure or anything but one JSON document fails the test.
func ReadReport(t testing.TB, dir string, args ...string) *Report {
	t.Helper()
	r := Must(t, Taskresume(dir, nil, append(append([]string{}, args...), "--json")...))
	var rep Report
	DecodeJSON(t, r, &rep)
	return &rep
}

// SamePath compares two paths after resolving the symbolic links of what
// exists of them.
func SamePath(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	return canon(a) == canon(b)
}

func canon(p string) string {
	p = filepath.Clean(p)
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	if r, err := filepath.EvalSymlinks(filepath.Dir(p)); err == nil {
		return filepath.Join(r, filepath.Base(p))
	}
	return p
}
