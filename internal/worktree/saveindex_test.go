package worktree

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/taskresume/git-taskresume/internal/gitcmd"
)

// conflictedWorktree makes a worktree whose index git cannot write as a
// tree: stages of every mode (a file, an executable, a symbolic link, a
// submodule's commit) for "mix", "run.sh" and a path with an odd name
// (a modify/delete: stages 1 and 3), with a file staged and then edited
// again (new.txt), an intent-to-add entry and an unchanged file beside them.
// It returns the repository, the worktree, its HEAD, and what the stages
// tree must list (ls-tree -r lines, sorted) and what the stage-0 tree must.
func conflictedWorktree(t *testing.T, format string) (root, wt, head string, stages, zero []string) {
	t.Helper()
	root = idxNewRepo(t, format)
	t.Setenv("GIT_AUTHOR_DATE", "1700000000 +0100")
	t.Setenv("GIT_COMMITTER_DATE", "1700000000 +0100")
	idxWrite(t, filepath.Join(root, "a.txt"), "a\n")
	idxGit(t, root, nil, "add", ".")
	idxGit(t, root, nil, "commit", "-q", "-m", "root")
	wt = filepath.Join(filepath.Dir(root), "wt")
	idxGit(t, root, nil, "worktree", "add", "-q", "--detach", wt)
	head = idxGit(t, wt, nil, "rev-parse", "HEAD")
	blob := func(content string) string {
		p := filepath.Join(t.TempDir(), "blob")
		idxWrite(t, p, content)
		return idxGit(t, wt, nil, "hash-object", "-w", p)
	}
	odd := "-odd \"name\"\nwith é.txt"
	type ent struct{ mode, oid, stage, path string }
	ents := []ent{
		{"100644", blob("mix base\n"), "1", "mix"},
		{"120000", blob("a.txt"), "2", "mix"},
		{"160000", head, "3", "mix"},
		{"100755", blob("#!/bin/sh\nours\n"), "2", "run.sh"},
		{"100644", blob("#!/bin/sh\ntheirs\n"), "3", "run.sh"},
		{"100644", blob("odd base\n"), "1", odd},
		{"100644", blob("odd theirs\n"), "3", odd},
	}
	var in strings.Builder
	for _, e := range ents {
		in.WriteString(e.mode + " " + e.oid + " " + e.stage + "\t" + e.path + "\x00")
		typ := "blob"
		if e.mode == "160000" {
			typ = "commit"
		}
		stages = append(stages, e.mode+" "+typ+" "+e.oid+"\t"+e.stage+"/"+e.path)
	}
	cmd := exec.Command("git", "update-index", "-z", "--index-info")
	cmd.Dir = wt
	cmd.Stdin = strings.NewReader(in.String())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("update-index --index-info: %v\n%s", err, out)
	}
	idxWrite(t, filepath.Join(wt, "mix"), "<<<<<<< ours\n=======\n>>>>>>> theirs\n")
	idxWrite(t, filepath.Join(wt, "run.sh"), "#!/bin/sh\nmerged by hand\n")
	idxWrite(t, filepath.Join(wt, "new.txt"), "v1\n")
	idxGit(t, wt, nil, "add", "new.txt")
	idxWrite(t, filepath.Join(wt, "new.txt"), "v2\n")
	idxWrite(t, filepath.Join(wt, "ita.txt"), "intent\n")
	idxGit(t, wt, nil, "add", "-N", "ita.txt")
	if out := idxGit(t, wt, nil, "ls-files", "-u"); strings.Count(out, "\n") != len(ents)-1 {
		t.Fatalf("fixture: unmerged entries:\n%s", out)
	}
	zero = []string{
		"100644 blob " + blob("a\n") + "\ta.txt",
		"100644 blob " + blob("v1\n") + "\tnew.txt",
	}
	sort.Strings(stages)
	sort.Strings(zero)
	return root, wt, head, stages, zero
}

