#!/usr/bin/env bash
# The bench workspace's type check and its tools' tests, against the machine's PostgreSQL on the
# default port (a database `formgate_test`, made when missing).
set -euo pipefail
cd "$(dirname "$0")/.."
export PGHOST=${PGHOST:-127.0.0.1} PGPORT=${PGPORT:-5432} PGUSER=${PGUSER:-postgres}
psql -tAc "select 1 from pg_database where datname = 'formgate_test'" | grep -q 1 ||
  psql -c "create database formgate_test"
export TEST_DATABASE_URL="postgres://$PGUSER@$PGHOST:$PGPORT/formgate_test"
npm run typecheck --workspace=bench
npm run test --workspace=bench
