package agree

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/taskresume/git-taskresume/internal/testbin"
)

// Histories where what a list keeps of the default branches' commits
// (branches.LandingFilter) must still answer as the whole list does; each
// asked as sameThroughShared asks, and of --list's row.

// advCommit commits msg in dir, changing file ("" changes nothing).
func advCommit(t *testing.T, dir string, k int, msg, file string) {
	t.Helper()
	if file != "" {
		testbin.WriteFile(t, filepath.Join(dir, file), fmt.Sprintf("v%d\n", k))
		testbin.Git(t, dir, "add", file)
	}
	testbin.Git(t, dir, "commit", "-q", "--allow-empty", "-m", msg)
}

// sameRow asks that --list gives run the report's status and count.
func sameRow(t *testing.T, dir string, rep *testbin.Report) {
	t.Helper()
	var list struct {
		Runs []struct {
			RunID          string `json:"run_id"`
			Status         string `json:"status"`
			CompletedTasks int    `json:"completed_tasks"`
		} `json:"runs"`
	}
	testbin.DecodeJSON(t, testbin.Must(t, testbin.Taskresume(dir, nil, "--list", "--json")), &list)
	for _, r := range list.Runs {
		if r.RunID == run {
			if r.Status != rep.Status || r.CompletedTasks != rep.CompletedTasks {
				t.Errorf("--list says %s, %d done; the report %s, %d (%s)", r.Status, r.CompletedTasks, rep.Status, rep.CompletedTasks, statuses(rep))
			}
			return
		}
	}
	t.Errorf("--list does not list %s", run)
}

// A revert by subject alone on the run's base reverts the newest older
// commit of that subject in the base's list and then the default
// branches': there a commit that can be evidence of nothing ("Polish
// code" touching another file) is the one it reverts, and the older one
// of that subject that names 2.1 by its trailers stands. The list's
// filter keeps every commit of a subject a revert names, but only for the
// reverts on the default branches.
func TestListAdvBaseRevertBySubject(t *testing.T) {
	dir := testbin.NewRun(t, filepath.Join(t.TempDir(), "r"), run)
	advCommit(t, dir, 0, "Change 0: before the run", "src/z.go")
	advCommit(t, dir, 1, "Polish code\n\nRun-Id: "+run+"\nTask-Id: 2.1", "src/services/user-service.ts")
	advCommit(t, dir, 2, "Polish code", "src/b.go")
	testbin.Git(t, dir, "checkout", "-q", run+"-main")
	advCommit(t, dir, 3, `Revert "Polish code"`, "src/b.go")
	testbin.Git(t, dir, "checkout", "-q", "main")
	rep := sameThroughShared(t, dir)
	if got := rep.TaskStatus("2.1"); got != "landed" {
		t.Errorf("2.1 is %s, want landed (%s)", got, statuses(rep))
	}
	sameRow(t, dir, rep)
}
