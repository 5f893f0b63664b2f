package worktree

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// DiskUsage counts what du counts: every block of every file once, hard
// links once, symbolic links as links (never what they point to).
func TestDiskUsageAgreesWithDu(t *testing.T) {
	du, err := exec.LookPath("du")
	if err != nil {
		t.Fatal("du not found: coreutils are part of every machine this runs on")
	}
	dir := t.TempDir()
	outside := t.TempDir()
	big := make([]byte, 300_000)
	for i := range big {
		big[i] = byte(i)
	}
	write := func(p string, data []byte) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(dir, "a.txt"), []byte("hello\n"))
	write(filepath.Join(dir, "node_modules", "x", "big.bin"), big)
	write(filepath.Join(outside, "huge.bin"), append(big, big...))
	if err := os.Link(filepath.Join(dir, "node_modules", "x", "big.bin"), filepath.Join(dir, "hardlink.bin")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "link-to-outside")); err != nil {
		t.Fatal(err)
	}
	got, err := DiskUsage(dir)
	if err != nil {
		t.Fatal(err)
	}
	// BLOCKSIZE=512: GNU and BSD du (macOS has no -B) both count in the
	// 512-byte units of st_blocks, exactly.
	cmd := exec.Command(du, "-s", dir)
	cmd.Env = append(os.Environ(), "BLOCKSIZE=512")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	blocks, err := strconv.ParseInt(strings.Fields(string(out))[0], 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	if want := blocks * 512; got != want {
		t.Errorf("DiskUsage = %d, BLOCKSIZE=512 du -s = %d blocks of 512 (%d)", got, blocks, want)
	}
	if got < int64(len(big)) || got >= int64(3*len(big)) {
		t.Errorf("DiskUsage = %d: the hard link counted twice, or the link followed?", got)
	}
}
