package resume

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/taskresume/git-taskresume/internal/gitcmd"
)

// FETCH_HEAD dates the run's copies only when its fetch brought one of the
// run's branches from the remote's URL: a fetch of main alone, or from
// another URL, says nothing of them.
func TestFetchHeadTime(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "FETCH_HEAD")
	held := map[string]string{"r1-task-1-1-a": "x"}
	const oid = "4198e79666e70e35a0c3ea3b576ee60b8672eb2c"
	for _, c := range []struct {
		text, url string
		want      bool
	}{
		{oid + "\t\tbranch 'main' of /srv/origin\n", "/srv/origin.git", false},
		{oid + "\t\tbranch 'main' of /srv/origin\n" + oid + "\tnot-for-merge\tbranch 'r1-task-1-1-a' of /srv/origin\n", "/srv/origin.git/", true},
		{oid + "\tnot-for-merge\tbranch 'r1-task-1-1-a' of /srv/other\n", "/srv/origin", false},
		{oid + "\tnot-for-merge\tbranch 'r1-task-1-1-a' of /srv/origin\n", "", false},
		{"torn line", "/srv/origin", false},
	} {
		if err := os.WriteFile(path, []byte(c.text), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, got := fetchHeadTime(path, c.url, held); got != c.want {
			t.Errorf("fetchHeadTime(%q, %q) = %v, want %v", c.text, c.url, got, c.want)
		}
	}
}

// The last well-formed entry of a reflog dates it; a torn last line does
// not hide the one before.
func TestLastReflogTime(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log")
	const z, a = "0000000000000000000000000000000000000000", "4198e79666e70e35a0c3ea3b576ee60b8672eb2c"
	text := z + " " + a + " A U Thor <a@example.com> 1700000000 +0000\tfetch: storing head\n" +
		a + " " + a + " A U Thor <a@example.com> 1700000500 +0100\tfetch: fast-forward\n" + "4198e7 torn"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	got, ok := lastReflogTime(path)
	if !ok || !got.Equal(time.Unix(1700000500, 0)) {
		t.Errorf("lastReflogTime = %v, %v; want %v", got, ok, time.Unix(1700000500, 0))
	}
	if _, ok := lastReflogTime(filepath.Join(t.TempDir(), "none")); ok {
		t.Error("a missing reflog has a time")
	}
}

// A remote-tracking ref is the remote's whose fetch refspec puts a branch
// there; a ref no refspec maps to (a narrowed refspec, a negative one, a
// remote's section removed) is no fetch's, and never read.
func TestAttribute(t *testing.T) {
	rs := readRemoteSet([]gitcmd.ConfigEntry{
		{Key: "remote.origin.url", Value: "/srv/a"},
		{Key: "remote.origin.fetch", Value: "+refs/heads/*:refs/remotes/origin/*"},
		{Key: "remote.origin.fetch", Value: "^refs/heads/r1-task-9*"},
		{Key: "remote.team/origin.url", Value: "/srv/b"},
		{Key: "remote.team/origin.fetch", Value: "+refs/heads/*:refs/remotes/team/origin/*"},
		{Key: "remote.Fork.url", Value: "/srv/c"},
		{Key: "remote.Fork.fetch", Value: "+refs/heads/*:refs/remotes/upstream/*"},
		{Key: "remote.narrow.url", Value: "/srv/d"},
		{Key: "remote.narrow.fetch", Value: "+refs/heads/main:refs/remotes/narrow/main"},
		{Key: "remote.runs.url", Value: "/srv/e"},
		{Key: "remote.runs.fetch", Value: "+refs/heads/r1-*:refs/remotes/runs/r1-*"},
	})
	for _, c := range []struct {
		ref, remote, branch string
		tracked             bool
	}{
		{"refs/remotes/origin/r1-main", "origin", "r1-main", true},
		{"refs/remotes/origin/foo/r1-task-1-a", "origin", "foo/r1-task-1-a", true},
		{"refs/remotes/origin/r1-task-9-9-x", "origin", "r1-task-9-9-x", false},
		{"refs/remotes/team/origin/r1-task-1-a", "team/origin", "r1-task-1-a", true},
		{"refs/remotes/upstream/r1-main", "Fork", "r1-main", true},
		{"refs/remotes/narrow/main", "narrow", "main", true},
		{"refs/remotes/narrow/r1-main", "narrow", "r1-main", false},
		{"refs/remotes/runs/r1-task-1-a", "runs", "r1-task-1-a", true},
		{"refs/remotes/gone/r1-main", "gone", "r1-main", false},
	} {
		r, b, tracked, ok := rs.attribute(c.ref)
		if !ok || r != c.remote || b != c.branch || tracked != c.tracked {
			t.Errorf("attribute(%s) = %s, %s, tracked %v; want %s, %s, %v", c.ref, r, b, tracked, c.remote, c.branch, c.tracked)
		}
	}
	if _, _, _, ok := rs.attribute("refs/heads/r1-main"); ok {
		t.Error("a local branch is a remote's")
	}
	for name, want := range map[string]bool{"origin": true, "Fork": true, "fork": false, "team/origin": false, "gone": false} {
		if rs.readable(name) != want {
			t.Errorf("readable(%s) = %v", name, !want)
		}
	}
	for _, c := range []struct{ remote, branch, want string }{
		{"Fork", "r1-main", "refs/remotes/upstream/r1-main"},
		{"origin", "r1-task-9-9-x", ""},
		{"narrow", "r1-main", ""},
		{"runs", "r1-main", "refs/remotes/runs/r1-main"},
		{"gone", "r1-main", ""},
	} {
		if got := rs.trackingRef(c.remote, c.branch); got != c.want {
			t.Errorf("trackingRef(%s, %s) = %q, want %q", c.remote, c.branch, got, c.want)
		}
	}
}

