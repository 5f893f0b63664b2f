// Command git-taskresume tells, from git alone, which tasks of a plan run are
// done, which are not, what can run next and which worktrees are stale.
package main

import (
	"github.com/taskresume/git-taskresume/internal/gitcmd"
	"os"

	"github.com/taskresume/git-taskresume/internal/cli/taskresume"
)

func main() {
	gitcmd.Mark("main")
	code := taskresume.Main(os.Args, os.Stdout, os.Stderr)
	gitcmd.Mark("exit")
	os.Exit(code)
}
