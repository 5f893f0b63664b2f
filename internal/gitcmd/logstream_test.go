package gitcmd

import (
	"bytes"
	"context"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/taskresume/git-taskresume/internal/testbin"
)

// The log read as git writes it, in pieces of any size, is the log parsed
// whole: subjects, trailers, what a body says it reverts or was picked
// from, the subjects a squash lists, merges, and a body that starts with
// a blank line or holds "\x00"-free bytes of every other kind. A piece may
// end anywhere, between the "\x00" and the "\n" that end a record too.
func TestLogParserReadsInPieces(t *testing.T) {
	testbin.IsolateGit(t)
	dir := filepath.Join(t.TempDir(), "repo")
	bloomGit(t, filepath.Dir(dir), "init", "-q", "-b", "main", dir)
	msgs := []string{
		"root",
		"[Task 1.1] Schema\n\nRun-Id: r1\nTask-Id: 1.1, 1.2\nTask-Id: 2.1",
		"Revert \"x\"\n\nThis reverts commit 0123456789012345678901234567890123456789.",
		"pick\n\n(cherry picked from commit 1123456789012345678901234567890123456789)",
		"Users (#12)\n\n* [Task 2.1] User service\n\n* fix: review\n",
		GitSquashSubject + "\n\ncommit 0123456789012345678901234567890123456789\nAuthor: A <a@x>\nDate:   now\n\n    [Task 2.2] Product\n",
		"plain with a body\n\n\n\nstarts after blank lines\r\nand \x01 bytes \xff\n\n",
		"bullets, no squash\n\n* one\n* two",
	}
	for _, m := range msgs {
		bloomGit(t, dir, "commit", "-q", "--allow-empty", "--cleanup=verbatim", "-m", m)
	}
	bloomGit(t, dir, "checkout", "-q", "-b", "side", "HEAD~2")
	bloomGit(t, dir, "commit", "-q", "--allow-empty", "-m", "side work")
	bloomGit(t, dir, "checkout", "-q", "main")
	bloomGit(t, dir, "merge", "-q", "--no-ff", "-m", "Merge branch 'side'", "side")

	cmd := exec.Command("git", "log", logFormat, "--boundary", "main", "^main~3")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	want, err := parseLog(out)
	if err != nil || len(want) < 5 {
		t.Fatalf("parseLog: %d entries, %v", len(want), err)
	}
	rng := rand.New(rand.NewSource(1))
	for round := 0; round < 200; round++ {
		p := newLogParser(0)
		for rest := out; len(rest) > 0; {
			k := 1 + rng.Intn(1+round%40)
			if round == 0 {
				k = 1 // byte by byte
			}
			k = min(k, len(rest))
			// A copy, reused after: exec's buffer is.
			piece := append([]byte(nil), rest[:k]...)
			p.Write(piece)
			for i := range piece {
				piece[i] = 'X'
			}
			rest = rest[k:]
		}
		got, err := p.finish()
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("round %d: pieces parse to\n%+v\nwant\n%+v", round, got, want)
		}
	}
	// Through git, as LogRevs and LogWalk read it.
	r, err := Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	walk, trees, err := r.LogWalk(context.Background(), []string{"main"}, []string{"main~3"})
	if err != nil {
		t.Fatal(err)
	}
	var wantWalk []LogEntry
	wantTrees := map[string]string{}
	for _, c := range want {
		wantTrees[c.OID] = c.Tree
		if c.Reverts != "-" {
			wantWalk = append(wantWalk, c)
		}
	}
	if !reflect.DeepEqual(walk, wantWalk) || !reflect.DeepEqual(trees, wantTrees) {
		t.Errorf("LogWalk:\n%+v\n%v\nwant\n%+v\n%v", walk, trees, wantWalk, wantTrees)
	}
	// A record git did not write: the error parseLog gives.
	bad := append(bytes.Clone(out[:bytes.Index(out, recordEnd)]), "\x00extra\x00\n"...)
	_, werr := parseLog(bad)
	p := newLogParser(0)
	p.Write(bad)
	if _, err := p.finish(); err == nil || werr == nil || err.Error() != werr.Error() {
		t.Errorf("a bad record: %v, want %v", err, werr)
	}
}

// Many entries come back in order, whatever room was made for them at
// first (the graph's lower bound, or none).
func TestLogParserRoom(t *testing.T) {
	var out bytes.Buffer
	n := 5000
	for i := 0; i < n; i++ {
		oid := strings.Repeat(string("0123456789abcdef"[i%16]), 8) + strings.Repeat("0", 32-len(strconv.Itoa(i))) + strconv.Itoa(i)
		out.WriteString(oid + "\x00\x00tree\x00\x00" + strconv.Itoa(i) + "\x00Bs" + strconv.Itoa(i) + "\n\x00\n")
	}
	for _, hint := range []int{0, 100, n, 2 * n} {
		p := newLogParser(hint)
		p.Write(out.Bytes())
		got, err := p.finish()
		if err != nil || len(got) != n {
			t.Fatalf("hint %d: %d entries, %v", hint, len(got), err)
		}
		for i, e := range got {
			if e.Subject != "s"+strconv.Itoa(i) || e.Time != int64(i) || e.Tree != "tree" {
				t.Fatalf("hint %d: entry %d: %+v", hint, i, e)
			}
		}
	}
	if got, err := newLogParser(10).finish(); got != nil || err != nil {
		t.Errorf("no entries: %v, %v; want nil as parseLog", got, err)
	}
}

// The walks over long histories run unflushed, with small pack windows
// given to git after the entries the environment passes already.
func TestLongWalkEnv(t *testing.T) {
	testbin.IsolateGit(t)
	dir := t.TempDir()
	bloomGit(t, dir, "init", "-q")
	get := func(env []string, key string) string {
		cmd := exec.Command("git", "config", "--get", key)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), env...)
		out, _ := cmd.Output()
		return strings.TrimSpace(string(out))
	}
	env := longWalk(treeCache)
	if !slices.Contains(env, "GIT_FLUSH=0") {
		t.Errorf("%q: no GIT_FLUSH=0", env)
	}
	for key, want := range map[string]string{"core.packedgitwindowsize": "1m", "core.packedgitlimit": "4m", "core.deltabasecachelimit": "2m"} {
		if got := get(env, key); got != want {
			t.Errorf("%s = %q, want %q", key, got, want)
		}
	}
	t.Setenv("GIT_CONFIG_COUNT", "1")
	t.Setenv("GIT_CONFIG_KEY_0", "user.name")
	t.Setenv("GIT_CONFIG_VALUE_0", "Outer")
	env = longWalk()
	if got := get(env, "user.name"); got != "Outer" {
		t.Errorf("user.name = %q: the environment's own entry is lost", got)
	}
	if got := get(env, "core.packedgitlimit"); got != "4m" {
		t.Errorf("core.packedGitLimit = %q beside the environment's entry", got)
	}
}
