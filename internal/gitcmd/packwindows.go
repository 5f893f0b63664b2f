package gitcmd

import (
	"fmt"
	"os"
	"strconv"
)

// Pack windows for the walks over long histories (the landed commits, the
// commits touching the tasks' paths): git maps its packs in windows of up
// to 1 GiB, and every page a walk of tens of thousands of commits touches
// stays in its resident memory, 56 MB for 50,000 commits of a 50 MB pack.
// Small windows, few mapped at once, hold that to what the walk reads at
// a time, at no cost that can be measured there: a pack keeps commits
// together, in the order the log reads them.
var packWindows = [][2]string{
	{"core.packedGitWindowSize", "1m"},
	{"core.packedGitLimit", "8m"},
}

// treeCache bounds the cache of inflated delta bases, 96 MiB by default,
// for a walk that reads the trees of every commit (a path-limited log
// without changed-path filters): there it is most of git's memory, and
// the walk reads each tree once.
var treeCache = [2]string{"core.deltaBaseCacheLimit", "8m"}

// boundedPacks is the environment that gives git packWindows (and more):
// through GIT_CONFIG_COUNT rather than -c, so that the command traced and
// counted is the one run; entries the environment already passes that way
// come first and stay.
func boundedPacks(more ...[2]string) []string {
	n := 0
	if v := os.Getenv("GIT_CONFIG_COUNT"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 0 {
			return nil // git refuses it anyway: nothing added to a bad count
		}
	}
	var env []string
	for _, kv := range append(packWindows[:len(packWindows):len(packWindows)], more...) {
		env = append(env, fmt.Sprintf("GIT_CONFIG_KEY_%d=%s", n, kv[0]), fmt.Sprintf("GIT_CONFIG_VALUE_%d=%s", n, kv[1]))
		n++
	}
	return append(env, fmt.Sprintf("GIT_CONFIG_COUNT=%d", n))
}
