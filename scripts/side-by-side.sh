#!/usr/bin/env bash
# Runs each argument as a command, all at once, and prints each one's output after all have
# ended, in the order given: `bash scripts/side-by-side.sh "cmd one" "cmd two"`. Exits non-zero,
# naming the commands that failed, when any did. For tests that spend their time waiting on the
# network or on installs, so that they overlap instead of queueing.
set -uo pipefail
[ "$#" -gt 0 ] || { echo "usage: side-by-side.sh <command> [command …]" >&2; exit 2; }

logs=()
pids=()
# Whatever happens, nothing started here keeps running after this script.
trap 'for pid in "${pids[@]}"; do kill -- -"$pid" 2>/dev/null || true; done; rm -f "${logs[@]}"' EXIT
for command in "$@"; do
  log=$(mktemp)
  logs+=("$log")
  # Each command's wall time is the last line of its log.
  setsid bash -c 'started=$SECONDS; bash -c "$1"; code=$?; echo "── $((SECONDS - started)) s"; exit $code' _ "$command" >"$log" 2>&1 &
  pids+=("$!")
done

failed=()
commands=("$@")
for i in "${!pids[@]}"; do
  code=0
  wait "${pids[$i]}" || code=$?
  echo "━━ ${commands[$i]} (exit code $code)"
  cat "${logs[$i]}"
  [ "$code" = 0 ] || failed+=("${commands[$i]}")
done
pids=()
if [ "${#failed[@]}" -gt 0 ]; then
  printf 'failed: %s\n' "${failed[@]}"
  exit 1
fi
