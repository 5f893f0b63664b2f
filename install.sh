#!/usr/bin/env bash
# Builds git-taskresume and git-taskclean and installs them under $PREFIX
# (default $HOME/.local): binaries in $PREFIX/bin, section-1 man pages in
# $PREFIX/share/man/man1, so that `git taskresume --help` (which git turns
# into `man git-taskresume`) opens a real page. Needs only Go and git.
set -euo pipefail

PREFIX=${PREFIX:-$HOME/.local}
here=$(cd "$(dirname "$0")" && pwd)

for tool in go git; do
  command -v "$tool" >/dev/null || { echo "error: $tool is not installed; install it and rerun ./install.sh" >&2; exit 2; }
done

version=$(git -C "$here" describe --always --dirty 2>/dev/null || echo dev)
mod=github.com/taskresume/git-taskresume/internal/cli
bindir="$PREFIX/bin"
mandir="$PREFIX/share/man/man1"
mkdir -p "$bindir" "$mandir"

(cd "$here" && GOBIN="$bindir" go install \
  -ldflags "-X $mod/taskresume.Version=$version -X $mod/taskclean.Version=$version" ./cmd/...)

for cmd in git-taskresume git-taskclean; do
  "$bindir/$cmd" --man > "$mandir/$cmd.1"
done

# Shell completion (bash): git's own completion calls _git_taskresume and
# _git_taskclean when they exist.
compdir="$PREFIX/share/bash-completion/completions"
if [ -f "$here/completion/git-taskresume.bash" ]; then
  mkdir -p "$compdir"
  cp "$here/completion/git-taskresume.bash" "$compdir/git-taskresume"
  cp "$here/completion/git-taskresume.bash" "$compdir/git-taskclean"
fi

echo "installed git-taskresume and git-taskclean $version:"
echo "  $bindir/git-taskresume"
echo "  $bindir/git-taskclean"
echo "  $mandir/git-taskresume.1"
echo "  $mandir/git-taskclean.1"
case ":$PATH:" in
  *":$bindir:"*) ;;
  *) echo "warning: $bindir is not on PATH; add it (export PATH=\"$bindir:\$PATH\") so that 'git taskresume' works" >&2 ;;
esac
