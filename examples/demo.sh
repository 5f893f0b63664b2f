#!/usr/bin/env bash
# Replays the reference crash-and-resume example (a seven-task plan) in a
# throw-away repository and shows what git taskresume and git taskclean say.
#
#   examples/demo.sh            build the crash, report, clean, report again
#   examples/demo.sh --keep     build the crash, report, show what a clean would
#                               do (--dry-run), and stop there: the repository
#                               is kept as the crash left it, and its path
#                               printed, for the README's getting-started steps
#
# Uses git-taskresume and git-taskclean from PATH, or from where ./install.sh
# put them ($PREFIX/bin, default ~/.local/bin); when they are missing it
# builds them into a temporary directory.
set -euo pipefail

keep=false
case ${1:-} in
  "") ;;
  --keep) keep=true ;;
  -h|--help) sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;;
  *) echo "error: unknown argument $1; run examples/demo.sh --help" >&2; exit 2 ;;
esac
[ $# -le 1 ] || { echo "error: too many arguments; run examples/demo.sh --help" >&2; exit 2; }
here=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
$keep || trap 'rm -rf "$tmp"' EXIT

# Where ./install.sh puts them, even when that is not on PATH yet.
installed="${PREFIX:-$HOME/.local}/bin"
if ! command -v git-taskresume >/dev/null && [ -x "$installed/git-taskresume" ] && [ -x "$installed/git-taskclean" ]; then
  export PATH="$installed:$PATH"
fi
if ! command -v git-taskresume >/dev/null || ! command -v git-taskclean >/dev/null; then
  echo "(git-taskresume not on PATH: building it into $tmp/bin)"
  (cd "$here" && GOBIN="$tmp/bin" go install ./cmd/...)
  export PATH="$tmp/bin:$PATH"
fi

run=x1y2z3
repo="$tmp/repo"
export GIT_AUTHOR_NAME=Agent GIT_AUTHOR_EMAIL=agent@example.com
export GIT_COMMITTER_NAME=Agent GIT_COMMITTER_EMAIL=agent@example.com
git init -q -b main "$repo"
cd "$repo"
echo ".worktrees/" >> .git/info/exclude

mkdir -p "specs/$run"
cat > "specs/$run/plan.md" <<EOF
# Implementation Plan

Run ID: $run

## Phase 1: Setup (Sequential)

### Task 1.1: Create database schema (M - 1h)
- Files: \`db/schema.sql\`

### Task 1.2: Install dependencies (S - 0.5h)
- Files: \`package.json\`

## Phase 2: Core Logic (Parallel)

### Task 2.1: User service (M - 2h)
- Files: \`src/services/user-service.ts\`

### Task 2.2: Product service (M - 2h)
- Files: \`src/services/product-service.ts\`

### Task 2.3: Order service (M - 2.5h)
- Files: \`src/services/order-service.ts\`

## Phase 3: Integration (Sequential)

### Task 3.1: API integration tests (L - 3h)
- Files: \`tests/integration/api.test.ts\`

### Task 3.2: E2E tests (L - 3h)
- Files: \`tests/e2e/workflows.test.ts\`
EOF
git add -A && git commit -qm "Add plan for run $run"
git worktree add -q ".worktrees/$run-main" -b "$run-main"

# finish ID SLUG FILE FROM: a task agent's whole life: worktree, commit,
# branch, worktree removed.
finish() {
  local wt=".worktrees/$run-task-${1//./-}"
  git worktree add -q --detach "$wt" "$4"
  mkdir -p "$wt/$(dirname "$3")" && echo "// task $1" > "$wt/$3"
  git -C "$wt" add -A && git -C "$wt" commit -qm "task $1: $2"
  git -C "$wt" branch "$run-task-${1//./-}-$2"
  git worktree remove "$wt"
}
finish 1.1 create-database-schema db/schema.sql "$run-main"
finish 1.2 install-dependencies package.json "$run-task-1-1-create-database-schema"
# Phase 2 starts three agents from 1.2; 2.1 finishes (its worktree stays),
# 2.2 and 2.3 are mid-work when the server dies.
p2="$run-task-1-2-install-dependencies"
git worktree add -q --detach ".worktrees/$run-task-2-1" "$p2"
mkdir -p ".worktrees/$run-task-2-1/src/services"
echo "export class UserService {}" > ".worktrees/$run-task-2-1/src/services/user-service.ts"
git -C ".worktrees/$run-task-2-1" add -A
git -C ".worktrees/$run-task-2-1" commit -qm "task 2.1: user service"
git -C ".worktrees/$run-task-2-1" branch "$run-task-2-1-user-service"
for t in 2-2:product 2-3:order; do
  wt=".worktrees/$run-task-${t%%:*}"
  git worktree add -q --detach "$wt" "$p2"
  mkdir -p "$wt/src/services"
  echo "export class ${t##*:} { /* half done */ }" > "$wt/src/services/${t##*:}-service.ts"
  git -C "$wt" add -A
  echo "notes" > "$wt/NOTES.md"
done

# The commands it types are bold on a terminal only, as git colours: a log
# or a pipe gets plain text.
if [ -t 1 ] && [ -z "${NO_COLOR:-}" ] && [ "${TERM:-dumb}" != dumb ]; then
  say() { printf '\n\033[1m$ %s\033[0m\n' "$*"; }
else
  say() { printf '\n$ %s\n' "$*"; }
fi
say "git taskresume $run          # after the crash"
git taskresume "$run"
say "git taskresume $run --next"
git taskresume "$run" --next
say "git taskclean --run $run --dry-run"
git taskclean --run "$run" --dry-run
if $keep; then
  # Stop before the clean: the repository stays crashed, for the user to
  # resume by hand.
  echo
  echo "repository kept at $repo, as the crash left it; resume it yourself:"
  case ":$PATH:" in
    *":$tmp/bin:"*) echo "  export PATH=\"$tmp/bin:\$PATH\"" ;;
  esac
  echo "  cd $repo"
  echo "  git taskresume $run"
  echo "  git taskclean --run $run -n"
  echo "  git taskclean --run $run"
  echo "  git taskresume $run --next"
  echo "(remove it when done: rm -rf $tmp)"
  exit 0
fi
say "git taskclean --run $run"
git taskclean --run "$run"
say "git taskresume $run          # after the clean"
git taskresume "$run"
