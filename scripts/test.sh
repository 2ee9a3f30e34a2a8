#!/usr/bin/env bash
# test.sh: start a throwaway PostgreSQL cluster (never the dev data), run the Go tests against it, then
# remove it. Extra arguments go to `go test` (default ./...).
set -euo pipefail
cd "$(dirname "$0")/.."

dir=".data/test-$$"
cleanup() {
  scripts/pg.sh stop "$dir" --remove || rm -rf "$dir"
}
trap cleanup EXIT INT TERM

admin=$(scripts/pg.sh start "$dir" --fast)
export PILOT_TEST_DATABASE_URL="$admin"
if [ $# -eq 0 ]; then set -- ./...; fi
go test -count=1 "$@"
