package worktree

// Identity is used for the commits that hold saved work: they are records
// made by the tool, and a CI machine may have no user.name at all.
var Identity = []string{
	"GIT_AUTHOR_NAME=git-taskclean", "GIT_AUTHOR_EMAIL=git-taskclean@localhost",
	"GIT_COMMITTER_NAME=git-taskclean", "GIT_COMMITTER_EMAIL=git-taskclean@localhost",
}
