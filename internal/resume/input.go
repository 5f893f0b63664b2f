package resume

import (
	"github.com/taskresume/git-taskresume/internal/exit"
	"github.com/taskresume/git-taskresume/internal/plan"
)

// ValidRunName says whether run is a usable run id.
func ValidRunName(run string) bool { return plan.ValidateRunID(run) == nil }

// ValidRun checks a user-given run id; the error is an *exit.BadInputError.
func ValidRun(run string) (string, error) {
	if err := plan.ValidateRunID(run); err != nil {
		return "", &exit.BadInputError{Msg: err.Error()}
	}
	return run, nil
}
