package worktree

import "syscall"

// statTimes are a file's modification and change times.
func statTimes(st *syscall.Stat_t) (mSec, mNsec, cSec, cNsec int64) {
	return int64(st.Mtim.Sec), int64(st.Mtim.Nsec), int64(st.Ctim.Sec), int64(st.Ctim.Nsec)
}
