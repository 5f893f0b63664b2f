//go:build linux

package worktree

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
)

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

// LiveIn finds the processes of the current user (same real uid) whose
// current directory, root directory, executable, an open file or a
// memory-mapped file lies inside one of dirs (a dir itself counts), keyed by
// the dir as given. The calling process is excluded. A process that vanishes
// or cannot be read while /proc is scanned is skipped. ok is false when the
// platform cannot tell.
//
// /proc names the current path of what a process holds: a directory renamed
// since it was entered is found under its new name, and one deleted is
// found under its old name (the kernel's " (deleted)" suffix is dropped).
func LiveIn(dirs []string) (procs map[string][]Proc, ok bool) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, false
	}
	clean := make([]string, len(dirs))
	for i, d := range dirs {
		// /proc names absolute paths; Abs also cleans.
		if abs, err := filepath.Abs(d); err == nil {
			d = abs
		}
		clean[i] = filepath.Clean(d)
	}
	uid := os.Getuid()
	self := os.Getpid()
	procs = map[string][]Proc{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		base := "/proc/" + e.Name()
		// The owner of /proc/<pid> is the process's effective uid: a
		// cheap first filter (a user cannot read another user's process
		// anyway). The real uid, in status, costs a read; only processes
		// that hold something are asked.
		if fi, err := os.Stat(base); err != nil || fi.Sys().(*syscall.Stat_t).Uid != uint32(uid) {
			continue
		}
		hits := liveScan(base, clean)
		if !liveAny(hits) || !liveSameUser(base, uid) {
			continue
		}
		cmd := liveCommand(base)
		for i, path := range hits {
			if path != "" {
				procs[dirs[i]] = append(procs[dirs[i]], Proc{PID: pid, Command: cmd, Path: path})
			}
		}
	}
	for _, ps := range procs {
		sort.Slice(ps, func(i, j int) bool { return ps[i].PID < ps[j].PID })
	}
	return procs, true
}

// liveSameUser reads the real uid from /proc/<pid>/status.
func liveSameUser(base string, uid int) bool {
	data, err := os.ReadFile(base + "/status")
	if err != nil {
		return false
	}
	_, rest, ok := bytes.Cut(data, []byte("\nUid:"))
	if !ok {
		return false
	}
	f := strings.Fields(string(rest[:min(len(rest), 64)]))
	return len(f) > 0 && f[0] == strconv.Itoa(uid)
}

// liveScan returns, per dir, the first path the process holds inside it
// ("" for none). It stops reading once every dir has a hit.
func liveScan(base string, dirs []string) []string {
	hits := make([]string, len(dirs))
	left := len(dirs)
	try := func(path string) bool {
		path = strings.TrimSuffix(path, " (deleted)")
		if !strings.HasPrefix(path, "/") {
			return left == 0 // pipes, sockets, anonymous maps
		}
		for i, d := range dirs {
			if hits[i] == "" && liveInside(path, d) {
				hits[i] = path
				left--
			}
		}
		return left == 0
	}
	for _, link := range []string{"cwd", "root", "exe"} {
		if p, err := os.Readlink(base + "/" + link); err == nil && try(p) {
			return hits
		}
	}
	if fds, err := os.ReadDir(base + "/fd"); err == nil {
		for _, fd := range fds {
			if p, err := os.Readlink(base + "/fd/" + fd.Name()); err == nil && try(p) {
				return hits
			}
		}
	}
	if f, err := os.Open(base + "/maps"); err == nil {
		defer f.Close()
		sc := bufio.NewScanner(f)
		last := ""
		for sc.Scan() {
			// address perms offset dev inode path: the path starts at
			// the first "/" and may hold spaces.
			line := sc.Text()
			i := strings.IndexByte(line, '/')
			if i < 0 || line[i:] == last {
				continue
			}
			last = line[i:]
			if try(last) {
				break
			}
		}
	}
	return hits
}

func liveAny(hits []string) bool {
	for _, h := range hits {
		if h != "" {
			return true
		}
	}
	return false
}

// liveInside says whether path is dir or lies under it, by whole path
// components.
func liveInside(path, dir string) bool {
	if path == dir || dir == "/" {
		return true
	}
	return strings.HasPrefix(path, dir) && path[len(dir)] == '/'
}

// liveCommand reads a process's command line, or its name when it has none
// (kernel threads, zombies).
func liveCommand(base string) string {
	data, _ := os.ReadFile(base + "/cmdline")
	cmd := strings.TrimSpace(strings.ReplaceAll(strings.TrimRight(string(data), "\x00"), "\x00", " "))
	if cmd == "" {
		comm, _ := os.ReadFile(base + "/comm")
		cmd = strings.TrimSpace(string(comm))
	}
	if r := []rune(cmd); len(r) > 80 {
		cmd = string(r[:80])
	}
	return cmd
}
