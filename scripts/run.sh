#!/usr/bin/env bash
# run.sh: build, start a private PostgreSQL under .data/dev unless DATABASE_URL is set, migrate, then
# run one api and one worker. Ctrl-C stops all of it, PostgreSQL included; the data stays for next time.
set -euo pipefail
cd "$(dirname "$0")/.."

make --no-print-directory build # with the version pilot version prints

pids=()
own_pg=""
cleanup() {
  trap - INT TERM EXIT
  for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  if [ -n "$own_pg" ]; then
    echo "stopping PostgreSQL"
    scripts/pg.sh stop .data/dev
  fi
}
trap cleanup INT TERM EXIT

if [ -z "${DATABASE_URL:-}" ]; then
  scripts/pg.sh start .data/dev >/dev/null
  own_pg=1
  DATABASE_URL=$(scripts/pg.sh createdb .data/dev pilot)
  export DATABASE_URL
  echo "PostgreSQL running on 127.0.0.1:$(cat .data/dev/port) (data in $(cat .data/dev/pgdir 2>/dev/null || echo .data/dev))"
fi

bin/pilot migrate
bin/pilot api & pids+=($!)
# One METRICS_ADDR cannot serve two processes on one machine: the worker's is WORKER_METRICS_ADDR here.
METRICS_ADDR="${WORKER_METRICS_ADDR:-}" bin/pilot worker & pids+=($!)
echo "Pilot api on http://localhost:${PORT:-8080} (docs at /api/docs); Ctrl-C to stop"
wait -n "${pids[@]}" || true
