package testbin

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// OldGit writes a git that passes everything to the installed one but
// says it is version (an empty version: a git that prints no version) and
// refuses `worktree list ... -z` as git before 2.36 does; echoPathFormat
// makes its rev-parse print --path-format=absolute back, as git before
// 2.31 does with an option it does not know. It returns the folder that
// holds it, to put first on PATH.
func OldGit(t testing.TB, version string, echoPathFormat bool) string {
	t.Helper()
	real, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}
	script := "#!/bin/sh\n" +
		"if [ \"$1\" = version ]; then echo 'git version " + version + "'; exit 0; fi\n" +
		"case \" $* \" in *\" worktree list \"*\" -z \"*) echo \"error: unknown switch \\`z'\" >&2; exit 129;; esac\n"
	if echoPathFormat {
		script += "for a; do shift; if [ \"$a\" = --path-format=absolute ]; then echo \"$a\"; else set -- \"$@\" \"$a\"; fi; done\n"
	}
	script += "exec '" + real + "' \"$@\"\n"
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "git"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return bin
}
