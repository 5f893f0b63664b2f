package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestCheckTag(t *testing.T) {
	for _, tag := range []string{"v1.4.0", "v0.0.1", "v1.5.0-rc.1", "v1.20.30", "v1.0.0-alpha.beta-1"} {
		var out, errb bytes.Buffer
		if code := run([]string{tag}, &out, &errb); code != 0 || errb.Len() != 0 {
			t.Errorf("%s: exit %d, stderr %q; want it accepted", tag, code, errb.String())
		}
		if want := "release " + strings.TrimPrefix(tag, "v") + "\n"; !strings.HasSuffix(out.String(), want) {
			t.Errorf("%s: stdout %q, want it to end %q", tag, out.String(), want)
		}
	}
	for tag, why := range map[string]string{
		"v1.4":         "not a semantic version",
		"v1.4.0.1":     "not a semantic version",
		"1.4.0":        "does not start with v",
		"v01.4.0":      "not a semantic version",
		"v1.4.0-rc.01": "not a semantic version",
		"v1.4.0+build": "build metadata",
		"V1.4.0":       "does not start with v",
		"vnext":        "not a semantic version",
		"v":            "not a semantic version",
		"":             "does not start with v",
		"v2.0.0":       "major version 2",
		"v10.20.30":    "major version 10",
		// Read back by the binaries as development builds.
		"v1.4.0-3-gabc1234":                    "reads as a commit",
		"v1.4.1-0.20261128120000-0123456789ab": "reads as a commit",
	} {
		var out, errb bytes.Buffer
		code := run([]string{tag}, &out, &errb)
		msg := errb.String()
		if code != 2 || out.Len() != 0 || strings.Count(msg, "\n") != 1 || !strings.HasPrefix(msg, "error: tag \""+tag+"\" ") ||
			!strings.Contains(msg, why) || !strings.Contains(msg, "v<major>.<minor>.<patch>") {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit 2 and one error line naming the tag, %q and the form wanted", tag, code, out.String(), msg, why)
		}
	}
	var out, errb bytes.Buffer
	if code := run(nil, &out, &errb); code != 2 || !strings.HasPrefix(errb.String(), "error: checktag takes the one tag") {
		t.Errorf("no tag: exit %d, stderr %q", code, errb.String())
	}
}
