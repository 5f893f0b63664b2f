package worktree

// The parts of prove_test.go that reach Linux system calls package syscall
// has no portable form of: prove_darwin_test.go has macOS's.

import (
	"os"
	"runtime"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// proveLutimes sets the times of path itself, a symbolic link included
// (os.Chtimes follows links).
func proveLutimes(tb testing.TB, path string, when time.Time) {
	tb.Helper()
	p, err := syscall.BytePtrFromString(path)
	if err != nil {
		tb.Fatal(err)
	}
	ts := [2]syscall.Timespec{syscall.NsecToTimespec(when.UnixNano()), syscall.NsecToTimespec(when.UnixNano())}
	// Linux's AT_FDCWD and AT_SYMLINK_NOFOLLOW (package syscall lacks them).
	dirfd, noFollow := -100, 0x100
	if _, _, e := syscall.Syscall6(syscall.SYS_UTIMENSAT, uintptr(dirfd), uintptr(unsafe.Pointer(p)),
		uintptr(unsafe.Pointer(&ts[0])), uintptr(noFollow), 0, 0); e != 0 {
		tb.Fatalf("utimensat %s: %v", path, e)
	}
}

// proveUnprivileged runs Prove where permission bits bind. The tests run
// as root, which reads everything; then Prove runs on a thread of its own
// whose file system uid is nobody's (setfsuid is per thread, and dropping
// it from 0 drops the capabilities that bypass permission bits).
func proveUnprivileged(t *testing.T, in ProveInput) *Proof {
	t.Helper()
	if os.Geteuid() != 0 {
		return proveRun(t, in)
	}
	type result struct {
		p     *Proof
		err   error
		fsuid uintptr
	}
	ch := make(chan result)
	go func() {
		// Never unlocked: the thread ends with this goroutine, so no other
		// goroutine runs with its identity.
		runtime.LockOSThread()
		var r result
		syscall.RawSyscall(syscall.SYS_SETFSUID, 65534, 0, 0)
		// An invalid uid (-1) changes nothing and returns the current one.
		r.fsuid, _, _ = syscall.RawSyscall(syscall.SYS_SETFSUID, ^uintptr(0), 0, 0)
		if r.fsuid == 65534 {
			r.p, r.err = Prove(in)
		}
		ch <- r
	}()
	r := <-ch
	if r.fsuid != 65534 {
		t.Fatalf("running as root and cannot take another file system uid (still %d): no way here to make a file unreadable", r.fsuid)
	}
	if r.err != nil {
		t.Fatal(r.err)
	}
	return r.p
}
