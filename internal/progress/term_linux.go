package progress

import (
	"os"
	"syscall"
	"unsafe"
)

// isTerminal is isatty: the file answers a terminal's ioctl (a character
// device such as /dev/null does not).
func isTerminal(f *os.File) bool {
	var t syscall.Termios
	_, _, errno := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), syscall.TCGETS, uintptr(unsafe.Pointer(&t)))
	return errno == 0
}

// foreground is git's is_foreground_fd: the terminal's foreground process
// group is ours, or it cannot say. A clean sent to the background (^Z, bg)
// keeps its terminal clear.
func foreground(f *os.File) bool {
	var pgrp int32
	_, _, errno := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), syscall.TIOCGPGRP, uintptr(unsafe.Pointer(&pgrp)))
	return errno != 0 || int(pgrp) == syscall.Getpgrp()
}
