#!/usr/bin/env bash
# `npm run test:e2e`: the tests that need whole programs — Chromium journeys, the CLI and the
# server as child processes, then the crash, flood and fault cases, then the package as a newcomer
# installs it and the container image. The CLI, process and reliability tests run on SQLite and on
# PostgreSQL; each browser journey on one of them (e2e/vitest.config.ts says which).
#
# `npm run test:e2e -- "<command>" …` runs each extra command beside the package and container
# tests (CI puts the bench's tests and the suite on another Node.js there).
set -euo pipefail
cd "$(dirname "$0")/.."

node scripts/build-if-stale.mjs
started=$SECONDS
npx vitest run --config e2e/vitest.config.ts
echo "── browser, CLI and process tests: $((SECONDS - started)) s"
started=$SECONDS
npx vitest run --config e2e/vitest.reliability.config.ts
echo "── reliability tests: $((SECONDS - started)) s"

# The package test (npm pack, npm install -g of the tarball, formgate serve) and the container
# test spend most of their time installing from the npm registry (npm install -g here, podman's
# build there), and neither uses what the other writes (the image's build context leaves dist/
# and client/dist/ out), so they run side by side.
bash scripts/side-by-side.sh "bash e2e/package/pack.sh" "bash e2e/container/run.sh" "$@"
