package worktree

import (
	"bytes"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// IndexEntry is one entry of a git index file, with the stat data git
// recorded for it and the flags that tell whether that stat data can be
// trusted at all (git's own decoders hide some of these, hence this reader).
type IndexEntry struct {
	Path                                     string
	Mode                                     uint32 // 0100644, 0100755, 0120000 symlink, 0160000 gitlink
	OID                                      string // lowercase hex
	Size                                     uint32
	CtimeSec, CtimeNsec, MtimeSec, MtimeNsec uint32
	Dev, Ino, UID, GID                       uint32
	Stage                                    int
	// AssumeUnchanged is git's CE_VALID: git no longer looks at the file,
	// so its stat data proves nothing.
	AssumeUnchanged bool
	// SkipWorktree: git ignores the file in the worktree (sparse checkout
	// or `update-index --skip-worktree`).
	SkipWorktree bool
	// IntentToAdd: `git add -N`; the entry holds no content and is left
	// out of any tree git writes.
	IntentToAdd bool
}

// ErrIndexUnsupported is wrapped by ReadIndex's error for a valid index this
// reader does not decode (a split index, a sparse index, an unknown
// required extension or version): its entries are not all in the file, so a
// caller must learn them another way (for instance `git ls-files -s`).
var ErrIndexUnsupported = errors.New("unsupported index")

// Index entry flags as stored on disk.
const (
	idxFlagValid    = 0x8000 // CE_VALID: assume unchanged
	idxFlagExtended = 0x4000 // an extended flags word follows (v3+)
	idxNameMask     = 0x0fff
	idxExtSkip      = 0x4000 // in the extended word: skip-worktree
	idxExtIntent    = 0x2000 // in the extended word: intent-to-add
)

// HashLen is the length in bytes of an object id of a repository's object
// format (extensions.objectFormat): 32 for "sha256", else 20.
func HashLen(objectFormat string) int {
	if objectFormat == "sha256" {
		return 32
	}
	return 20
}

// BlobID is the object id git gives a blob holding data.
func BlobID(data []byte, hashLen int) string {
	h := idxNewHash(hashLen)
	h.Write([]byte("blob " + strconv.Itoa(len(data)) + "\x00"))
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}

func idxNewHash(hashLen int) hash.Hash {
	if hashLen == 32 {
		return sha256.New()
	}
	return sha1.New()
}

// ReadIndex parses a git index file of version 2, 3 or 4. hashLen is 20 for
// SHA-1 repositories and 32 for SHA-256 ones. Extensions are skipped. A
// missing file returns the os error (os.IsNotExist holds).
func ReadIndex(path string, hashLen int) ([]IndexEntry, error) {
	entries, _, err := idxReadFile(path, hashLen)
	return entries, err
}

// idxReadFile is ReadIndex that also returns the index file's mtime, taken
// from the open file so that it belongs to the content read: racy-git
// checks compare entries against it.
func idxReadFile(path string, hashLen int) ([]IndexEntry, time.Time, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, time.Time{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, time.Time{}, err
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, time.Time{}, err
	}
	entries, err := idxParse(data, hashLen)
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("%s: %w", path, err)
	}
	return entries, fi.ModTime(), nil
}

func idxCorrupt(format string, args ...any) error {
	return fmt.Errorf("corrupt index: "+format, args...)
}

