package resume

import (
	"sync"

	"github.com/taskresume/git-taskresume/internal/progress"
	"github.com/taskresume/git-taskresume/internal/worktree"
)

// sizeWorktrees reads what each worktree takes on disk, a few at once (a
// walk is mostly waiting on the file system). A missing, unreadable or
// symbolic-link worktree is not walked.
func sizeWorktrees(wts []*Worktree, meter *progress.Meter) {
	var walk []*Worktree
	for _, w := range wts {
		if !w.Missing && !w.Unreadable && !w.Symlink && !w.Broken {
			walk = append(walk, w)
		}
	}
	if len(walk) == 0 {
		return
	}
	step := meter.Start("Measuring worktrees", len(walk))
	defer step.Done()
	sem := make(chan struct{}, 4)
	var wg sync.WaitGroup
	for _, w := range walk {
		wg.Add(1)
		sem <- struct{}{}
		go func(w *Worktree) {
			defer func() { <-sem; wg.Done() }()
			w.Bytes, _ = worktree.DiskUsage(w.Path)
			step.Add(1, 0)
		}(w)
	}
	wg.Wait()
}
