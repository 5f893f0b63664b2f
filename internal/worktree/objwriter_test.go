package worktree

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// owRepo makes a repository of the given object format with two commits
// on main and an annotated tag on the first; it returns its top.
func owRepo(t *testing.T, format string) string {
	t.Helper()
	root := idxNewRepo(t, format)
	idxWrite(t, filepath.Join(root, "a.txt"), "a\n")
	idxWrite(t, filepath.Join(root, "d", "b.txt"), "b\n")
	idxGit(t, root, nil, "add", ".")
	idxGit(t, root, nil, "commit", "-q", "-m", "first")
	idxGit(t, root, nil, "tag", "-a", "-m", "a tag", "v1")
	idxGit(t, root, nil, "checkout", "-q", "-b", "side")
	idxWrite(t, filepath.Join(root, "c.txt"), "c\n")
	idxGit(t, root, nil, "add", ".")
	idxGit(t, root, nil, "commit", "-q", "-m", "side")
	idxGit(t, root, nil, "checkout", "-q", "main")
	idxWrite(t, filepath.Join(root, "a.txt"), "a2\n")
	idxGit(t, root, nil, "commit", "-q", "-am", "second")
	return root
}

// owCommitTree is what `git commit-tree` makes of the same inputs in the
// same environment (the save identity on top).
func owCommitTree(t *testing.T, root string, env []string, tree string, parents []string, msg string) string {
	t.Helper()
	args := []string{"commit-tree", tree, "-m", msg}
	for _, p := range parents {
		args = append(args, "-p", p)
	}
	return owOut(t, root, append(append([]string(nil), env...), Identity...), args...)
}

// owOut runs git and returns its standard output alone (commit-tree warns
// on its standard error).
func owOut(t *testing.T, dir string, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return strings.TrimRight(string(out), "\n")
}

func owStart(t *testing.T, root string, hashLen int) *CommitWriter {
	t.Helper()
	w, err := StartCommitWriter(context.Background(), filepath.Join(root, ".git"), t.TempDir(), hashLen, Identity)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return w
}

// Every commit the writer makes is, byte for byte, the one commit-tree
// makes from the same tree, parents and message in the same environment:
// dates fixed by the environment in git's formats, or now in several time
// zones; a tree named through a commit; no, one or three parents, a
// repeated one; messages with and without a final newline,
// non-ASCII ones. Both object formats.
func TestCommitWriterMatchesCommitTree(t *testing.T) {
	for _, format := range []string{"sha1", "sha256"} {
		for _, dates := range [][]string{
			{"GIT_AUTHOR_DATE=2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2026-01-01T00:00:00Z"},
			{"GIT_AUTHOR_DATE=1700000000 +0530", "GIT_COMMITTER_DATE=@1700000123 -0130"},
			{"GIT_AUTHOR_DATE=Sat, 1 Jan 2022 10:00:00 +0200", "TZ=Asia/Kolkata"},
			{"TZ=UTC"},
			{"TZ=Asia/Kolkata"},
			{"TZ=America/St_Johns"},
			{"TZ=Pacific/Chatham", "GIT_COMMITTER_DATE=2020-02-02 02:02:02"},
		} {
			t.Run(format+"/"+strings.Join(dates, ","), func(t *testing.T) {
				root := owRepo(t, format)
				for _, kv := range dates {
					k, v, _ := strings.Cut(kv, "=")
					t.Setenv(k, v)
				}
				hashLen := HashLen(format)
				w := owStart(t, root, hashLen)
				head := idxGit(t, root, nil, "rev-parse", "HEAD")
				first := idxGit(t, root, nil, "rev-parse", "HEAD~1")
				tree := idxGit(t, root, nil, "rev-parse", "HEAD^{tree}")
				for _, tc := range []struct {
					name, tree string
					parents    []string
					msg        string
				}{
					{"root", tree, nil, "taskclean x1: worktree a\n\npath \"/tmp/a\"\nhead \nbranch \ntask 1\n"},
					{"through-commit", head + "^{tree}", []string{head}, "ignored files on taskclean\n"},
					{"three-parents", tree, []string{head, first, "side"}, "m"},
					{"repeated-parent", tree, []string{head, head, first}, "no newline at the end"},
					{"non-ascii", tree, []string{head}, "worktree é日本 \"q\" \\ tab\t\n\ntwo paragraphs\n"},
					{"empty-lines", tree, nil, "\n\nstarts blank\n\n\n"},
				} {
					want := ""
					got := ""
					// A date of now may cross a second between the two.
					for try := 0; try < 5; try++ {
						var err error
						want = owCommitTree(t, root, nil, tc.tree, tc.parents, tc.msg)
						if got, err = w.Commit(tc.tree, tc.parents, tc.msg); err != nil {
							t.Fatalf("%s: %v", tc.name, err)
						}
						if got == want {
							break
						}
					}
					if got != want {
						t.Errorf("%s: writer made\n%s\ncommit-tree made\n%s", tc.name,
							idxGit(t, root, nil, "cat-file", "commit", got), idxGit(t, root, nil, "cat-file", "commit", want))
					}
				}
				if w.Written == 0 {
					t.Error("the writer wrote nothing itself")
				}
				idxGit(t, root, nil, "fsck", "--strict", "--no-dangling")
			})
		}
	}
}

