package claims_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/taskresume/git-taskresume/internal/testbin"
)

// manyRefs gives the repository at dir n more branches (other-<i>, at
// main), written as packed-refs: update-ref would write n loose refs
// first.
func manyRefs(t *testing.T, dir string, n int) {
	t.Helper()
	main := testbin.Git(t, dir, "rev-parse", "main")
	var names []string
	for i := 0; i < n; i++ {
		names = append(names, fmt.Sprintf("refs/heads/other-%d", i))
	}
	slices.Sort(names)
	packed := filepath.Join(testbin.Git(t, dir, "rev-parse", "--path-format=absolute", "--git-common-dir"), "packed-refs")
	if testbin.Exists(packed) {
		t.Fatal("the repository has packed refs already")
	}
	var b strings.Builder
	b.WriteString("# pack-refs with: peeled fully-peeled sorted \n")
	for _, name := range names {
		b.WriteString(main + " " + name + "\n")
	}
	testbin.WriteFile(t, packed, b.String())
}

// The report reading a remote on a local path live asks it for the run's
// refs alone (protocol v2 ref prefixes), not for its whole ref list, and
// answers as when git's ls-remote lists everything: the same claims, the
// alias of a claim named, the same moved branches.
func TestReportAsksRemoteForTheRunsRefsOnly(t *testing.T) {
	dir := t.TempDir()
	src := phase2Ready(t, filepath.Join(dir, "src"))
	const others = 2000
	manyRefs(t, src, others)
	origin, a := filepath.Join(dir, "origin.git"), filepath.Join(dir, "a")
	testbin.Git(t, "", "clone", "-q", "--bare", src, origin)
	testbin.Git(t, "", "clone", "-q", origin, a)
	testbin.Must(t, testbin.Taskresume(a, nil, run, "--remote", "origin", "--claim", "--as", "A"))
	// A claim that is an alias of a branch; and a task branch that moved
	// on the origin since a fetched.
	testbin.Git(t, origin, "symbolic-ref", "refs/taskclaims/"+run+"/2.3", "refs/heads/other-7")
	testbin.Git(t, origin, "branch", "-f", run+"-task-1-2-install-dependencies", run+"-main")

	trace := filepath.Join(t.TempDir(), "packets")
	r := testbin.Must(t, testbin.Taskresume(a, []string{"GIT_TRACE_PACKET=" + trace}, run, "--json", "--remote", "origin"))
	data, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	sent := regexp.MustCompile(`(?m)upload-pack> [0-9a-f]{40} refs/heads/other-`).FindAllIndex(data, -1)
	if len(sent) > 0 {
		t.Errorf("the origin sent %d of its %d other branches: it was asked for its whole ref list", len(sent), others)
	}
	if !strings.Contains(string(data), "upload-pack< ref-prefix refs/taskclaims/"+run+"/") {
		t.Errorf("the origin was not asked for the run's claims by prefix:\n%.2000s", data)
	}

	// Through git's ls-remote (GIT_PROTOCOL_FROM_USER set leaves the file
	// transport to git): the same answer.
	l := testbin.Must(t, testbin.Taskresume(a, []string{"GIT_PROTOCOL_FROM_USER=1"}, run, "--json", "--remote", "origin"))
	processes := regexp.MustCompile(`"git_processes": \d+`)
	if got, want := processes.ReplaceAllString(r.Stdout, ""), processes.ReplaceAllString(l.Stdout, ""); got != want {
		t.Fatalf("asked by prefix:\n%s\nthrough ls-remote:\n%s", got, want)
	}
	for _, want := range []string{`"holder": "A"`, `"kind": "claim_alias"`, `"kind": "remote_moved"`} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("the report does not say %s:\n%s", want, r.Stdout)
		}
	}
}
