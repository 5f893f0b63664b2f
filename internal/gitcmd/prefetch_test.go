package gitcmd_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/taskresume/git-taskresume/internal/gitcmd"
)

// looseBlob writes content as a loose blob of dir's repository and
// returns its id and its file.
func looseBlob(t *testing.T, dir, content string) (string, string) {
	t.Helper()
	f := filepath.Join(t.TempDir(), "blob")
	if err := os.WriteFile(f, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	id := git(t, dir, "hash-object", "-w", f)
	return id, filepath.Join(dir, ".git", "objects", id[:2], id[2:])
}

// What Prefetch read, and what a reader read by a name that starts with
// an object id, is answered again without asking git (the object is gone
// from the repository when asked again); a name that may name something
// else later ("HEAD:...") is asked each time.
func TestObjectsKeepWhatFixedNamesRead(t *testing.T) {
	dir, _ := newRepo(t)
	ctx := context.Background()
	pre, preFile := looseBlob(t, dir, "read by Prefetch\n")
	got, gotFile := looseBlob(t, dir, "read by Get\n")
	head, headFile := looseBlob(t, dir, "read through HEAD\n")
	git(t, dir, "update-index", "--add", "--cacheinfo", "100644,"+head+",h.txt")
	git(t, dir, "commit", "-q", "-m", "h")
	s, err := gitcmd.ReadShared(ctx, open(t, dir), true)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	objs, err := s.Prefetch([]string{pre, "0000000000000000000000000000000000000001:x"})
	if err != nil || objs[0].Type != "blob" || objs[1].Type != "" {
		t.Fatalf("Prefetch: %+v, %v", objs, err)
	}
	o := s.Objects()
	for _, name := range []string{got, "HEAD:h.txt"} {
		if obj, err := o.Get(name); err != nil || obj.Type != "blob" {
			t.Fatalf("Get(%s): %+v, %v", name, obj, err)
		}
	}
	for _, f := range []string{preFile, gotFile, headFile} {
		if err := os.Remove(f); err != nil {
			t.Fatal(err)
		}
	}
	for name, want := range map[string]string{pre: "read by Prefetch\n", got: "read by Get\n", "HEAD:h.txt": ""} {
		obj, err := o.Get(name)
		if err != nil {
			t.Fatal(err)
		}
		if string(obj.Data) != want {
			t.Errorf("Get(%s) after its object went: %q, want %q", name, obj.Data, want)
		}
	}
}
