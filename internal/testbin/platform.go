package testbin

import (
	"path/filepath"
	"runtime"
	"testing"
)

// TempDir is t.TempDir with its symbolic links resolved. git prints and
// records real paths (it resolves the directory it works in), and on macOS
// the temporary directory lies under /var, a link to /private/var: a test
// that compares a path git printed with one it made must make it from the
// real directory.
func TempDir(t testing.TB) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// NeedsLinux skips the test anywhere but Linux, saying what of Linux it
// needs (why), so that a run on macOS lists what it did not check.
func NeedsLinux(t testing.TB, why string) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("needs Linux: " + why)
	}
}
