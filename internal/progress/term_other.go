//go:build !linux

package progress

import "os"

// isTerminal takes a character device for a terminal, as the colours do
// (internal/ui): on Linux the terminal's own ioctl tells /dev/null apart.
func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// foreground cannot tell here: the line is drawn.
func foreground(*os.File) bool { return true }
