#!/usr/bin/env bash
# mcp-ts-client.sh: install the pinned MCP TypeScript SDK (e2e/mcpclient/package-lock.json) when it is not
# installed yet, then run e2e/mcpclient/ts-client.mjs with the given arguments. e2e/mcp_ts_test.go runs it.
set -euo pipefail
dir="$(cd "$(dirname "$0")/../e2e/mcpclient" && pwd)"
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  echo "node and npm are needed (apt-get install nodejs npm; .ci/run installs them)" >&2
  exit 3
fi
want="$(sha256sum "$dir/package-lock.json" | cut -d' ' -f1)"
if [ ! -f "$dir/node_modules/.pilot-lock-sha" ] || [ "$(cat "$dir/node_modules/.pilot-lock-sha")" != "$want" ]; then
  (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error >&2)
  echo "$want" > "$dir/node_modules/.pilot-lock-sha"
fi
exec node "$dir/ts-client.mjs" "$@"
