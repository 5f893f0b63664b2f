package testbin

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The identity every commit of the tests is made with.
const (
	Name  = "Agent"
	Email = "agent@example.com"
)

// GitConfig is the ~/.gitconfig of the tests: the identity, main as the
// default branch, no advice on detached HEADs, and no automatic gc or
// maintenance (which would repack or prune behind a test's back).
const GitConfig = "[user]\n\tname = " + Name + "\n\temail = " + Email + "\n" +
	"[init]\n\tdefaultBranch = main\n" +
	"[advice]\n\tdetachedHead = false\n" +
	"[gc]\n\tauto = 0\n" +
	"[maintenance]\n\tauto = false\n"

// WriteHome makes the directory home with GitConfig as its .gitconfig.
func WriteHome(home string) error {
	if err := os.MkdirAll(home, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(home, ".gitconfig"), []byte(GitConfig), 0o644)
}

// Dropped reports whether a variable of the caller's environment is kept
// from the tests: every GIT_* variable and XDG_CONFIG_HOME. A git hook that
// runs the tests passes GIT_DIR, GIT_WORK_TREE, GIT_INDEX_FILE,
// GIT_COMMON_DIR, GIT_OBJECT_DIRECTORY, GIT_PREFIX and more, which would
// send every git command to the outer repository; GIT_CONFIG_*,
// GIT_CEILING_DIRECTORIES, GIT_NAMESPACE, GIT_EXEC_PATH,
// GIT_OPTIONAL_LOCKS, GIT_SEQUENCE_EDITOR and XDG_CONFIG_HOME change what
// git reads and does; GIT_TASKCLEAN_CRASH_AFTER, GIT_TASKCLEAN_CRASH_IN_TXN
// and GIT_TASKRESUME_TRACE are the commands' own test seams, which a test
// sets for one command only.
func Dropped(name string) bool {
	return strings.HasPrefix(name, "GIT_") || name == "XDG_CONFIG_HOME"
}

// Vars is the environment of the tests, as KEY=VALUE, once the dropped
// variables are gone: HOME, no system configuration, the identity, no
// prompt for credentials, an editor that accepts what git proposes (a
// rebase or am never waits), no colour, the C locale and UTC, and the
// dates of o.Date when set.
func Vars(home string, o Options) []string {
	vars := []string{
		"HOME=" + home,
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=" + Name,
		"GIT_AUTHOR_EMAIL=" + Email,
		"GIT_COMMITTER_NAME=" + Name,
		"GIT_COMMITTER_EMAIL=" + Email,
		"GIT_TERMINAL_PROMPT=0",
		"GIT_EDITOR=true",
		"NO_COLOR=1",
		"LC_ALL=C",
		"TZ=UTC",
	}
	if o.Date != "" {
		vars = append(vars, "GIT_AUTHOR_DATE="+o.Date, "GIT_COMMITTER_DATE="+o.Date)
	}
	return vars
}

// VarNames are the names of Vars, for handing the same environment on.
func VarNames() []string {
	var names []string
	for _, kv := range Vars("", Options{Date: "-"}) {
		k, _, _ := strings.Cut(kv, "=")
		names = append(names, k)
	}
	return names
}

// isolate gives this process the environment of the tests.
func isolate(home string, o Options) {
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); Dropped(k) {
			os.Unsetenv(k)
		}
	}
	for _, kv := range Vars(home, o) {
		k, v, _ := strings.Cut(kv, "=")
		os.Setenv(k, v)
	}
}

// isolateDate is the date of IsolateGit's commits.
const isolateDate = "1700000000 +0000"

// IsolateGit gives one test the environment of Vars, for package tests that
// run git without the built commands: a fresh HOME holding GitConfig (also
// named by GIT_CONFIG_GLOBAL), fixed dates, and no repository above the
// test's directories. Like Main it drops every variable Dropped names, and
// t.Setenv brings them back after the test. It returns HOME.
func IsolateGit(t testing.TB) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git not installed")
	}
	home := t.TempDir()
	if err := WriteHome(home); err != nil {
		t.Fatal(err)
	}
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); Dropped(k) {
			t.Setenv(k, "")
			os.Unsetenv(k)
		}
	}
	for _, kv := range append(Vars(home, Options{Date: isolateDate}),
		"GIT_CONFIG_GLOBAL="+filepath.Join(home, ".gitconfig"),
		"GIT_CEILING_DIRECTORIES="+filepath.Dir(home)) {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	return home
}
