//go:build darwin || freebsd

package worktree

import "syscall"

// statTimes are a file's modification and change times: macOS and FreeBSD name the
// fields of its stat structure apart from Linux's.
func statTimes(st *syscall.Stat_t) (mSec, mNsec, cSec, cNsec int64) {
	return st.Mtimespec.Sec, st.Mtimespec.Nsec, st.Ctimespec.Sec, st.Ctimespec.Nsec
}
