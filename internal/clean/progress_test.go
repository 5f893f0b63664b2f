package clean_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/taskresume/git-taskresume/internal/testbin"
)

// The progress lines, seen through a real terminal: the real binaries run
// under util-linux script, which gives them a pseudo-terminal and copies
// what it shows to its own stdout. The commands' stdout goes to a file
// inside the command line, so that what the terminal shows is stderr alone
// (unless a case sends stdout there too).

const progressRun = "p1q2r3"

// staleRun makes a repository at dir with the seven-task plan of
// progressRun and a worktree for each of its tasks, none done, each holding
// an untracked file of 64 KiB: seven stale worktrees. Built twice, it is
// the same repository (the dates are pinned), so two cleans print the same.
func staleRun(t *testing.T) string {
	t.Helper()
	dir := testbin.NewRun(t, filepath.Join(testbin.TempDir(t), "repo"), progressRun)
	for _, id := range []string{"1-1", "1-2", "2-1", "2-2", "2-3", "3-1", "3-2"} {
		wt := filepath.Join(dir, ".worktrees", progressRun+"-task-"+id)
		git(t, dir, "worktree", "add", "-q", "--detach", wt, "main")
		testbin.WriteFile(t, filepath.Join(wt, "notes-"+id+".txt"), strings.Repeat("notes of a task that crashed\n", 64<<10/29))
	}
	return dir
}

// onTerminal runs cmdline with sh in dir under script, with the test
// environment plus env, and returns what the terminal showed (its "\r\n"
// made "\n" again, a lone "\r" kept) and the exit code.
func onTerminal(t *testing.T, dir string, env []string, cmdline string) (string, int) {
	t.Helper()
	needScript(t)
	r := testbin.Run(dir, append([]string{"SHELL=/bin/sh"}, env...), "script", "-qfec", cmdline, "/dev/null")
	return strings.ReplaceAll(r.Stdout, "\r\n", "\n"), r.Code
}

// needScript skips where util-linux script is not: macOS's script takes
// other arguments (the terminal tests are Linux's), and a Linux without it
// is said unless CI is set, where it fails.
func needScript(t *testing.T) {
	t.Helper()
	testbin.NeedsLinux(t, "util-linux script gives the commands a real terminal")
	out, err := exec.Command("script", "--version").Output()
	if err != nil || !strings.Contains(string(out), "util-linux") {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI needs util-linux script for the terminal tests: %v %s", err, out)
		}
		t.Skipf("needs util-linux script (a terminal for the commands): %v %s", err, out)
	}
}

var stampRe = regexp.MustCompile(`[0-9]{8}T[0-9]{6}\.[0-9]{9}Z`)

// cleanOutput is a clean's stdout with its stamp made one word: two cleans
// differ only there.
func cleanOutput(s string) string { return stampRe.ReplaceAllString(s, "STAMP") }

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A clean on a terminal shows each long step as git does: a line
// rewritten with "\r", ended by ", done." and a newline, with the counts
// and, for the removals, the bytes freed; its stdout is the same as
// without a terminal.
func TestProgressOnATerminal(t *testing.T) {
	t.Parallel()
	dir := staleRun(t)
	out := filepath.Join(t.TempDir(), "out")
	// A dry run measures what the clean would free.
	screen, code := onTerminal(t, dir, []string{"GIT_PROGRESS_DELAY=0"}, "git taskclean --run "+progressRun+" -n >"+out)
	dry := `(?m)^Measuring worktrees:   0% \(0/7\), 0 bytes to free\r(Measuring worktrees: +[0-9]+% \([1-7]/7\), [0-9.]+ KiB to free\r)+` +
		`Measuring worktrees: 100% \(7/7\), [0-9.]+ KiB to free, done\.\n$`
	if code != 0 || !regexp.MustCompile(dry).MatchString(screen) {
		t.Errorf("dry run: exit %d, the terminal shows %q, want %s", code, screen, dry)
	}
	screen, code = onTerminal(t, dir, []string{"GIT_PROGRESS_DELAY=0"}, "git taskclean --run "+progressRun+" >"+out)
	if code != 0 {
		t.Fatalf("exit %d; the terminal showed:\n%s", code, screen)
	}
	for _, re := range []string{
		`(?m)^Saving worktrees:   0% \(0/7\)\r(Saving worktrees: +[0-9]+% \([1-7]/7\)\r)+Saving worktrees: 100% \(7/7\), done\.$`,
		`(?m)^Removing worktrees:   0% \(0/7\), 0 bytes freed\r(Removing worktrees: +[0-9]+% \([1-7]/7\), [0-9.]+ KiB freed\r)+` +
			`Removing worktrees: 100% \(7/7\), [0-9.]+ KiB freed, done\.$`,
	} {
		if !regexp.MustCompile(re).MatchString(screen) {
			t.Errorf("the terminal does not show %s:\n%q", re, screen)
		}
	}
	// Every line the terminal shows ends in ", done.": none is left half.
	for _, l := range strings.Split(strings.TrimSuffix(screen, "\n"), "\n") {
		if !strings.HasSuffix(l, ", done.") {
			t.Errorf("a line that is not a finished step: %q", l)
		}
	}
	got := readFile(t, out)
	plain := testbin.Taskclean(staleRun(t), nil, "--run", progressRun)
	if plain.Code != 0 || cleanOutput(got) != cleanOutput(plain.Stdout) {
		t.Errorf("stdout on a terminal differs from stdout without one (%s):\n%s\n----\n%s", plain, got, plain.Stdout)
	}
	if plain.Stderr != "" {
		t.Errorf("off a terminal stderr holds %q", plain.Stderr)
	}
}

