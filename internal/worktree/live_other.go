//go:build !linux

package worktree

// Proc is a process that uses a directory.
type Proc struct {
	PID int
	// Command is its command line (arguments joined by spaces, cut to 80
	// characters), or its name when the command line is empty.
	Command string
	// Path is what it holds inside the directory: its current directory,
	// root, executable, an open file or a mapped file.
	Path string
}

// LiveIn finds the processes that use one of dirs. Only Linux's /proc says
// that cheaply and without extra privileges; elsewhere ok is false and the
// caller cannot tell.
func LiveIn(dirs []string) (procs map[string][]Proc, ok bool) { return nil, false }
