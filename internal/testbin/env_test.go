package testbin

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hookRepo sets the variables a git hook of another repository passes on
// (and a few more a caller may have), all naming that repository, and
// returns it with its index file's content.
func hookRepo(t *testing.T) (string, []byte) {
	t.Helper()
	outer := filepath.Join(t.TempDir(), "outer")
	Git(t, "", "init", "-q", outer)
	WriteFile(t, filepath.Join(outer, "f"), "f\n")
	Git(t, outer, "add", "f")
	index, err := os.ReadFile(filepath.Join(outer, ".git", "index"))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]string{
		"GIT_DIR":                   filepath.Join(outer, ".git"),
		"GIT_WORK_TREE":             outer,
		"GIT_INDEX_FILE":            filepath.Join(outer, ".git", "index"),
		"GIT_COMMON_DIR":            filepath.Join(outer, ".git"),
		"GIT_OBJECT_DIRECTORY":      filepath.Join(outer, ".git", "objects"),
		"GIT_PREFIX":                "sub/",
		"GIT_REFLOG_ACTION":         "hook",
		"GIT_CONFIG_COUNT":          "1",
		"GIT_CONFIG_KEY_0":          "user.name",
		"GIT_CONFIG_VALUE_0":        "Outer",
		"GIT_TASKRESUME_TRACE":      filepath.Join(outer, "trace"),
		"GIT_TASKCLEAN_CRASH_AFTER": "1",
		"XDG_CONFIG_HOME":           outer,
	} {
		t.Setenv(k, v)
	}
	return outer, index
}

// checkInner makes a repository of its own with a commit and checks that
// git worked there, as the test's identity, and left the outer one alone;
// no GIT_* variable is left but those of Vars and allowed.
func checkInner(t *testing.T, outer string, index []byte, allowed ...string) {
	t.Helper()
	// Real path: rev-parse prints git's.
	inner := filepath.Join(TempDir(t), "inner")
	Git(t, "", "init", "-q", inner)
	WriteFile(t, filepath.Join(inner, "g"), "g\n")
	Git(t, inner, "add", "g")
	Git(t, inner, "commit", "-q", "-m", "inner")
	if got := Git(t, inner, "rev-parse", "--absolute-git-dir"); got != filepath.Join(inner, ".git") {
		t.Errorf("git works in %s, want %s/.git", got, inner)
	}
	if got := Git(t, inner, "log", "-1", "--format=%an <%ae> %cn"); got != Name+" <"+Email+"> "+Name {
		t.Errorf("commit made by %q, want %s <%s>", got, Name, Email)
	}
	if got := Git(t, inner, "symbolic-ref", "--short", "HEAD"); got != "main" {
		t.Errorf("default branch %q, want main", got)
	}
	if after, err := os.ReadFile(filepath.Join(outer, ".git", "index")); err != nil || string(after) != string(index) {
		t.Errorf("the outer repository's index changed (%v)", err)
	}
	set := map[string]bool{}
	for _, k := range append(VarNames(), allowed...) {
		set[k] = true
	}
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); Dropped(k) && !set[k] {
			t.Errorf("%s reaches the tests", kv)
		}
	}
}

// The environment of Main, applied under a git hook's variables, sends git
// to the test's repositories, not the hook's.
func TestIsolateDropsHookVariables(t *testing.T) {
	outer, index := hookRepo(t)
	isolate(os.Getenv("HOME"), Options{})
	checkInner(t, outer, index)
}

// IsolateGit does the same for one test.
func TestIsolateGitDropsHookVariables(t *testing.T) {
	outer, index := hookRepo(t)
	IsolateGit(t)
	checkInner(t, outer, index, "GIT_CONFIG_GLOBAL", "GIT_CEILING_DIRECTORIES")
}

func TestVars(t *testing.T) {
	got := strings.Join(Vars("/h", Options{Date: "2026-01-01T00:00:00Z"}), " ")
	for _, want := range []string{"HOME=/h", "GIT_CONFIG_NOSYSTEM=1", "GIT_EDITOR=true", "GIT_TERMINAL_PROMPT=0",
		"NO_COLOR=1", "LC_ALL=C", "TZ=UTC", "GIT_AUTHOR_DATE=2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2026-01-01T00:00:00Z"} {
		if !strings.Contains(" "+got+" ", " "+want+" ") {
			t.Errorf("Vars lacks %s: %s", want, got)
		}
	}
	if strings.Contains(strings.Join(Vars("/h", Options{}), " "), "_DATE=") {
		t.Error("Vars pins the dates without Options.Date")
	}
	if n := len(VarNames()); n != len(Vars("/h", Options{Date: "x"})) {
		t.Errorf("VarNames has %d names, Vars %d variables", n, len(Vars("/h", Options{Date: "x"})))
	}
}