// Where nobody sees a terminal's lines, or they were turned off, there
// are none: stderr sent to a file, --quiet, --json, and a step that ends
// within GIT_PROGRESS_DELAY.
func TestNoProgressOffTerminalOrTurnedOff(t *testing.T) {
	t.Parallel()
	base := "git taskclean --run " + progressRun
	for _, c := range []struct {
		name, args string
		delay      string
	}{
		{"stderr to a file", " 2>ERR", "0"},
		{"--quiet", " --quiet >OUT", "0"},
		{"-q", " -q >OUT", "0"},
		{"--json", " --json >OUT", "0"},
		{"within the delay", " >OUT", "3600"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := staleRun(t)
			tmp := t.TempDir()
			args := strings.ReplaceAll(strings.ReplaceAll(c.args, "ERR", filepath.Join(tmp, "err")), "OUT", filepath.Join(tmp, "out"))
			screen, code := onTerminal(t, dir, []string{"GIT_PROGRESS_DELAY=" + c.delay}, base+args)
			if code != 0 {
				t.Fatalf("exit %d:\n%s", code, screen)
			}
			shown := screen
			if c.name == "stderr to a file" {
				// The terminal shows stdout, the clean's lines, unchanged.
				if err := readFile(t, filepath.Join(tmp, "err")); err != "" {
					t.Errorf("stderr in a file holds %q", err)
				}
				shown = ""
				if !strings.Contains(screen, "saved under refs/taskclean/"+progressRun+"/") || strings.Contains(screen, "\r") {
					t.Errorf("the terminal does not show the clean's stdout alone:\n%q", screen)
				}
			}
			if shown != "" {
				t.Errorf("the terminal shows %q", shown)
			}
			if c.name == "--json" {
				var doc map[string]any
				if err := json.Unmarshal([]byte(readFile(t, filepath.Join(tmp, "out"))), &doc); err != nil {
					t.Errorf("--json on a terminal: %v", err)
				}
			}
		})
	}
}

// git taskresume shows its reads, --list its count of runs; the report
// on stdout is the one printed without a terminal.
func TestReportProgressOnATerminal(t *testing.T) {
	t.Parallel()
	dir := staleRun(t)
	out := filepath.Join(t.TempDir(), "out")
	env := []string{"GIT_PROGRESS_DELAY=0"}
	screen, code := onTerminal(t, dir, env, "git taskresume "+progressRun+" --sizes >"+out)
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, screen)
	}
	for _, want := range []string{"Reading 7 worktrees\rReading 7 worktrees, done.\n", "Measuring worktrees: 100% (7/7), done.\n"} {
		if !strings.Contains(screen, want) {
			t.Errorf("the terminal does not show %q:\n%q", want, screen)
		}
	}
	plain := testbin.Taskresume(dir, nil, progressRun, "--sizes")
	if got := readFile(t, out); plain.Code != 0 || got != plain.Stdout {
		t.Errorf("the report on a terminal differs (%s):\n%s\n----\n%s", plain, got, plain.Stdout)
	}

	// A remote read live (--remote, --next) is a title alone: ls-remote
	// tells no count.
	origin := filepath.Join(t.TempDir(), "origin.git")
	git(t, dir, "init", "-q", "--bare", origin)
	git(t, dir, "remote", "add", "origin", origin)
	git(t, dir, "push", "-q", "origin", "main", progressRun+"-main")
	screen, code = onTerminal(t, dir, env, "git taskresume "+progressRun+" --remote origin >"+out)
	if want := "Reading remote origin\rReading remote origin, done.\n"; code != 0 || !strings.Contains(screen, want) {
		t.Errorf("--remote origin: exit %d, the terminal shows %q, want %q in it", code, screen, want)
	}

	screen, code = onTerminal(t, dir, env, "git taskresume --list >"+out)
	if want := "Reading runs:   0% (0/1)\rReading runs: 100% (1/1)\rReading runs: 100% (1/1), done.\n"; code != 0 || screen != want {
		t.Errorf("--list: exit %d, the terminal shows %q, want %q", code, screen, want)
	}
	if got := readFile(t, out); !strings.HasPrefix(got, progressRun+" ") {
		t.Errorf("--list printed %q", got)
	}
}

// GIT_PROGRESS_DELAY is read as git reads it: a value git refuses is bad
// input where progress would show (one error line, exit 2, nothing
// changed), and not read where it would not (git reads it only then).
func TestProgressDelayRefused(t *testing.T) {
	t.Parallel()
	dir := staleRun(t)
	before := git(t, dir, "worktree", "list", "--porcelain")
	screen, code := onTerminal(t, dir, []string{"GIT_PROGRESS_DELAY=soon"}, "git taskclean --run "+progressRun)
	if want := "error: GIT_PROGRESS_DELAY=\"soon\": not a whole number of seconds"; code != 2 || !strings.HasPrefix(screen, want) || strings.Count(screen, "\n") != 1 {
		t.Errorf("exit %d, the terminal shows %q; want exit 2 and one line %q...", code, screen, want)
	}
	if after := git(t, dir, "worktree", "list", "--porcelain"); after != before {
		t.Errorf("the refused clean changed the worktrees:\n%s", after)
	}
	screen, code = onTerminal(t, dir, []string{"GIT_PROGRESS_DELAY=soon"}, "git taskresume "+progressRun+" --quiet >/dev/null")
	if code != 0 || screen != "" {
		t.Errorf("--quiet reads GIT_PROGRESS_DELAY: exit %d, %q", code, screen)
	}
}
