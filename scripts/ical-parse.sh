#!/usr/bin/env bash
# ical-parse.sh: install the pinned ical.js (api/testdata/icaljs/package-lock.json) when it is not
# installed yet, then parse the iCalendar file given as argument and print its events as JSON
# (api/testdata/icaljs/parse.mjs). api/calendar_test.go runs it to check the feeds with an independent
# parser.
set -euo pipefail
dir="$(cd "$(dirname "$0")/../api/testdata/icaljs" && pwd)"
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  echo "node and npm are needed (apt-get install nodejs npm; .ci/run installs them)" >&2
  exit 3
fi
want="$(sha256sum "$dir/package-lock.json" | cut -d' ' -f1)"
if [ ! -f "$dir/node_modules/.pilot-lock-sha" ] || [ "$(cat "$dir/node_modules/.pilot-lock-sha")" != "$want" ]; then
  (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error >&2)
  echo "$want" > "$dir/node_modules/.pilot-lock-sha"
fi
exec node "$dir/parse.mjs" "$@"