// The choice: one remote; equal copies as one; differing copies decided
// only by checkout.defaultRemote naming one that holds the run; a named
// remote always.
func TestPickRemote(t *testing.T) {
	a := map[string]string{"r1-main": "1", "r1-task-1-1-a": "2"}
	b := map[string]string{"r1-main": "1"}
	for _, c := range []struct {
		name     string
		held     map[string]map[string]string
		explicit string
		def      string
		want     string
		source   RemoteSource
		differ   []string
		same     []string
	}{
		{"one", map[string]map[string]string{"up": a}, "", "", "up", RemoteImplicit, nil, nil},
		{"equal", map[string]map[string]string{"mirror": a, "origin": a}, "", "", "origin", RemoteImplicit, nil, []string{"mirror"}},
		{"equal, default named", map[string]map[string]string{"mirror": a, "origin": a}, "", "mirror", "mirror", RemoteImplicit, nil, []string{"origin"}},
		{"differ", map[string]map[string]string{"backup": b, "origin": a}, "", "", "", "", []string{"backup", "origin"}, nil},
		{"differ, default decides", map[string]map[string]string{"backup": b, "origin": a}, "", "backup", "backup", RemoteDefault, nil, nil},
		{"differ, default holds nothing", map[string]map[string]string{"backup": b, "origin": a}, "", "nowhere", "", "", []string{"backup", "origin"}, nil},
		{"slashed only", map[string]map[string]string{"team/origin": a}, "", "", "", "", nil, nil},
		{"named", map[string]map[string]string{"backup": b, "origin": a}, "backup", "", "backup", RemoteFromFlag, nil, nil},
		{"nothing beyond the local branches defers", map[string]map[string]string{"mirror": {}, "origin": b}, "", "", "origin", RemoteImplicit, nil, nil},
		{"nothing beyond, everywhere", map[string]map[string]string{"mirror": {}, "origin": {}}, "", "", "origin", RemoteImplicit, nil, []string{"mirror"}},
	} {
		src := RemoteSource("")
		if c.explicit != "" {
			src = RemoteFromFlag
		}
		got := pickRemote(c.held, nil, func(r string) bool { return !strings.Contains(r, "/") }, c.explicit, src, c.def)
		if got.name != c.want || got.source != c.source || !slices.Equal(got.differ, c.differ) || !slices.Equal(got.same, c.same) {
			t.Errorf("%s: got %+v; want %s (%s), differ %v, same %v", c.name, got, c.want, c.source, c.differ, c.same)
		}
	}
}
