package taskresume

import (
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/taskresume/git-taskresume/internal/claims"
	"github.com/taskresume/git-taskresume/internal/cliutil"
	"github.com/taskresume/git-taskresume/internal/exit"
	"github.com/taskresume/git-taskresume/internal/progress"
	"github.com/taskresume/git-taskresume/internal/resume"
)

// Mode is what one call of git taskresume does: exactly one per call, so
// that no flag is dropped silently.
type Mode int

const (
	ModeReport    Mode = iota // the report (human, --json, --exit-code)
	ModeNext                  // --next: the runnable task ids
	ModeList                  // --list: the runs of the repository
	ModeCheckPlan             // --check-plan: the plan as read
	ModeClaim                 // --claim: take a runnable task
	ModeRenew                 // --renew ID: extend one's claim
	ModeRelease               // --release ID: give a claim back
)

// modeFlags names each mode's flag, in the order the refusals name them.
var modeFlags = []struct {
	mode Mode
	flag string
}{
	{ModeList, "list"}, {ModeNext, "next"}, {ModeClaim, "claim"},
	{ModeRenew, "renew"}, {ModeRelease, "release"}, {ModeCheckPlan, "check-plan"},
}

func (m Mode) String() string {
	for _, f := range modeFlags {
		if f.mode == m {
			return "--" + f.flag
		}
	}
	return "the report"
}

// handsOut reports whether the mode hands tasks out (or acts on a claim),
// which a partial view of the run must not do.
func (m Mode) handsOut() bool {
	return m == ModeClaim || m == ModeNext || m == ModeRenew || m == ModeRelease
}

// Options are git taskresume's flags and arguments, read once from the
// command line by optionsFrom; run acts on them alone.
type Options struct {
	Mode Mode
	// Args are the positional arguments: the run id, or for --check-plan a
	// run and a plan's path.
	Args []string
	// Run is the run id of every mode but --list and --check-plan.
	Run      string
	JSON     bool
	ExitCode bool
	Sizes    bool
	// Short is --short; Format is --format ("" or "markdown").
	Short  bool
	Format string
	// The read options: the base, the plan and the remote to read.
	Base, Plan, Remote string
	PlanSet            bool // --plan was given (not a config setting)
	FromPhase          int
	// As names the claimer; TTL is a claim's life; Task is the id of
	// --renew or --release.
	As   string
	TTL  time.Duration
	Task string
	// Quiet is --quiet: no progress lines (the output is the same).
	// Progress draws them on a terminal's stderr (nil: none).
	Quiet    bool
	Progress *progress.Meter
	// PlanRunID is --plan-run-id: the other run id the --plan plan names,
	// accepted for this run.
	PlanRunID string
	// Schedule is --schedule ("" takes git config taskresume.schedule).
	Schedule string
}

