package clean

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/taskresume/git-taskresume/internal/worktree"
)

// Suffixes of a worktree directory the clean has moved: removing (renamed
// aside, not yet saved for sure: a rerun puts it back) and deleting (saved
// and recorded: a rerun finishes deleting it).
const (
	asideSuffix    = ".taskclean-removing"
	deletingSuffix = ".taskclean-deleting"
)

// lockText marks a worktree's admin entry as being removed by a clean of
// run: git itself then leaves the entry alone (`git worktree prune` skips
// locked entries), and a rerun knows the mark is its own.
func lockText(run, stamp string) string {
	return fmt.Sprintf("git-taskclean %s %s: being saved and removed\n", run, stamp)
}

// markTemp is where the mark is written before it is linked into place.
func markTemp(admin, run string) string { return filepath.Join(admin, "taskclean-"+run+".locked") }

// markEntry locks an admin entry with the clean's mark. The mark is
// written whole to a file of its own and then linked to "locked", which
// fails if the entry is locked already: a kill can leave no empty,
// ownerless lock behind (the random-kill loop found one, which a rerun then
// took for a user's lock).
func markEntry(admin, run, stamp string) error {
	tmp := markTemp(admin, run)
	if err := os.WriteFile(tmp, []byte(lockText(run, stamp)), 0o644); err != nil {
		return err
	}
	err := os.Link(tmp, filepath.Join(admin, "locked"))
	os.Remove(tmp)
	return err
}

func ownLock(data []byte, run string) bool {
	return strings.HasPrefix(string(data), "git-taskclean "+run+" ")
}

// stopWriters locks each target's admin entry and renames its directory
// aside: from then on a write by path fails instead of landing in a
// directory about to go, and git commands in it fail. A process working
// inside (its current directory, an open file) moves with the directory;
// /proc shows it, and such a worktree is put back and kept. Everything read
// and saved after this is read from the renamed directory.
func (c *cleaner) stopWriters(targets []*Target) []*Target {
	if c.opts.DryRun {
		return targets
	}
	var asides []string
	for _, t := range targets {
		if t.Kind != kindRemove {
			continue
		}
		w := t.W
		if w.AdminDir != "" {
			if err := markEntry(w.AdminDir, c.opts.Run, c.res.Stamp); err != nil {
				c.skip(t, "it was locked while the clean ran (or its entry cannot be written): "+shortErr(err))
				continue
			}
			t.locked = true
		}
		aside := w.Path + asideSuffix
		if _, err := os.Lstat(aside); err == nil {
			c.unlockEntry(t)
			c.skip(t, aside+" exists (left by an earlier clean?); move it away, then rerun")
			continue
		}
		if err := os.Rename(w.Path, aside); err != nil {
			c.unlockEntry(t)
			c.skip(t, "cannot rename it aside to stop writers: "+shortErr(err))
			continue
		}
		t.aside = aside
		// File times come from a coarse clock that may trail time.Now by a
		// tick: starting a little early never misses a later write.
		t.since = time.Now().Add(-20 * time.Millisecond)
		asides = append(asides, aside)
	}
	// Processes that were inside when it moved.
	if !c.opts.IgnoreLive && len(asides) > 0 {
		live, _ := worktree.LiveIn(asides)
		for _, t := range targets {
			if procs := live[t.aside]; t.aside != "" && len(procs) > 0 {
				c.putBack(t)
				a := c.skip(t, "in use by "+describeProcs(procs)+"; stop it, or pass --ignore-live to save and remove it anyway")
				for _, p := range procs {
					a.Pids = append(a.Pids, p.PID)
				}
			}
		}
	}
	return targets
}

// skip keeps a target and says why.
func (c *cleaner) skip(t *Target, reason string) *Action {
	if t.skip != nil {
		return t.skip
	}
	t.skip = c.add(&Action{Op: OpSkipWorktree, Task: t.W.TaskID(), Path: t.W.Path, Reason: reason})
	return t.skip
}

// putBack returns a target's directory to its place and unlocks its entry.
func (c *cleaner) putBack(t *Target) {
	if t.aside != "" {
		if _, err := os.Lstat(t.W.Path); errors.Is(err, os.ErrNotExist) {
			if err := os.Rename(t.aside, t.W.Path); err == nil {
				t.aside = ""
			}
		}
		if t.aside != "" {
			c.add(&Action{Op: OpSkipWorktree, Path: t.W.Path,
				Reason: "could not move it back from " + t.aside + "; its files are there: move them back by hand"})
		}
	}
	c.unlockEntry(t)
}

func (c *cleaner) unlockEntry(t *Target) {
	if !t.locked {
		return
	}
	p := filepath.Join(t.W.AdminDir, "locked")
	if data, err := os.ReadFile(p); err == nil && ownLock(data, c.opts.Run) {
		os.Remove(p)
	}
	t.locked = false
}

// putBackAll returns every target that was not removed.
func (c *cleaner) putBackAll(targets []*Target) {
	for _, t := range targets {
		if !t.done {
			c.putBack(t)
		}
		if t.tmp != "" {
			os.RemoveAll(t.tmp)
		}
	}
}

func shortErr(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err.Error()
	}
	return err.Error()
}
