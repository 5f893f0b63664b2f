package worktree

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// treeWriteTree is git's own tree of an index file, made from a copy
// (write-tree may write the index it reads); "" when write-tree fails.
func treeWriteTree(t *testing.T, root, index string) string {
	t.Helper()
	data, err := os.ReadFile(index)
	if err != nil {
		t.Fatal(err)
	}
	cp := filepath.Join(t.TempDir(), "index")
	if err := os.WriteFile(cp, data, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := gitOutput(context.Background(), root, append(os.Environ(), "GIT_INDEX_FILE="+cp), "write-tree")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

func treeWriter(t *testing.T, root string, hashLen int) *TreeWriter {
	t.Helper()
	w := newTreeWriter(context.Background(), filepath.Join(root, ".git"), hashLen, saveEnviron())
	t.Cleanup(func() { w.Close() })
	return w
}

// The tree of an index is the one write-tree makes, id for id, on index
// shapes that exercise git's rules: nested directories, names that sort
// differently as files and as directories, executable files, symbolic
// links, submodules (present and not), intent-to-add entries (a directory
// of only those is no tree), skip-worktree and assume-unchanged entries,
// index versions 2 to 4, names with odd bytes, an empty index, many files;
// both object formats. Shapes it cannot make exactly (conflicts, a split
// or sparse index, an entry git refuses) it declines, and write-tree says.
func TestIndexTreeMatchesWriteTree(t *testing.T) {
	type shape struct {
		name  string
		setup func(t *testing.T, root string)
		// declined: the writer must leave this index to write-tree.
		declined bool
	}
	add := func(t *testing.T, root string, files map[string]string) {
		for p, c := range files {
			idxWrite(t, filepath.Join(root, filepath.FromSlash(p)), c)
		}
		idxGit(t, root, nil, "add", "-A")
	}
	shapes := []shape{
		{"empty", func(t *testing.T, root string) {}, false},
		{"nested", func(t *testing.T, root string) {
			add(t, root, map[string]string{"a/b/c/d.txt": "d", "a/b/e.txt": "e", "a/f.txt": "f", "g.txt": "g", "z/y/x/w/v.txt": "v"})
		}, false},
		{"file-and-directory-order", func(t *testing.T, root string) {
			add(t, root, map[string]string{"a.b": "1", "a/b": "2", "a-": "3", "a0": "4", "a=": "5", "ab/c": "6",
				"a b": "7", "b/a.b": "8", "b/a/b": "9", "b/a-/x": "10", "c/ä": "11", "c/é/x": "12", "c/Z": "13"})
		}, false},
		{"odd-names", func(t *testing.T, root string) {
			add(t, root, map[string]string{"tab\tname": "1", "new\nline/x": "2", "quote\"d": "3", "back\\slash": "4", "\xff\xfe": "5", "-dash": "6"})
		}, false},
		{"executable-and-symlinks", func(t *testing.T, root string) {
			idxWrite(t, filepath.Join(root, "bin", "run.sh"), "#!/bin/sh\n")
			os.Chmod(filepath.Join(root, "bin", "run.sh"), 0o755)
			os.Symlink("bin/run.sh", filepath.Join(root, "link"))
			os.Symlink("../nowhere", filepath.Join(root, "bin", "dangling"))
			idxGit(t, root, nil, "add", "-A")
		}, false},
		{"submodules", func(t *testing.T, root string) {
			add(t, root, map[string]string{"f.txt": "f"})
			idxGit(t, root, nil, "commit", "-q", "-m", "c")
			head := idxGit(t, root, nil, "rev-parse", "HEAD")
			missing := strings.Repeat("12", len(head)/2)
			idxGit(t, root, nil, "update-index", "--add", "--cacheinfo", "160000,"+head+",mods/here")
			idxGit(t, root, nil, "update-index", "--add", "--cacheinfo", "160000,"+missing+",mods/not-here")
			idxGit(t, root, nil, "update-index", "--add", "--cacheinfo", "160000,"+missing+",top")
		}, false},
		{"intent-to-add", func(t *testing.T, root string) {
			add(t, root, map[string]string{"kept/a.txt": "a"})
			for p, c := range map[string]string{"ita.txt": "i", "only-ita/x.txt": "x", "only-ita/deeper/y.txt": "y", "kept/new.txt": "n"} {
				idxWrite(t, filepath.Join(root, filepath.FromSlash(p)), c)
			}
			idxGit(t, root, nil, "add", "-N", "ita.txt", "only-ita", "kept/new.txt")
		}, false},
		{"only-intent-to-add", func(t *testing.T, root string) {
			idxWrite(t, filepath.Join(root, "d", "x.txt"), "x")
			idxGit(t, root, nil, "add", "-N", "d/x.txt")
		}, false},
		{"skip-worktree-and-assume-unchanged", func(t *testing.T, root string) {
			add(t, root, map[string]string{"s/skip.txt": "s", "s/keep.txt": "k", "au.txt": "a"})
			idxGit(t, root, nil, "update-index", "--skip-worktree", "s/skip.txt")
			idxGit(t, root, nil, "update-index", "--assume-unchanged", "au.txt")
			os.Remove(filepath.Join(root, "s", "skip.txt"))
		}, false},
		{"index-v4", func(t *testing.T, root string) {
			add(t, root, map[string]string{"p/q/r.txt": "r", "p/q/s.txt": "s", "p/t.txt": "t"})
			idxGit(t, root, nil, "update-index", "--index-version", "4")
		}, false},
		{"index-v3-extended-flags", func(t *testing.T, root string) {
			add(t, root, map[string]string{"p/q/r.txt": "r", "p/t.txt": "t"})
			idxGit(t, root, nil, "update-index", "--skip-worktree", "p/t.txt")
			idxGit(t, root, nil, "update-index", "--index-version", "3")
		}, false},
		{"many", func(t *testing.T, root string) {
			files := map[string]string{}
			for d := 0; d < 40; d++ {
				for f := 0; f < 25; f++ {
					files[fmt.Sprintf("d%02d/sub%d/f%02d.txt", d, d%3, f)] = fmt.Sprintf("%d-%d", d, f)
				}
			}
			add(t, root, files)
		}, false},
		{"conflict", func(t *testing.T, root string) {
			add(t, root, map[string]string{"c.txt": "base\n"})
			idxGit(t, root, nil, "commit", "-q", "-m", "base")
			idxGit(t, root, nil, "checkout", "-q", "-b", "other")
			add(t, root, map[string]string{"c.txt": "other\n"})
			idxGit(t, root, nil, "commit", "-q", "-m", "other")
			idxGit(t, root, nil, "checkout", "-q", "main")
			add(t, root, map[string]string{"c.txt": "mine\n"})
			idxGit(t, root, nil, "commit", "-q", "-m", "mine")
			gitOutput(context.Background(), root, os.Environ(), "merge", "other")
		}, true},
		{"split-index", func(t *testing.T, root string) {
			add(t, root, map[string]string{"a.txt": "a", "b/c.txt": "c"})
			idxGit(t, root, nil, "update-index", "--split-index")
		}, true},
		{"sparse-index", func(t *testing.T, root string) {
			add(t, root, map[string]string{"in/a.txt": "a", "out/b.txt": "b", "out/deep/c.txt": "c", "top.txt": "t"})
			idxGit(t, root, nil, "commit", "-q", "-m", "c")
			idxGit(t, root, nil, "sparse-checkout", "init", "--cone", "--sparse-index")
			idxGit(t, root, nil, "sparse-checkout", "set", "in")
		}, true},
		{"missing-blob", func(t *testing.T, root string) {
			add(t, root, map[string]string{"a.txt": "a"})
			missing := strings.Repeat("34", len(idxGit(t, root, nil, "rev-parse", ":a.txt"))/2)
			idxGit(t, root, nil, "update-index", "--add", "--cacheinfo", "100644,"+missing+",gone.txt")
		}, true},
		{"wrong-type", func(t *testing.T, root string) {
			add(t, root, map[string]string{"a/x.txt": "x"})
			idxGit(t, root, nil, "commit", "-q", "-m", "c")
			tree := idxGit(t, root, nil, "rev-parse", "HEAD:a")
			idxGit(t, root, nil, "update-index", "--add", "--cacheinfo", "100644,"+tree+",blob-that-is-a-tree")
		}, true},
	}
	for _, format := range []string{"sha1", "sha256"} {
		for _, sh := range shapes {
			t.Run(format+"/"+sh.name, func(t *testing.T) {
				root := idxNewRepo(t, format)
				sh.setup(t, root)
				index := filepath.Join(root, ".git", "index")
				if _, err := os.Stat(index); os.IsNotExist(err) {
					// An index with no entry at all.
					idxGit(t, root, nil, "read-tree", "--empty")
				}
				want := treeWriteTree(t, root, index)
				w := treeWriter(t, root, HashLen(format))
				got, err := w.IndexTree(index)
				switch {
				case sh.declined:
					if !errors.Is(err, errTreeDeclined) {
						t.Fatalf("IndexTree = %q, %v; want it declined (write-tree says %q)", got, err, want)
					}
				case err != nil:
					t.Fatalf("IndexTree: %v (write-tree says %q)", err, want)
				case got != want:
					t.Errorf("IndexTree = %s, write-tree = %s\nours:\n%s\ngit's:\n%s", got, want,
						idxGit(t, root, nil, "ls-tree", "-r", "-t", got), idxGit(t, root, nil, "ls-tree", "-r", "-t", want))
				}
				// Written in the repository, whole.
				if err == nil {
					idxGit(t, root, nil, "cat-file", "-e", got+"^{tree}")
					idxGit(t, root, nil, "fsck", "--no-dangling", "--connectivity-only")
				}
				// The writer keeps working after a decline, and a tree it
				// made once costs mktree nothing the second time.
				idxWrite(t, filepath.Join(root, "after.txt"), "after")
				after := filepath.Join(t.TempDir(), "index")
				idxGit(t, root, []string{"GIT_INDEX_FILE=" + after}, "-c", "index.sparse=false", "add", "after.txt")
				if got, err := w.IndexTree(after); err != nil || got != treeWriteTree(t, root, after) {
					t.Errorf("after: IndexTree = %q, %v; write-tree %q", got, err, treeWriteTree(t, root, after))
				}
				n := w.Written
				if _, err := w.IndexTree(after); err != nil || w.Written != n {
					t.Errorf("the same index again: %v, %d trees written, want %d", err, w.Written, n)
				}
			})
		}
	}
}

// A mktree that dies is started again; one that keeps dying is given up,
// and every index then goes to write-tree.
func TestTreeWriterRestarts(t *testing.T) {
	root := idxNewRepo(t, "sha1")
	idxWrite(t, filepath.Join(root, "a.txt"), "a")
	idxGit(t, root, nil, "add", "a.txt")
	index := filepath.Join(root, ".git", "index")
	want := treeWriteTree(t, root, index)
	w := treeWriter(t, root, 20)
	if got, err := w.IndexTree(index); err != nil || got != want {
		t.Fatalf("IndexTree = %q, %v; want %s", got, err, want)
	}
	for i := 0; i < maxTreeDeaths; i++ {
		w.memo = map[string]string{}
		if w.p == nil {
			if _, err := w.mktree("\x00"); err != nil {
				t.Fatal(err)
			}
		}
		w.p.cmd.Process.Kill()
		w.p.cmd.Process.Wait()
		if _, err := w.IndexTree(index); !errors.Is(err, errTreeDeclined) {
			t.Fatalf("death %d: err = %v, want declined", i+1, err)
		}
		if i+1 < maxTreeDeaths {
			if got, err := w.IndexTree(index); err != nil || got != want {
				t.Fatalf("after death %d: IndexTree = %q, %v; want %s from a new mktree", i+1, got, err, want)
			}
		}
	}
	if _, err := w.IndexTree(index); !errors.Is(err, errTreeDeclined) {
		t.Fatalf("after %d deaths: err = %v, want declined", maxTreeDeaths, err)
	}
}

// What buildTree declines without asking git.
func TestBuildTreeDeclines(t *testing.T) {
	id := strings.Repeat("ab", 20)
	for name, entries := range map[string][]IndexEntry{
		"null id":        {{Path: "a", Mode: 0o100644, OID: strings.Repeat("0", 40)}},
		"odd mode":       {{Path: "a", Mode: 0o100664, OID: id}},
		"empty part":     {{Path: "a//b", Mode: 0o100644, OID: id}},
		"dot":            {{Path: "a/./b", Mode: 0o100644, OID: id}},
		"dot-dot":        {{Path: "../b", Mode: 0o100644, OID: id}},
		"file and dir":   {{Path: "a", Mode: 0o100644, OID: id}, {Path: "a/b", Mode: 0o100644, OID: id}},
		"dir and file":   {{Path: "a/b", Mode: 0o100644, OID: id}, {Path: "a", Mode: 0o100644, OID: id}},
		"twice":          {{Path: "a", Mode: 0o100644, OID: id}, {Path: "a", Mode: 0o100755, OID: id}},
		"stage 2":        {{Path: "a", Mode: 0o100644, OID: id, Stage: 2}},
		"trailing slash": {{Path: "a/", Mode: 0o100644, OID: id}},
	} {
		if _, err := buildTree(entries, 20); !errors.Is(err, errTreeDeclined) {
			t.Errorf("%s: err = %v, want declined", name, err)
		}
	}
}
