#!/usr/bin/env bash
# image.sh: build the Pilot container image (make image). A static pilot binary (CGO_ENABLED=0, its
# version set as `make build` sets it), the build machine's CA bundle and image/'s files (Containerfile,
# passwd, group) are staged in a temporary directory, which buildah — or podman, when buildah is absent —
# builds FROM scratch: nothing is pulled, no registry is needed, no daemon either.
#
# Environment:
#   VERSION        the version `pilot version` prints and the image's tag (default: git describe, else dev)
#   IMAGE          the image's name (default: pilot); it is tagged IMAGE:VERSION
#   BUILDER        buildah or podman (default: the first of them on PATH)
#   IMAGE_ARCHIVE  when set, also write the image to this file as an OCI archive (oci-archive:)
#   CA_BUNDLE      the CA certificates to copy in (default: Debian's /etc/ssl/certs/ca-certificates.crt)
# buildah and podman read their storage from containers-storage.conf(5) (CONTAINERS_STORAGE_CONF).
set -euo pipefail
cd "$(dirname "$0")/.."

VERSION=${VERSION:-$(git describe --always --dirty 2>/dev/null || echo dev)}
IMAGE=${IMAGE:-pilot}
CA_BUNDLE=${CA_BUNDLE:-/etc/ssl/certs/ca-certificates.crt}
if [ -z "${BUILDER:-}" ]; then
  for b in buildah podman; do
    if command -v "$b" >/dev/null 2>&1; then BUILDER=$b; break; fi
  done
fi
if [ -z "${BUILDER:-}" ]; then
  echo "image.sh: neither buildah nor podman is installed (Debian: apt-get install buildah)" >&2
  exit 1
fi
if [ ! -r "$CA_BUNDLE" ]; then
  echo "image.sh: no CA bundle at $CA_BUNDLE (Debian: apt-get install ca-certificates)" >&2
  exit 1
fi
# An image tag is [A-Za-z0-9_.-], at most 128 characters, not starting with . or -.
tag=$(printf %s "$VERSION" | tr -c 'A-Za-z0-9_.-' '-' | sed 's/^[.-]/_/' | cut -c1-128)

ctx=$(mktemp -d)
trap 'rm -rf "$ctx"' EXIT
cp image/Containerfile "$ctx/"
mkdir -p "$ctx/rootfs/etc/ssl/certs" "$ctx/data"
mkdir -m 1777 "$ctx/rootfs/tmp"
cp image/passwd image/group "$ctx/rootfs/etc/"
cp "$CA_BUNDLE" "$ctx/rootfs/etc/ssl/certs/ca-certificates.crt"
chmod 0644 "$ctx"/rootfs/etc/{passwd,group,ssl/certs/ca-certificates.crt}
chmod 0755 "$ctx/rootfs" "$ctx/data"
CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=$VERSION" -o "$ctx/rootfs/pilot" ./cmd/pilot

"$BUILDER" build --quiet --isolation chroot --build-arg "VERSION=$VERSION" -f "$ctx/Containerfile" \
  -t "$IMAGE:$tag" "$ctx" >/dev/null
if [ -n "${IMAGE_ARCHIVE:-}" ]; then
  rm -f "$IMAGE_ARCHIVE"
  "$BUILDER" push --quiet "$IMAGE:$tag" "oci-archive:$IMAGE_ARCHIVE:$IMAGE:$tag" >/dev/null
fi
echo "$IMAGE:$tag"
