package gitcmd

import (
	"fmt"
	"os"
	"strconv"
)

// Pack windows for the walks over long histories (the landed commits, the
// commits touching the tasks' paths): git maps its packs in windows of up
// to 1 GiB, and every page a walk of tens of thousands of commits touches
// stays in its resident memory: the log of 50,000 commits of a 50 MB pack
// holds 57 MB, 41 MB in these windows. Small windows, few mapped at once,
// hold it to what the walk reads at a time, at no cost that can be
// measured there: a pack keeps commits together, in the order the log
// reads them.
var packWindows = [][2]string{
	{"core.packedGitWindowSize", "1m"},
	{"core.packedGitLimit", "4m"},
}

// treeCache bounds the cache of inflated delta bases, 96 MiB by default,
// for a walk that reads the trees of every commit (a path-limited log
// without changed-path filters): there it is most of git's memory, and
// the walk reads each tree once (50,000 commits, three paths: 103 MB
// resident by default, 46 MB with this and packWindows, in as much time).
var treeCache = [2]string{"core.deltaBaseCacheLimit", "2m"}

// longWalk is the environment of a git that writes a long history to us:
// GIT_FLUSH=0, and packWindows (and more). log and rev-list flush their
// output after each commit when it is a pipe, one write and one wakeup of
// the reader a commit (0.1 s of system time for 50,000); unflushed, their
// stdio writes it in blocks. The config goes through GIT_CONFIG_COUNT
// rather than -c, so that the command traced and counted is the one run;
// entries the environment already passes that way come first and stay.
func longWalk(more ...[2]string) []string {
	n := 0
	if v := os.Getenv("GIT_CONFIG_COUNT"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 0 {
			return []string{"GIT_FLUSH=0"} // git refuses the count anyway: nothing added to it
		}
	}
	env := []string{"GIT_FLUSH=0"}
	for _, kv := range append(packWindows[:len(packWindows):len(packWindows)], more...) {
		env = append(env, fmt.Sprintf("GIT_CONFIG_KEY_%d=%s", n, kv[0]), fmt.Sprintf("GIT_CONFIG_VALUE_%d=%s", n, kv[1]))
		n++
	}
	return append(env, fmt.Sprintf("GIT_CONFIG_COUNT=%d", n))
}
