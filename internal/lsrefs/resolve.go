package lsrefs

import (
	"context"
	"os"
	"strings"

	"github.com/taskresume/git-taskresume/internal/gitcmd"
)

// configRe is the configuration that decides which URL ls-remote reads and
// how git reaches it: the remote's URLs, helper and upload-pack, the URL
// rewrites, the ssh command and its variant, and what may forbid the file
// or ssh transport or refuse a URL.
const configRe = `^(remote\..*\.(url|vcs|uploadpack)|url\..*\.insteadof|core\.sshcommand|ssh\.variant|protocol\.(file\.|ssh\.)?allow|transfer\.credentialsinurl)$`

// rewrite is one url.<base>.insteadOf base with its values, in git's order.
type rewrite struct {
	base      string
	insteadOf []string
}

// resolve decides how to list remote's refs: the process git itself would
// start to reach it, or nil and why ls-remote reads it instead. It
// follows git 2.39's remote.c, transport.c and connect.c: the remote's
// first URL (a name git has no URL for is itself the URL), rewritten by
// the longest url.<base>.insteadOf; a local path or file:// URL is read by
// upload-pack (remote.<name>.uploadpack when set), an ssh URL by ssh
// running it on the host. Where git would refuse (a transport forbidden,
// a URL it rejects), ls-remote is left to say so in its own words.
func resolve(ctx context.Context, repo *gitcmd.Repo, remote string, patterns []string) (*endpoint, string, error) {
	if len(patterns) == 0 {
		return nil, "no pattern: every ref is asked for", nil
	}
	for _, p := range patterns {
		if !simplePattern(p) {
			return nil, "pattern " + p + " is not a refs/ path with '*' as its only wildcard", nil
		}
	}
	// GIT_CONFIG makes `git config` (and no other command) read that file
	// instead of the configuration: the remote and the ssh command read
	// below would not be ls-remote's.
	for _, v := range []string{"GIT_ALLOW_PROTOCOL", "GIT_PROTOCOL_FROM_USER", "GIT_TEST_CREDENTIALS_IN_URL", "GIT_CONFIG"} {
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
	prog := "git-upload-pack"
	if cfg.uploadPack != "" {
		prog = cfg.uploadPack
	}
	path, target, why := transport(url)
	if why != "" {
		return nil, why, nil
	}
	var execPath string
	if cfg.uploadPack != "" || target != nil {
		// git starts what is not itself with its exec-path first on PATH.
		out, err := repo.Run(ctx, "--exec-path")
		if err != nil {
			if ctx.Err() != nil {
				return nil, "", ctx.Err()
			}
			return nil, "git --exec-path failed", nil
		}
		execPath = strings.TrimSpace(string(out))
	}
	wd, err := workDir(repo)
	if err != nil {
		return nil, "no working directory: " + err.Error(), nil
	}
	var ep *endpoint
	switch {
	case target != nil:
		if ep, why = cfg.sshEndpoint(ctx, target, prog, execPath, wd); ep == nil {
			if ctx.Err() != nil {
				return nil, "", ctx.Err()
			}
			return nil, why, nil
		}
	case cfg.uploadPack != "":
		// As git's connect.c: "<uploadpack> '<path>'" through the shell.
		ep = &endpoint{argv: shellCommand([]string{prog + " " + sqQuote(path)}), protocol: true,
			trace: []string{"upload-pack", "(" + prog + ")", path}}
	default:
		ep = &endpoint{argv: []string{"git", "upload-pack", path}, protocol: true, trace: []string{"upload-pack", path}}
	}
	ep.execPath, ep.dir = execPath, wd
	return ep, "", nil
}

// remoteConfig is what git's configuration says of one remote.
type remoteConfig struct {
	urls       []string
	uploadPack string
	// uploadPackSet: remote.<name>.uploadpack was read (its first value).
	uploadPackSet bool
	rewrites      []*rewrite
	// core.sshCommand and ssh.variant, when set.
	sshCommand, sshVariant *string
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
			// git takes the first ("more than one uploadpack given,
			// using the first"), an empty one included: it then runs
			// " '<path>'", which is left to git itself.
			if !cfg.uploadPackSet && v == "" {
				return nil, k + " is empty"
			}
			if !cfg.uploadPackSet {
				cfg.uploadPack, cfg.uploadPackSet = v, true
			}
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
		case k == "core.sshcommand":
			cfg.sshCommand = &v
		case k == "ssh.variant":
			cfg.sshVariant = &v
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

// transport says how git reaches url (transport.c's transport_get, then
// connect.c's parse_connect_url): by starting upload-pack on a local path
// (path), or over ssh (target), or neither here, and why: a remote
// helper (http(s) among them, and "<helper>::<address>"), git://, a
// bundle or a file, a relative path (git resolves it from where it runs),
// a URL with %-escapes, and what git refuses.
func transport(url string) (path string, target *sshTarget, why string) {
	if helper, ok := helperPrefix(url); ok {
		return "", nil, "URL " + url + " is read by the remote helper " + helper
	}
	if strings.HasPrefix(url, "rsync:") {
		return "", nil, "URL " + url + " is rsync, which git refuses"
	}
	if urlIsLocalNotSSH(url) {
		if fi, err := os.Stat(url); err == nil && fi.Mode().IsRegular() {
			return "", nil, "path " + url + " is a file (a bundle)"
		}
	}
	if scheme, rest, ok := isURL(url); ok {
		switch scheme {
		case "file":
			// "file:///path": the path is what follows the host, which
			// must be empty here.
			if !strings.HasPrefix(rest, "/") || strings.Contains(rest, "%") {
				return "", nil, "URL " + url + " is not a file:/// URL without escapes"
			}
			path = rest
		case "ssh", "git+ssh", "ssh+git":
			return sshURL(url, rest)
		case "git":
			return "", nil, "URL " + url + " is git://, read by ls-remote"
		default:
			return "", nil, "URL " + url + " is read by the remote helper " + scheme
		}
	} else if !urlIsLocalNotSSH(url) {
		return scpLike(url)
	} else if path = url; !strings.HasPrefix(path, "/") {
		return "", nil, "path " + url + " is relative: git resolves it from where it runs"
	}
	if strings.Contains(path, "@[") || strings.HasPrefix(path, "-") {
		return "", nil, "path " + path + " is one git reads its own way"
	}
	return path, nil, ""
}

// isURLSchemeChar is git's is_urlschemechar: a letter or digit first,
// then letters, digits, '+', '-' and '.'.
func isURLSchemeChar(first bool, c byte) bool {
	alnum := (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
	return alnum || (!first && (c == '+' || c == '-' || c == '.'))
}

// isURL is git's is_url: "<scheme>://"; it returns the scheme and what
// follows "://".
func isURL(url string) (scheme, rest string, ok bool) {
	i := 0
	for i < len(url) && url[i] != ':' {
		if !isURLSchemeChar(i == 0, url[i]) {
			return "", "", false
		}
		i++
	}
	if i == 0 || !strings.HasPrefix(url[i:], "://") {
		return "", "", false
	}
	return url[:i], url[i+3:], true
}

// helperPrefix is the helper of "<helper>::<address>".
func helperPrefix(url string) (string, bool) {
	i := 0
	for i < len(url) && isURLSchemeChar(i == 0, url[i]) {
		i++
	}
	return url[:i], strings.HasPrefix(url[i:], "::")
}

// urlIsLocalNotSSH is git's url_is_local_not_ssh (without Windows drive
// letters): no ':' before the first '/'.
func urlIsLocalNotSSH(url string) bool {
	colon, slash := strings.IndexByte(url, ':'), strings.IndexByte(url, '/')
	return colon < 0 || (slash >= 0 && slash < colon)
}
