package taskresume

import (
	"github.com/urfave/cli/v2"

	"github.com/taskresume/git-taskresume/internal/exit"
)

// formatMarkdown is the one value --format accepts.
const formatMarkdown = "markdown"

// shortAndFormat reads --short and --format into o, refusing what they
// cannot do. Both are other ways to write the plain report, so they go
// with it alone: not with another mode, --json, or each other. --exit-code
// is a gate, not a mode: `--short --exit-code` prints the run at a glance
// and still fails a CI job while the run is not complete.
func shortAndFormat(c *cli.Context, o *Options) error {
	o.Short = c.Bool("short")
	if c.IsSet("format") {
		o.Format = c.String("format")
		if o.Format != formatMarkdown {
			return exit.BadInput("--format %q: the one format is markdown (--format markdown)", o.Format)
		}
	}
	var flag string
	switch {
	case o.Short && o.Format != "":
		return exit.BadInput("--short and --format cannot be used together: one of them per call")
	case o.Short:
		flag = "--short"
	case o.Format != "":
		flag = "--format"
	default:
		return nil
	}
	switch {
	case o.Mode != ModeReport:
		return exit.BadInput("%s cannot be used with %s: it writes the report another way", flag, o.Mode)
	case o.JSON:
		return exit.BadInput("--json and %s cannot be used together: one of them per call", flag)
	case o.Short && o.Sizes:
		return exit.BadInput("--sizes cannot be used with --short: the short report shows no worktree")
	}
	return nil
}
