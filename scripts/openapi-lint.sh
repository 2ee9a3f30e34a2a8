#!/usr/bin/env bash
# openapi-lint.sh: lint the OpenAPI document the api serves (`pilot openapi` prints it, no database
# needed) with the Redocly CLI pinned in tools/openapi, configured by tools/openapi/redocly.yaml. make
# lint runs it; any error fails it.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
go run ./cmd/pilot openapi > "$tmp/openapi.json"
scripts/openapi-tools.sh redocly lint --config tools/openapi/redocly.yaml --format=stylish "$tmp/openapi.json"