func idxLsTree(t *testing.T, dir, treeish string) []string {
	t.Helper()
	out := idxGit(t, dir, nil, "ls-tree", "-r", "-z", treeish)
	var lines []string
	for _, l := range strings.Split(out, "\x00") {
		if l != "" {
			lines = append(lines, l)
		}
	}
	sort.Strings(lines)
	return lines
}

// An unmerged index is saved whole: its stage-0 entries (new.txt as
// staged, not as on disk) in the index parent's tree, and every stage of
// the conflicted paths, with its mode, in the stages commit. Made alone
// and with the clean's writers, the same commits; the directory gone
// (the index alone is saved), the same stages. The proof of the index holds.
func TestSaveIndexStages(t *testing.T) {
	for _, format := range []string{"sha1", "sha256"} {
		t.Run(format, func(t *testing.T) {
			root, wt, head, wantStages, wantZero := conflictedWorktree(t, format)
			hashLen := HashLen(format)
			ctx := context.Background()
			repo, err := gitcmd.Open(ctx, root)
			if err != nil {
				t.Fatal(err)
			}
			admin, err := GitDirOf(wt)
			if err != nil {
				t.Fatal(err)
			}
			save := func(dir string, shared *Shared) *Snapshot {
				in := SaveInput{Dir: dir, AdminDir: admin, Head: head, TmpDir: t.TempDir(), Msg: "taskclean r: worktree wt\n",
					Budget: DefaultBudget, HashLen: hashLen, Shared: shared}
				snap, err := Save(ctx, repo, in)
				if err != nil {
					t.Fatal(err)
				}
				return snap
			}
			alone := save(wt, nil)
			shared := OpenShared(ctx, repo.CommonDir, t.TempDir(), hashLen, Identity)
			defer shared.Close()
			withShared := save(wt, shared)
			gone := save("", nil)
			if alone.Stages == "" || alone.Conflicts != 3 {
				t.Fatalf("stages %q of %d paths, want a commit of 3", alone.Stages, alone.Conflicts)
			}
			if withShared.Stages != alone.Stages || withShared.Commit != alone.Commit {
				t.Errorf("shared: stages %s commit %s; alone: stages %s commit %s", withShared.Stages, withShared.Commit, alone.Stages, alone.Commit)
			}
			if gone.Stages != alone.Stages {
				t.Errorf("directory gone: stages %s, want %s", gone.Stages, alone.Stages)
			}
			if got := idxLsTree(t, wt, alone.Stages); strings.Join(got, "\n") != strings.Join(wantStages, "\n") {
				t.Errorf("stages tree:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(wantStages, "\n"))
			}
			for _, snap := range []*Snapshot{alone, gone} {
				if got := idxLsTree(t, wt, snap.Commit+"^2"); strings.Join(got, "\n") != strings.Join(wantZero, "\n") {
					t.Errorf("index parent's tree:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(wantZero, "\n"))
				}
				if u := ProveIndex(snap.Index); len(u) != 0 {
					t.Errorf("the index's proof fails on a whole save: %v", u)
				}
			}
			// The working tree's conflicted file is saved as it is on disk.
			if got := idxGit(t, wt, nil, "cat-file", "-p", alone.Commit+":mix"); !strings.Contains(got, "<<<<<<<") {
				t.Errorf("saved working tree's mix: %q", got)
			}

			// The index written after the save read it: the proof keeps the
			// worktree.
			idxGit(t, wt, nil, "update-index", "--add", "--cacheinfo", "100644,"+idxGit(t, wt, nil, "rev-parse", "HEAD:a.txt")+",late.txt")
			p, err := Prove(ProveInput{Root: wt, Indexes: alone.Indexes, HashLen: hashLen, Index: alone.Index})
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, u := range p.Unproven {
				found = found || u == Unproven{Path: IndexUnproven, Why: WhyChanged}
			}
			if !found {
				t.Errorf("index written after the save: proof %v, want %q (%s)", p.Unproven, IndexUnproven, WhyChanged)
			}
		})
	}
}

// ProveIndex names every entry of the index (every stage) that the save
// does not hold with its mode and id; intent-to-add entries hold nothing,
// and a gitlink is held by its entry alone.
func TestProveIndex(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "index")
	idxWrite(t, file, "an index")
	st, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	h := func(c byte) string { return strings.Repeat(string(c), 40) }
	entries := []IndexEntry{
		{Path: "a", Mode: 0o100644, OID: h('a')},
		{Path: "b", Mode: 0o100644, OID: h('1'), Stage: 1},
		{Path: "b", Mode: 0o120000, OID: h('2'), Stage: 2},
		{Path: "b", Mode: 0o100755, OID: h('3'), Stage: 3},
		{Path: "c", Mode: 0o100644, OID: h('e'), IntentToAdd: true},
		{Path: "sub", Mode: 0o160000, OID: h('s')},
	}
	all := heldEntries(entries)
	without := func(i int) []IndexEntry {
		return append(append([]IndexEntry(nil), all[:i]...), all[i+1:]...)
	}
	other := func(i int, f func(*IndexEntry)) []IndexEntry {
		held := append([]IndexEntry(nil), all...)
		f(&held[i])
		return held
	}
	for _, tc := range []struct {
		name string
		held []IndexEntry
		want []Unproven
	}{
		{"whole", all, nil},
		{"nothing held", nil, []Unproven{{"a", WhyStagedNotSaved}, {"b", WhyStageNotSaved(1)}, {"b", WhyStageNotSaved(2)},
			{"b", WhyStageNotSaved(3)}, {"sub", WhyStagedNotSaved}}},
		{"staged blob missing", without(0), []Unproven{{"a", WhyStagedNotSaved}}},
		{"stage 2 missing", without(2), []Unproven{{"b", WhyStageNotSaved(2)}}},
		{"stage 3 other mode", other(3, func(e *IndexEntry) { e.Mode = 0o100644 }), []Unproven{{"b", WhyStageNotSaved(3)}}},
		{"staged other blob", other(0, func(e *IndexEntry) { e.OID = h('f') }), []Unproven{{"a", WhyStagedNotSaved}}},
		{"stage held as stage 0", other(1, func(e *IndexEntry) { e.Stage = 0 }), []Unproven{{"b", WhyStageNotSaved(1)}}},
		{"gitlink other commit", other(4, func(e *IndexEntry) { e.OID = h('t') }), []Unproven{{"sub", WhyStagedNotSaved}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := ProveIndex(&IndexSave{File: file, Stat: st, Entries: entries, Held: tc.held})
			if !slices.Equal(got, tc.want) {
				t.Errorf("ProveIndex = %v, want %v", got, tc.want)
			}
		})
	}

	// The index file itself: gone, new, rewritten, unreadable.
	missing := filepath.Join(dir, "none")
	if got := ProveIndex(&IndexSave{File: missing}); len(got) != 0 {
		t.Errorf("no index before or after: %v", got)
	}
	changed := []Unproven{{IndexUnproven, WhyChanged}}
	if got := ProveIndex(&IndexSave{File: file}); !slices.Equal(got, changed) {
		t.Errorf("an index made since the save: %v, want %v", got, changed)
	}
	if got := ProveIndex(&IndexSave{File: missing, Stat: st}); !slices.Equal(got, changed) {
		t.Errorf("an index removed since the save: %v, want %v", got, changed)
	}
	tmp := filepath.Join(dir, "index.new")
	idxWrite(t, tmp, "an index")
	if err := os.Rename(tmp, file); err != nil {
		t.Fatal(err)
	}
	if got := ProveIndex(&IndexSave{File: file, Stat: st, Entries: entries, Held: all}); !slices.Equal(got, changed) {
		t.Errorf("an index written anew since the save: %v, want %v", got, changed)
	}
	if got := ProveIndex(&IndexSave{File: file, Err: os.ErrInvalid}); len(got) != 1 || got[0].Path != IndexUnproven ||
		!strings.HasPrefix(got[0].Why, whyCannotRead) {
		t.Errorf("an index the save could not read: %v", got)
	}
}