// A message commit-tree would not keep as it is (it reads bytes that are
// not UTF-8 as Latin-1, and refuses non-characters) is left to it: the
// writer says so rather than make other bytes.
func TestCommitWriterLeavesRewrittenMessages(t *testing.T) {
	root := owRepo(t, "sha1")
	w := owStart(t, root, 20)
	tree := idxGit(t, root, nil, "rev-parse", "HEAD^{tree}")
	for _, msg := range []string{"path \xff\xfe\n", "caf\xe9\n", "non-character \uFFFE\n", "U+FDD0 \uFDD0\n", "U+10FFFF \U0010FFFF\n"} {
		if _, err := w.Commit(tree, nil, msg); !errors.Is(err, errNotPlain) {
			t.Errorf("%q: err = %v, want errNotPlain", msg, err)
		}
		// The reason: commit-tree stores other bytes than the message.
		id := owCommitTree(t, root, nil, tree, nil, msg)
		body := idxGit(t, root, nil, "cat-file", "commit", id)
		if _, stored, _ := strings.Cut(body, "\n\n"); stored+"\n" == msg {
			t.Errorf("%q: commit-tree kept it as it is; the writer could make it", msg)
		}
	}
	if w.Err() != nil {
		t.Fatalf("the writer stopped: %v", w.Err())
	}
}

// What commit-tree refuses (a tree that is missing or not a tree, a parent
// that is missing or not a commit, a tag included) the writer refuses too, writes nothing
// for, and keeps working.
func TestCommitWriterRefuses(t *testing.T) {
	root := owRepo(t, "sha1")
	w := owStart(t, root, 20)
	head := idxGit(t, root, nil, "rev-parse", "HEAD")
	tree := idxGit(t, root, nil, "rev-parse", "HEAD^{tree}")
	blob := idxGit(t, root, nil, "rev-parse", "HEAD:a.txt")
	missing := strings.Repeat("ab", 20)
	before := idxGit(t, root, nil, "count-objects", "-v")
	for _, tc := range []struct {
		tree    string
		parents []string
	}{
		{missing, nil}, {blob, nil}, {head, nil}, {tree, []string{missing}}, {tree, []string{tree}},
		{tree, []string{blob}}, {"HEAD:nope", nil}, {tree, []string{"two words"}}, {tree, []string{"v1"}},
	} {
		if id, err := w.Commit(tc.tree, tc.parents, "m\n"); err == nil {
			t.Errorf("tree %s parents %v: wrote %s, want an error", tc.tree, tc.parents, id)
		}
		args := []string{"commit-tree", tc.tree, "-m", "m"}
		for _, p := range tc.parents {
			args = append(args, "-p", p)
		}
		cmd := exec.Command("git", args...)
		cmd.Dir = root
		if cmd.Run() == nil {
			t.Errorf("commit-tree %v succeeded: the writer is stricter than it", args)
		}
	}
	if after := idxGit(t, root, nil, "count-objects", "-v"); after != before {
		t.Errorf("objects were written:\n%s\nthen\n%s", before, after)
	}
	if w.Err() != nil {
		t.Fatalf("a refused commit stopped the writer: %v", w.Err())
	}
	if _, err := w.Commit(tree, []string{head}, "still works\n"); err != nil {
		t.Fatal(err)
	}
}

