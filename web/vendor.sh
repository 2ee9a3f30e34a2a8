#!/usr/bin/env bash
# vendor.sh: fetch the web app's pinned libraries from the npm registry (npm pack) and copy their ES
# module files, with their licenses, into static/vendor, and axe-core (for the browser tests only) into
# testdata/axe. Run it to change a version (edit the pins below), then commit static/vendor and
# testdata/axe. The app imports only these files: nothing is loaded from another
# origin at run time.
set -euo pipefail
cd "$(dirname "$0")"
PREACT=11.2.0
HTM=3.1.1
UQR=0.1.3 # QR codes (two-factor setup), loaded lazily by the account settings
AXE=4.14.1 # axe-core: for the browser tests only (testdata/axe), never served
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent "preact@$PREACT" "htm@$HTM" "uqr@$UQR" "axe-core@$AXE" >/dev/null && for f in *.tgz; do mkdir "${f%.tgz}" && tar xzf "$f" -C "${f%.tgz}"; done)
out=static/vendor
mkdir -p "$out"
cp "$tmp/preact-$PREACT/package/dist/preact.mjs" "$out/preact.js"
# hooks import the bare name "preact", which a browser cannot resolve without an import map (an
# inline script, which the Content-Security-Policy forbids): point it at the file beside it.
sed 's#from"preact"#from"./preact.js"#g' "$tmp/preact-$PREACT/package/hooks/dist/hooks.mjs" > "$out/preact-hooks.js"
cp "$tmp/htm-$HTM/package/dist/htm.mjs" "$out/htm.js"
cp "$tmp/preact-$PREACT/package/LICENSE" "$out/LICENSE.preact"
cp "$tmp/htm-$HTM/package/LICENSE" "$out/LICENSE.htm"
cp "$tmp/uqr-$UQR/package/dist/index.mjs" "$out/uqr.js"
cp "$tmp/uqr-$UQR/package/LICENSE" "$out/LICENSE.uqr"
cat > "$out/VERSIONS" <<V
preact $PREACT (MIT, LICENSE.preact): preact.js = dist/preact.mjs, preact-hooks.js = hooks/dist/hooks.mjs
htm $HTM (Apache-2.0, LICENSE.htm): htm.js = dist/htm.mjs
uqr $UQR (MIT, LICENSE.uqr): uqr.js = dist/index.mjs
V
mkdir -p testdata/axe
cp "$tmp/axe-core-$AXE/package/axe.min.js" "$tmp/axe-core-$AXE/package/LICENSE" testdata/axe/
echo "axe-core $AXE (MPL-2.0, LICENSE): axe.min.js, injected by the browser tests" > testdata/axe/VERSION
grep -q 'from"preact"' "$out/preact-hooks.js" && { echo "hooks still import bare preact" >&2; exit 1; }
echo "vendored preact $PREACT, htm $HTM and uqr $UQR into $out, axe-core $AXE into testdata/axe"
