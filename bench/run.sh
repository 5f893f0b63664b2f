#!/usr/bin/env bash
# The performance benchmark of git-taskresume and git-taskclean.
#
#   bench/run.sh
#
# Builds (once; cached in $BENCH_DIR, default /tmp/taskresume-bench, and
# rebuilt when their generator changes):
#   - repo-20k and repo-100k (bench/mkrepo: 20k and 100k commits on main,
#     2,800 finished runs of the seven-task plan, packed refs, a
#     commit-graph), each holding the measured runs: layouts L1-L6 of the
#     seven-task plan and two larger plans (50 and 500 tasks);
#   - repo-wt (bench/wtrepo.sh): a copy of repo-20k with 5,000 worktrees of
#     other runs and 3 live worktrees of m1b2c3;
#   - clean-repo (bench/cleanrepo.sh), for the clean;
# (the first run takes about a minute more to build them),
# builds both commands, checks that the report is right in every layout,
# then times, interleaved round by round (alternating which repository goes
# first, rotating the order of the cases):
#
#   (a) git taskresume <run> --json
#   (b) the earlier tools' pipeline: per task, git branch --list, then
#       git rev-list --count main..<branch> for the branch found
#   (c) the floor: the least a shell script must ask git for the same
#       answer in that layout (case_c below, one comment per command)
#
# for each layout (L1-L6), for 50 and 500 tasks, and with 5,000 worktrees
# ((a) and (c) only); then the clean:
#
#   (d)  git taskclean --run w9x8y7 on 50 stale worktrees (25 dirty) against
#        git worktree remove --force of the same 50
#   (d2) the same, each worktree also holding an ignored node_modules/ of
#        2,000 files and an ignored .env
#
# and the peak memory (/usr/bin/time) of (a) everywhere and of taskclean. It
# prints medians, medians of per-round ratios and PASS/MISS per target, as
# Markdown tables (also in $BENCH_DIR/results/table.txt), then the profile
# of (a) in L1. It exits 1 when the report was wrong in a layout (after the
# tables, which say where).
#
# Environment: BENCH_DIR; ROUNDS (15); ROUNDS_BIG (9: rounds of the 500-task
# plan, whose (b) starts 700 git processes a round; a ratio is the median of
# per-round ratios, which 5 rounds leave to one noisy round); CLEAN_ROUNDS (5, for (d)
# and (d2); past 3 rounds each stops when the run has taken BUDGET seconds,
# 480); RUNS (2800 runs per large repository); WORKTREES (5000); PROFILE=0
# to skip the profiles at the end (PROFILE=full: the clean's profile even
# past BUDGET).
set -euo pipefail
export LC_ALL=C # EPOCHREALTIME with a "." and awk with "." decimals

here=$(cd "$(dirname "$0")/.." && pwd)
BENCH_DIR=${BENCH_DIR:-/tmp/taskresume-bench}
ROUNDS=${ROUNDS:-15}
ROUNDS_BIG=${ROUNDS_BIG:-9}
CLEAN_ROUNDS=${CLEAN_ROUNDS:-5}
BUDGET=${BUDGET:-480}
RUNS=${RUNS:-2800}
WORKTREES=${WORKTREES:-5000}
crun=w9x8y7
mkdir -p "$BENCH_DIR"
BENCH_DIR=$(cd "$BENCH_DIR" && pwd)
res="$BENCH_DIR/results"
rm -rf "$res"
mkdir -p "$res"
# No user or system git config may change what is measured.
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
unset GIT_TASKRESUME_TRACE GIT_TRACE2_EVENT GIT_TRACE2_PERF GIT_TRACE