// A writer whose process died answers every later commit with an error,
// and says why: a save then fails, and its worktree stays.
func TestCommitWriterDies(t *testing.T) {
	for _, which := range []string{"hash-object", "cat-file"} {
		t.Run(which, func(t *testing.T) {
			root := owRepo(t, "sha1")
			w := owStart(t, root, 20)
			tree := idxGit(t, root, nil, "rev-parse", "HEAD^{tree}")
			if _, err := w.Commit(tree, nil, "before\n"); err != nil {
				t.Fatal(err)
			}
			p := w.write
			if which == "cat-file" {
				p = w.check
			}
			p.cmd.Process.Kill()
			p.cmd.Process.Wait()
			if _, err := w.Commit(tree, nil, "after\n"); err == nil {
				t.Fatal("a commit succeeded after the writer died")
			}
			if w.Err() == nil {
				t.Fatal("Err is nil after the writer died")
			}
			if _, err := w.Commit(tree, nil, "again\n"); err == nil {
				t.Fatal("a commit succeeded after the writer failed")
			}
		})
	}
}

// A file named .gitattributes in any case, or a directory of that name,
// may be read as attributes; nothing else is.
func TestIsAttrFile(t *testing.T) {
	for p, want := range map[string]bool{
		".gitattributes": true, "a/b/.gitattributes": true, "a/.GitAttributes": true, "x/.gitattributes/": true,
		"gitattributes": false, "a/.gitattributes.bak": false, ".gitattributes/f": false, "a.gitattributes": false,
	} {
		if got := isAttrFile(p); got != want {
			t.Errorf("isAttrFile(%q) = %v, want %v", p, got, want)
		}
	}
}

