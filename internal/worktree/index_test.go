package worktree

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/taskresume/git-taskresume/internal/testbin"
)

// idxGitEnv isolates git from the user's and the system's configuration.
func idxGitEnv(tb testing.TB) {
	tb.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		tb.Fatal("git not installed")
	}
	home := tb.TempDir()
	tb.Setenv("HOME", home)
	tb.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	tb.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	tb.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(home, ".gitconfig"))
	tb.Setenv("GIT_AUTHOR_NAME", "Ada")
	tb.Setenv("GIT_AUTHOR_EMAIL", "ada@example.com")
	tb.Setenv("GIT_COMMITTER_NAME", "Ada")
	tb.Setenv("GIT_COMMITTER_EMAIL", "ada@example.com")
	for _, k := range []string{"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR", "GIT_OBJECT_DIRECTORY"} {
		tb.Setenv(k, "")
		os.Unsetenv(k)
	}
	cfg := "[init]\n\tdefaultBranch = main\n[core]\n\tquotePath = false\n"
	if err := os.WriteFile(filepath.Join(home, ".gitconfig"), []byte(cfg), 0o644); err != nil {
		tb.Fatal(err)
	}
}

// idxGit runs git in dir with extra environment variables.
func idxGit(tb testing.TB, dir string, env []string, args ...string) string {
	tb.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		tb.Fatalf("git %s (in %s): %v\n%s", strings.Join(args, " "), dir, err, out)
	}
	return strings.TrimRight(string(out), "\n")
}

func idxWrite(tb testing.TB, path, content string) {
	tb.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		tb.Fatal(err)
	}
}

// idxNewRepo makes an empty repository of the given object format.
func idxNewRepo(tb testing.TB, format string) string {
	tb.Helper()
	idxGitEnv(tb)
	// Real path: git records the worktrees it adds by theirs.
	root := filepath.Join(testbin.TempDir(tb), "repo")
	idxGit(tb, filepath.Dir(root), nil, "init", "-q", "--object-format="+format, root)
	return root
}

// idxLsFiles is git's own reading of an index: `ls-files -s -v --debug`
// prints every entry with its stat data and in-memory flags.
func idxLsFiles(tb testing.TB, dir string, env []string) []IndexEntry {
	tb.Helper()
	out := idxGit(tb, dir, env, "ls-files", "-s", "-v", "--debug")
	if out == "" {
		return nil
	}
	lines := strings.Split(out, "\n")
	if len(lines)%6 != 0 {
		tb.Fatalf("ls-files --debug: %d lines:\n%s", len(lines), out)
	}
	var entries []IndexEntry
	for i := 0; i < len(lines); i += 6 {
		head, path, ok := strings.Cut(lines[i], "\t")
		f := strings.Fields(head)
		if !ok || len(f) != 4 {
			tb.Fatalf("ls-files line %q", lines[i])
		}
		mode, _ := strconv.ParseUint(f[1], 8, 32)
		stage, _ := strconv.Atoi(f[3])
		e := IndexEntry{Path: path, Mode: uint32(mode), OID: f[2], Stage: stage}
		var flags uint32
		for k, scan := range []struct {
			format string
			dst    []any
		}{
			{"  ctime: %d:%d", []any{&e.CtimeSec, &e.CtimeNsec}},
			{"  mtime: %d:%d", []any{&e.MtimeSec, &e.MtimeNsec}},
			{"  dev: %d\tino: %d", []any{&e.Dev, &e.Ino}},
			{"  uid: %d\tgid: %d", []any{&e.UID, &e.GID}},
			{"  size: %d\tflags: %x", []any{&e.Size, &flags}},
		} {
			if _, err := fmt.Sscanf(lines[i+1+k], scan.format, scan.dst...); err != nil {
				tb.Fatalf("ls-files line %q: %v", lines[i+1+k], err)
			}
		}
		// git's in-memory flags: CE_VALID, CE_SKIP_WORKTREE, CE_INTENT_TO_ADD.
		e.AssumeUnchanged = flags&0x8000 != 0
		e.SkipWorktree = flags&(1<<30) != 0
		e.IntentToAdd = flags&(1<<29) != 0
		entries = append(entries, e)
	}
	return entries
}

