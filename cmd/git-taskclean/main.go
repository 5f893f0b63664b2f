// Command git-taskclean removes what a crashed plan run left behind (stale
// worktrees, branches of tasks to re-run) after saving every bit of it under
// refs/taskclean/, and undoes itself.
package main

import (
	"os"

	"github.com/taskresume/git-taskresume/internal/cli/taskclean"
)

func main() {
	os.Exit(taskclean.Main(os.Args, os.Stdout, os.Stderr))
}
