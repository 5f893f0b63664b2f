package lsrefs

import (
	"context"
	"os"
	"os/exec"
	"path"
	"strings"
)

// sshTarget is where an ssh URL leads: git's hostandport and path.
type sshTarget struct{ host, path string }

// sshURL reads "ssh://[user@]host[:port]/path" (rest follows "://") as
// parse_connect_url does: the path from the first '/' after the host (a
// bracketed host may hold ':' and '/'), "/~user/..." naming "~user/...".
func sshURL(url, rest string) (string, *sshTarget, string) {
	if strings.Contains(url, "%") {
		return "", nil, "URL " + url + " has %-escapes"
	}
	end := hostEnd(rest)
	i := strings.IndexByte(rest[end:], '/')
	if i < 0 {
		return "", nil, "URL " + url + " names no path"
	}
	return sshPath(url, rest[:end+i], rest[end+i:])
}

// scpLike reads "[user@]host:path" as parse_connect_url does.
func scpLike(url string) (string, *sshTarget, string) {
	end := hostEnd(url)
	i := strings.IndexByte(url[end:], ':')
	if i < 0 {
		return "", nil, "URL " + url + " names no path"
	}
	return sshPath(url, url[:end+i], url[end+i+1:])
}

func sshPath(url, host, p string) (string, *sshTarget, string) {
	if p == "" || strings.HasPrefix(p, "-") {
		return "", nil, "URL " + url + " has a path git refuses"
	}
	if len(p) > 1 && p[1] == '~' {
		p = p[1:]
	}
	return "", &sshTarget{host: host, path: p}, ""
}

// hostEnd is git's host_end without removing brackets: where to look for
// the end of the host, past a "[...]" (after "@" when there is one).
func hostEnd(host string) int {
	start := 0
	if i := strings.Index(host, "@["); i >= 0 {
		start = i + 1
	}
	if start < len(host) && host[start] == '[' {
		if j := strings.IndexByte(host[start+1:], ']'); j >= 0 {
			return start + 1 + j
		}
	}
	return 0
}

// hostAndPort splits git's hostandport as get_host_and_port, then get_port,
// do: brackets removed, a valid port after the last part's ':' taken off.
func hostAndPort(h string) (host, port string) {
	host, rest, bracketed := h, h, false
	start := 0
	if i := strings.Index(h, "@["); i >= 0 {
		start = i + 1
	}
	if start < len(h) && h[start] == '[' {
		if j := strings.IndexByte(h[start+1:], ']'); j >= 0 {
			closing := start + 1 + j
			host, rest, bracketed = h[:start]+h[start+1:closing], h[closing+1:], true
		}
	}
	if c := strings.IndexByte(rest, ':'); c >= 0 {
		if validPort(rest[c+1:]) {
			port = rest[c+1:]
			if !bracketed {
				host = h[:c]
			}
		} else if c+1 == len(rest) && !bracketed {
			host = h[:c]
		}
	}
	if port == "" {
		if c := strings.IndexByte(host, ':'); c >= 0 && validPort(host[c+1:]) {
			host, port = host[:c], host[c+1:]
		}
	}
	return host, port
}

// validPort is git's test of a port: strtol reads all of s (leading space
// and a sign allowed), into 0..65535.
func validPort(s string) bool {
	i := 0
	for i < len(s) && strings.IndexByte(" \t\n\v\f\r", s[i]) >= 0 {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	j := i
	n := 0
	for j < len(s) && s[j] >= '0' && s[j] <= '9' {
		if n < 1<<20 {
			n = n*10 + int(s[j]-'0')
		}
		j++
	}
	if j == i || j != len(s) {
		return false
	}
	if neg {
		n = -n
	}
	return n >= 0 && n < 65536
}

type sshVariant int

const (
	variantAuto sshVariant = iota
	variantSimple
	variantSSH
	variantPlink
	variantPutty
	variantTortoisePlink
)

// sshProgram is the ssh git runs and whether through the shell:
// GIT_SSH_COMMAND, core.sshCommand (both shell command lines), GIT_SSH (a
// program), else ssh.
func (cfg *remoteConfig) sshProgram() (string, bool) {
	if v, ok := os.LookupEnv("GIT_SSH_COMMAND"); ok {
		return v, true
	}
	if cfg.sshCommand != nil {
		return *cfg.sshCommand, true
	}
	if v, ok := os.LookupEnv("GIT_SSH"); ok {
		return v, false
	}
	return "ssh", false
}

// variant is git's determine_ssh_variant: GIT_SSH_VARIANT, else
// ssh.variant, else the program's name (its first word for a command
// line); auto when none says.
func (cfg *remoteConfig) variant(ssh string, shell bool) sshVariant {
	v, set := os.LookupEnv("GIT_SSH_VARIANT")
	if !set && cfg.sshVariant != nil {
		v, set = *cfg.sshVariant, true
	}
	if set {
		switch v {
		case "auto":
		case "plink":
			return variantPlink
		case "putty":
			return variantPutty
		case "tortoiseplink":
			return variantTortoisePlink
		case "simple":
			return variantSimple
		default:
			return variantSSH
		}
	}
	name := ssh
	if shell {
		var ok bool
		if name, ok = firstWord(ssh); !ok {
			return variantAuto
		}
	}
	switch strings.ToLower(path.Base(name)) {
	case "ssh", "ssh.exe":
		return variantSSH
	case "plink", "plink.exe":
		return variantPlink
	case "tortoiseplink", "tortoiseplink.exe":
		return variantTortoisePlink
	}
	return variantAuto
}

// firstWord is the first word of a command line as git's split_cmdline
// splits it (quotes, backslashes outside single quotes); false when the
// line does not split (an unclosed quote, a backslash at the end).
func firstWord(line string) (string, bool) {
	var word strings.Builder
	var quoted byte
	first := true
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quoted == 0 && strings.IndexByte(" \t\n\r", c) >= 0:
			first = false
			for i+1 < len(line) && strings.IndexByte(" \t\n\r", line[i+1]) >= 0 {
				i++
			}
		case quoted == 0 && (c == '\'' || c == '"'):
			quoted = c
		case c == quoted:
			quoted = 0
		default:
			if c == '\\' && quoted != '\'' {
				i++
				if i == len(line) {
					return "", false
				}
				c = line[i]
			}
			if first {
				word.WriteByte(c)
			}
		}
	}
	return word.String(), quoted == 0
}