// idxCompare checks ReadIndex against git's own reading of the same file.
func idxCompare(t *testing.T, dir, index string, hashLen int) []IndexEntry {
	t.Helper()
	got, err := ReadIndex(index, hashLen)
	if err != nil {
		t.Fatal(err)
	}
	want := idxLsFiles(t, dir, []string{"GIT_INDEX_FILE=" + index})
	if len(got) != len(want) {
		t.Fatalf("ReadIndex: %d entries, git: %d", len(got), len(want))
	}
	for i := range got {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Errorf("entry %d:\nReadIndex %+v\ngit       %+v", i, got[i], want[i])
		}
	}
	return got
}

func idxVersion(t *testing.T, index string) int {
	t.Helper()
	data, err := os.ReadFile(index)
	if err != nil {
		t.Fatal(err)
	}
	return int(data[7])
}

// idxFill gives a repository entries of every kind: nested paths sharing
// prefixes (what version 4 compresses), an executable, a symbolic link, a
// gitlink, and a path longer than the 12-bit length field.
func idxFill(t *testing.T, root string, long bool) string {
	t.Helper()
	idxWrite(t, filepath.Join(root, "a.txt"), "a\n")
	idxWrite(t, filepath.Join(root, "dir/sub/long-name-one.txt"), "one\n")
	idxWrite(t, filepath.Join(root, "dir/sub/long-name-two.txt"), "two\n")
	idxWrite(t, filepath.Join(root, "dir/z.txt"), "")
	idxWrite(t, filepath.Join(root, "run.sh"), "#!/bin/sh\n")
	if err := os.Chmod(filepath.Join(root, "run.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("a.txt", filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	idxGit(t, root, nil, "add", ".")
	idxGit(t, root, nil, "commit", "-q", "-m", "one")
	head := idxGit(t, root, nil, "rev-parse", "HEAD")
	blob := idxGit(t, root, nil, "rev-parse", "HEAD:a.txt")
	idxGit(t, root, nil, "update-index", "--add", "--cacheinfo", "160000,"+head+",mod")
	// Not in a test that checks files out: git would try to make its
	// 2,100 nested directories.
	if long {
		p := strings.Repeat("x/", 2100) + "end" // 4203 bytes
		idxGit(t, root, nil, "update-index", "--add", "--cacheinfo", "100644,"+blob+","+p)
	}
	return filepath.Join(root, ".git", "index")
}

func TestReadIndexVersions(t *testing.T) {
	root := idxNewRepo(t, "sha1")
	index := idxFill(t, root, true)
	// Version 2 has no extended flags, so first only assume-unchanged.
	idxGit(t, root, nil, "update-index", "--assume-unchanged", "a.txt")
	idxGit(t, root, nil, "update-index", "--index-version", "2")
	if v := idxVersion(t, index); v != 2 {
		t.Fatalf("git wrote version %d", v)
	}
	got := idxCompare(t, root, index, 20)
	if len(got) != 8 || !got[0].AssumeUnchanged || got[0].Path != "a.txt" {
		t.Fatalf("version 2: %+v", got)
	}

	idxGit(t, root, nil, "update-index", "--skip-worktree", "dir/z.txt")
	idxWrite(t, filepath.Join(root, "new.txt"), "new\n")
	idxGit(t, root, nil, "add", "-N", "new.txt")
	for _, v := range []int{3, 4} {
		idxGit(t, root, nil, "update-index", "--index-version", strconv.Itoa(v))
		if got := idxVersion(t, index); got != v {
			t.Fatalf("git wrote version %d, want %d", got, v)
		}
		got := idxCompare(t, root, index, 20)
		flags := map[string]string{}
		for _, e := range got {
			flags[e.Path] = fmt.Sprint(e.AssumeUnchanged, e.SkipWorktree, e.IntentToAdd)
		}
		want := map[string]string{"a.txt": "true false false", "dir/z.txt": "false true false", "new.txt": "false false true"}
		for p, f := range want {
			if flags[p] != f {
				t.Errorf("version %d: %s flags %s, want %s", v, p, flags[p], f)
			}
		}
		modes := map[string]uint32{}
		for _, e := range got {
			modes[e.Path] = e.Mode
		}
		if modes["run.sh"] != 0o100755 || modes["link"] != 0o120000 || modes["mod"] != 0o160000 || modes["a.txt"] != 0o100644 {
			t.Errorf("version %d: modes %v", v, modes)
		}
	}
}

func TestReadIndexConflictStages(t *testing.T) {
	root := idxNewRepo(t, "sha1")
	idxWrite(t, filepath.Join(root, "f"), "base\n")
	idxGit(t, root, nil, "add", ".")
	idxGit(t, root, nil, "commit", "-q", "-m", "base")
	idxGit(t, root, nil, "checkout", "-q", "-b", "other")
	idxWrite(t, filepath.Join(root, "f"), "other\n")
	idxGit(t, root, nil, "commit", "-q", "-am", "other")
	idxGit(t, root, nil, "checkout", "-q", "main")
	idxWrite(t, filepath.Join(root, "f"), "main\n")
	idxGit(t, root, nil, "commit", "-q", "-am", "main")
	cmd := exec.Command("git", "merge", "-q", "other")
	cmd.Dir = root
	if cmd.Run() == nil {
		t.Fatal("merge did not conflict")
	}
	got := idxCompare(t, root, filepath.Join(root, ".git", "index"), 20)
	var stages []int
	for _, e := range got {
		stages = append(stages, e.Stage)
	}
	if !reflect.DeepEqual(stages, []int{1, 2, 3}) {
		t.Errorf("stages %v", stages)
	}
}

func TestReadIndexSHA256(t *testing.T) {
	root := idxNewRepo(t, "sha256")
	index := idxFill(t, root, true)
	for _, v := range []string{"2", "4"} {
		idxGit(t, root, nil, "update-index", "--index-version", v)
		got := idxCompare(t, root, index, 32)
		if len(got) == 0 || len(got[0].OID) != 64 {
			t.Fatalf("version %s: %+v", v, got)
		}
	}
	// A SHA-256 index read as SHA-1 fails rather than yield bad entries.
	if _, err := ReadIndex(index, 20); err == nil {
		t.Error("SHA-256 index read with hashLen 20")
	}
}

func TestReadIndexUnsupported(t *testing.T) {
	root := idxNewRepo(t, "sha1")
	index := idxFill(t, root, false)
	idxGit(t, root, nil, "update-index", "--split-index")
	_, err := ReadIndex(index, 20)
	if !errors.Is(err, ErrIndexUnsupported) || !strings.Contains(err.Error(), "split index") {
		t.Errorf("split index: %v", err)
	}
	idxGit(t, root, nil, "update-index", "--no-split-index")
	if _, err := ReadIndex(index, 20); err != nil {
		t.Fatalf("after --no-split-index: %v", err)
	}

	idxGit(t, root, nil, "sparse-checkout", "init", "--cone", "--sparse-index")
	idxGit(t, root, nil, "sparse-checkout", "set", "dir/sub")
	_, err = ReadIndex(index, 20)
	if !errors.Is(err, ErrIndexUnsupported) || !strings.Contains(err.Error(), "sparse index") {
		t.Errorf("sparse index: %v", err)
	}
}

func TestReadIndexBadFiles(t *testing.T) {
	root := idxNewRepo(t, "sha1")
	index := idxFill(t, root, true)
	if _, err := ReadIndex(filepath.Join(root, "missing"), 20); !os.IsNotExist(err) {
		t.Errorf("missing index: %v", err)
	}
	data, err := os.ReadFile(index)
	if err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(t.TempDir(), "index")
	for name, b := range map[string][]byte{
		"flipped byte": append(append(append([]byte(nil), data[:100]...), data[100]^1), data[101:]...),
		"truncated":    data[:len(data)/2],
		"empty":        nil,
		"not an index": []byte("not an index file at all, not at all"),
	} {
		if err := os.WriteFile(bad, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadIndex(bad, 20); err == nil || errors.Is(err, ErrIndexUnsupported) {
			t.Errorf("%s: %v", name, err)
		}
	}
	// index.skipHash writes a zero trailer, which is accepted as such.
	zero := append(append([]byte(nil), data[:len(data)-20]...), make([]byte, 20)...)
	if err := os.WriteFile(bad, zero, 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := ReadIndex(bad, 20); err != nil || len(got) != 8 {
		t.Errorf("zero trailer: %d entries, %v", len(got), err)
	}
}

func TestBlobID(t *testing.T) {
	contents := []string{"", "a\n", "bin\x00ary\xff", strings.Repeat("0123456789abcdef", 70000)}
	for _, format := range []string{"sha1", "sha256"} {
		root := idxNewRepo(t, format)
		for _, c := range contents {
			cmd := exec.Command("git", "hash-object", "--stdin")
			cmd.Dir = root
			cmd.Stdin = strings.NewReader(c)
			out, err := cmd.Output()
			if err != nil {
				t.Fatal(err)
			}
			want := strings.TrimSpace(string(out))
			if got := BlobID([]byte(c), HashLen(format)); got != want {
				t.Errorf("%s BlobID(%d bytes) = %s, git says %s", format, len(c), got, want)
			}
		}
	}
	if HashLen("sha256") != 32 || HashLen("sha1") != 20 || HashLen("") != 20 {
		t.Error("HashLen")
	}
}

// idxSeeds are real index files of every version and both hash lengths.
func idxSeeds(f *testing.F) [][]byte {
	var seeds [][]byte
	for _, format := range []string{"sha1", "sha256"} {
		root := idxNewRepo(f, format)
		index := filepath.Join(root, ".git", "index")
		idxWrite(f, filepath.Join(root, "a.txt"), "a\n")
		idxWrite(f, filepath.Join(root, "dir/sub/b.txt"), "b\n")
		idxWrite(f, filepath.Join(root, "dir/sub/c.txt"), "c\n")
		idxGit(f, root, nil, "add", ".")
		idxGit(f, root, nil, "update-index", "--assume-unchanged", "a.txt")
		for _, v := range []string{"2", "3", "4"} {
			if v == "3" {
				idxGit(f, root, nil, "update-index", "--skip-worktree", "dir/sub/b.txt")
			}
			idxGit(f, root, nil, "update-index", "--index-version", v)
			data, err := os.ReadFile(index)
			if err != nil {
				f.Fatal(err)
			}
			seeds = append(seeds, data)
		}
	}
	return seeds
}

func FuzzReadIndex(f *testing.F) {
	for _, s := range idxSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, hashLen := range []int{20, 32} {
			idxParse(data, hashLen)
			// A mutated file almost never keeps a valid checksum; parse it
			// again with one so that the fuzzer reaches the entries.
			if len(data) >= hashLen {
				fixed := append([]byte(nil), data...)
				h := idxNewHash(hashLen)
				h.Write(fixed[:len(fixed)-hashLen])
				copy(fixed[len(fixed)-hashLen:], h.Sum(nil))
				entries, err := idxParse(fixed, hashLen)
				if err == nil {
					for _, e := range entries {
						if e.Path == "" || len(e.OID) != 2*hashLen || e.Stage > 3 {
							t.Fatalf("bad entry %+v", e)
						}
					}
				}
				if err == nil && !bytes.HasPrefix(fixed, []byte("DIRC")) {
					t.Fatal("accepted a file without the DIRC signature")
				}
			}
		}
	})
}
