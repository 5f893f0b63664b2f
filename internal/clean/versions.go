package clean

import (
	"context"

	"github.com/taskresume/git-taskresume/internal/exit"
	"github.com/taskresume/git-taskresume/internal/gitcmd"
	"github.com/taskresume/git-taskresume/internal/resume"
)

// checkVersion refuses --undo, --restore and --expire-backups when the
// repository does not allow this binary, before anything is taken or
// written. These modes read no report of their own, and the run may be
// gone (a whole run cleaned): git config's constraint always counts, the
// plan's when the run's plan can still be read.
func checkVersion(ctx context.Context, repo *gitcmd.Repo, opts Options) error {
	cfg, err := repo.Config(ctx, "taskresume")
	if err != nil {
		return err
	}
	gate, err := resume.ConfigGate(cfg)
	if err != nil {
		return err
	}
	if s := gate.Refusal(); s != "" {
		return &exit.BadInputError{Msg: s}
	}
	st, err := resume.Gather(ctx, repo, gatherOpts(opts, true))
	if err != nil {
		return nil // no plan to read: the config's constraint stands alone
	}
	return st.VersionError()
}
