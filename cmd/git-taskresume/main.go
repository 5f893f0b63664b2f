// Command git-taskresume tells, from git alone, which tasks of a plan run are
// done, which are not, what can run next and which worktrees are stale.
package main

import (
	"os"

	"github.com/taskresume/git-taskresume/internal/cli/taskresume"
)

func main() {
	os.Exit(taskresume.Main(os.Args, os.Stdout, os.Stderr))
}
