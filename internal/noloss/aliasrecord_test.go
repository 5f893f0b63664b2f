package noloss

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/taskresume/git-taskresume/internal/testbin"
)

// The record an interrupted --undo leaves names an alias to make again at
// its tip; the branch of that name has moved since (the user committed on
// it, or made it elsewhere): the next command under the lock leaves it a
// plain branch, where it is, and drops the record.
func TestUndoAliasRecordOfMovedBranch(t *testing.T) {
	t.Parallel()
	repo := newRepo(t)
	tip := git(t, repo, "rev-parse", "refs/heads/"+mainAlias)
	commitFile(t, repo, "after.txt", "after\n") // main moves on
	moved := git(t, repo, "rev-parse", "refs/heads/main")
	git(t, repo, "branch", "-f", mainAlias, moved)
	record := filepath.Join(repo, ".git", "taskclean-"+run+".aliases")
	if err := os.WriteFile(record, []byte("refs/heads/"+mainAlias+" refs/heads/main "+tip+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cleanOK(t, repo, nil)
	if got := symrefOf(repo, "refs/heads/"+mainAlias); got != "" {
		t.Errorf("%s, moved since the record, was made a symbolic ref to %s", mainAlias, got)
	}
	requireBranchAt(t, repo, mainAlias, moved)
	if testbin.Exists(record) {
		t.Errorf("the record is left behind")
	}
}
