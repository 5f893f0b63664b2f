package clean

import (
	"context"
	"errors"

	"github.com/taskresume/git-taskresume/internal/exit"
	"github.com/taskresume/git-taskresume/internal/gitcmd"
	"github.com/taskresume/git-taskresume/internal/resume"
	"github.com/taskresume/git-taskresume/internal/version"
)

// checkVersion refuses --undo, --restore and --expire-backups when the
// repository does not allow this binary, before anything is taken or
// written. These modes read no report of their own, and the run may be
// gone (a whole run cleaned): git config's constraint always counts, the
// plan's when the run's plan can still be read.
func checkVersion(ctx context.Context, repo *gitcmd.Repo, opts Options) error {
	// The read that checks a clean's input: its gate holds git config's
	// constraint and the plan's.
	st, err := resume.Gather(ctx, repo, inputOpts(opts))
	switch {
	case errors.Is(err, resume.ErrUnknownRun):
		// The run is gone, plan and all: the config's constraint stands
		// alone.
		gate, err := configGate(ctx, repo)
		if err != nil {
			return err
		}
		if s := gate.Refusal(); s != "" {
			return &exit.BadInputError{Msg: s}
		}
		return nil
	case err != nil:
		// Any other failure may hide the plan's constraint: the versions
		// the run allows must be known before its saves are touched.
		return err
	}
	return st.VersionError()
}

// configGate is the gate of git config taskresume.minVersion alone.
func configGate(ctx context.Context, repo *gitcmd.Repo) (version.Gate, error) {
	cfg, err := repo.Config(ctx, "taskresume")
	if err != nil {
		return version.Gate{}, err
	}
	return resume.ConfigGate(cfg)
}