log() { printf '== %s\n' "$*" >&2; }
started=$EPOCHREALTIME
elapsed() { local t=$EPOCHREALTIME; echo $(((10#${t/./} - 10#${started/./}) / 1000000)); }
# part NAME: ends the previous part (its duration goes to $res/parts).
part_t0=$started
part_name=""
part() {
  local t=$EPOCHREALTIME
  [ -z "$part_name" ] || printf '%s\t%d\n' "$part_name" $(((10#${t/./} - 10#${part_t0/./}) / 1000000)) >> "$res/parts"
  part_name=$1
  part_t0=$t
}
part "setup and repositories"

# GNU time for the peak memory, jq for the report's JSON; CI machines are
# fresh.
for tool in /usr/bin/time:time /usr/bin/jq:jq; do
  if [ ! -x "${tool%%:*}" ]; then
    log "installing ${tool#*:} (apt-get install -y ${tool#*:})"
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get install -y -qq "${tool#*:}" >/dev/null 2>&1 ||
      { $sudo apt-get update -qq >/dev/null && $sudo apt-get install -y -qq "${tool#*:}" >/dev/null; }
  fi
done

# --- repositories (cached; rebuilt when their generator changes) -----------
gen_id() { cat "$@" | sha256sum | cut -c1-16; }
mkrepo_id=$(gen_id "$here"/bench/mkrepo/*.go)-$RUNS
wtrepo_id=$mkrepo_id-$(gen_id "$here/bench/wtrepo.sh")-$WORKTREES
cleanrepo_id=$(gen_id "$here/bench/cleanrepo.sh")
for n in 20000 100000; do
  dir="$BENCH_DIR/repo-$((n / 1000))k"
  if [ "$(cat "$dir/.git/bench-id" 2>/dev/null)" != "$mkrepo_id" ]; then
    log "building $dir ($n commits on main, $RUNS runs)"
    rm -rf "$dir"
    (cd "$here" && go run ./bench/mkrepo -dir "$dir" -commits "$n" -runs "$RUNS") | tee "$dir.build" >&2
    echo "$mkrepo_id" > "$dir/.git/bench-id"
  fi
done
r20="$BENCH_DIR/repo-20k"
r100="$BENCH_DIR/repo-100k"
rwt="$BENCH_DIR/repo-wt"
if [ "$(cat "$rwt/.git/bench-id" 2>/dev/null)" != "$wtrepo_id" ]; then
  log "building $rwt (a copy of repo-20k with $WORKTREES worktrees; minutes for 5,000, once)"
  rm -rf "$rwt"
  "$here/bench/wtrepo.sh" "$r20" "$rwt" "$WORKTREES"
  echo "$wtrepo_id" > "$rwt/.git/bench-id"
fi
cdir="$BENCH_DIR/clean-repo"
if [ "$(cat "$cdir/.git/bench-id" 2>/dev/null)" != "$cleanrepo_id" ]; then
  log "building $cdir"
  rm -rf "$cdir"
  "$here/bench/cleanrepo.sh" init "$cdir"
  echo "$cleanrepo_id" > "$cdir/.git/bench-id"
fi

log "building git-taskresume and git-taskclean"
mkdir -p "$BENCH_DIR/bin"
(cd "$here" && go build -o "$BENCH_DIR/bin" ./cmd/... && go build -o "$BENCH_DIR/bin/trace2sum" ./bench/trace2sum)
export PATH="$BENCH_DIR/bin:$PATH"

size() { # repo: commits, refs, .git size
  printf '%s commits, %s refs, .git %s' "$(git -C "$1" rev-list --all --count)" \
    "$(git -C "$1" for-each-ref --format=x | wc -l)" "$(du -sh "$1/.git" | cut -f1)"
}
{
  echo "machine: $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)), $(free -g | awk '/^Mem:/ {print $2}') GiB RAM, kernel $(uname -r); $(git version); $(go version | cut -d' ' -f3-4)"
  echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg) (other processes share the $(nproc) cores)"
  echo
  for d in "$r20" "$r100"; do # with the build time mkrepo printed
    echo "- ${d##*/}: $(size "$d")$(grep -o ' (built in [^)]*)' "$d.build" 2>/dev/null || true)"
  done
  echo "- repo-wt: repo-20k copied (cp -a) with $(($(git -C "$rwt" worktree list --porcelain | grep -c '^worktree ') - 1)) worktrees; $(cat "$rwt/.git/bench-build")"
  echo "- clean-repo: $(git -C "$cdir" ls-files | wc -l) files, $(du -sh --exclude=.git --exclude=.worktrees "$cdir" | cut -f1) checked out; 50 worktrees of it per timed case"
} | tee "$res/sizes.txt" "$res/table.txt"

# --- what is measured ---------------------------------------------------------
# Sets: the layouts of the seven-task plan, the larger plans (laid out as
# L1), and L1's run in the repository with 5,000 worktrees. Run ids as in
# bench/mkrepo/layouts.go.
sets=(L1 L2 L3 L4 L5 L6 T50 T500 W5k)
declare -A run_of=([L1]=m1b2c3 [L2]=l2a1b1 [L3]=l3a1b1 [L4]=l4a1b1 [L5]=l5a1b1 [L6]=l6a1b1
  [T50]=n50a1b [T500]=n500ab [W5k]=m1b2c3)
declare -A title_of=(
  [L1]="plan in the base's history: main~100 adds it, <run>-main there"
  [L2]="plan committed elsewhere: <run>-main at main~100 without it, main~50 adds it"
  [L3]="plan only in the working tree: untracked in the main checkout"
  [L4]="plan only on <run>-main: added by its parent commit, not on main"
  [L5]="landed tasks: no <run>-main (base main); 1.1 fast-forwarded, 1.2 rebased, 2.1 squashed, 2.2 done on its branch"
  [L6]="forked far back: as L2, <run>-main at main~15000"
  [T50]="50 tasks (5 parallel phases of 10, 20 done), laid out as L1"
  [T500]="500 tasks (10 parallel phases of 50, 200 done), laid out as L1"
  [W5k]="5,000 worktrees of other runs, and 3 live worktrees of the run's done tasks (repo-wt, a copy of repo-20k)")
# How the floor finds where the run started (see case_c).
declare -A start_of=([L1]=base [L2]=merge-base [L3]=merge-base [L4]=added [L5]=added [L6]=merge-base
  [T50]=base [T500]=base [W5k]=base)
declare -A done_of=([L1]=3 [L2]=3 [L3]=3 [L4]=3 [L5]=4 [L6]=3 [T50]=20 [T500]=200 [W5k]=3)
declare -A ids_of=([L1]=ids7 [L2]=ids7 [L3]=ids7 [L4]=ids7 [L5]=ids7 [L6]=ids7 [T50]=ids50 [T500]=ids500 [W5k]=ids7)
declare -A repos_of=([W5k]="wt")
declare -A cases_of=([W5k]="a c")
for s in "${sets[@]}"; do
  : "${repos_of[$s]:=20k 100k}" "${cases_of[$s]:=a b c}"
done
declare -A dir_of=([20k]=$r20 [100k]=$r100 [wt]=$rwt)
ids7=(1.1 1.2 2.1 2.2 2.3 3.1 3.2)
ids50=()
ids500=()
for ((p = 1; p <= 10; p++)); do
  for ((k = 1; k <= 50; k++)); do
    ((p > 5 || k > 10)) || ids50+=("$p.$k")
    ids500+=("$p.$k")
  done
done

case_a() { git taskresume "${run_of[$1]}" --json >/dev/null; }

# The anchors' pipeline (spectacular and friends), with the parsing done in
# bash so that only git's share is paid: per task, list its branch, then
# count its commits against main.
case_b() {
  local run=${run_of[$1]} id out br
  local -n ids=${ids_of[$1]}
  for id in "${ids[@]}"; do
    out=$(git branch --list "$run-task-${id//./-}-*")
    br=${out#??}
    br=${br%%$'\n'*}
    if [ -n "$br" ]; then
      out=$(git rev-list --count "main..$br")
    fi
  done
}

# The floor: the least a shell script must ask git for the report's answer
# in the set's layout, one command after another (the report may overlap
# them). It reads no plan (the report must; a script given the plan's task
# list would not) and discards what only the report's verdict would parse.
# Outputs it parses go through a file: bash's read and mapfile take a pipe
# one byte at a time (8 ms for 200 refs), a regular file in blocks.
# floor_git counts its git processes, floor_live the run's worktrees.
floor_out="$res/floor.out"
case_c() {
  local set=$1 run=${run_of[$1]} l ref c p t tok prev wt base="" start lines=""
  local tips=() revs=(main) live=() out=()
  local -A parent=() istip=() paths=()
  floor_git=1
  # The run's task branches and its <run>-main, with their commits: what
  # the report is about, in one call for every ref of the run.
  git for-each-ref --format='%(objectname) %(refname)' "refs/heads/$run-*" > "$floor_out"
  mapfile -t out < "$floor_out"
  for l in ${out[@]+"${out[@]}"}; do
    ref=${l#* }
    case $ref in
      "refs/heads/$run-task-"*)
        tips+=("${l%% *}")
        istip[${l%% *}]=1
        ;;
      "refs/heads/$run-main") base=${l%% *} ;;
    esac
  done
  # Without <run>-main the base is main (L5).
  [ -n "$base" ] || base=main
  # The run's own commits (on its branches, not the base's) with their
  # parents: which commits each branch adds, and where they start.
  git rev-list --parents "${tips[@]}" --not "$base" > "$floor_out"
  floor_git=$((floor_git + 1))
  mapfile -t out < "$floor_out"
  for l in ${out[@]+"${out[@]}"}; do
    p=${l#* }
    [ "$p" != "$l" ] || p="" # a root commit
    parent[${l%% *}]=${p%% *}
  done
  # Every worktree: which tasks have one (a task's worktree is its state).
  git worktree list --porcelain -z > "$floor_out"
  floor_git=$((floor_git + 1))
  mapfile -d '' out < "$floor_out"
  if ((${#out[@]} < 200)); then
    for tok in "${out[@]}"; do
      case $tok in
        "worktree "*) wt=${tok#worktree } ;;
        "branch refs/heads/$run-task-"*) live+=("$wt") ;;
      esac
    done
  else
    # Thousands of worktrees: bash's loop takes 300 ms for 5,000, one awk
    # 10 ms (its start included).
    mapfile -t live < <(awk -v RS='\0' -v pre="branch refs/heads/$run-task-" \
      '/^worktree / {wt = substr($0, 10)} index($0, pre) == 1 {print wt}' "$floor_out")
  fi
  # Where the run started: the search for landed work starts there.
  case ${start_of[$set]} in
    base) # the base's tip added the plan: the run started there (no call)
      start=$base ;;
    merge-base) # the base does not hold the plan: the oldest common
      # ancestor of the run's branches with the base
      start=$(git merge-base --octopus "$base" "${tips[@]}")
      floor_git=$((floor_git + 1)) ;;
    added) # the base holds the plan below its tip: the commit that added it
      start=$(git log -1 --format=%H --diff-filter=A "$base" -- "specs/$run/plan.md")
      floor_git=$((floor_git + 1)) ;;
  esac
  # Landed work since the start, in one walk: main (the default branch
  # moved since the run started), and the base when it has commits past
  # the start (L4's <run>-main). Subjects, bodies (trailers) and parents
  # (merges) are the evidence.
  [ "$base" = main ] || [ "$base" = "$start" ] || revs+=("$base")
  git log --format='%H%x00%P%x00%s%x00%b' "${revs[@]}" --not "$start^@" >/dev/null
  floor_git=$((floor_git + 1))
  # The squash evidence: each done task's combined change (its tip against
  # the parent of its own first commit: its stack parent's tip, or where it
  # left the base), in one diff-tree ...
  for t in "${tips[@]}"; do
    [[ -n ${parent[$t]+x} ]] || continue # the base holds it: no commits of its own
    c=$t
    while p=${parent[$c]} && [[ -n $p && -n ${parent[$p]+x} && -z ${istip[$p]+x} ]]; do c=$p; done
    lines+="${lines:+$'\n'}$t $p"
  done
  if [ -n "$lines" ]; then
    git diff-tree -r -z --stdin <<<"$lines" > "$floor_out"
    floor_git=$((floor_git + 1))
    mapfile -d '' out < "$floor_out"
    prev=""
    for tok in "${out[@]}"; do
      [[ $prev != :* ]] || paths[$tok]=1
      prev=$tok
    done
    # ... then the landed commits that touch the same paths, with their
    # changes, in one path-limited log.
    git log --raw --no-merges -z "${revs[@]}" --not "$start^@" -- "${!paths[@]}" >/dev/null
    floor_git=$((floor_git + 1))
  fi
  # The state of each worktree of the run (clean, dirty): one status each.
  for wt in ${live[@]+"${live[@]}"}; do
    git -C "$wt" status --porcelain=v2 -z >/dev/null
    floor_git=$((floor_git + 1))
  done
  floor_live=${#live[@]}
}

# time_us VAR CMD...: runs CMD in this shell, VAR = wall time in microseconds.
time_us() {
  local __v=$1 t0 t1
  shift
  t0=$EPOCHREALTIME
  "$@"
  t1=$EPOCHREALTIME
  printf -v "$__v" '%d' $((10#${t1/./} - 10#${t0/./}))
}

# --- sanity: each repository holds its layouts, and the report is right ----
part "sanity checks"
bad() { echo "bench: $*" >&2; exit 1; }
# wrong: the report is wrong in a layout. Said now, measured anyway, and
# the run exits 1 at the end.
wrong() {
  printf 'bench: WRONG REPORT: %s\n' "$*" | tee -a "$res/wrong.txt" >&2
}
layout_check() { # dir: the history each layout needs (the generator's job)
  local d=$1
  git -C "$d" cat-file -e "m1b2c3-main:specs/m1b2c3/plan.md" && ! git -C "$d" cat-file -e "m1b2c3-main^:specs/m1b2c3/plan.md" 2>/dev/null ||
    bad "$d: L1's <run>-main does not add its plan"
  [ "$(git -C "$d" rev-list --count m1b2c3-task-2-1-user-service --not m1b2c3-main)" = 3 ] || bad "$d: unexpected history for m1b2c3"
  ! git -C "$d" cat-file -e "l2a1b1-main:specs/l2a1b1/plan.md" 2>/dev/null && git -C "$d" cat-file -e "main~50:specs/l2a1b1/plan.md" &&
    ! git -C "$d" cat-file -e "main~51:specs/l2a1b1/plan.md" 2>/dev/null || bad "$d: L2's plan is not where L2 wants it"
  [ -f "$d/specs/l3a1b1/plan.md" ] && ! git -C "$d" cat-file -e "HEAD:specs/l3a1b1/plan.md" 2>/dev/null &&
    [ -n "$(git -C "$d" status --porcelain --untracked-files=all -- specs/l3a1b1)" ] || bad "$d: L3's plan is not an untracked file of the checkout"
  git -C "$d" cat-file -e "l4a1b1-main^:specs/l4a1b1/plan.md" && ! git -C "$d" cat-file -e "l4a1b1-main^^:specs/l4a1b1/plan.md" 2>/dev/null &&
    ! git -C "$d" cat-file -e "main:specs/l4a1b1/plan.md" 2>/dev/null || bad "$d: L4's plan is not on l4a1b1-main only"
  ! git -C "$d" rev-parse -q --verify l5a1b1-main >/dev/null && [ -z "$(git -C "$d" branch --list 'l5a1b1-task-1-2-*')" ] &&
    [ "$(git -C "$d" rev-parse l5a1b1-task-1-1-create-database-schema)" = "$(git -C "$d" rev-parse main~95)" ] &&
    [ "$(git -C "$d" log -1 --format=%s main~80)" = "[Task 1.2] Install dependencies" ] &&
    [ "$(git -C "$d" diff main~61 main~60 | git patch-id --stable | cut -c1-40)" = \
      "$(git -C "$d" diff l5a1b1-task-2-1-user-service^ l5a1b1-task-2-1-user-service | git patch-id --stable | cut -c1-40)" ] ||
    bad "$d: L5's landings are not as L5 wants them"
  [ "$(git -C "$d" rev-list --count main --not l6a1b1-main)" = 15000 ] || bad "$d: L6 is not forked 15,000 commits back"
}
layout_check "$r20"
layout_check "$r100"
[ "$(git -C "$rwt" worktree list --porcelain | grep -c '^worktree ')" = $((WORKTREES + 4)) ] || bad "$rwt: not $WORKTREES + 3 worktrees"

declare -A gitp=()
for s in "${sets[@]}"; do
  for name in ${repos_of[$s]}; do
    json="$res/json-$s-$name.json"
    (cd "${dir_of[$name]}" && git taskresume "${run_of[$s]}" --json) > "$json" ||
      bad "$s repo-$name: git taskresume ${run_of[$s]} --json failed"
    got=$(jq -r .completed_tasks "$json")
    [ "$got" = "${done_of[$s]}" ] || wrong "$s repo-$name: completed_tasks is $got, not ${done_of[$s]} ($json)"
    gitp[$s-$name]=$(jq -r .git_processes "$json")
    if [ "$s" = L5 ]; then
      got=$(jq -r '[.phases[].tasks[] | select(.status == "completed" or .status == "landed") | "\(.id)=\(.status)"] | join(" ")' "$json")
      want="1.1=landed 1.2=landed 2.1=landed 2.2=completed"
      [ "$got" = "$want" ] || wrong "$s repo-$name: done tasks are \"$got\", not \"$want\"; $(
        jq -c '[.phases[].tasks[] | select(.id == "2.1" or .id == "2.2") | {id, status, branch, own_commits, landed}]' "$json")"
    fi
    if [ "$s" = W5k ]; then
      got=$(jq '[.worktrees[] | select((.task // "") != "")] | length' "$json")
      [ "$got" = 3 ] || wrong "$s: $got worktrees of the run's tasks reported, not 3"
    fi
    # The floor sees the same run: its branches, and (W5k) the 3 live
    # worktrees.
    (cd "${dir_of[$name]}" && case_c "$s" && echo "$floor_git $floor_live") > "$res/floor-$s-$name"
    read -r fgit flive < "$res/floor-$s-$name"
    [ "$flive" = "$([ "$s" = W5k ] && echo 3 || echo 0)" ] || bad "$s repo-$name: the floor found $flive live worktrees"
    echo "$fgit" > "$res/floor-git-$s"
  done
done

# --- (a) (b) (c), interleaved -------------------------------------------------
part "(a) (b) (c): layouts, 50/500 tasks, 5,000 worktrees"
log "(a) (b) (c): $ROUNDS rounds ($ROUNDS_BIG for 500 tasks), interleaved; a dot per round"
for s in "${sets[@]}"; do # warm the page cache ((b) of 500 tasks is warmed by its (a))
  for name in ${repos_of[$s]}; do
    for c in ${cases_of[$s]}; do
      [ "$s-$c" = T500-b ] || (cd "${dir_of[$name]}" && "case_$c" "$s")
    done
  done
done
for ((round = 1; round <= ROUNDS; round++)); do
  for si in "${!sets[@]}"; do
    s=${sets[$si]}
    [ "$s" != T500 ] || ((round <= ROUNDS_BIG)) || continue
    read -r -a names <<<"${repos_of[$s]}"
    ((round % 2)) || ((${#names[@]} < 2)) || names=("${names[1]}" "${names[0]}")
    read -r -a cs <<<"${cases_of[$s]}"
    # Rotate the order so that no case always runs first.
    k=$(((round + si) % ${#cs[@]}))
    order=("${cs[@]:k}" "${cs[@]:0:k}")
    for name in "${names[@]}"; do
      cd "${dir_of[$name]}"
      for c in "${order[@]}"; do
        time_us us "case_$c" "$s"
        echo "$us" >> "$res/$s-$c-$name"
      done
    done
  done
  printf '.' >&2
done
echo >&2
cd "$here"

# --- (d) (d2): the clean ------------------------------------------------------
# taskclean runs under /usr/bin/time for its peak RSS (about 1 ms of a
# clean that takes seconds).
clean_taskclean() { /usr/bin/time -f %M -a -o "$res/rss-$1-taskclean" git taskclean --run "$crun" >/dev/null; }
clean_plain() {
  local wt
  for wt in $("$here/bench/cleanrepo.sh" list); do git worktree remove --force "$wt"; done
}
check_cleaned() { # all 50 gone; after taskclean, each saved (25 with work)
  local left saved
  left=$(git -C "$cdir" worktree list --porcelain | grep -c "^worktree .*/$crun-task-" || true)
  saved=$(git -C "$cdir" for-each-ref --format='%(refname)' "refs/taskclean/$crun/" | grep -c '/worktree/' || true)
  [ "$left" = 0 ] || bad "$left worktrees left after $1"
  [ "$1" != taskclean ] || [ "$saved" = 50 ] || bad "taskclean saved $saved worktrees, not 50"
}
clean_rounds() { # d|d2, populate's mode ("" or ignored)
  local v=$1 mode=$2 round c order
  for ((round = 1; round <= CLEAN_ROUNDS; round++)); do
    # Past 3 rounds, stop when the whole run nears its budget (a slow VM).
    if ((round > 3 && $(elapsed) > BUDGET)); then
      log "($v): stopping after $((round - 1)) rounds (BUDGET=${BUDGET}s reached)"
      break
    fi
    if ((round % 2)); then order=(taskclean plain); else order=(plain taskclean); fi
    for c in "${order[@]}"; do
      "$here/bench/cleanrepo.sh" populate "$cdir" "$mode"
      cd "$cdir"
      time_us us "clean_$c" "$v"
      cd "$here"
      check_cleaned "$c"
      echo "$us" >> "$res/$v-$c"
      printf '.' >&2
    done
  done
  echo >&2
}
part "(d) clean of 50 worktrees"
log "(d) clean of 50 worktrees: up to $CLEAN_ROUNDS rounds (each: rebuild the 50, time one; rebuild, time the other)"
clean_rounds d ""
part "(d2) clean of 50 worktrees with ignored files"
log "(d2) the same with node_modules/ (2,000 files) and .env in each: up to $CLEAN_ROUNDS rounds"
clean_rounds d2 ignored

# --- peak memory of (a) -----------------------------------------------------
part "peak memory of (a)"
log "peak memory of (a): /usr/bin/time -v, 3 runs per set and repository"
for s in "${sets[@]}"; do
  for name in ${repos_of[$s]}; do
    for ((i = 0; i < 3; i++)); do
      (cd "${dir_of[$name]}" && /usr/bin/time -v git taskresume "${run_of[$s]}" --json 2>&1 >/dev/null) |
        awk -F': ' '/Maximum resident set size/ {print $2}' >> "$res/rss-a-$s-$name"
    done
  done
done

# --- figures ----------------------------------------------------------------
part "tables"
median() { sort -g | awk '{v[NR] = $1} END {if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
ms() { median < "$1" | awk '{printf "%.1f", $1 / 1000}'; }
ratios() { paste "$1" "$2" | awk '{printf "%.4f\n", $1 / $2}' | median | awk '{printf "%.2f", $1}'; }
diffs() { paste "$1" "$2" | awk '{printf "%.1f\n", ($1 - $2) / 1000}' | median | awk '{printf "%.1f", $1}'; }
rounds() { wc -l < "$1" | tr -d ' '; }
verdict() { awk -v r="$1" -v t="$2" 'BEGIN {print (r <= t) ? "PASS" : "MISS"}'; }
maxrss() { sort -n "$@" | tail -1; }
mib() { awk -v k="$1" 'BEGIN {printf "%.1f", k / 1024}'; }
# worst FILE: the largest "value where" line of FILE.
worst() { sort -g -k1,1 "$1" | tail -1; }
: > "$res/t-ac"
: > "$res/t-ab"
: > "$res/t-grow"
: > "$res/t-ac-more"
{
  echo
  echo "rounds: $ROUNDS for (a)-(c), $ROUNDS_BIG for 500 tasks; times are medians in ms; ratios and (a) − (c) are medians of per-round values."
  echo "load average now: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores (above $(nproc), other processes were competing: figures are noisier)."
  for s in "${sets[@]}"; do
    run=${run_of[$s]}
    read -r -a names <<<"${repos_of[$s]}"
    nr=$(rounds "$res/$s-a-${names[0]}")
    echo
    echo "### $s: ${title_of[$s]}"
    echo
    echo "run $run, $nr rounds; (c) starts $(cat "$res/floor-git-$s") git processes."
    echo
    hdr="| case |"
    sep="|---|"
    for name in "${names[@]}"; do hdr+=" repo-$name |"; sep+="---:|"; done
    echo "$hdr"
    echo "$sep"
    row() { # label, then a command printing the cell, given the repository name
      local line="| $1 |" name
      shift
      for name in "${names[@]}"; do line+=" $("$@" "$name") |"; done
      echo "$line"
    }
    cell_ms() { ms "$res/$s-$1-$2"; }
    cell_ratio() { ratios "$res/$s-$1-$3" "$res/$s-$2-$3"; }
    cell_diff() { diffs "$res/$s-a-$1" "$res/$s-c-$1"; }
    cell_gitp() { echo "${gitp[$s-$1]}"; }
    cell_rss() { mib "$(maxrss "$res/rss-a-$s-$1")"; }
    local_ids="${ids_of[$s]}[@]"
    ntasks=$(set -- "${!local_ids}"; echo $#)
    nbranches=$(git -C "${dir_of[${names[0]}]}" for-each-ref --format=x "refs/heads/$run-task-*" | wc -l)
    row "(a) git taskresume $run --json, ms" cell_ms a
    [[ " ${cases_of[$s]} " != *" b "* ]] ||
      row "(b) earlier tools: ${ntasks}× branch --list + ${nbranches}× rev-list --count, ms" cell_ms b
    row "(c) floor, ms" cell_ms c
    row "(a)/(c)" cell_ratio a c
    [[ " ${cases_of[$s]} " != *" b "* ]] || row "(a)/(b)" cell_ratio a b
    row "(a) − (c), ms: the wall time left between the report and the floor" cell_diff
    row "git processes (a) starts (\`git_processes\`)" cell_gitp
    row "peak RSS of (a), MiB (max of 3 runs)" cell_rss
    for name in "${names[@]}"; do
      echo "$(ratios "$res/$s-a-$name" "$res/$s-c-$name") $s repo-$name" >> "$res/t-ac"
      if [ "$s" = T50 ] || [ "$s" = T500 ] || [ "$s" = W5k ]; then
        echo "$(ratios "$res/$s-a-$name" "$res/$s-c-$name") $s repo-$name" >> "$res/t-ac-more"
      fi
      if [[ $s == L* ]]; then
        echo "$(ratios "$res/$s-a-$name" "$res/$s-b-$name") $s repo-$name" >> "$res/t-ab"
      fi
    done
    if ((${#names[@]} == 2)); then
      # Per round, in the same round: a on repo-100k over a on repo-20k.
      r=$(ratios "$res/$s-a-100k" "$res/$s-a-20k")
      echo
      if [ "$s" = L6 ]; then
        echo "(a on 100k)/(a on 20k): $r — grows with the fork's distance (15,000 commits in both), not the history"
      else
        echo "(a on 100k)/(a on 20k): $r"
        echo "$r $s" >> "$res/t-grow"
      fi
    fi
  done
  echo
  echo "(a)/(b) as tasks grow (layout L1; it must fall):"
  echo
  echo "| tasks | repo-20k | repo-100k |"
  echo "|---:|---:|---:|"
  for s in L1 T50 T500; do
    printf '| %s | %s | %s |\n' "$(case $s in L1) echo 7 ;; T50) echo 50 ;; *) echo 500 ;; esac)" \
      "$(ratios "$res/$s-a-20k" "$res/$s-b-20k")" "$(ratios "$res/$s-a-100k" "$res/$s-b-100k")"
  done
  falls=yes
  for name in 20k 100k; do
    awk -v a="$(ratios "$res/L1-a-$name" "$res/L1-b-$name")" -v b="$(ratios "$res/T50-a-$name" "$res/T50-b-$name")" \
      -v c="$(ratios "$res/T500-a-$name" "$res/T500-b-$name")" 'BEGIN {exit !(a > b && b > c)}' || falls=no
  done
  echo
  echo "falls as tasks grow: $falls (500 tasks: $ROUNDS_BIG rounds, ROUNDS_BIG, since its (b) starts 700 git processes a round)"

  echo
  echo "### The clean: 50 stale worktrees (25 dirty) of clean-repo"
  echo
  echo "| case | (d) nothing ignored | (d2) + ignored node_modules/ (2,000 files) and .env |"
  echo "|---|---:|---:|"
  echo "| git taskclean --run $crun, ms | $(ms "$res/d-taskclean") | $(ms "$res/d2-taskclean") |"
  echo "| 50× git worktree remove --force, ms | $(ms "$res/d-plain") | $(ms "$res/d2-plain") |"
  echo "| taskclean / plain | $(ratios "$res/d-taskclean" "$res/d-plain") | $(ratios "$res/d2-taskclean" "$res/d2-plain") |"
  echo "| rounds | $(rounds "$res/d-plain") | $(rounds "$res/d2-plain") |"

  echo
  echo "### Peak memory (/usr/bin/time: the largest process of the tree, max of 3 runs; taskclean: of every timed run)"
  echo
  echo "| command | repo-20k | repo-100k |"
  echo "|---|---:|---:|"
  : > "$res/t-rss"
  for s in "${sets[@]}"; do
    if [ "$s" = W5k ]; then
      printf '| (a) %s, %s | %s MiB (repo-wt) | |\n' "$s" "${run_of[$s]}" "$(mib "$(maxrss "$res/rss-a-$s-wt")")"
      echo "$(maxrss "$res/rss-a-$s-wt") (a) $s" >> "$res/t-rss"
    else
      printf '| (a) %s, %s | %s MiB | %s MiB |\n' "$s" "${run_of[$s]}" "$(mib "$(maxrss "$res/rss-a-$s-20k")")" \
        "$(mib "$(maxrss "$res/rss-a-$s-100k")")"
      echo "$(maxrss "$res/rss-a-$s-20k" "$res/rss-a-$s-100k") (a) $s" >> "$res/t-rss"
    fi
  done
  for v in d d2; do
    printf '| git taskclean, (%s) | %s MiB (clean-repo) | |\n' "$v" "$(mib "$(maxrss "$res/rss-$v-taskclean")")"
    echo "$(maxrss "$res/rss-$v-taskclean") taskclean ($v)" >> "$res/t-rss"
  done

  echo
  echo "### Targets"
  echo
  echo "| target | result | worst | where |"
  echo "|---|---|---:|---|"
  target() { # label, limit, file of "value where" lines
    local w
    w=$(worst "$3")
    printf '| %s | %s | %s | %s |\n' "$1" "$(verdict "${w%% *}" "$2")" "${w%% *}" "${w#* }"
  }
  target "(a)/(c) ≤ 1.5, every layout" 1.5 <(grep ' L[1-6] ' "$res/t-ac")
  target "(a)/(c) ≤ 1.5, 50 and 500 tasks, 5,000 worktrees" 1.5 "$res/t-ac-more"
  target "(a)/(b) ≤ 0.25 at 7 tasks, every layout" 0.25 "$res/t-ab"
  target "(a 100k)/(a 20k) ≤ 1.2, every layout but L6 (and 50, 500 tasks)" 1.2 "$res/t-grow"
  printf '| (a 100k)/(a 20k) in L6, for information | — | %s | grows with the fork'"'"'s distance, not the history |\n' \
    "$(ratios "$res/L6-a-100k" "$res/L6-a-20k")"
  printf '| (a)/(b) falls as tasks grow (7, 50, 500) | %s | | L1 layout |\n' "$([ $falls = yes ] && echo PASS || echo MISS)"
  r=$(ratios "$res/d-taskclean" "$res/d-plain")
  printf '| taskclean/plain ≤ 1.5, (d) | %s | %s | |\n' "$(verdict "$r" 1.5)" "$r"
  r=$(ratios "$res/d2-taskclean" "$res/d2-plain")
  printf '| taskclean/plain ≤ 1.3, (d2) | %s | %s | |\n' "$(verdict "$r" 1.3)" "$r"
  w=$(worst "$res/t-rss")
  printf '| peak RSS ≤ 50 MiB | %s | %s MiB | %s |\n' "$(awk -v k="${w%% *}" 'BEGIN {print (k <= 50 * 1024) ? "PASS" : "MISS"}')" \
    "$(mib "${w%% *}")" "${w#* }"
  if [ -s "$res/wrong.txt" ]; then
    echo
    echo "### The report was wrong"
    echo
    sed 's/^bench: WRONG REPORT: /- /' "$res/wrong.txt"
  fi
} | tee -a "$res/table.txt"

if [ "${PROFILE:-1}" != 0 ]; then
  part "profiles"
  echo
  "$here/bench/profile.sh" "$r100" m1b2c3 | tee "$res/profile.txt"
  if [ "${PROFILE:-1}" = full ] || (($(elapsed) < BUDGET)); then
    {
      echo
      echo "## profile of git taskclean --run $crun (50 stale worktrees, 25 dirty; one run, GIT_TRACE2_EVENT)"
      "$here/bench/cleanrepo.sh" populate "$cdir"
      (cd "$cdir" && GIT_TRACE2_EVENT="$res/clean-trace2" git taskclean --run "$crun" >/dev/null)
      trace2sum -group "$res/clean-trace2" | sed 's/^/    /'
    } | tee "$res/profile-clean.txt"
  else
    printf '\n(profile of git taskclean skipped: past BUDGET=%ss; PROFILE=full runs it)\n' "$BUDGET"
  fi
fi
part ""
{
  echo
  echo "time per part (s):"
  echo
  echo "| part | s |"
  echo "|---|---:|"
  awk -F'\t' '{printf "| %s | %s |\n", $1, $2}' "$res/parts"
  echo
  echo "(bench/run.sh took $(elapsed)s; raw figures in $res)"
} | tee -a "$res/table.txt"
[ ! -s "$res/wrong.txt" ] || { echo "bench: the report was wrong in a layout (above): failing" >&2; exit 1; }
