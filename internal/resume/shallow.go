package resume

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"

	"github.com/taskresume/git-taskresume/internal/exit"
	"github.com/taskresume/git-taskresume/internal/gitcmd"
)

// checkShallow refuses to answer when the walk reached a shallow boundary:
// beyond it git pretends there is no history, and counts come out wrong.
func checkShallow(repo *gitcmd.Repo, commits []gitcmd.LogEntry) error {
	boundary := shallowBoundary(repo)
	for _, c := range commits {
		if boundary[c.OID] {
			return exit.BadInput("this clone is shallow and the run's history goes past its boundary at %s: fetch more (git fetch --unshallow; in CI: GitHub actions/checkout fetch-depth: 0, GitLab GIT_DEPTH: 0)", c.OID[:12])
		}
	}
	return nil
}

// shallowBoundary is the set of commits whose parents a shallow clone lacks.
func shallowBoundary(repo *gitcmd.Repo) map[string]bool {
	boundary := map[string]bool{}
	f, err := os.Open(filepath.Join(repo.CommonDir, "shallow"))
	if err != nil {
		return boundary
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		boundary[strings.TrimSpace(sc.Text())] = true
	}
	return boundary
}

// checkShallowLog refuses a search for landed work that reached a shallow
// boundary: beyond it git pretends there is no history, and evidence would
// be missed.
func checkShallowLog(repo *gitcmd.Repo, start string, logs ...[]gitcmd.LogEntry) error {
	boundary := shallowBoundary(repo)
	cut := boundary[start]
	for _, l := range logs {
		for _, c := range l {
			cut = cut || boundary[c.OID]
		}
	}
	if cut {
		return exit.BadInput("this clone is shallow and the history since the run started is cut off: fetch more (git fetch --unshallow; in CI: GitHub actions/checkout fetch-depth: 0, GitLab GIT_DEPTH: 0)")
	}
	return nil
}
