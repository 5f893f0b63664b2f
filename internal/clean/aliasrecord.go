package clean

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/taskresume/git-taskresume/internal/gitcmd"
	"github.com/taskresume/git-taskresume/internal/worktree"
)

// An alias comes back from --undo in two steps: a plain branch at its
// saved tip (in the transaction that creates only where nothing is), then
// git symbolic-ref. An undo stopped between them leaves a plain branch
// that nothing tells from a user's, so the undo records the aliases it is
// making before the transaction, and whatever next holds the run's lock
// (a clean, an undo) finishes them in its recovery.

// aliasRecordPath is where an undo records the aliases it is making.
func aliasRecordPath(commonDir, run string) string {
	return filepath.Join(commonDir, "taskclean-"+run+".aliases")
}

// recordAliases writes, synced, one line per alias: its ref, its target
// and the tip its plain branch is created at.
func recordAliases(commonDir, run string, aliases []aliasToMake) error {
	var b strings.Builder
	for _, al := range aliases {
		fmt.Fprintf(&b, "%s %s %s\n", al.ref, al.target, al.tip)
	}
	return writeSynced(aliasRecordPath(commonDir, run), b.String())
}

// finishAliases makes again the aliases an interrupted undo recorded:
// each ref that is still a plain branch at its recorded tip becomes the
// symbolic ref it was; one that moved, went or is an alias already is
// left as it is. The record goes once each is dealt with.
func finishAliases(ctx context.Context, repo *gitcmd.Repo, run string) ([]*Action, error) {
	path := aliasRecordPath(repo.CommonDir, run)
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil
	}
	var acts []*Action
	w := repo.Runner
	w.Write = true
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		f := strings.Fields(line)
		if len(f) != 3 || !strings.HasPrefix(f[0], "refs/heads/") || worktree.SymrefTarget(repo.CommonDir, f[0]) != "" {
			continue
		}
		refs, err := repo.Refs(ctx, f[0])
		if err != nil {
			return acts, err
		}
		if len(refs) != 1 || refs[0].Name != f[0] || refs[0].OID != f[2] {
			continue // moved or gone since: not ours any more
		}
		if _, err := w.Run(ctx, "symbolic-ref", "-m", "taskclean --undo: the alias as it was", f[0], f[1]); err != nil {
			return acts, fmt.Errorf("make %s a symbolic ref to %s again: %w", f[0], f[1], err)
		}
		acts = append(acts, &Action{Op: OpRecover, Branch: strings.TrimPrefix(f[0], "refs/heads/"), Done: true,
			Reason: "made it a symbolic ref to " + f[1] + " again (an interrupted --undo had restored it as a plain branch)"})
	}
	os.Remove(path)
	return acts, nil
}
