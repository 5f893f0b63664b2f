package worktree

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// GitDirOf reads the worktree's .git file to find its private git directory
// (index, HEAD), without starting git.
func GitDirOf(path string) (string, error) {
	data, err := os.ReadFile(filepath.Join(path, ".git"))
	if err != nil {
		return "", err
	}
	s := strings.TrimSpace(string(data))
	if !strings.HasPrefix(s, "gitdir: ") {
		return "", fmt.Errorf("%s/.git is not a gitdir file", path)
	}
	dir := strings.TrimPrefix(s, "gitdir: ")
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(path, dir)
	}
	return dir, nil
}
