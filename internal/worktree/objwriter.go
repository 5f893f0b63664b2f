package worktree

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// CommitWriter writes the commits of a clean's saves through two git
// processes kept open for the whole clean, instead of one `git
// commit-tree` per commit: `cat-file --batch-check` checks what commit-tree
// checks (the tree is a tree, each parent a commit, all present), and
// `hash-object -w --stdin-paths -t commit` writes the object, made here
// byte for byte as commit-tree makes it. A commit it cannot make so (a
// message that is not plain UTF-8, which commit-tree rewrites) is left to
// commit-tree.
//
// It is safe for concurrent use. An error from a process is sticky (Err):
// the writer answers no more, and a save that needed it fails, so that its
// worktree stays.
type CommitWriter struct {
	mu      sync.Mutex
	hashLen int
	// author and committer are "name <email>" as git var formats them for
	// the save identity; authorDate and committerDate are fixed dates
	// ("<seconds> <tz>") when the environment sets them, else "" and tz
	// is the zone git puts on a date of now.
	author, committer         string
	authorDate, committerDate string
	tz                        string
	check, write              *lineProc
	// file holds each commit's bytes while hash-object reads them: one
	// file, rewritten, since a new file costs an inode each time.
	file string
	err  error
	// Written counts the commits written here (the others went to
	// commit-tree).
	Written int
}

var gitDate = regexp.MustCompile(`^[0-9]+ [+-][0-9]{4}$`)

// StartCommitWriter starts the writer's processes in the repository whose
// common directory is commonDir; tmpDir holds its file while it works.
// Identity is the environment of the commits (as commit-tree gets it); git
// var reads the identity and dates from it once, so that they are what
// commit-tree would write.
func StartCommitWriter(ctx context.Context, commonDir, tmpDir string, hashLen int, identity []string) (*CommitWriter, error) {
	env := saveEnviron(identity...)
	out, err := gitOutput(ctx, commonDir, env, "var", "-l")
	if err != nil {
		return nil, err
	}
	return startCommitWriter(ctx, commonDir, tmpDir, hashLen, env, string(out))
}

// startCommitWriter is StartCommitWriter with the environment and what
// `git var -l` printed in it.
func startCommitWriter(ctx context.Context, commonDir, tmpDir string, hashLen int, env []string, vars string) (*CommitWriter, error) {
	file, err := filepath.Abs(filepath.Join(tmpDir, "commit"))
	if err != nil {
		return nil, err
	}
	w := &CommitWriter{hashLen: hashLen, file: file}
	// git var -l lists the configuration first, then its variables: the
	// last line of a name is git's own.
	var aIdent, cIdent string
	for _, line := range strings.Split(vars, "\n") {
		if v, ok := strings.CutPrefix(line, "GIT_AUTHOR_IDENT="); ok {
			aIdent = v
		} else if v, ok := strings.CutPrefix(line, "GIT_COMMITTER_IDENT="); ok {
			cIdent = v
		}
	}
	split := func(ident string) (who, date string, err error) {
		i := strings.LastIndex(ident, "> ")
		if i < 0 || !gitDate.MatchString(ident[i+2:]) {
			return "", "", fmt.Errorf("git var: unexpected identity %q", ident)
		}
		return ident[:i+1], ident[i+2:], nil
	}
	var aDate, cDate string
	if w.author, aDate, err = split(aIdent); err != nil {
		return nil, err
	}
	if w.committer, cDate, err = split(cIdent); err != nil {
		return nil, err
	}
	// A date the environment sets is the same for every commit; otherwise
	// git dates each commit when it makes it, in the zone it gave now.
	if v, _ := envValue(env, "GIT_AUTHOR_DATE"); v != "" {
		w.authorDate = aDate
	}
	if v, _ := envValue(env, "GIT_COMMITTER_DATE"); v != "" {
		w.committerDate = cDate
	}
	// The zone of a date of now, from an identity git dated now.
	if w.authorDate == "" {
		_, w.tz, _ = strings.Cut(aDate, " ")
	} else {
		_, w.tz, _ = strings.Cut(cDate, " ")
	}

	if w.check, err = startLineProc(ctx, commonDir, env, "cat-file", "--batch-check"); err != nil {
		return nil, err
	}
	// GIT_FLUSH: one id a line as each is written, whatever git guesses
	// from its output.
	if w.write, err = startLineProc(ctx, commonDir, append(env, "GIT_FLUSH=1"),
		"hash-object", "-w", "--stdin-paths", "--no-filters", "-t", "commit"); err != nil {
		w.check.close()
		return nil, err
	}
	return w, nil
}

