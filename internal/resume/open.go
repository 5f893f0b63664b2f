package resume

import (
	"context"
	"errors"
	"os"
	"strings"
	"sync"

	"github.com/taskresume/git-taskresume/internal/exit"
	"github.com/taskresume/git-taskresume/internal/gitcmd"
)

// OpenRepo opens the repository at dir, or says plainly that there is none.
func OpenRepo(ctx context.Context, dir string) (*gitcmd.Repo, error) {
	repo, err := gitcmd.Open(ctx, dir)
	if errors.Is(err, gitcmd.ErrNotRepo) {
		where := dir
		if where == "" {
			where, _ = os.Getwd()
		}
		msg := strings.TrimSuffix(err.Error(), ": "+gitcmd.ErrNotRepo.Error())
		return nil, exit.BadInput("%s (in %s; run it inside the repository of the run)", msg, where)
	}
	return repo, err
}

// Opening is a repository being found (git rev-parse), so that the first
// reads need not wait for it.
type Opening struct {
	dir  string
	done chan struct{}
	repo *gitcmd.Repo
	err  error
	// started is the git process count before the opening's own.
	started int64
}

// StartOpen starts finding the repository that dir ("" for the current
// directory) is in.
func StartOpen(ctx context.Context, dir string) *Opening {
	o := &Opening{dir: dir, done: make(chan struct{}), started: gitcmd.Processes()}
	go func() {
		defer close(o.done)
		o.repo, o.err = OpenRepo(ctx, dir)
	}()
	return o
}

// Opened is the Opening of a repository already found.
func Opened(repo *gitcmd.Repo) *Opening {
	o := &Opening{dir: repo.Dir, done: make(chan struct{}), repo: repo, started: gitcmd.Processes()}
	close(o.done)
	return o
}

// Repo waits for the repository.
func (o *Opening) Repo() (*gitcmd.Repo, error) {
	<-o.done
	return o.repo, o.err
}

// early is what runs git before the repository is known: the same
// directory as the repository's own runner, so the same answers.
func (o *Opening) early() *gitcmd.Repo {
	select {
	case <-o.done:
		if o.repo != nil {
			return o.repo
		}
	default:
	}
	return &gitcmd.Repo{Runner: gitcmd.Runner{Dir: o.dir}}
}

// Explain returns err, or the plain reason when the installed git is too
// old (or cannot run): its other errors would mislead. The version is
// asked only once something failed, never on the way to an answer; an
// older git fails at the first report's worktree list (its -z is newer).
func Explain(ctx context.Context, prog string, err error) error {
	var ie *exit.BadInputError
	if err == nil || errors.As(err, &ie) || ctx.Err() != nil {
		return err
	}
	if verr := gitcmd.CheckVersion(context.Background(), prog); verr != nil {
		return verr
	}
	return err
}

// OpenChecked checks the git version and finds the repository at once; a
// too-old git is reported first, since its other errors would mislead.
func OpenChecked(ctx context.Context, prog string) (*gitcmd.Repo, error) {
	var repo *gitcmd.Repo
	var verr, oerr error
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); verr = gitcmd.CheckVersion(ctx, prog) }()
	go func() { defer wg.Done(); repo, oerr = OpenRepo(ctx, "") }()
	wg.Wait()
	if verr != nil {
		return nil, verr
	}
	return repo, oerr
}
