#!/usr/bin/env bash
# `npm run test:e2e`: the tests that need whole programs — Chromium journeys, the CLI and the
# server as child processes, then the crash, flood and fault cases, then the package as a newcomer
# installs it and the container image — each on SQLite and on PostgreSQL where a database is used.
set -euo pipefail
cd "$(dirname "$0")/.."

node scripts/build-if-stale.mjs
npx vitest run --config e2e/vitest.config.ts
npx vitest run --config e2e/vitest.reliability.config.ts

# The package test (npm pack, npm install -g of the tarball, formgate serve) runs beside the
# container test: both spend most of their time installing from the npm registry (npm install -g
# here, podman's build there), and neither uses what the other writes (the image's build context
# leaves dist/ and client/dist/ out). Its output is shown after the container test's.
package_log=$(mktemp)
package_test=""
# A failure ends this script at once: never with the package test still running behind it.
trap 'if [ -n "$package_test" ]; then wait "$package_test" 2>/dev/null || true; fi; rm -f "$package_log"' EXIT
bash e2e/package/pack.sh >"$package_log" 2>&1 &
package_test=$!
container_code=0
bash e2e/container/run.sh || container_code=$?
package_code=0
wait "$package_test" || package_code=$?
package_test=""
cat "$package_log"
[ "$package_code" = 0 ] || echo "the package test failed (exit code $package_code, above)"
[ "$container_code" = 0 ] || echo "the container test failed (exit code $container_code)"
[ "$package_code" = 0 ] && [ "$container_code" = 0 ]
