#!/usr/bin/env bash
# Installs git-taskresume and git-taskclean under $PREFIX (default
# $HOME/.local): binaries in $PREFIX/bin, section-1 man pages in
# $PREFIX/share/man/man1 (so that `git taskresume --help`, which git turns
# into `man git-taskresume`, opens a real page), and the shell completions:
# bash in $PREFIX/share/bash-completion/completions, zsh (_git-*) in
# $PREFIX/share/zsh/site-functions, fish (*.fish) in
# $PREFIX/share/fish/vendor_completions.d (and vendor_conf.d, for fish
# releases that do not hand `git taskresume` to git-taskresume's completion).
#
#   ./install.sh                   in a source checkout (go.mod beside this
#                                  script): builds with Go; needs Go and git.
#                                  The commands say the release tag they are
#                                  built at (a clean checkout of v1.4.0 says
#                                  1.4.0), else dev+<commit>
#   ./install.sh ARCHIVE.tar.gz    from a release archive
#   ./install.sh --archive ARCHIVE.tar.gz
#                                  (git-taskresume_<version>_<os>_<arch>.tar.gz);
#                                  needs tar (and the gzip GNU tar calls),
#                                  no Go and no network
#   ./install.sh                   inside an unpacked release archive (the
#                                  binaries beside this script): the same
#
# A release archive is checked against checksums.txt when that file sits
# beside it (sha256sum or shasum is then needed). Bad input (a missing
# archive, one without the binaries or for another machine, a checksum
# mismatch) is refused with one "error:" line and exit code 2, before
# anything is installed.
set -euo pipefail

PREFIX=${PREFIX:-$HOME/.local}
here=$(cd "$(dirname "$0")" && pwd)
cmds=(git-taskresume git-taskclean)

die() { echo "error: $*" >&2; exit 2; }

# usage prints the header comment above.
usage() { sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; }

archive=
while [ $# -gt 0 ]; do
  case $1 in
    -h|--help) usage; exit 0 ;;
    --archive) [ $# -ge 2 ] || die "--archive needs a file: ./install.sh --archive git-taskresume_<version>_<os>_<arch>.tar.gz"
               archive=$2; shift 2 ;;
    --archive=*) archive=${1#--archive=}; shift ;;
    -*) die "unknown option $1; run ./install.sh --help" ;;
    *) [ -z "$archive" ] || die "more than one archive given ($archive, $1); name one"
       archive=$1; shift ;;
  esac
done

bindir="$PREFIX/bin"
mandir="$PREFIX/share/man/man1"
bashdir="$PREFIX/share/bash-completion/completions"
zshdir="$PREFIX/share/zsh/site-functions"
fishdir="$PREFIX/share/fish/vendor_completions.d"
fishconfdir="$PREFIX/share/fish/vendor_conf.d"

# host_target prints this machine as a release archive names it (linux_amd64).
host_target() {
  local os arch
  os=$(uname -s | tr '[:upper:]' '[:lower:]')
  case $(uname -m) in
    x86_64|amd64) arch=amd64 ;;
    aarch64|arm64) arch=arm64 ;;
    *) arch=$(uname -m) ;;
  esac
  echo "${os}_${arch}"
}

# verify_checksum ARCHIVE: against checksums.txt beside it, when there is one.
verify_checksum() {
  local file=$1 dir name sums want got sum entry
  dir=$(dirname "$file")
  name=$(basename "$file")
  sums="$dir/checksums.txt"
  [ -f "$sums" ] || return 0
  want=
  # `|| [ -n "$sum" ]` also reads a last line without a newline.
  while read -r sum entry || [ -n "$sum" ]; do
    # sha256sum marks a name read in binary mode with "*".
    if [ "${entry#\*}" = "$name" ]; then want=$sum; break; fi
  done < "$sums"
  [ -n "$want" ] || die "$sums has no line for $name; download the archive and checksums.txt of the same release again"
  if command -v sha256sum >/dev/null; then
    got=$(sha256sum < "$file")
  elif command -v shasum >/dev/null; then
    got=$(shasum -a 256 < "$file")
  else
    die "neither sha256sum nor shasum is installed to check $name against checksums.txt; install one, or move checksums.txt away to skip the check"
  fi
  got=${got%% *}
  [ "$got" = "$want" ] || die "$name does not match its sha256 in $sums (got $got, want $want); download it again"
}