// Err is the error that stopped the writer, nil while it works.
func (w *CommitWriter) Err() error {
	if w == nil {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// Close stops the processes.
func (w *CommitWriter) Close() error {
	if w == nil {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err == nil {
		w.err = errors.New("commit writer closed")
	}
	e1, e2 := w.check.close(), w.write.close()
	if e1 != nil {
		return e1
	}
	return e2
}

// errNotPlain: a message commit-tree would rewrite.
var errNotPlain = errors.New("message is not plain UTF-8")

// Commit writes the commit of tree with parents and message msg, as `git
// commit-tree tree -p parent... -m msg` would with the writer's identity,
// and returns its id. tree may be any name of a tree (`<commit>^{tree}`).
// errNotPlain says that commit-tree must make this one.
func (w *CommitWriter) Commit(tree string, parents []string, msg string) (string, error) {
	if !plainUTF8(msg) {
		return "", errNotPlain
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return "", w.err
	}
	// What commit-tree checks before it writes: the tree is a tree, each
	// parent a commit (a tag is not peeled), all of them present. A
	// recorded save must never name a missing object.
	treeID, err := w.resolve(tree, "tree")
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString("tree " + treeID + "\n")
	seen := map[string]bool{}
	for _, p := range parents {
		id, err := w.resolve(p, "commit")
		if err != nil {
			return "", err
		}
		if seen[id] {
			continue // commit-tree drops a repeated parent
		}
		seen[id] = true
		b.WriteString("parent " + id + "\n")
	}
	now := ""
	if w.authorDate == "" || w.committerDate == "" {
		now = strconv.FormatInt(time.Now().Unix(), 10) + " " + w.tz
	}
	date := func(fixed string) string {
		if fixed != "" {
			return fixed
		}
		return now
	}
	b.WriteString("author " + w.author + " " + date(w.authorDate) + "\n")
	b.WriteString("committer " + w.committer + " " + date(w.committerDate) + "\n")
	b.WriteString("\n")
	// commit-tree -m ends the message with a newline.
	b.WriteString(msg)
	if msg != "" && !strings.HasSuffix(msg, "\n") {
		b.WriteString("\n")
	}
	data := []byte(b.String())

	// hash-object has read the file when it answers: the next commit
	// may rewrite it.
	if err := os.WriteFile(w.file, data, 0o644); err != nil {
		return "", err
	}
	ans, err := w.write.ask(cQuote(w.file))
	if err != nil {
		w.err = err
		return "", err
	}
	if want := objectID("commit", data, w.hashLen); ans != want {
		// Git stored other bytes than these (or answered out of step):
		// nothing it says can be trusted from here on.
		w.err = fmt.Errorf("git hash-object wrote %q for a commit whose id is %s", ans, want)
		return "", w.err
	}
	w.Written++
	return ans, nil
}

// resolve asks cat-file for the object name names; it must exist and be
// of type want.
func (w *CommitWriter) resolve(name, want string) (string, error) {
	if strings.ContainsAny(name, " \t\n\r") {
		return "", fmt.Errorf("not an object name: %q", name)
	}
	ans, err := w.check.ask(name)
	if err != nil {
		w.err = err
		return "", err
	}
	f := strings.Fields(ans)
	switch {
	case len(f) == 2 && (f[1] == "missing" || f[1] == "ambiguous"):
		return "", fmt.Errorf("%s: %s object", name, f[1])
	case len(f) != 3 || len(f[0]) != 2*w.hashLen:
		w.err = fmt.Errorf("git cat-file --batch-check: unexpected answer %q", ans)
		return "", w.err
	case f[1] != want:
		return "", fmt.Errorf("%s is a %s, not a %s", name, f[1], want)
	}
	return f[0], nil
}

// objectID is the id git gives an object of type typ holding data.
func objectID(typ string, data []byte, hashLen int) string {
	h := idxNewHash(hashLen)
	h.Write([]byte(typ + " " + strconv.Itoa(len(data)) + "\x00"))
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}

// plainUTF8 says whether commit-tree keeps s as it is: valid UTF-8 without
// the code points git's check refuses (surrogates, which Go's check refuses
// too, U+FDD0..U+FDEF and U+xxFFFE, U+xxFFFF), and no NUL. Anything else
// commit-tree rewrites (as if Latin-1) and is left to it.
func plainUTF8(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if r == 0 || r >= 0xfdd0 && r <= 0xfdef || r&0xfffe == 0xfffe {
			return false
		}
	}
	return true
}
