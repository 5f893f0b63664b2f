package lsrefs

import (
	"context"
	"os"
	"strings"

	"github.com/taskresume/git-taskresume/internal/gitcmd"
)

// configRe is the configuration that decides which URL ls-remote reads and
// how git reaches it: the remote's URLs, helper and upload-pack, the URL
// rewrites, and what may forbid or refuse the file transport.
const configRe = `^(remote\..*\.(url|vcs|uploadpack)|url\..*\.insteadof|protocol\.(file\.)?allow|transfer\.credentialsinurl)$`

// rewrite is one url.<base>.insteadOf base with its values, in git's order.
type rewrite struct {
	base      string
	insteadOf []string
}

// resolve decides how to list remote's refs: the upload-pack git itself
// would start for it, or nil and why ls-remote reads it instead. It
// follows git 2.39's remote.c, transport.c and connect.c: the remote's
// first URL (a name git has no URL for is itself the URL), rewritten by
// the longest url.<base>.insteadOf; a local path or file:// URL is read by
// upload-pack, remote.<name>.uploadpack when set.
func resolve(ctx context.Context, repo *gitcmd.Repo, remote string, patterns []string) (*endpoint, string, error) {
	if len(patterns) == 0 {
		return nil, "no pattern: every ref is asked for", nil
	}
	for _, p := range patterns {
		if !simplePattern(p) {
			return nil, "pattern " + p + " is not a refs/ path with '*' as its only wildcard", nil
		}
	}
	for _, v := range []string{"GIT_ALLOW_PROTOCOL", "GIT_PROTOCOL_FROM_USER", "GIT_TEST_CREDENTIALS_IN_URL"} {
		if _, set := os.LookupEnv(v); set {
			return nil, v + " is set", nil
		}
	}
	out, err := repo.Run(ctx, "config", "-z", "--get-regexp", configRe)
	if err != nil && gitcmd.ExitCode(err) != 1 {
		if ctx.Err() != nil {
			return nil, "", ctx.Err()
		}
		// ls-remote reads the same configuration: let it say what is wrong.
		return nil, "git config failed", nil
	}
	cfg, why := parseConfig(out, remote)
	if why != "" {
		return nil, why, nil
	}
	url, why := cfg.url(remote)
	if why != "" {
		return nil, why, nil
	}
	path, why := localPath(url)
	if why != "" {
		return nil, why, nil
	}
	ep := &endpoint{path: path, uploadPack: cfg.uploadPack}
	if ep.uploadPack != "" {
		// git starts it with its exec-path first on PATH.
		out, err := repo.Run(ctx, "--exec-path")
		if err != nil {
			if ctx.Err() != nil {
				return nil, "", ctx.Err()
			}
			return nil, "git --exec-path failed", nil
		}
		ep.execPath = strings.TrimSpace(string(out))
	}
	return ep, "", nil
}

// remoteConfig is what git's configuration says of one remote.
type remoteConfig struct {
	urls       []string
	uploadPack string
	rewrites   []*rewrite
}

// parseConfig reads `git config -z --get-regexp configRe` for remote, or
// says why ls-remote must read it.
func parseConfig(out []byte, remote string) (*remoteConfig, string) {
	cfg := &remoteConfig{}
	// git ignores remote.<name>.* where name begins with '/': such a
	// remote is a path.
	named := !strings.HasPrefix(remote, "/")
	for _, rec := range strings.Split(string(out), "\x00") {
		if rec == "" {
			continue
		}
		k, v, valued := strings.Cut(rec, "\n")
		if !valued {
			return nil, k + " has no value" // git refuses it: its words
		}
		switch {
		case named && k == "remote."+remote+".url":
			cfg.urls = append(cfg.urls, v)
		case named && k == "remote."+remote+".vcs":
			return nil, k + " is set: a remote helper reads it"
		case named && k == "remote."+remote+".uploadpack":
			cfg.uploadPack = v // the last one, as git's config
		case strings.HasPrefix(k, "url.") && strings.HasSuffix(k, ".insteadof"):
			base := k[len("url.") : len(k)-len(".insteadof")]
			var rw *rewrite
			for _, r := range cfg.rewrites {
				if r.base == base {
					rw = r
				}
			}
			if rw == nil {
				rw = &rewrite{base: base}
				cfg.rewrites = append(cfg.rewrites, rw)
			}
			rw.insteadOf = append(rw.insteadOf, v)
		case strings.HasPrefix(k, "protocol.") || strings.HasPrefix(k, "transfer."):
			return nil, k + " is set"
		}
	}
	return cfg, ""
}

// url is the URL ls-remote reads for remote: its first configured URL, or
// remote itself when it has none (a URL or path), rewritten by insteadOf.
func (cfg *remoteConfig) url(remote string) (string, string) {
	url := remote
	if len(cfg.urls) > 0 {
		url = cfg.urls[0]
	} else if !strings.ContainsRune(remote, '/') {
		// A name with no URL in the configuration: git looks for
		// .git/remotes/<name> and .git/branches/<name> first.
		return "", "remote " + remote + " has no URL in the configuration"
	}
	return aliasURL(url, cfg.rewrites), ""
}

// aliasURL rewrites url by the longest insteadOf value it begins with
// (the first base of that length, in the order bases first appear).
func aliasURL(url string, rewrites []*rewrite) string {
	best, n := (*rewrite)(nil), -1
	for _, r := range rewrites {
		for _, v := range r.insteadOf {
			if strings.HasPrefix(url, v) && len(v) > n {
				best, n = r, len(v)
			}
		}
	}
	if best == nil {
		return url
	}
	return best.base + url[n:]
}

// localPath is the repository path git would hand upload-pack for url, or
// why url is left to ls-remote: an absolute path, or a file:///
// URL without escapes. Everything else (ssh's host:path and ssh://,
// git://, http(s) and other remote helpers, a relative path, which git
// resolves from where it runs) goes to ls-remote.
func localPath(url string) (string, string) {
	path := url
	if rest, ok := strings.CutPrefix(url, "file://"); ok {
		if !strings.HasPrefix(rest, "/") || strings.Contains(rest, "%") {
			return "", "URL " + url + " is not a file:/// URL without escapes"
		}
		path = rest
	} else if !strings.HasPrefix(url, "/") {
		return "", "URL " + url + " is not a local absolute path (ssh, git://, http(s) and remote helpers are read with ls-remote)"
	}
	if strings.Contains(path, "@[") {
		return "", "path " + path + " holds \"@[\""
	}
	if path == url {
		if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() {
			return "", "path " + path + " is a file (a bundle)"
		}
	}
	return path, ""
}
