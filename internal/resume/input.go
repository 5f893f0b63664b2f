package resume

import (
	"fmt"

	"github.com/taskresume/git-taskresume/internal/plan"
)

// InputError is bad usage or input: exit code 2, nothing changed.
type InputError struct{ Msg string }

func (e *InputError) Error() string { return e.Msg }

func inputErr(format string, a ...any) error { return &InputError{fmt.Sprintf(format, a...)} }

// ValidRunName says whether run is a usable run id.
func ValidRunName(run string) bool { return plan.ValidateRunID(run) == nil }

// ValidRun checks a user-given run id; the error is an *InputError.
func ValidRun(run string) (string, error) {
	if err := plan.ValidateRunID(run); err != nil {
		return "", &InputError{err.Error()}
	}
	return run, nil
}
