#!/usr/bin/env bash
# bench/idle.sh: what an idle worker costs. Starts a private PostgreSQL and one `pilot worker` with the
# default configuration (no jobs arrive), then reads the CPU time the worker process and the cluster's
# PostgreSQL processes used over DURATION (default 60s), after a SETTLE (default 10s) warm-up. The
# cluster's own background cost is measured first, over the same duration without the worker, and
# subtracted. Figures are printed as a percentage of one core; nothing here fails.
set -euo pipefail
cd "$(dirname "$0")/.."

DURATION=${DURATION:-60}
SETTLE=${SETTLE:-10}
dir=".data/idle-$$"
. bench/lib.sh
bench_start "$dir"
export LOG_LEVEL=warn
bin/pilot migrate >/dev/null
postmaster=$(head -n 1 "$(cat "$dir/pgdir" 2>/dev/null || echo "$dir")/data/postmaster.pid")
tck=$(getconf CLK_TCK)

ticks() { # utime+stime of the given pids (processes that are gone count as 0)
  local sum=0 p f
  for p in "$@"; do
    f=$(cat "/proc/$p/stat" 2>/dev/null) || continue
    f=${f##*) }
    set -- $f
    sum=$((sum + ${12} + ${13}))
  done
  echo "$sum"
}
pg_pids() { echo "$postmaster" $(pgrep -P "$postmaster"); }
pct() { awk -v t="$1" -v k="$tck" -v d="$DURATION" 'BEGIN { printf "%.2f%%", 100 * t / k / d }'; }

# Background: the cluster alone.
sleep "$SETTLE"
before=$(ticks $(pg_pids)); sleep "$DURATION"; pg_alone=$(( $(ticks $(pg_pids)) - before ))

bin/pilot worker >"$dir/worker.log" 2>&1 &
worker_pid=$!
BENCH_PIDS+=("$worker_pid")
sleep "$SETTLE"
pids=$(pg_pids)
w0=$(ticks "$worker_pid"); p0=$(ticks $pids)
sleep "$DURATION"
w1=$(ticks "$worker_pid"); p1=$(ticks $(pg_pids))
pg_with=$((p1 - p0))

echo "idle worker over ${DURATION}s (default configuration; $(nproc) cores, CLK_TCK $tck)"
echo "  worker process:                $(pct $((w1 - w0))) of a core"
echo "  PostgreSQL with the worker:    $(pct "$pg_with") of a core"
echo "  PostgreSQL alone (background): $(pct "$pg_alone") of a core"
echo "  PostgreSQL's share for it:     $(pct $((pg_with > pg_alone ? pg_with - pg_alone : 0))) of a core"
