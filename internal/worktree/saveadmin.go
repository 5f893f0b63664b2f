package worktree

import (
	"bytes"
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"path/filepath"
	"sort"
	"strings"

	"github.com/taskresume/git-taskresume/internal/gitcmd"
)

// admMaxParents bounds the parents of one commit; more are spread over
// intermediate commits.
const admMaxParents = 5000

// SaveAdmin writes one commit that keeps reachable every object named in
// st.IDs that exists in the repository, and records st.Files (their bytes,
// read now) as its tree, at the same relative paths. Commits become parents
// of the saved commit, tags are peeled, and trees and blobs go into the tree
// as "objects/<id>". Ids naming no object are ignored: reflogs name pruned
// objects. skip lists commits already kept reachable by other means (the
// worktree's HEAD, saved with its work); they are not repeated as parents.
//
// It returns the commit id, or "" when there are no files and no object to
// keep. It runs four git processes (one more when some ids are tags).
func SaveAdmin(ctx context.Context, repo *gitcmd.Repo, st *AdminState, skip map[string]bool, msg string) (string, error) {
	parents, objects, err := admClassify(ctx, repo, st.IDs, skip)
	if err != nil {
		return "", err
	}
	if len(st.Files) == 0 && len(parents) == 0 && len(objects) == 0 {
		return "", nil
	}
	hexLen := 0 // of the ids git gives back; any of them tells
	root := &admTree{}
	if len(st.Files) > 0 {
		var in bytes.Buffer
		for _, rel := range st.Files {
			in.WriteString(admQuote(filepath.Join(st.Dir, filepath.FromSlash(rel))))
			in.WriteByte('\n')
		}
		out, err := repo.RunInput(ctx, in.Bytes(), "hash-object", "-w", "--no-filters", "--stdin-paths")
		if err != nil {
			return "", err
		}
		ids := strings.Fields(string(out))
		if len(ids) != len(st.Files) {
			return "", fmt.Errorf("hash-object: %d ids for %d files", len(ids), len(st.Files))
		}
		hexLen = len(ids[0])
		for i, rel := range st.Files {
			if err := root.add(strings.Split(rel, "/"), ids[i], false); err != nil {
				return "", err
			}
		}
	}
	for _, o := range objects {
		hexLen = len(o.id)
		if err := root.add([]string{"objects", o.id}, o.id, o.typ == "tree"); err != nil {
			return "", err
		}
	}
	tree, err := admWriteTree(ctx, repo, root, hexLen)
	if err != nil {
		return "", err
	}
	return admCommit(ctx, repo, tree, parents, msg)
}

type admObject struct{ id, typ string }

// admClassify sorts ids by what they name: commits (the parents of the saved
// commit) and trees and blobs (entries of its tree). Tags count as what they
// point to.
func admClassify(ctx context.Context, repo *gitcmd.Repo, ids []string, skip map[string]bool) (parents []string, objects []admObject, err error) {
	if len(ids) == 0 {
		return nil, nil, nil
	}
	// A partial clone would fetch what it lacks; a missing id here is a
	// pruned object, not one to download.
	env := []string{"GIT_NO_LAZY_FETCH=1"}
	check := func(suffix string, ids []string) ([]admObject, error) {
		var in bytes.Buffer
		for _, id := range ids {
			in.WriteString(id + suffix + "\n")
		}
		out, err := repo.RunEnv(ctx, env, in.Bytes(), "cat-file", "--batch-check=%(objectname) %(objecttype)")
		if err != nil {
			return nil, err
		}
		lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
		if len(lines) != len(ids) {
			return nil, fmt.Errorf("cat-file: %d answers for %d ids", len(lines), len(ids))
		}
		res := make([]admObject, len(lines))
		for i, l := range lines {
			id, typ, _ := strings.Cut(l, " ")
			res[i] = admObject{id, typ}
		}
		return res, nil
	}
	found, err := check("", ids)
	if err != nil {
		return nil, nil, err
	}
	var tags []string
	for _, o := range found {
		if o.typ == "tag" {
			tags = append(tags, o.id)
		}
	}
	if len(tags) > 0 {
		peeled, err := check("^{}", tags)
		if err != nil {
			return nil, nil, err
		}
		found = append(found, peeled...)
	}
	seen := map[string]bool{}
	for _, o := range found {
		if seen[o.id] || skip[o.id] {
			continue
		}
		seen[o.id] = true
		switch o.typ {
		case "commit":
			parents = append(parents, o.id)
		case "tree", "blob":
			objects = append(objects, o)
		}
	}
	return parents, objects, nil
}

// admTree is a directory of the tree being built: entries are blob or tree
// ids, or subdirectories still to be written.
type admTree struct {
	names []string
	ids   map[string]string // name -> object id, for blobs and ready trees
	trees map[string]bool   // name -> is a tree (ready or in subs)
	subs  map[string]*admTree
}