// The configuration a clean reads once: conversion settings from every
// scope but a worktree's own, and a conditional include that could set one
// of them for some worktree makes every worktree read its own.
func TestReadConvertConfig(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name    string
		setup   func(t *testing.T, root, home string)
		want    convertConfig
		wantAll bool
	}{
		{"nothing", func(t *testing.T, root, home string) {}, convertConfig{ok: true, plainCommits: true}, false},
		{"autocrlf-local", func(t *testing.T, root, home string) {
			idxGit(t, root, nil, "config", "core.autocrlf", "input")
		}, convertConfig{ok: true, all: true, plainCommits: true}, true},
		{"autocrlf-false", func(t *testing.T, root, home string) {
			idxGit(t, root, nil, "config", "core.autocrlf", "false")
		}, convertConfig{ok: true, plainCommits: true}, false},
		{"autocrlf-no-value", func(t *testing.T, root, home string) {
			appendTo(t, filepath.Join(root, ".git", "config"), "[core]\n\tautocrlf\n")
		}, convertConfig{ok: true, all: true, plainCommits: true}, true},
		{"eol-global", func(t *testing.T, root, home string) {
			appendTo(t, filepath.Join(home, ".gitconfig"), "[core]\n\teol = crlf\n")
		}, convertConfig{ok: true, all: true, plainCommits: true}, true},
		{"attributesfile", func(t *testing.T, root, home string) {
			idxGit(t, root, nil, "config", "core.attributesFile", "relative/attrs")
		}, convertConfig{ok: true, outside: true, plainCommits: true}, false},
		{"attr-tree", func(t *testing.T, root, home string) {
			idxGit(t, root, nil, "config", "attr.tree", "HEAD")
		}, convertConfig{ok: true, outside: true, plainCommits: true}, false},
		{"encoding", func(t *testing.T, root, home string) {
			idxGit(t, root, nil, "config", "i18n.commitEncoding", "ISO-8859-1")
		}, convertConfig{ok: true}, false},
		{"encoding-utf8", func(t *testing.T, root, home string) {
			idxGit(t, root, nil, "config", "i18n.commitEncoding", "UTF8")
		}, convertConfig{ok: true, plainCommits: true}, false},
		{"worktree-scope-left-out", func(t *testing.T, root, home string) {
			idxGit(t, root, nil, "config", "extensions.worktreeConfig", "true")
			idxGit(t, root, nil, "config", "--worktree", "core.autocrlf", "true")
		}, convertConfig{ok: true, plainCommits: true}, false},
		{"include-harmless", func(t *testing.T, root, home string) {
			idxWrite(t, filepath.Join(root, ".git", "who.cfg"), "[user]\n\tname = Someone\n")
			idxGit(t, root, nil, "config", "includeIf.onbranch:main.path", "who.cfg")
		}, convertConfig{ok: true, plainCommits: true}, false},
		{"include-missing", func(t *testing.T, root, home string) {
			idxGit(t, root, nil, "config", "includeIf.gitdir:/nowhere/.path", "/nowhere/x.cfg")
		}, convertConfig{ok: true, plainCommits: true}, false},
		{"include-autocrlf", func(t *testing.T, root, home string) {
			idxWrite(t, filepath.Join(root, ".git", "crlf.cfg"), "[core]\n\tautocrlf = true\n")
			idxGit(t, root, nil, "config", "includeIf.onbranch:task-*.path", "crlf.cfg")
		}, convertConfig{}, false},
		{"include-home", func(t *testing.T, root, home string) {
			idxWrite(t, filepath.Join(home, "work.cfg"), "[core]\n\tattributesFile = /x\n")
			appendTo(t, filepath.Join(home, ".gitconfig"), "[includeIf \"gitdir:/elsewhere/\"]\n\tpath = ~/work.cfg\n")
		}, convertConfig{}, false},
		{"include-nested", func(t *testing.T, root, home string) {
			idxWrite(t, filepath.Join(root, ".git", "outer.cfg"), "[include]\n\tpath = inner.cfg\n")
			idxWrite(t, filepath.Join(root, ".git", "inner.cfg"), "[core]\n\teol = crlf\n")
			idxGit(t, root, nil, "config", "includeIf.onbranch:x.path", "outer.cfg")
		}, convertConfig{}, false},
		{"include-other-user", func(t *testing.T, root, home string) {
			idxGit(t, root, nil, "config", "includeIf.onbranch:x.path", "~root/x.cfg")
		}, convertConfig{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := owRepo(t, "sha1")
			tc.setup(t, root, os.Getenv("HOME"))
			got, _ := readConvertConfig(ctx, filepath.Join(root, ".git"), saveEnviron())
			if got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

// GIT_CONFIG makes `git config` read one file instead of the repository's
// configuration; the clean's read must see what the other commands see.
func TestReadConvertConfigIgnoresGITCONFIG(t *testing.T) {
	root := owRepo(t, "sha1")
	idxGit(t, root, nil, "config", "core.autocrlf", "true")
	t.Setenv("GIT_CONFIG", os.DevNull)
	got, _ := readConvertConfig(context.Background(), filepath.Join(root, ".git"), saveEnviron())
	if !got.ok || !got.all {
		t.Errorf("got %+v, want core.autocrlf seen", got)
	}
}

// The attributes files outside the worktrees: each makes check-attr run.
func TestAttrsOutside(t *testing.T) {
	root := owRepo(t, "sha1")
	common := filepath.Join(root, ".git")
	home := os.Getenv("HOME")
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "xdg"))
	if attrsOutside(common, nil) {
		if f := systemAttrs(); f != "" {
			t.Skip("this machine's git reads system attributes, " + f)
		}
		t.Fatal("an attributes file is found where there is none")
	}
	for _, f := range []string{
		filepath.Join(common, "info", "attributes"),
		filepath.Join(home, "xdg", "git", "attributes"),
		filepath.Join(home, ".config", "git", "attributes"),
	} {
		idxWrite(t, f, "*.txt text\n")
		if !attrsOutside(common, nil) {
			t.Errorf("%s is not seen", f)
		}
		os.Remove(f)
	}
	known := filepath.Join(t.TempDir(), "gitattributes")
	idxWrite(t, known, "")
	if !attrsOutside(common, []string{known}) {
		t.Error("the file git var names is not seen")
	}
	t.Setenv("GIT_ATTR_SOURCE", "HEAD")
	if !attrsOutside(common, nil) {
		t.Error("GIT_ATTR_SOURCE is not seen")
	}
	os.Unsetenv("GIT_ATTR_SOURCE")

	// The system file beside git's program: $(prefix)/etc/gitattributes
	// for a git at $(prefix)/bin/git, reached through a link too.
	real, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}
	prefix := t.TempDir()
	idxWrite(t, filepath.Join(prefix, "etc", "gitattributes"), "* text=auto\n")
	os.MkdirAll(filepath.Join(prefix, "bin"), 0o755)
	if err := os.Symlink(real, filepath.Join(prefix, "bin", "git")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", filepath.Join(prefix, "bin")+string(os.PathListSeparator)+os.Getenv("PATH"))
	if !attrsOutside(common, nil) {
		t.Error("$(prefix)/etc/gitattributes is not seen")
	}
}

// systemAttrs is the system attributes file git reads, when there is one:
// /etc/gitattributes for most builds; Xcode's git (macOS) reads one beside
// its system gitconfig instead, which git var names (from git 2.42).
func systemAttrs() string {
	if present("/etc/gitattributes") {
		return "/etc/gitattributes"
	}
	out, err := exec.Command("git", "var", "GIT_ATTR_SYSTEM").Output()
	if p := strings.TrimSpace(string(out)); err == nil && p != "" && present(p) {
		return p
	}
	return ""
}

func appendTo(t *testing.T, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	f.WriteString(s)
}

// Before git 2.42 git var does not say where the system attributes file
// is; it is beside the system configuration, whose place the clean's
// configuration read reports.
func TestSystemAttributesBesideSystemConfig(t *testing.T) {
	root := owRepo(t, "sha1")
	etc := t.TempDir()
	idxWrite(t, filepath.Join(etc, "gitconfig"), "[user]\n\tname = System\n")
	os.Unsetenv("GIT_CONFIG_NOSYSTEM")
	t.Setenv("GIT_CONFIG_SYSTEM", filepath.Join(etc, "gitconfig"))
	_, dirs := readConvertConfig(context.Background(), filepath.Join(root, ".git"), saveEnviron())
	if len(dirs) != 1 || dirs[0] != etc {
		t.Fatalf("system configuration folders %q, want [%s]", dirs, etc)
	}
	common := filepath.Join(root, ".git")
	s := OpenShared(context.Background(), common, t.TempDir(), 20, Identity)
	defer s.Close()
	if s.conv.outside && systemAttrs() == "" {
		t.Fatal("an attributes file is found where there is none")
	}
	idxWrite(t, filepath.Join(etc, "gitattributes"), "*.txt text\n")
	s2 := OpenShared(context.Background(), common, t.TempDir(), 20, Identity)
	defer s2.Close()
	if !s2.conv.outside {
		t.Error("the gitattributes beside the system configuration is not seen")
	}
}
