#!/usr/bin/env bash
# arch-check.sh: fail when README.md's architecture block leaves out a Go package. The block sits between
# the lines `<!-- architecture -->` and `<!-- /architecture -->`; a package is named there when a line
# starts with its path (`db/board  engine: …`; indented lines continue the one above). Every package
# directory under api, db, internal, workers, llm and web (`go list ./...`, testdata left out) must be
# named, and every path named must still be a package. make lint runs it.
set -euo pipefail
cd "$(dirname "$0")/.."
export GOWORK=off LC_ALL=C # this module only; one collation for sort and comm

readme=README.md
open='<!-- architecture -->'
close='<!-- /architecture -->'
for marker in "$open" "$close"; do
  count="$(grep -cxF -- "$marker" "$readme" || true)"
  if [ "$count" != 1 ]; then
    echo "arch-check: $readme must hold the line '$marker' once (found $count)" >&2
    exit 1
  fi
done

# The paths the block names: the first word of each unindented line, fences left out, a trailing / dropped.
named="$(OPEN="$open" CLOSE="$close" awk '
  $0 == ENVIRON["CLOSE"] { inside = 0 }
  inside && /^[^[:space:]`]/ { sub(/\/$/, "", $1); print $1 }
  $0 == ENVIRON["OPEN"] { inside = 1 }
' "$readme" | sort -u)"

# The module's package directories, relative to its root.
root="$(go list -m -f '{{.Dir}}')/"
packages="$(go list -f '{{.Dir}}' ./... |
  ROOT="$root" awk 'index($0, ENVIRON["ROOT"]) == 1 { print substr($0, length(ENVIRON["ROOT"]) + 1) }' | sort -u)"
checked="$(grep -E '^(api|db|internal|workers|llm|web)(/|$)' <<<"$packages" | grep -vE '(^|/)testdata(/|$)' || true)"
if [ -z "$checked" ]; then
  echo "arch-check: go list found no package under api, db, internal, workers, llm or web" >&2
  exit 1
fi

missing="$(comm -23 <(printf '%s\n' "$checked") <(printf '%s\n' "$named"))"
stale="$(comm -13 <(printf '%s\n' "$packages") <(printf '%s\n' "$named"))"
if [ -n "$missing" ] || [ -n "$stale" ]; then
  if [ -n "$missing" ]; then
    echo "arch-check: $readme's architecture block does not name these packages:" >&2
    sed 's/^/  /' <<<"$missing" >&2
  fi
  if [ -n "$stale" ]; then
    echo "arch-check: $readme's architecture block names what is not a package:" >&2
    sed 's/^/  /' <<<"$stale" >&2
  fi
  echo "arch-check: give each package one line, its path first, between '$open' and '$close'" >&2
  exit 1
fi
echo "arch-check: $readme's architecture block names all $(wc -l <<<"$checked") packages under" \
  "api, db, internal, workers, llm and web"
