// Package cliutil holds what both commands share about talking to a user:
// argument order, exit codes, the one-line error, man pages.
package cliutil

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"
)

// Exit codes, as the README lists them.
const (
	ExitOK         = 0
	ExitIncomplete = 1 // --exit-code: the run is not complete
	ExitUsage      = 2 // bad usage or input; nothing changed
	ExitPartial    = 3 // failed after changing something (what was done is printed)
)

// FailedError is a failure after the command changed something: it is
// printed as one error line and exits ExitPartial.
type FailedError struct{ Err error }

func (e *FailedError) Error() string { return e.Err.Error() }
func (e *FailedError) Unwrap() error { return e.Err }

// ExitError carries an exit code out of an action without printing.
type ExitError struct{ Code int }

func (e *ExitError) Error() string { return fmt.Sprintf("exit %d", e.Code) }

// UsageError is a mistake in the command line.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

// Permute moves flags before positional arguments, so that
// `git taskresume x1y2z3 --json` works: urfave/cli v2, like Go's flag
// package, stops at the first argument. Flags that take a value keep it;
// everything after "--" stays positional.
func Permute(args []string, flags []cli.Flag) ([]string, error) {
	takesValue := map[string]bool{}
	for _, f := range flags {
		_, isBool := f.(*cli.BoolFlag)
		for _, n := range f.Names() {
			takesValue[n] = !isBool
		}
	}
	var opts, pos []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			pos = append(pos, args[i+1:]...)
			break
		}
		if len(a) > 1 && a[0] == '-' {
			opts = append(opts, a)
			name := strings.TrimLeft(a, "-")
			if !strings.Contains(name, "=") && takesValue[name] {
				if i+1 >= len(args) || args[i+1] == "--" {
					return nil, &UsageError{Msg: fmt.Sprintf("flag %s needs a value", a)}
				}
				opts = append(opts, args[i+1])
				i++
			}
			continue
		}
		pos = append(pos, a)
	}
	if len(pos) == 0 {
		return opts, nil
	}
	return append(append(opts, "--"), pos...), nil
}

// Run runs app and maps the outcome to an exit code, printing errors as one
// `error:` line on stderr.
func Run(app *cli.App, args []string, stderr io.Writer) int {
	app.ExitErrHandler = func(*cli.Context, error) {}
	app.OnUsageError = func(_ *cli.Context, err error, _ bool) error {
		return &UsageError{Msg: err.Error() + " (see -h)"}
	}
	app.ErrWriter = stderr
	rest, err := Permute(args[1:], app.Flags)
	if err == nil {
		err = app.RunContext(context.Background(), append([]string{args[0]}, rest...))
	}
	if err == nil {
		return ExitOK
	}
	var ee *ExitError
	if errors.As(err, &ee) {
		return ee.Code
	}
	msg := strings.ReplaceAll(strings.TrimSpace(err.Error()), "\n", " ")
	fmt.Fprintf(stderr, "error: %s\n", msg)
	var fe *FailedError
	if errors.As(err, &fe) {
		return ExitPartial
	}
	return ExitUsage
}

// ManPage renders the app as a section-1 man page: git turns
// `git taskresume --help` into `man git-taskresume`, which must exist in
// section 1 (urfave's ToMan writes section 8).
func ManPage(app *cli.App) (string, error) {
	return app.ToManWithSection(1)
}
