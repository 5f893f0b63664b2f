package worktree

// macOS's forms of prove_linux_test.go's helpers.

import (
	"os"
	"syscall"
	"testing"
	"time"
)

// proveLutimes sets the times of path itself, a symbolic link included
// (os.Chtimes follows links). Package syscall has no lutimes on macOS, but
// O_SYMLINK opens a link itself, and futimes sets the times of what is open
// (to the microsecond).
func proveLutimes(tb testing.TB, path string, when time.Time) {
	tb.Helper()
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_SYMLINK|syscall.O_CLOEXEC, 0)
	if err != nil {
		tb.Fatalf("open %s: %v", path, err)
	}
	defer syscall.Close(fd)
	tv := syscall.NsecToTimeval(when.UnixNano())
	if err := syscall.Futimes(fd, []syscall.Timeval{tv, tv}); err != nil {
		tb.Fatalf("futimes %s: %v", path, err)
	}
}

// proveUnprivileged runs Prove where permission bits bind. Only root reads
// past them, and macOS has no per-thread file system uid to drop for one
// call (prove_linux_test.go uses Linux's setfsuid).
func proveUnprivileged(t *testing.T, in ProveInput) *Proof {
	t.Helper()
	if os.Geteuid() == 0 {
		t.Skip("needs Linux: running as root, only Linux's per-thread setfsuid lets Prove run where permission bits bind")
	}
	return proveRun(t, in)
}
