package clean

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/taskresume/git-taskresume/internal/gitcmd"
	"github.com/taskresume/git-taskresume/internal/worktree"
)

// Lock is the one-clean-per-run lock: a file in the git common directory
// held with flock. The kernel drops a flock when its holder dies, so a lock
// left by a crashed clean is free to take without any pid guessing, and two
// takers can never both win. The file stays on disk; its text names the
// holder for the message a second clean prints, and records the stamp of a
// clean that was interrupted so that the next one finishes it.
type Lock struct {
	f    *os.File
	path string
	// Interrupted is the stamp of a previous clean that died while running.
	Interrupted string
	started     bool
	finished    bool
	run         string
	txn         string
}

// LockedError is returned when another clean of the run holds the lock.
type LockedError struct{ Run, Holder, Path string }

func (e *LockedError) Error() string {
	return fmt.Sprintf("another git taskclean of run %s is running (%s); wait for it to finish and rerun (the lock %s frees itself when that process ends)", e.Run, e.Holder, e.Path)
}

// lockPath is the lock file of run.
func lockPath(commonDir, run string) string {
	return filepath.Join(commonDir, "taskclean-"+run+".lock")
}

// Acquire takes the run's lock without waiting.
func Acquire(commonDir, run string) (*Lock, error) {
	path := lockPath(commonDir, run)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open lock %s: %w", path, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		holder := "holder unknown"
		if data, rerr := os.ReadFile(path); rerr == nil {
			if h := describeHolder(string(data)); h != "" {
				holder = h
			}
		}
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, &LockedError{Run: run, Holder: holder, Path: path}
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	l := &Lock{f: f, path: path, run: run}
	prev, _ := readFields(f)
	if prev["state"] == "running" && prev["stamp"] != "" {
		l.Interrupted = prev["stamp"]
	}
	return l, nil
}

// Start records that a clean with this stamp is under way.
func (l *Lock) Start(stamp string) error {
	l.started = true
	host, _ := os.Hostname()
	return l.write(fmt.Sprintf("pid %d\nhost %s\nstamp %s\nstarted %s\nstate running\n",
		os.Getpid(), host, stamp, time.Now().UTC().Format(time.RFC3339)))
}

// Finish records that the clean completed every step it started.
func (l *Lock) Finish() { l.finished = true }

// Release drops the lock. A clean that started and did not finish leaves
// the file saying "running", so the next clean finishes it in the same stamp
// (and --undo of that stamp sees everything).
func (l *Lock) Release() error {
	var err error
	// An --undo or --expire-backups run in between leaves an interrupted
	// clean's record alone too.
	if l.finished || (!l.started && l.Interrupted == "") {
		err = l.write("state idle\n")
	}
	syscall.Flock(int(l.f.Fd()), syscall.LOCK_UN)
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	return err
}

func (l *Lock) write(s string) error {
	if err := l.f.Truncate(0); err != nil {
		return err
	}
	if _, err := l.f.WriteAt([]byte(s), 0); err != nil {
		return err
	}
	return l.f.Sync()
}

func readFields(f *os.File) (map[string]string, error) {
	buf := make([]byte, 4096)
	n, err := f.ReadAt(buf, 0)
	if n == 0 && err != nil {
		return map[string]string{}, err
	}
	return parseFields(string(buf[:n])), nil
}

func parseFields(s string) map[string]string {
	m := map[string]string{}
	for _, line := range strings.Split(s, "\n") {
		k, v, ok := strings.Cut(line, " ")
		if ok {
			m[k] = v
		}
	}
	return m
}

func describeHolder(s string) string {
	m := parseFields(s)
	if m["pid"] == "" {
		return ""
	}
	if _, err := strconv.Atoi(m["pid"]); err != nil {
		return ""
	}
	return fmt.Sprintf("pid %s on %s since %s", m["pid"], m["host"], m["started"])
}

// txnWindow bounds how long after its record a transaction of ours can
// have taken a lock.
const txnWindow = 10 * time.Second

// txnPath is where a clean records the lock files of the ref transaction it
// is running.
func txnPath(commonDir, run string) string {
	return filepath.Join(commonDir, "taskclean-"+run+".txn")
}

// RecordTxn records, before a ref transaction starts, the lock files git
// will take for it and what each will hold (the new value of a created or
// updated ref; nothing for a deletion).
func (l *Lock) RecordTxn(commonDir string, updates []gitcmd.RefUpdate) error {
	var b strings.Builder
	fmt.Fprintf(&b, "start %d\n", time.Now().UnixNano())
	paths := gitcmd.LockPaths(commonDir, updates)
	for i, p := range paths {
		want := "-"
		// A delete's lock, and a verify's (git writes no value in it),
		// stays empty.
		if i < len(updates) && updates[i].Op != "delete" && updates[i].Op != "verify" {
			want = updates[i].New
		}
		fmt.Fprintf(&b, "lock %s %s\n", want, strconv.Quote(p))
	}
	l.txn = txnPath(commonDir, l.run)
	return writeSynced(l.txn, b.String())
}

// writeSynced writes a record a crash must not lose: on disk before the
// step it records begins.
func writeSynced(path, data string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// ClearTxn records that the transaction ended (committed or failed, git
// released its locks either way).
func (l *Lock) ClearTxn() {
	if l.txn != "" {
		os.Remove(l.txn)
	}
}

// staleTxnLocks reads the record of a transaction that a crash interrupted
// and returns the lock files it left that are provably its own: recorded
// before it began, created after that, holding what the transaction wrote
// (a ref lock, or nothing yet) and open in no process (packed-refs.lock, which git writes
// while holding it). A lock anyone else holds is never among them.
func staleTxnLocks(commonDir, run string) (own []string, record string) {
	record = txnPath(commonDir, run)
	data, err := os.ReadFile(record)
	if err != nil {
		return nil, ""
	}
	var start int64
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.SplitN(line, " ", 3)
		switch {
		case len(f) == 2 && f[0] == "start":
			start, _ = strconv.ParseInt(f[1], 10, 64)
		case len(f) == 3 && f[0] == "lock":
			p, err := strconv.Unquote(f[2])
			if err != nil {
				continue
			}
			// git takes a transaction's locks within moments of its start;
			// a lock made well after that is somebody else's, however
			// old the record is.
			fi, err := os.Lstat(p)
			if err != nil || !fi.Mode().IsRegular() || fi.ModTime().UnixNano() < start-int64(time.Second) ||
				fi.ModTime().UnixNano() > start+int64(txnWindow) {
				continue
			}
			content, err := os.ReadFile(p)
			if err != nil {
				continue
			}
			got := strings.TrimSpace(string(content))
			switch {
			case strings.HasSuffix(p, "/packed-refs.lock") || strings.HasSuffix(p, "/packed-refs.new"):
				if procs, _ := worktree.LiveIn([]string{p}); len(procs[p]) > 0 {
					continue
				}
			case f[1] == "-":
				if got != "" {
					continue
				}
			case got != f[1] && got != "":
				// Empty: git had created the lock and not yet written
				// the value when the clean died.
				continue
			}
			own = append(own, p)
		}
	}
	return own, record
}
