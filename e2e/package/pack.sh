#!/usr/bin/env bash
# The package as a newcomer gets it: `npm pack`, `npm install -g` of the tarball into a temporary
# prefix (dependencies from the npm registry, better-sqlite3's prebuilt binary from a stand-in), then
# `formgate --version`, and `formgate serve` in an empty folder: an account, a form, a submit,
# the dashboard redirect, SIGTERM. Run by .ci/run (too slow for `npm test`).
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
work=$(mktemp -d)
server_pid=""
cleanup() {
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then kill -9 "$server_pid" || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "pack test FAILED: $*" >&2; [ -f "$work/run/server.log" ] && cat "$work/run/server.log" >&2; exit 1; }

version=$(node -p "require('./package.json').version")
echo "packing formgate $version"
tarball=$(npm pack --silent --pack-destination "$work" 2>/dev/null | tail -1)
[ -f "$work/$tarball" ] || fail "npm pack produced no tarball"
contents=$(tar -tzf "$work/$tarball")
for required in package/bin/formgate.js package/dist/src/frontends/cli/index.js package/dist/src/server.js package/dist/client/src/api/index.js package/client/dist/formgate.min.js package/client/dist/formgate-seal.min.js package/client/dist/dashboard-sealed.min.js package/LICENSE package/.env.example package/CHANGELOG.md; do
  grep -qx "$required" <<<"$contents" || fail "$required is missing from the tarball"
done
if grep -q '^package/\(src\|test\|bench\)/' <<<"$contents"; then fail "sources or tests are in the tarball"; fi

# On a machine that reaches GitHub, better-sqlite3's install downloads its prebuilt binary from
# the release server; that server is stood in for by the binary `npm ci` made in this checkout,
# for this Node and the same version, packed as prebuild-install looks for it in a local folder.
prebuilds="$work/prebuilds"
mkdir "$prebuilds"
sqlite_version=$(node -p "require('./node_modules/better-sqlite3/package.json').version")
tar -czf "$prebuilds/better-sqlite3-v$sqlite_version-node-v$(node -p process.versions.modules)-linux-x64.tar.gz" \
  -C node_modules/better-sqlite3 build/Release/better_sqlite3.node
export npm_config_better_sqlite3_local_prebuilds="$prebuilds"

echo "installing $tarball into a temporary prefix"
started=$(date +%s)
npm install -g --no-audit --no-fund --prefix "$work/prefix" "$work/$tarball" >"$work/install.log" 2>&1 || { cat "$work/install.log"; fail "npm install -g failed"; }
echo "installed in $(( $(date +%s) - started )) s"
formgate="$work/prefix/bin/formgate"
[ -x "$formgate" ] || fail "no formgate binary in the prefix"
# node-gyp leaves its object files beside the binary: there are none when the prebuilt one was used.
[ ! -d "$work/prefix/lib/node_modules/formgate/node_modules/better-sqlite3/build/Release/obj.target" ] || fail "better-sqlite3 was compiled instead of taken prebuilt"
if [ -d "$work/prefix/lib/node_modules/formgate/node_modules/typescript" ] || [ -d "$work/prefix/lib/node_modules/typescript" ]; then
  fail "a development dependency (typescript) was installed"
fi

printed=$("$formgate" --version)
[ "$printed" = "$version" ] || fail "formgate --version printed '$printed', expected '$version'"

mkdir "$work/run"
cd "$work/run"
# No DATABASE_URL: the default SQLite file in this folder.
env -u DATABASE_URL -u REDIS_URL -u BASE_URL PORT=0 LOG_LEVEL=info "$formgate" serve >server.log 2>&1 &
server_pid=$!
url=""
for _ in $(seq 1 300); do
  url=$(grep -o 'listening on http://[0-9.]*:[0-9]*' server.log | head -1 | sed 's/listening on //' || true)
  [ -n "$url" ] && break
  kill -0 "$server_pid" 2>/dev/null || fail "formgate serve exited"
  sleep 0.1
done
[ -n "$url" ] || fail "formgate serve did not print its address"
grep -q "Database: SQLite file $work/run/data/formgate.db" server.log || fail "the start lines do not name the database file"
grep -q "Dashboard: " server.log || fail "the start lines do not name the dashboard"

env -u DATABASE_URL "$formgate" accounts create --email owner@example.com --json >/dev/null
form_id=$(env -u DATABASE_URL "$formgate" forms create owner@example.com --name Contact --json | node -pe 'JSON.parse(require("fs").readFileSync(0, "utf8")).form.id')
answer=$(curl -sS -H 'content-type: application/json' -H 'accept: application/json' -d '{"email":"a@example.com"}' "$url/v1/submit/$form_id")
grep -q '"ok":true' <<<"$answer" || fail "submit answered $answer"
script=$(curl -sS -o /dev/null -w '%{http_code} %{content_type}' "$url/v1/client.js")
[ "$script" = "200 text/javascript; charset=utf-8" ] || fail "/v1/client.js answered '$script'"
location=$(curl -sS -o /dev/null -w '%{redirect_url}' "$url/")
[ "$location" = "$url/dashboard" ] || fail "/ redirected to '$location'"

kill -TERM "$server_pid"
code=0
wait "$server_pid" || code=$?
server_pid=""
[ "$code" = 0 ] || fail "formgate serve exited with $code after SIGTERM"
[ -s data/formgate.db ] || fail "no SQLite database in the working folder"
stored=$(node -e "
  const Database = require('$work/prefix/lib/node_modules/formgate/node_modules/better-sqlite3');
  const db = new Database('data/formgate.db', { readonly: true });
  console.log(db.prepare('select count(*) as n from submissions').get().n);
" 2>/dev/null || sqlite3 data/formgate.db 'select count(*) from submissions')
[ "$stored" = 1 ] || fail "expected 1 stored submission, found $stored"
echo "pack test passed: formgate $version installed from the tarball, served, stored a submission and stopped cleanly"
