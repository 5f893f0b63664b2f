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
// old (gitcmd.Features) or cannot run: its other errors would mislead. The
// version is asked only once something failed, never on the way to an
// answer, so no command runs one git more for it; an older git fails at
// its first read (the repository's rev-parse, the worktree list). A
// failure after a change stays one (exit.PartialError); bad input, an
// outcome said already (exit.SilentError) and an interruption are not
// git's doing and are returned as they are.
func Explain(ctx context.Context, prog string, err error) error {
	var ie *exit.BadInputError
	var se *exit.SilentError
	var te *gitcmd.TooOldError
	if err == nil || errors.As(err, &ie) || errors.As(err, &se) || errors.As(err, &te) || ctx.Err() != nil {
		return err
	}
	verr := gitcmd.CheckVersion(context.Background(), prog)
	// Only a git known to be too old explains the failure: one whose
	// version cannot be asked or read says nothing about it, and the
	// failure's own words are the better line.
	if !errors.As(verr, &te) {
		return err
	}
	var pe *exit.PartialError
	if errors.As(err, &pe) {
		return &exit.PartialError{Err: verr}
	}
	return verr
}

// OpenChecked checks git's version and finds the repository at once, a
// too-old git reported first: for a mode that changes things without
// first reading what an older git fails on (the worktree list), and so
// cannot leave the check to a failure. It runs one git more than
// OpenRepo, beside the rev-parse, so it costs no time.
func OpenChecked(ctx context.Context, prog string) (*gitcmd.Repo, error) {
	var repo *gitcmd.Repo
	var verr, oerr error
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); verr = gitcmd.CheckVersion(ctx, prog) }()
	go func() { defer wg.Done(); repo, oerr = OpenRepo(ctx, "") }()
	wg.Wait()
	// A version that cannot be asked or read refuses nothing: only a git
	// known to be too old does.
	var te *gitcmd.TooOldError
	if errors.As(verr, &te) {
		return nil, verr
	}
	return repo, oerr
}

// OpenFor is OpenChecked when checkFirst, else OpenRepo of the current
// directory (git's version then left to Explain).
func OpenFor(ctx context.Context, prog string, checkFirst bool) (*gitcmd.Repo, error) {
	if checkFirst {
		return OpenChecked(ctx, prog)
	}
	return OpenRepo(ctx, "")
}
