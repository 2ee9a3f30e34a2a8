#!/usr/bin/env bash
# openapi-tools.sh: install the OpenAPI tools pinned in tools/openapi/package-lock.json (Redocly CLI,
# openapi-typescript, TypeScript) with npm ci when they are not installed yet or the lock file changed,
# then run the named one (redocly, openapi-typescript, tsc) with the given arguments. make lint
# (scripts/openapi-lint.sh) and api/openapi_client_test.go run it.
set -euo pipefail
dir="$(cd "$(dirname "$0")/../tools/openapi" && pwd)"
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  echo "node and npm are needed (apt-get install nodejs npm; .ci/run installs them)" >&2
  exit 3
fi
if [ $# -eq 0 ]; then
  echo "usage: scripts/openapi-tools.sh redocly|openapi-typescript|tsc [args...]" >&2
  exit 2
fi
want="$(sha256sum "$dir/package-lock.json" | cut -d' ' -f1)"
# flock: concurrent callers (make lint beside a test) install once.
exec 9>"$dir/.install.lock"
flock 9
if [ ! -f "$dir/node_modules/.pilot-lock-sha" ] || [ "$(cat "$dir/node_modules/.pilot-lock-sha")" != "$want" ]; then
  (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error >&2)
  echo "$want" > "$dir/node_modules/.pilot-lock-sha"
fi
flock -u 9
# Redocly: no usage telemetry, no update notice.
export REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true
tool="$1"
shift
exec "$dir/node_modules/.bin/$tool" "$@"
