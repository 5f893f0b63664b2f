// Package exit is how a command's outcome becomes its exit code: one error
// type per outcome, and Code, the one place that maps an error to a code.
// Both commands return these from their run functions; cliutil prints the
// error line and exits with Code.
package exit

import (
	"errors"
	"fmt"
)

// The exit codes of both commands (the table in docs/COMMANDS.md).
const (
	OK         = 0
	Incomplete = 1 // --exit-code: the run is not complete; --claim: no task is free
	Refused    = 2 // bad usage or input, or a failure before anything changed
	Partial    = 3 // a failure after something changed (what was done is printed)
)

// BadInputError is the user's mistake: a flag, an argument, a run id, a
// plan, a repository that cannot be used. Nothing has changed; the message
// says what to fix. Err, when set, is the error it was made from, for a
// caller that shows more of it (--check-plan lists every plan error).
type BadInputError struct {
	Msg string
	Err error
}

func (e *BadInputError) Error() string { return e.Msg }
func (e *BadInputError) Unwrap() error { return e.Err }

// BadInput is a BadInputError with a formatted message.
func BadInput(format string, a ...any) error {
	return &BadInputError{Msg: fmt.Sprintf(format, a...)}
}

// PartialError is a failure after the command changed something.
type PartialError struct{ Err error }

func (e *PartialError) Error() string { return e.Err.Error() }
func (e *PartialError) Unwrap() error { return e.Err }

// SilentError ends the command with Code and prints nothing: the command
// has said what it had to (a report, or a line on stderr).
type SilentError struct{ Code int }

func (e *SilentError) Error() string { return fmt.Sprintf("exit %d", e.Code) }

// Code is the exit code for err: OK for nil, a SilentError's own code,
// Partial after a change, and Refused for everything else: bad input, and
// any failure before a change, which is why a failure must be wrapped in a
// PartialError as soon as something has changed.
func Code(err error) int {
	var silent *SilentError
	var partial *PartialError
	switch {
	case err == nil:
		return OK
	case errors.As(err, &silent):
		return silent.Code
	case errors.As(err, &partial):
		return Partial
	default:
		return Refused
	}
}

// Printed reports whether err is printed as an error line (every error but
// a SilentError).
func Printed(err error) bool {
	var silent *SilentError
	return err != nil && !errors.As(err, &silent)
}