# install_completions DIR: every completion file of DIR, by shell.
install_completions() {
  local dir=$1 f
  if [ -f "$dir/git-taskresume.bash" ]; then
    # git's own bash completion calls _git_taskresume and _git_taskclean
    # when they exist; bash-completion loads the file by command name.
    mkdir -p "$bashdir"
    cp "$dir/git-taskresume.bash" "$bashdir/git-taskresume"
    cp "$dir/git-taskresume.bash" "$bashdir/git-taskclean"
  fi
  for f in "$dir"/_git-*; do
    [ -f "$f" ] || continue
    mkdir -p "$zshdir"
    cp "$f" "$zshdir/"
  done
  for f in "$dir"/*.fish; do
    [ -f "$f" ] || continue
    # vendor_completions.d completes git-taskresume itself; fish reads it
    # only for that command, so `git taskresume` on fish 3.6.0 (and before
    # 3.2) needs the files read at start too, from vendor_conf.d.
    mkdir -p "$fishdir" "$fishconfdir"
    cp "$f" "$fishdir/"
    cp "$f" "$fishconfdir/"
  done
}

# install_prebuilt DIR: the binaries, man pages and completions of an
# unpacked release archive.
install_prebuilt() {
  local dir=$1 cmd
  for cmd in "${cmds[@]}"; do
    [[ -f "$dir/$cmd" && -x "$dir/$cmd" ]] ||
      die "$origin holds no executable $cmd; use a git-taskresume_<version>_<os>_<arch>.tar.gz release archive"
  done
  # A binary for another system or processor cannot be executed here: the
  # shell says so with 126 (or 127), whatever -h itself would answer.
  local rc=0
  "$dir/git-taskresume" -h >/dev/null 2>&1 || rc=$?
  [ "$rc" -lt 126 ] ||
    die "the binaries of $origin do not run on this machine ($(host_target)); use the archive for $(host_target)"
  mkdir -p "$bindir" "$mandir"
  for cmd in "${cmds[@]}"; do
    # Copy beside, then rename: a running copy of the old binary is not disturbed.
    cp "$dir/$cmd" "$bindir/.$cmd.new"
    chmod 0755 "$bindir/.$cmd.new"
    mv -f "$bindir/.$cmd.new" "$bindir/$cmd"
    if [ -f "$dir/man/$cmd.1" ]; then
      cp "$dir/man/$cmd.1" "$mandir/$cmd.1"
      chmod 0644 "$mandir/$cmd.1"
    else
      "$bindir/$cmd" --man > "$mandir/$cmd.1"
    fi
  done
  install_completions "$dir/completion"
}

if [ -n "$archive" ]; then
  # From a release archive.
  [ -f "$archive" ] || die "no archive $archive; download git-taskresume_<version>_$(host_target).tar.gz from the releases page"
  archive=$(cd "$(dirname "$archive")" && pwd)/$(basename "$archive")
  origin=$archive
  name=$(basename "$archive")
  version=unknown
  case $name in
    git-taskresume_*_*_*.tar.gz)
      target=${name%.tar.gz}
      target=${target#git-taskresume_}
      version=${target%_*_*}
      target=${target#"$version"_}
      [ "$target" = "$(host_target)" ] ||
        die "$name is for $target, this machine is $(host_target); use git-taskresume_${version}_$(host_target).tar.gz"
      ;;
  esac
  command -v tar >/dev/null || die "tar is not installed; install it and rerun ./install.sh"
  verify_checksum "$archive"
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  if ! tar -xzf "$archive" -C "$work" 2>/dev/null; then
    # GNU tar runs gzip for -z (bsdtar, as on macOS, does not): name the
    # missing program rather than blame the archive.
    command -v gzip >/dev/null ||
      die "gzip is not installed, and tar needs it to unpack $name; install gzip and rerun ./install.sh"
    die "cannot unpack $name as a .tar.gz; download it again"
  fi
  root=$work
  # goreleaser wraps the files in one directory named like the archive.
  if [ ! -e "$root/git-taskresume" ]; then
    shopt -s nullglob
    dirs=("$work"/*/)
    shopt -u nullglob
    [ ${#dirs[@]} -eq 1 ] && root=${dirs[0]%/}
  fi
  install_prebuilt "$root"
elif [ ! -f "$here/go.mod" ] && [ -e "$here/git-taskresume" ]; then
  # Run from inside an unpacked release archive.
  origin=$here
  version=$(basename "$here")
  case $version in
    git-taskresume_*_*_*) version=${version#git-taskresume_}; version=${version%_*_*} ;;
    *) version=unknown ;;
  esac
  install_prebuilt "$here"
else
  # From source.
  [ -f "$here/go.mod" ] || die "$here is neither a source checkout nor an unpacked release archive; pass the archive: ./install.sh git-taskresume_<version>_<os>_<arch>.tar.gz"
  for tool in go git; do
    command -v "$tool" >/dev/null || die "$tool is not installed; install it and rerun ./install.sh"
  done

  # The version is stamped only at a release: HEAD exactly at a release tag
  # (vMAJOR.MINOR.PATCH, a pre-release after a dash, as the release workflow
  # accepts: v9.8 is none) and a work tree with nothing changed. Any other
  # checkout is stamped with nothing and says dev+<commit> (.dirty with
  # changes) from the build's own VCS record: -buildvcs=auto on the command
  # line undoes a -buildvcs=false in GOFLAGS. Changes that record misses
  # (it asks git status, which user config can blind: untracked files not
  # shown, skip-worktree and assume-unchanged entries, an ignored .go file)
  # are looked for here, and stamp dev+<commit>.dirty outright.
  stamp=github.com/taskresume/git-taskresume/internal/version.stamped
  changed() {
    [ -n "$(git -C "$here" status --porcelain --untracked-files=normal --ignore-submodules=none)" ] ||
      git -C "$here" ls-files -v | grep -q '^[a-zS] ' ||
      [ -n "$(git -C "$here" ls-files --others --ignored --exclude-standard -- '*.go' go.mod go.sum)" ]
  }
  ldflags=
  if changed; then
    commit=$(git -C "$here" rev-parse --short=12 HEAD 2>/dev/null) && ldflags="-X $stamp=dev+$commit.dirty"
  elif tag=$(git -C "$here" describe --exact-match --tags --match 'v[0-9]*' 2>/dev/null) &&
    [[ $tag =~ ^v(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z.-]+)?$ ]]; then
    ldflags="-X $stamp=$tag"
  fi
  mkdir -p "$bindir" "$mandir"

  (cd "$here" && GOBIN="$bindir" go install -buildvcs=auto -ldflags "$ldflags" ./cmd/...)

  # What the binary says it is, as --version prints it.
  version=$("$bindir/git-taskresume" --version)
  version=${version#git-taskresume }

  for cmd in "${cmds[@]}"; do
    "$bindir/$cmd" --man > "$mandir/$cmd.1"
  done
  install_completions "$here/completion"
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