func (t *admTree) add(path []string, id string, isTree bool) error {
	if t.ids == nil {
		t.ids, t.trees, t.subs = map[string]string{}, map[string]bool{}, map[string]*admTree{}
	}
	name := path[0]
	if len(path) == 1 {
		if _, dup := t.ids[name]; dup || t.subs[name] != nil {
			return fmt.Errorf("saving admin files: %q twice", name)
		}
		t.names = append(t.names, name)
		t.ids[name], t.trees[name] = id, isTree
		return nil
	}
	if _, dup := t.ids[name]; dup {
		return fmt.Errorf("saving admin files: %q is a file and a directory", name)
	}
	sub := t.subs[name]
	if sub == nil {
		sub = &admTree{}
		t.subs[name], t.trees[name] = sub, true
		t.names = append(t.names, name)
	}
	return sub.add(path[1:], id, isTree)
}

// admWriteTree writes root and its subdirectories with one `git mktree
// --batch`. A tree's input names its subtrees' ids, which are only known
// once they are written, so the ids are computed here (a tree object is
// its sorted entries, hashed) and the trees fed deepest first. mktree
// refuses an entry whose object does not exist, so a wrong computation
// fails instead of writing a broken tree.
func admWriteTree(ctx context.Context, repo *gitcmd.Repo, root *admTree, hexLen int) (string, error) {
	newHash := sha1.New
	if hexLen == 64 {
		newHash = sha256.New
	}
	if len(root.names) == 0 {
		// mktree --batch writes nothing for an empty input; without
		// --batch it writes the empty tree.
		out, err := repo.RunInput(ctx, []byte{}, "mktree", "-z")
		return strings.TrimSpace(string(out)), err
	}
	var in bytes.Buffer
	var walk func(t *admTree) (string, error)
	walk = func(t *admTree) (string, error) {
		for _, name := range t.names {
			if sub := t.subs[name]; sub != nil {
				id, err := walk(sub)
				if err != nil {
					return "", err
				}
				t.ids[name] = id
			}
		}
		sort.Slice(t.names, func(i, j int) bool { return admSortKey(t, t.names[i]) < admSortKey(t, t.names[j]) })
		var raw bytes.Buffer
		for _, name := range t.names {
			id := t.ids[name]
			bin, err := hex.DecodeString(id)
			if err != nil {
				return "", fmt.Errorf("object id %q: %v", id, err)
			}
			mode, typ := "100644", "blob"
			if t.trees[name] {
				mode, typ = "40000", "tree"
			}
			fmt.Fprintf(&raw, "%s %s\x00", mode, name)
			raw.Write(bin)
			fmt.Fprintf(&in, "%s %s %s\t%s\x00", mode, typ, id, name)
		}
		in.WriteByte(0) // ends this tree in --batch -z input
		h := newHash()
		fmt.Fprintf(h, "tree %d\x00", raw.Len())
		raw.WriteTo(h)
		return admHex(h), nil
	}
	rootID, err := walk(root)
	if err != nil {
		return "", err
	}
	out, err := repo.RunInput(ctx, in.Bytes(), "mktree", "-z", "--batch")
	if err != nil {
		return "", err
	}
	ids := strings.Fields(string(out))
	if len(ids) == 0 || ids[len(ids)-1] != rootID {
		return "", fmt.Errorf("mktree wrote %v, expected root tree %s", ids, rootID)
	}
	return rootID, nil
}

// admSortKey orders tree entries as git does: a directory sorts as if its
// name ended with "/".
func admSortKey(t *admTree, name string) string {
	if t.trees[name] {
		return name + "/"
	}
	return name
}

func admHex(h hash.Hash) string { return hex.EncodeToString(h.Sum(nil)) }

// admCommit makes the saved commit. More parents than admMaxParents are
// first gathered into intermediate commits (same tree), so no command line
// or commit grows without bound.
func admCommit(ctx context.Context, repo *gitcmd.Repo, tree string, parents []string, msg string) (string, error) {
	commit := func(ps []string, m string) (string, error) {
		args := []string{"commit-tree", tree, "-m", m}
		for _, p := range ps {
			args = append(args, "-p", p)
		}
		out, err := repo.RunEnv(ctx, Identity, nil, args...)
		return strings.TrimSpace(string(out)), err
	}
	for len(parents) > admMaxParents {
		var next []string
		for i := 0; i < len(parents); i += admMaxParents {
			end := min(i+admMaxParents, len(parents))
			c, err := commit(parents[i:end], fmt.Sprintf("%s\n\nparents %d to %d of %d", msg, i+1, end, len(parents)))
			if err != nil {
				return "", err
			}
			next = append(next, c)
		}
		parents = next
	}
	return commit(parents, msg)
}
