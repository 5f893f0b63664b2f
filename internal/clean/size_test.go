package clean_test

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/taskresume/git-taskresume/internal/testbin"
)

// duBytes is what du counts for dir, in bytes. BLOCKSIZE=512 makes GNU
// and BSD du (macOS has no -B) count in the 512-byte units of st_blocks,
// so the count is exact.
func duBytes(t *testing.T, dir string) int64 {
	t.Helper()
	cmd := exec.Command("du", "-s", dir)
	cmd.Env = append(os.Environ(), "BLOCKSIZE=512")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	n, err := strconv.ParseInt(strings.Fields(string(out))[0], 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n * 512
}

// The dry run and the clean say what each removed worktree took on disk,
// as du counts it, and what the clean frees in all; the human output too.
func TestCleanSaysWhatItFrees(t *testing.T) {
	t.Parallel()
	s := newScenario(t, scenarioOpts{})
	want := map[string]int64{}
	var total int64
	for _, d := range s.dirty {
		want[d.path] = duBytes(t, d.path)
		total += want[d.path]
	}
	check := func(name string, r testbin.Result, dry bool) {
		t.Helper()
		if r.Code != 0 {
			t.Fatalf("%s: exit %d\n%s%s", name, r.Code, r.Stdout, r.Stderr)
		}
		var res testbin.CleanResult
		testbin.DecodeJSON(t, r, &res)
		seen := 0
		for _, a := range res.Actions {
			if a.Op != "remove_worktree" {
				continue
			}
			seen++
			if a.Bytes != want[a.Path] || a.Done == dry {
				t.Errorf("%s: remove %s: %d bytes (done %v), du said %d", name, a.Path, a.Bytes, a.Done, want[a.Path])
			}
		}
		if seen != len(s.dirty) || res.FreedBytes != total {
			t.Errorf("%s: %d removals, freed_bytes %d; want %d and %d", name, seen, res.FreedBytes, len(s.dirty), total)
		}
	}
	check("dry run", testbin.Taskclean(s.root, nil, "--run", run, "-n", "--json"), true)
	human := testbin.Taskclean(s.root, nil, "--run", run, "-n")
	if !strings.Contains(human.Stdout, "would free ") || !strings.Contains(human.Stdout, " KiB)") {
		t.Errorf("the dry run's output does not give the sizes:\n%s", human.Stdout)
	}
	check("clean", testbin.Taskclean(s.root, nil, "--run", run, "--json"), false)
}
