#!/usr/bin/env bash
# What the container test needs before it can build (steps 1 and 2 of run.sh): podman, runc,
# mmdebstrap and podman-compose installed with apt-get when missing, and the Node base image made
# from Debian's packages, cached in /var/cache/formgate-ci and in podman's store between runs.
# Network and disk, little CPU: .ci/run starts it in the background while `npm ci` runs, and
# run.sh runs it again, which then only finds everything in place. Safe to run twice in a row,
# not twice at once.
set -euo pipefail

CACHE_DIR=/var/cache/formgate-ci
BASE_IMAGE=localhost/node-base
started=$(date +%s)
step() { echo "==> [prepare $(($(date +%s) - started)) s] $*"; }

step "checking podman, runc, mmdebstrap, podman-compose"
missing=()
for tool in podman runc mmdebstrap podman-compose; do command -v "$tool" >/dev/null || missing+=("$tool"); done
if [ ${#missing[@]} -gt 0 ]; then
  step "installing ${missing[*]} with apt-get"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi
podman --version

if podman image exists "$BASE_IMAGE"; then
  step "base image $BASE_IMAGE is cached"
  exit 0
fi
mkdir -p "$CACHE_DIR"
if [ ! -s "$CACHE_DIR/base.tar" ]; then
  step "making the base image from Debian trixie's packages (nodejs 20, npm) with mmdebstrap"
  rm -f "$CACHE_DIR/base-new.tar"
  # Without manuals, translations and documentation (copyright files stay): less to unpack; and
  # no fsync per file (a half-made tarball is made again, never used).
  if ! mmdebstrap --quiet --variant=minbase --include=ca-certificates,nodejs,npm --dpkgopt=force-unsafe-io \
    --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/info/*' \
    --dpkgopt='path-exclude=/usr/share/locale/*' --dpkgopt='path-exclude=/usr/share/doc/*' \
    --dpkgopt='path-include=/usr/share/doc/*/copyright' \
    trixie "$CACHE_DIR/base-new.tar"; then
    echo "container preparation FAILED: mmdebstrap could not make the base image" >&2
    exit 1
  fi
  mv "$CACHE_DIR/base-new.tar" "$CACHE_DIR/base.tar"
fi
step "importing $CACHE_DIR/base.tar as $BASE_IMAGE"
podman import --quiet "$CACHE_DIR/base.tar" "$BASE_IMAGE" >/dev/null
