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

// CheckPlanRunID checks --plan-run-id ID as given (set: the flag was on the
// command line; planSet: so was --plan), before anything is read. It goes
// with --plan alone: it accepts the plan named there, which names another
// run id, for this run, and a pattern in git config is no plan the user
// looked at. Whether the plan names that id is checked when it is read.
func CheckPlanRunID(id string, set, planSet bool) error {
	switch {
	case !set:
		return nil
	case !planSet:
		return exit.BadInput("--plan-run-id goes with --plan PATH: it is the other run id that plan names, to read it for this run all the same")
	}
	if err := plan.ValidateRunID(id); err != nil {
		return exit.BadInput("--plan-run-id: %v", err)
	}
	return nil
}