// optionsFrom reads the command line once, refusing flags that ask for two
// things at once or for nothing they could do.
func optionsFrom(c *cli.Context) (Options, error) {
	o := Options{
		Args: c.Args().Slice(), JSON: c.Bool("json"), ExitCode: c.Bool("exit-code"), Sizes: c.Bool("sizes"),
		Base: c.String("base"), Plan: c.String("plan"), PlanSet: c.IsSet("plan"), Remote: c.String("remote"),
		FromPhase: c.Int("from-phase"), As: c.String("as"), TTL: cliutil.DurationOf(c, "ttl"),
		Quiet:     c.Bool("quiet"),
		PlanRunID: c.String("plan-run-id"), Schedule: c.String("schedule"),
	}
	var modes []string
	for _, f := range modeFlags {
		// --claim=false asks for nothing; --renew and --release take an id.
		set := c.Bool(f.flag)
		if f.mode == ModeRenew || f.mode == ModeRelease {
			if set = c.IsSet(f.flag); set {
				o.Task = c.String(f.flag)
			}
		}
		if set {
			o.Mode = f.mode
			modes = append(modes, "--"+f.flag)
		}
	}
	if len(modes) > 1 {
		return o, exit.BadInput("%s cannot be used together: one of them per call", strings.Join(modes, " and "))
	}
	m := o.Mode
	switch {
	case o.JSON && (m == ModeNext || m == ModeRenew || m == ModeRelease):
		return o, exit.BadInput("--json and %s cannot be used together", m)
	case o.ExitCode && m != ModeReport && m != ModeNext:
		return o, exit.BadInput("--exit-code cannot be used with %s: it gates on the report", m)
	case c.IsSet("as") && (m == ModeReport || m == ModeList || m == ModeCheckPlan):
		return o, exit.BadInput("--as names a claimer: use it with --claim, --renew, --release or --next")
	case c.IsSet("ttl") && m != ModeClaim && m != ModeRenew:
		return o, exit.BadInput("--ttl is for --claim and --renew")
	case m == ModeCheckPlan && c.IsSet("from-phase"):
		return o, exit.BadInput("--from-phase cannot be used with --check-plan: it prints the whole plan")
	case (m == ModeRenew || m == ModeRelease) && o.As == "":
		return o, exit.BadInput("%s needs --as NAME: the name the claim was taken with", m)
	case c.IsSet("ttl") && o.TTL < time.Second:
		return o, exit.BadInput("--ttl %s: must be at least 1s, e.g. 30m, 12h or 1d: a claim expires when it ends", cliutil.FormatDuration(o.TTL))
	}
	if err := shortAndFormat(c, &o); err != nil {
		return o, err
	}
	if c.IsSet("schedule") {
		if err := resume.ValidSchedule(o.Schedule); err != nil {
			return o, err
		}
		if m == ModeCheckPlan || m == ModeRenew || m == ModeRelease {
			return o, exit.BadInput("--schedule cannot be used with %s: it decides what runs next", m)
		}
	}
	if c.IsSet("remote") && c.String("remote") == "" {
		return o, exit.BadInput("--remote needs a remote's name (git remote lists them)")
	}
	// --plan '' names no plan (the run's own is looked for): nothing for
	// --plan-run-id to accept.
	if err := resume.CheckPlanRunID(o.PlanRunID, c.IsSet("plan-run-id"), o.Plan != ""); err != nil {
		return o, err
	}
	if c.IsSet("as") {
		if err := claims.ValidHolder(o.As); err != nil {
			return o, &exit.BadInputError{Msg: err.Error()}
		}
	}
	// Progress on a terminal's stderr only, and never beside a JSON
	// document (its reader is a program); --check-plan reads one file.
	if m != ModeCheckPlan {
		meter, err := progress.ForStderr(c.App.ErrWriter, o.Quiet || o.JSON)
		if err != nil {
			return o, &exit.BadInputError{Msg: err.Error()}
		}
		o.Progress = meter
	}
	switch {
	case m == ModeCheckPlan:
		return o, nil // a run and a plan's path, told apart by checkPlanArgs
	case m == ModeList && len(o.Args) > 0:
		return o, exit.BadInput("--list takes no run id")
	case m == ModeList:
		return o, nil
	case len(o.Args) == 0:
		return o, exit.BadInput("missing run id: git taskresume <run> (or --list to see the runs)")
	case len(o.Args) > 1:
		return o, exit.BadInput("one run id expected, got %d: %s", len(o.Args), strings.Join(o.Args, " "))
	}
	o.Run = o.Args[0]
	return o, nil
}

// noPlanRefusal is the flag that cannot work without the run's plan (a
// gate, a scheduler or a claimer must not read silence as "the run is
// complete"), or "" when none is asked for.
func (o Options) noPlanRefusal() string {
	switch {
	case o.Mode == ModeNext:
		return "--next"
	case o.ExitCode:
		return "--exit-code"
	case o.Mode == ModeClaim:
		return "--claim"
	}
	return ""
}
