package installtest

import (
	"archive/zip"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const module = "github.com/taskresume/git-taskresume"

// moduleVersion is the release go install fetches: v1 at most, as the
// module path has no /v2 (go refuses v9.8.7 of it).
const moduleVersion = "1.98.7"

// writeModuleProxy lays out, under a new directory, a module proxy (the
// GOPROXY=file:// form) that serves the module at src as version v, and
// returns the directory.
func writeModuleProxy(t *testing.T, src, v string) string {
	t.Helper()
	proxy := t.TempDir()
	dir := filepath.Join(proxy, filepath.FromSlash(module), "@v")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	copyFile(t, filepath.Join(src, "go.mod"), filepath.Join(dir, v+".mod"), 0o644)
	info, _ := json.Marshal(map[string]string{"Version": v, "Time": "2026-01-01T00:00:00Z"})
	for name, data := range map[string][]byte{"list": []byte(v + "\n"), v + ".info": info} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f, err := os.Create(filepath.Join(dir, v+".zip"))
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	err = filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			if d != nil && d.Name() == ".git" {
				return filepath.SkipDir
			}
			// A folder with a go.mod of its own is another module, which
			// a module's zip leaves out (bench/formatcmp), as the proxy's does.
			if d != nil && path != src {
				if _, serr := os.Stat(filepath.Join(path, "go.mod")); serr == nil {
					return filepath.SkipDir
				}
			}
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		w, err := zw.Create(module + "@" + v + "/" + filepath.ToSlash(rel))
		if err != nil {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		_, err = w.Write(data)
		return err
	})
	if err == nil {
		err = zw.Close()
	}
	if err == nil {
		err = f.Close()
	}
	if err != nil {
		t.Fatal(err)
	}
	return proxy
}

// TestGoInstallAtATag: `go install <module>/cmd/...@v1.98.7`, as the README
// tells Go users, gives commands that say 1.98.7 from the module's version
// (no stamp, no checkout). The module is served from a local proxy; its
// dependencies from the module cache's downloads, so nothing is fetched
// and the real module cache never holds the made-up release.
func TestGoInstallAtATag(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go")
	}
	src, env := sourceCheckout(t, repoRoot(t))
	proxy := writeModuleProxy(t, src, "v"+moduleVersion)
	out, err := exec.Command("go", "env", "GOMODCACHE", "GOCACHE").Output()
	if err != nil {
		t.Fatalf("go env: %v", err)
	}
	v := strings.Split(strings.TrimSpace(string(out)), "\n")
	bin := t.TempDir()
	env = append(env, "GOBIN="+bin, "GOCACHE="+v[1], "GOMODCACHE="+t.TempDir(), "GOFLAGS=-modcacherw",
		"GOPROXY=file://"+filepath.ToSlash(proxy)+",file://"+filepath.ToSlash(filepath.Join(v[0], "cache", "download")),
		// The made-up release is in no checksum database; the
		// dependencies were verified when they entered the cache.
		"GOSUMDB=off", "GOTOOLCHAIN=local")
	// Outside any module, as a user runs it.
	run(t, t.TempDir(), env, "go", "install", module+"/cmd/...@v"+moduleVersion)
	for _, c := range commands {
		exe := filepath.Join(bin, c)
		if got := run(t, "", env, exe, "--version"); got != c+" "+moduleVersion+"\n" {
			t.Errorf("%s --version = %q, want %s", c, got, moduleVersion)
		}
		var doc struct {
			Version, From, Commit string
			Dev                   bool
		}
		if err := json.Unmarshal([]byte(run(t, "", env, exe, "--version", "--json")), &doc); err != nil {
			t.Fatal(err)
		}
		if doc.Version != moduleVersion || doc.From != "module" || doc.Dev || doc.Commit != "" {
			t.Errorf("%s --version --json: %+v, want %s from the module, no commit", c, doc, moduleVersion)
		}
	}
}