// idxParse decodes an index file's bytes, laid out as git's index format
// documentation (gitformat-index) describes.
func idxParse(data []byte, hashLen int) ([]IndexEntry, error) {
	if hashLen != 20 && hashLen != 32 {
		return nil, fmt.Errorf("hash length %d: want 20 or 32", hashLen)
	}
	if len(data) < 12+hashLen {
		return nil, idxCorrupt("%d bytes", len(data))
	}
	if string(data[:4]) != "DIRC" {
		return nil, idxCorrupt("no DIRC signature")
	}
	version := binary.BigEndian.Uint32(data[4:])
	if version < 2 || version > 4 {
		return nil, fmt.Errorf("%w: version %d", ErrIndexUnsupported, version)
	}
	body, trailer := data[:len(data)-hashLen], data[len(data)-hashLen:]
	// index.skipHash writes a zero trailer; otherwise a mismatch is a torn
	// or damaged file whose stat data must not prove anything.
	if !bytes.Equal(trailer, make([]byte, hashLen)) {
		h := idxNewHash(hashLen)
		h.Write(body)
		if !bytes.Equal(h.Sum(nil), trailer) {
			return nil, idxCorrupt("checksum mismatch")
		}
	}

	count := binary.BigEndian.Uint32(data[8:])
	// Stat data, oid and flags, then at least a one-byte name and its NUL
	// (v4 adds a one-byte prefix length): a bound that keeps a bogus count
	// from allocating gigabytes.
	fixed := 40 + hashLen + 2
	if uint64(count)*uint64(fixed+2) > uint64(len(body)) {
		return nil, idxCorrupt("%d entries in %d bytes", count, len(body))
	}
	entries := make([]IndexEntry, 0, count)
	var prev []byte // v4: the previous entry's path
	emptyPath := false
	off := 12
	for i := uint32(0); i < count; i++ {
		start := off
		if len(body)-off < fixed {
			return nil, idxCorrupt("entry %d truncated", i)
		}
		b := body[off:]
		u32 := func(k int) uint32 { return binary.BigEndian.Uint32(b[4*k:]) }
		e := IndexEntry{
			CtimeSec: u32(0), CtimeNsec: u32(1), MtimeSec: u32(2), MtimeNsec: u32(3),
			Dev: u32(4), Ino: u32(5), Mode: u32(6), UID: u32(7), GID: u32(8), Size: u32(9),
			OID: hex.EncodeToString(b[40 : 40+hashLen]),
		}
		flags := binary.BigEndian.Uint16(b[40+hashLen:])
		off += fixed
		e.AssumeUnchanged = flags&idxFlagValid != 0
		e.Stage = int(flags>>12) & 3
		if flags&idxFlagExtended != 0 {
			if version < 3 {
				return nil, idxCorrupt("entry %d: extended flags in a version 2 index", i)
			}
			if len(body)-off < 2 {
				return nil, idxCorrupt("entry %d truncated", i)
			}
			ext := binary.BigEndian.Uint16(body[off:])
			off += 2
			e.SkipWorktree = ext&idxExtSkip != 0
			e.IntentToAdd = ext&idxExtIntent != 0
		}
		var name []byte
		if version == 4 {
			// The path is the previous one less its last `strip` bytes,
			// plus a NUL-terminated suffix.
			strip, n := idxVarint(body[off:])
			if n == 0 || strip > uint64(len(prev)) {
				return nil, idxCorrupt("entry %d: bad path prefix", i)
			}
			off += n
			nul := bytes.IndexByte(body[off:], 0)
			if nul < 0 {
				return nil, idxCorrupt("entry %d: unterminated path", i)
			}
			keep := len(prev) - int(strip)
			name = make([]byte, 0, keep+nul)
			name = append(append(name, prev[:keep]...), body[off:off+nul]...)
			off += nul + 1
			prev = name
		} else {
			// The name length is in the flags unless it does not fit
			// there; NUL padding then rounds the entry to 8 bytes.
			n := int(flags & idxNameMask)
			if n == idxNameMask {
				n = bytes.IndexByte(body[off:], 0)
			}
			if n < 0 || len(body)-off <= n || body[off+n] != 0 {
				return nil, idxCorrupt("entry %d: bad path", i)
			}
			name = body[off : off+n]
			off = start + (off-start+n+8)&^7
			if off > len(body) {
				return nil, idxCorrupt("entry %d truncated", i)
			}
		}
		if len(name) == 0 {
			// Only a split index has these (the name is in the shared
			// index); its "link" extension, after the entries, says so.
			emptyPath = true
		} else if e.Mode == 0o40000 || name[len(name)-1] == '/' {
			return nil, fmt.Errorf("%w: sparse index (directory entry %q)", ErrIndexUnsupported, name)
		}
		e.Path = string(name)
		entries = append(entries, e)
	}

	// Extensions: a four-byte signature and a 32-bit size each. An
	// upper-case first letter marks one a reader may ignore.
	for off < len(body) {
		if len(body)-off < 8 {
			return nil, idxCorrupt("truncated extension")
		}
		sig := string(body[off : off+4])
		size := binary.BigEndian.Uint32(body[off+4:])
		off += 8
		if uint64(size) > uint64(len(body)-off) {
			return nil, idxCorrupt("extension %q overruns the file", sig)
		}
		switch {
		case sig == "link":
			return nil, fmt.Errorf("%w: split index", ErrIndexUnsupported)
		case sig == "sdir":
			return nil, fmt.Errorf("%w: sparse index", ErrIndexUnsupported)
		case sig[0] < 'A' || sig[0] > 'Z':
			return nil, fmt.Errorf("%w: required extension %q", ErrIndexUnsupported, sig)
		}
		off += int(size)
	}
	if emptyPath {
		return nil, idxCorrupt("an entry has an empty path")
	}
	return entries, nil
}

// idxVarint decodes the offset encoding of index v4 path prefixes (each
// continuation adds one before shifting, so encodings are unique). It
// returns the value and the bytes used, 0 when malformed.
func idxVarint(b []byte) (uint64, int) {
	var v uint64
	for i, c := range b {
		if i > 0 {
			v++
		}
		if i >= 9 {
			return 0, 0
		}
		v = v<<7 | uint64(c&0x7f)
		if c&0x80 == 0 {
			return v, i + 1
		}
	}
	return 0, 0
}

// HiddenEdits counts the files of a worktree whose edits its index hides
// from `git status`: marked assume-unchanged, or skip-worktree while the
// file is there (a sparse checkout's absent files are no edit), and whose
// content differs from the index entry's. It reads only the index and the
// marked files; an index it cannot decode counts as none.
func HiddenEdits(dir, adminDir string, hashLen int) int {
	entries, err := ReadIndex(filepath.Join(adminDir, "index"), hashLen)
	if err != nil {
		return 0
	}
	n := 0
	for _, e := range entries {
		if !e.AssumeUnchanged && !e.SkipWorktree || e.Mode == 0o160000 {
			continue
		}
		p := filepath.Join(dir, filepath.FromSlash(e.Path))
		fi, err := os.Lstat(p)
		switch {
		case err != nil:
			if e.AssumeUnchanged && !e.SkipWorktree {
				n++ // deleted behind git's back
			}
		case fi.Mode()&os.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil || e.Mode != 0o120000 || BlobID([]byte(target), hashLen) != e.OID {
				n++
			}
		case fi.Mode().IsRegular():
			data, err := os.ReadFile(p)
			if err != nil || e.Mode == 0o120000 || BlobID(data, hashLen) != e.OID {
				n++
			}
		default:
			n++
		}
	}
	return n
}
