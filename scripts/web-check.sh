#!/usr/bin/env bash
# web-check.sh: check the web app's types. web/api.d.ts must be what openapi-typescript generates from
# the OpenAPI document `pilot openapi` prints (as sqlc's code must match its SQL), and the app's
# JavaScript must type-check against it (tsc --checkJs, web/tsconfig.json). With --write, regenerate
# web/api.d.ts instead of failing when it is stale. make lint runs it; so does web's TestAppTypeChecks.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
env -u PUBLIC_URL go run ./cmd/pilot openapi > "$tmp/openapi.json"
scripts/openapi-tools.sh openapi-typescript "$tmp/openapi.json" -o "$tmp/api.d.ts" >/dev/null 2>&1
if ! cmp -s "$tmp/api.d.ts" web/api.d.ts; then
  if [ "${1:-}" = "--write" ]; then
    cp "$tmp/api.d.ts" web/api.d.ts
    echo "web/api.d.ts regenerated"
  else
    echo "web/api.d.ts is stale: run scripts/web-check.sh --write (make web/types) and commit it" >&2
    diff -u web/api.d.ts "$tmp/api.d.ts" | head -40 >&2 || true
    exit 1
  fi
fi
scripts/openapi-tools.sh tsc -p web/tsconfig.json
