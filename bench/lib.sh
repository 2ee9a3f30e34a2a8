# bench/lib.sh: sourced by the benchmark scripts. bench_start DIR [OPTION...] builds bin/pilot, starts a
# private PostgreSQL in DIR (OPTIONs go to `scripts/pg.sh start`, e.g. --stat-statements) and exports
# DATABASE_URL for a database `pilot` in it. On exit the processes whose
# pids are in BENCH_PIDS are stopped, then the cluster, and DIR is removed.
BENCH_PIDS=()
bench_dir=""
bench_cleanup() {
  local p
  for p in "${BENCH_PIDS[@]}"; do
    kill -TERM "$p" 2>/dev/null && wait "$p" 2>/dev/null || true
  done
  if [ -n "$bench_dir" ]; then
    scripts/pg.sh stop "$bench_dir" --remove || rm -rf "$bench_dir"
  fi
}
bench_start() {
  bench_dir=$1; shift
  trap bench_cleanup EXIT INT TERM
  go build -o bin/pilot ./cmd/pilot
  scripts/pg.sh start "$bench_dir" "$@" >/dev/null
  DATABASE_URL=$(scripts/pg.sh createdb "$bench_dir" pilot)
  export DATABASE_URL
}
