package clean

import (
	"github.com/taskresume/git-taskresume/internal/exit"
	"github.com/taskresume/git-taskresume/internal/ui"
)

// oneClean is the saved clean stamp with every clean it is one with: the
// interrupted cleans it finished and the reruns that finished it, followed
// both ways (a rerun files its saves under a stamp of its own, linked by
// continues/), oldest first as all is. nil when the run has no saved
// clean stamp.
func oneClean(all []*Backup, stamp string) []*Backup {
	byStamp := map[string]*Backup{}
	finishedBy := map[string][]string{}
	for _, b := range all {
		byStamp[b.Stamp] = b
		for _, c := range b.Continues {
			finishedBy[c] = append(finishedBy[c], b.Stamp)
		}
	}
	seen := map[string]bool{}
	for next := []string{stamp}; len(next) > 0; {
		s := next[0]
		next = next[1:]
		if seen[s] || byStamp[s] == nil {
			continue
		}
		seen[s] = true
		next = append(append(next, byStamp[s].Continues...), finishedBy[s]...)
	}
	var out []*Backup
	for _, b := range all {
		if seen[b.Stamp] {
			out = append(out, b)
		}
	}
	return out
}

// saveFrom picks the save --restore WHAT --from STAMP brings back, of those
// matches accepts: the one clean STAMP made, exactly, even when another
// save of the path is newer or holds more, so that every save has a
// command that brings back just it (--backups prints it). Where clean
// STAMP made none, the clean it is one with did (an interrupted clean
// saved the worktree, its rerun did not, or the other way round): of
// those, the newest with work, else the newest, as --restore alone picks.
func saveFrom(all []*Backup, stamp string, matches func(*SavedItem) bool) (*SavedItem, *Backup) {
	group := oneClean(all, stamp)
	find := func(b *Backup) *SavedItem {
		for _, it := range b.Saves {
			if matches(it) {
				return it
			}
		}
		return nil
	}
	for _, b := range group {
		if b.Stamp == stamp {
			if it := find(b); it != nil {
				return it, b
			}
		}
	}
	return newestSave(group, matches)
}

// restoreFromCmd is the command that restores exactly the save of path
// that clean stamp made: with --from, a later clean of the same path does
// not change what it brings back.
func restoreFromCmd(run, path, stamp string) string {
	return restoreCmd(run, path) + " --from " + stamp
}

// fromError is why --restore WHAT --from STAMP found nothing to restore:
// no such clean, or a clean that saved no worktree of that task or path.
func fromError(all []*Backup, opts Options) error {
	list := "list them with: git taskclean --run " + opts.Run + " --backups"
	if oneClean(all, opts.From) == nil {
		return exit.BadInput("--from %s: no saved clean %s of run %s (%s)", opts.From, opts.From, opts.Run, list)
	}
	return exit.BadInput("--restore %s --from %s: clean %s of run %s saved no worktree of that task or path (%s)",
		ui.Display(opts.Restore), opts.From, opts.From, opts.Run, list)
}