// sshOptions are git's push_ssh_options for protocol v2: OpenSSH is told
// to pass GIT_PROTOCOL on (and given it), TortoisePlink -batch, the port
// with -p or -P; the simple variant takes no port (git refuses: ok false).
func sshOptions(v sshVariant, port string) (opts []string, protocol, ok bool) {
	if v == variantSSH {
		opts, protocol = append(opts, "-o", "SendEnv=GIT_PROTOCOL"), true
	}
	if v == variantTortoisePlink {
		opts = append(opts, "-batch")
	}
	if port != "" {
		switch v {
		case variantSimple:
			return nil, false, false
		case variantSSH:
			opts = append(opts, "-p", port)
		default:
			opts = append(opts, "-P", port)
		}
	}
	return opts, protocol, true
}

// sshEndpoint is the ssh git's fill_ssh_args starts for t, running prog
// on the remote host, or nil and why not here. An ssh whose variant git
// cannot tell by name is probed as git probes it (`<ssh> -G ...`:
// OpenSSH when that succeeds, else the simple variant).
func (cfg *remoteConfig) sshEndpoint(ctx context.Context, t *sshTarget, prog, execPath, wd string) (*endpoint, string) {
	host, port := hostAndPort(t.host)
	if strings.HasPrefix(host, "-") {
		return nil, "ssh host " + host + " is one git refuses"
	}
	ssh, shell := cfg.sshProgram()
	if ssh == "" {
		return nil, "the ssh command is empty"
	}
	v := cfg.variant(ssh, shell)
	if v == variantAuto {
		opts, _, _ := sshOptions(variantSSH, port)
		argv := append(append([]string{ssh, "-G"}, opts...), host)
		if shell {
			argv = shellCommand(argv)
		}
		v = variantSimple
		if probe(ctx, argv, execPath, wd) {
			v = variantSSH
		}
	}
	opts, protocol, ok := sshOptions(v, port)
	if !ok {
		return nil, "the simple ssh variant cannot set port " + port
	}
	argv := append(append([]string{ssh}, opts...), host, prog+" "+sqQuote(t.path))
	if shell {
		argv = shellCommand(argv)
	}
	return &endpoint{argv: argv, protocol: protocol, trace: []string{"upload-pack", "(ssh " + host + ")", t.path}}, ""
}

// probe runs git's variant probe: true when it exits 0. It has git's
// environment plus GIT_PROTOCOL, and no input or output.
func probe(ctx context.Context, argv []string, execPath, wd string) bool {
	env := append(os.Environ(), "LC_ALL=C", "GIT_TERMINAL_PROMPT=0", "GIT_PAGER=cat", "GIT_ADVICE=0",
		"GIT_OPTIONAL_LOCKS=0", "GIT_EXEC_PATH="+execPath, "PATH="+execPATH(execPath), "GIT_PROTOCOL=version=2")
	prog, ok := lookPath(argv[0], execPATH(execPath), wd)
	if !ok {
		return false
	}
	cmd := exec.CommandContext(ctx, prog, argv[1:]...)
	cmd.Env, cmd.Dir = env, wd
	err := cmd.Run()
	if isENOEXEC(err) {
		cmd = exec.CommandContext(ctx, shellPath, append([]string{prog}, argv[1:]...)...)
		cmd.Env, cmd.Dir = env, wd
		err = cmd.Run()
	}
	return err == nil
}
