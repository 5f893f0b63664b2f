package worktree

import "path/filepath"

// HeadRef is the ref a HEAD ends at once the symbolic refs it goes through
// are followed (HEAD -> refs/heads/alias -> refs/heads/main gives
// refs/heads/main; a HEAD on a plain branch gives that branch), or "" for
// a detached HEAD. It is what `git worktree list` names as a worktree's
// branch, read here for the one entry that list names none for: a bare
// repository, whose HEAD (the common directory's) names a branch all the
// same. Files only, as HeadAliases.
func HeadRef(gitDir, commonDir string) string {
	aliases := HeadAliases(gitDir, commonDir)
	if len(aliases) == 0 {
		return readSymref(filepath.Join(gitDir, "HEAD"))
	}
	last := aliases[len(aliases)-1]
	dir := commonDir
	if perWorktreeRef(last) {
		dir = gitDir
	}
	return SymrefTarget(dir, last)
}
