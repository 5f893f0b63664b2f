package worktree_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/taskresume/git-taskresume/internal/testbin"
	"github.com/taskresume/git-taskresume/internal/worktree"
)

// liveStart starts a long-running process in dir and kills it when the test
// ends.
func liveStart(t *testing.T, dir, name string, args ...string) int {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	return cmd.Process.Pid
}

// liveFind polls LiveIn until pid is listed under dir (a shell needs a
// moment to open its file), and returns its entry.
func liveFind(t *testing.T, dirs []string, dir string, pid int) worktree.Proc {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		procs, ok := worktree.LiveIn(dirs)
		if !ok {
			t.Fatal("LiveIn: cannot tell on linux")
		}
		for _, p := range procs[dir] {
			if p.PID == pid {
				return p
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("pid %d not found in %s: %+v", pid, dir, procs)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func liveHas(procs map[string][]worktree.Proc, dir string, pid int) bool {
	for _, p := range procs[dir] {
		if p.PID == pid {
			return true
		}
	}
	return false
}

func liveDirs(t *testing.T, names ...string) (string, []string) {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for _, n := range names {
		d := filepath.Join(base, n)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, d)
	}
	return base, dirs
}

func TestLiveIn(t *testing.T) {
	if runtime.GOOS != "linux" {
		// Elsewhere LiveIn says it cannot tell, and finds nothing.
		if procs, ok := worktree.LiveIn([]string{t.TempDir()}); ok || len(procs) > 0 {
			t.Errorf("LiveIn claims to know on %s: %v", runtime.GOOS, procs)
		}
		t.Skip("needs Linux: only /proc tells which processes hold a directory (checked: LiveIn says it cannot tell here)")
	}
	_, dirs := liveDirs(t, "task", "task-b", "elsewhere", "bin")
	task, taskB, elsewhere, bin := dirs[0], dirs[1], dirs[2], dirs[3]
	file := filepath.Join(task, "held.txt")
	write(t, file, "x")

	// Current directory, in a directory whose name extends another's.
	inB := liveStart(t, taskB, "sleep", "30")
	// An open file, with the current directory elsewhere.
	holder := liveStart(t, elsewhere, "sh", "-c", `exec 3<"$1"; sleep 30`, "sh", file)
	// The executable.
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(sleep)
	if err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(bin, "sleep")
	if err := os.WriteFile(exe, data, 0o755); err != nil {
		t.Fatal(err)
	}
	runner := liveStart(t, elsewhere, exe, "30")
	// The test process itself holds a file in task: it is never listed.
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()

	all := []string{task, taskB, bin}
	p := liveFind(t, all, taskB, inB)
	if p.Path != taskB || !strings.Contains(p.Command, "sleep") {
		t.Errorf("sleep in %s = %+v", taskB, p)
	}
	if p := liveFind(t, all, task, holder); p.Path != file {
		t.Errorf("holder of %s = %+v", file, p)
	}
	if p := liveFind(t, all, bin, runner); p.Path != exe || p.Command != exe+" 30" {
		t.Errorf("runner of %s = %+v", exe, p)
	}

	procs, _ := worktree.LiveIn(all)
	if liveHas(procs, task, inB) {
		t.Errorf("the process in %s is listed in %s", taskB, task)
	}
	if liveHas(procs, taskB, holder) || liveHas(procs, task, runner) {
		t.Errorf("listed where they are not: %+v", procs)
	}
	for d, ps := range procs {
		for _, p := range ps {
			if p.PID == os.Getpid() {
				t.Errorf("the calling process is listed in %s", d)
			}
		}
	}
	// A relative and an unclean name find the same.
	rel, err := filepath.Rel(mustGetwd(t), taskB)
	if err != nil {
		t.Fatal(err)
	}
	if procs, _ := worktree.LiveIn([]string{rel, taskB + "/./"}); !liveHas(procs, rel, inB) || !liveHas(procs, taskB+"/./", inB) {
		t.Errorf("relative or unclean names: %+v", procs)
	}
}

func mustGetwd(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return wd
}

// TestLiveInRenamedOrDeleted: /proc names a renamed directory by its new
// name, and a deleted one by its old name with " (deleted)".
func TestLiveInRenamedOrDeleted(t *testing.T) {
	if _, ok := worktree.LiveIn(nil); ok != (runtime.GOOS == "linux") {
		t.Fatalf("LiveIn ok = %v on %s", ok, runtime.GOOS)
	}
	testbin.NeedsLinux(t, "/proc names the directories processes hold")
	base, dirs := liveDirs(t, "old", "gone")
	old, gone := dirs[0], dirs[1]
	moved := liveStart(t, old, "sleep", "30")
	deleted := liveStart(t, gone, "sleep", "30")
	renamed := filepath.Join(base, "new")
	if err := os.Rename(old, renamed); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(gone); err != nil {
		t.Fatal(err)
	}
	if p := liveFind(t, []string{renamed}, renamed, moved); p.Path != renamed {
		t.Errorf("after rename: %+v", p)
	}
	if procs, _ := worktree.LiveIn([]string{old}); liveHas(procs, old, moved) {
		t.Errorf("found under the old name: %+v", procs)
	}
	if p := liveFind(t, []string{gone}, gone, deleted); p.Path != gone {
		t.Errorf("deleted directory: %+v", p)
	}
}

// BenchmarkLiveIn measures one scan of /proc for ten directories.
func BenchmarkLiveIn(b *testing.B) {
	base := b.TempDir()
	var dirs []string
	for i := range 10 {
		dirs = append(dirs, filepath.Join(base, "wt", string(rune('a'+i))))
	}
	for b.Loop() {
		if _, ok := worktree.LiveIn(dirs); !ok && runtime.GOOS == "linux" {
			b.Fatal("LiveIn cannot tell")
		}
	}
}
