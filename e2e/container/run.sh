#!/usr/bin/env bash
# The container image as operators run it (docs/deploy.md), with podman as root:
#  1. podman, runc, mmdebstrap and podman-compose installed (apt-get when missing);
#  2. a Node base image made from Debian's packages (no image registry is needed), cached in
#     /var/cache/formgate-ci and in podman's store between runs (1 and 2: prepare.sh);
#  3. the repository's Dockerfile built on it;
#  4. SQLite on a volume, read-only root file system: health check, a submission read back through
#     the management API, a restart that keeps it, SIGTERM ending the server cleanly in time,
#     `formgate --version` through `podman exec`;
#  5. two containers on this machine's PostgreSQL and Redis: the migration run once, a rate limit
#     shared by both, exactly one hook delivery per submission;
#  6. compose.yaml brought up with podman-compose on the image just built.
# compose.postgres.yaml needs images from a registry; its structure is checked by test/deploy/.
# Containers reach only this machine: published ports on 127.0.0.1, or the host's network.
#
# `run.sh --build-only` stops after step 3: .ci/run builds the image while `npm ci` and `npm test`
# run, and the test's own build then finds every layer in podman's cache.
set -euo pipefail
build_only=false
if [ "${1:-}" = "--build-only" ]; then build_only=true; fi
cd "$(dirname "$0")/../.."
root=$(pwd)
started=$(date +%s)

BASE_IMAGE=localhost/node-base
IMAGE=localhost/formgate:ci
SHUTDOWN_TIMEOUT_MS=5000
run_id="fgci$$"
work=$(mktemp -d)
containers=()
volumes=()
database=""
receiver_pid=""
compose_up=""

step() { echo "==> [$(($(date +%s) - started)) s] $*"; }
fail() {
  echo "container test FAILED: $*" >&2
  for c in "${containers[@]}"; do
    echo "--- last log lines of $c" >&2
    podman logs --tail 30 "$c" >&2 2>&1 || true
  done
  exit 1
}
cleanup() {
  local code=$?
  set +e
  if [ -n "$compose_up" ]; then
    FORMGATE_IMAGE=$IMAGE podman-compose -p "$run_id" -f compose.yaml down -v >/dev/null 2>&1
    podman volume rm -f "${run_id}_formgate-data" >/dev/null 2>&1
    podman network rm -f "${run_id}_default" >/dev/null 2>&1
  fi
  # -v: the anonymous /data volumes of the containers that were given none.
  for c in "${containers[@]}"; do podman rm -f -v -t 0 "$c" >/dev/null 2>&1; done
  for v in "${volumes[@]}"; do podman volume rm -f "$v" >/dev/null 2>&1; done
  if [ -n "$receiver_pid" ]; then kill "$receiver_pid" 2>/dev/null; wait "$receiver_pid" 2>/dev/null; fi
  if [ -n "$database" ]; then psql -q -h 127.0.0.1 -U postgres -c "drop database if exists $database with (force)" >/dev/null 2>&1; fi
  rm -rf "$work"
  exit "$code"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# runc and cgroupfs: crun and systemd cgroups fail on this kernel; so do podman's default ulimits.
pm() { podman --runtime runc --cgroup-manager=cgroupfs "$@"; }
RUN_FLAGS=(--ulimit nofile=1024:1024 --ulimit nproc=1024:1024)

# A JSON value from stdin by dotted path; exits non-zero when absent.
jget() {
  node -e '
    let s = "";
    process.stdin.on("data", (d) => (s += d)).on("end", () => {
      const v = process.argv[1].split(".").reduce((o, k) => (o == null ? undefined : o[k]), JSON.parse(s));
      if (v === undefined) process.exit(1);
      console.log(typeof v === "object" ? JSON.stringify(v) : v);
    });' "$1"
}
free_ports() {
  node -e '
    const net = require("node:net");
    const servers = Array.from({ length: Number(process.argv[1]) }, () => net.createServer().listen(0, "127.0.0.1"));
    Promise.all(servers.map((s) => new Promise((r) => s.once("listening", r)))).then(() => {
      console.log(servers.map((s) => s.address().port).join(" "));
      servers.forEach((s) => s.close());
    });' "$1"
}
# Waits until the image's HEALTHCHECK (run by podman) passes: the check operators' tools use.
wait_healthy() {
  local c=$1
  for _ in $(seq 1 60); do
    if podman healthcheck run "$c" >/dev/null 2>&1; then return 0; fi
    [ "$(podman inspect -f '{{.State.Running}}' "$c")" = true ] || fail "$c exited while starting"
    sleep 1
  done
  fail "$c did not pass its health check within 60 s"
}
wait_http_ok() {
  local url=$1
  for _ in $(seq 1 60); do
    if curl -fsS -o /dev/null "$url" 2>/dev/null; then return 0; fi
    sleep 1
  done
  fail "$url did not answer 200 within 60 s"
}
cli() { local c=$1; shift; pm exec "$c" formgate "$@"; }

step "podman and the base image (e2e/container/prepare.sh)"
bash "$root/e2e/container/prepare.sh" || fail "the container test's preparation failed"
pm run --rm "${RUN_FLAGS[@]}" --network none "$BASE_IMAGE" node -e 'if (!process.versions.node.startsWith("20.")) process.exit(1)' ||
  fail "the base image has no Node 20"

# Untagged build layers of earlier runs are the build cache (keyed by the files' content, not
# their times, so a fresh clone reuses the dependency stages); past a day they are removed, so
# the layers each commit's sources make do not fill the disk.
podman image prune -f --filter until=24h >/dev/null
step "building the Dockerfile on $BASE_IMAGE (log: build.log on failure)"
build_started=$(date +%s)
registry=$(npm config get registry 2>/dev/null)
# --format docker keeps the HEALTHCHECK (the OCI image format has no field for it).
# --jobs 2: the dependency and TypeScript stages build side by side. They must share no first step
# (the Dockerfile's deps stage declares its ARGs after apt-get): podman makes a shared step once per
# stage when they run at once, and the next build then misses the cache of one of them.
if ! podman build --format docker --isolation=chroot --network host --jobs 2 \
  --build-arg NODE_IMAGE="$BASE_IMAGE" \
  --build-arg NPM_CONFIG_REGISTRY="$registry" \
  --build-arg NPM_CONFIG_CAFILE=/etc/ssl/certs/ca-certificates.crt \
  -v /etc/ssl/certs:/etc/ssl/certs:ro \
  -t "$IMAGE" . >"$work/build.log" 2>&1; then
  tail -40 "$work/build.log" >&2
  fail "podman build failed"
fi
size=$(podman image inspect -f '{{.Size}}' "$IMAGE")
base_size=$(podman image inspect -f '{{.Size}}' "$BASE_IMAGE")
step "built $IMAGE in $(($(date +%s) - build_started)) s: $((size / 1000000)) MB ($(((size - base_size) / 1000000)) MB over the base image)"
if $build_only; then exit 0; fi

step "checking the image's configuration"
user=$(podman image inspect -f '{{.Config.User}}' "$IMAGE")
[ "$user" = "10001:10001" ] || fail "the image runs as '$user', not the non-root 10001:10001"
podman image inspect -f '{{json .Config.Healthcheck}}' "$IMAGE" | grep -q '/readyz' || fail "the image has no HEALTHCHECK on /readyz"
podman image inspect -f '{{json .Config.Cmd}}' "$IMAGE" | grep -qx '\["formgate","serve"\]' || fail "CMD is not the exec form of formgate serve"
case "$(podman image inspect -f '{{json .Config.Entrypoint}}' "$IMAGE")" in null | '[]') ;; *) fail "the image has an entrypoint before formgate" ;; esac
podman image inspect -f '{{json .Config.Volumes}}' "$IMAGE" | grep -q '"/data"' || fail "/data is not a volume"
env_json=$(podman image inspect -f '{{json .Config.Env}}' "$IMAGE")
grep -q 'DATABASE_URL=sqlite:/data/formgate.db' <<<"$env_json" || fail "DATABASE_URL is not sqlite:/data/formgate.db"
grep -q 'HOST=0.0.0.0' <<<"$env_json" || fail "HOST is not 0.0.0.0"
grep -q 'MALLOC_ARENA_MAX=2' <<<"$env_json" || fail "MALLOC_ARENA_MAX is not 2 (docs/choices.md)"
if grep -qi 'npm_config' <<<"$env_json$(podman history --no-trunc --format '{{.CreatedBy}}' "$IMAGE")"; then
  fail "npm build settings are in the runtime image"
fi
if pm run --rm "${RUN_FLAGS[@]}" --network none "$IMAGE" sh -c 'command -v g++ || command -v make || command -v cc'; then
  fail "a compiler is in the runtime image"
fi

# --- SQLite on a volume -------------------------------------------------------------------------
read -r sqlite_port < <(free_ports 1)
sqlite_c="${run_id}-sqlite"
volume="${run_id}-data"
volumes+=("$volume")
containers+=("$sqlite_c")
step "starting $sqlite_c: SQLite on volume $volume, read-only root file system, 127.0.0.1:$sqlite_port"
pm run -d "${RUN_FLAGS[@]}" --name "$sqlite_c" --read-only -v "$volume:/data" -p "127.0.0.1:$sqlite_port:3000" \
  -e SHUTDOWN_TIMEOUT_MS=$SHUTDOWN_TIMEOUT_MS "$IMAGE" >/dev/null 2>"$work/run.err" || { cat "$work/run.err" >&2; fail "podman run failed"; }
wait_healthy "$sqlite_c"
base="http://127.0.0.1:$sqlite_port"
curl -fsS "$base/readyz" | grep -q '"database":"ok"' || fail "/readyz does not report the database ok"
pid1=$(pm exec "$sqlite_c" cat /proc/1/comm)
[ "$pid1" = node ] || fail "PID 1 is '$pid1', not node: a shell is in between"

step "formgate --version through podman exec"
version=$(cli "$sqlite_c" --version)
[ "$version" = "$(node -p "require('./package.json').version")" ] || fail "formgate --version printed '$version'"

step "an account, a form and an API key through the CLI; a submission"
cli "$sqlite_c" accounts create --email owner@example.test --json >/dev/null || fail "accounts create failed"
form_id=$(cli "$sqlite_c" forms create owner@example.test --name Contact --json | jget form.id) || fail "forms create failed"
api_key=$(cli "$sqlite_c" keys create owner@example.test --json | jget apiKey) || fail "keys create failed"
answer=$(curl -sS -H 'content-type: application/json' -H 'accept: application/json' \
  -d '{"email":"visitor@example.test","message":"kept across restarts"}' "$base/v1/submit/$form_id")
submission_id=$(jget submissionId <<<"$answer") || fail "submit answered $answer"
read_back() {
  curl -sS -H "authorization: Bearer $api_key" "$base/v1/api/submissions/$submission_id"
}
read_back | grep -q 'kept across restarts' || fail "the management API does not return the submission: $(read_back)"

step "formgate backup through podman exec, into the volume (docs/deploy.md: Backups)"
cli "$sqlite_c" backup /data/backup.db --json | grep -q '"bytes":[1-9]' || fail "formgate backup wrote nothing"

step "restarting $sqlite_c: the submission and the backup are still there"
pm stop -t 30 "$sqlite_c" >/dev/null 2>&1
pm start "$sqlite_c" >/dev/null 2>&1
wait_healthy "$sqlite_c"
read_back | grep -q 'kept across restarts' || fail "the submission is gone after a restart: $(read_back)"
pm exec "$sqlite_c" test -s /data/backup.db || fail "the backup in the volume is gone after a restart"

step "SIGTERM during a slow upload: the request finishes, then the server exits within SHUTDOWN_TIMEOUT_MS ($SHUTDOWN_TIMEOUT_MS ms)"
submits_logged() { podman logs "$sqlite_c" 2>&1 | grep -c '"method":"POST","url":"/v1/submit/' || true; }
submits_before=$(submits_logged)
# 2 KB at 1 KB/s: the request is still arriving when SIGTERM comes.
node -e 'process.stdout.write(JSON.stringify({ email: "slow@example.test", message: "in flight at SIGTERM " + "x".repeat(2000) }))' >"$work/slow.json"
curl -sS --limit-rate 1000 -H 'content-type: application/json' -H 'accept: application/json' \
  --data-binary @"$work/slow.json" "$base/v1/submit/$form_id" >"$work/slow-answer.json" 2>&1 &
slow_pid=$!
for _ in $(seq 1 100); do [ "$(submits_logged)" -gt "$submits_before" ] && break; sleep 0.1; done
[ "$(submits_logged)" -gt "$submits_before" ] || fail "the slow submission never reached the server"
stop_started=$(date +%s%N)
pm stop -t 30 "$sqlite_c" >/dev/null 2>&1
stop_ms=$((($(date +%s%N) - stop_started) / 1000000))
wait "$slow_pid" || fail "the submission in progress at SIGTERM failed: $(cat "$work/slow-answer.json")"
slow_id=$(jget submissionId <"$work/slow-answer.json") || fail "the submission in progress at SIGTERM answered $(cat "$work/slow-answer.json")"
code=$(podman inspect -f '{{.State.ExitCode}}' "$sqlite_c")
# The server's SIGTERM handler exits 0 once it has closed; without it the signal's default
# action would end it with 143, and podman's SIGKILL after -t with 137.
[ "$code" = 0 ] || fail "exit code after SIGTERM is $code, not 0"
[ "$stop_ms" -lt "$SHUTDOWN_TIMEOUT_MS" ] || fail "stopping took $stop_ms ms"
step "stopped in $stop_ms ms with exit code 0, after answering the upload in progress"
pm start "$sqlite_c" >/dev/null 2>&1
wait_healthy "$sqlite_c"
curl -sS -H "authorization: Bearer $api_key" "$base/v1/api/submissions/$slow_id" | grep -q 'in flight at SIGTERM' ||
  fail "the submission answered during shutdown is not stored"
pm stop -t 30 "$sqlite_c" >/dev/null 2>&1

# --- two containers on PostgreSQL and Redis ------------------------------------------------------
database="formgate_ci_$$"
step "PostgreSQL database $database; the migration run once, as compose's migrate service does"
psql -q -h 127.0.0.1 -U postgres -c "create database $database" >/dev/null
redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null || fail "Redis does not answer on 127.0.0.1:6379"
db_url="postgres://postgres@127.0.0.1:5432/$database"
pm run --rm "${RUN_FLAGS[@]}" --network host -e DATABASE_URL="$db_url" "$IMAGE" formgate migrate --json 2>"$work/migrate.err" |
  grep -q '"migrated":true' || { cat "$work/migrate.err" >&2; fail "formgate migrate failed"; }

step "an HTTPS hook receiver on the host"
# node itself, not npx: the cleanup's kill reaches the receiver (through npx and the tsx CLI it
# reached only npx, and the receiver outlived the test).
node --import tsx e2e/container/hook-receiver.ts "$work/receiver.pem" "$work/receiver.url" >"$work/deliveries.log" 2>&1 &
receiver_pid=$!
for _ in $(seq 1 100); do [ -s "$work/receiver.url" ] && break; sleep 0.2; done
[ -s "$work/receiver.url" ] || fail "the hook receiver did not start: $(cat "$work/deliveries.log")"
receiver_url=$(cat "$work/receiver.url")

read -r port_a port_b < <(free_ports 2)
start_pg_instance() {
  local name=$1 port=$2
  containers+=("$name")
  pm run -d "${RUN_FLAGS[@]}" --name "$name" --network host --read-only \
    -e HOST=127.0.0.1 -e PORT="$port" -e DATABASE_URL="$db_url" -e REDIS_URL=redis://127.0.0.1:6379 \
    -e HOOK_ALLOW_PRIVATE_TARGETS=true -e NODE_EXTRA_CA_CERTS=/certs/receiver.pem \
    -v "$work/receiver.pem:/certs/receiver.pem:ro" "$IMAGE" >/dev/null 2>>"$work/run.err" ||
    { cat "$work/run.err" >&2; fail "podman run of $name failed"; }
}
step "two instances on the host's network: 127.0.0.1:$port_a and 127.0.0.1:$port_b"
start_pg_instance "${run_id}-a" "$port_a"
start_pg_instance "${run_id}-b" "$port_b"
wait_healthy "${run_id}-a"
wait_healthy "${run_id}-b"
for port in "$port_a" "$port_b"; do
  curl -fsS "http://127.0.0.1:$port/readyz" | grep -q '"redis":"ok"' || fail "the instance on $port does not use Redis"
done

a="http://127.0.0.1:$port_a"
b="http://127.0.0.1:$port_b"
cli "${run_id}-a" accounts create --email team@example.test --plan pro --json >/dev/null || fail "accounts create failed"
form_id=$(cli "${run_id}-a" forms create team@example.test --name Signup --json | jget form.id) || fail "forms create failed"
hook_key=$(cli "${run_id}-a" keys create team@example.test --name hooks --json | jget apiKey) || fail "keys create failed"
limit_key=$(cli "${run_id}-b" keys create team@example.test --name limits --json | jget apiKey) || fail "keys create failed"
hook_answer=$(curl -sS -H "authorization: Bearer $hook_key" -H 'content-type: application/json' \
  -d "{\"formId\":\"$form_id\",\"targetUrl\":\"$receiver_url/hook\"}" "$b/v1/api/hooks")
jget hook.id <<<"$hook_answer" >/dev/null || fail "hook creation answered $hook_answer"

submissions=10
step "$submissions submissions alternating between both instances: one delivery each"
for i in $(seq 1 "$submissions"); do
  target=$a
  [ $((i % 2)) = 0 ] && target=$b
  curl -fsS -o /dev/null -H 'content-type: application/json' -H 'accept: application/json' \
    -d "{\"email\":\"n$i@example.test\"}" "$target/v1/submit/$form_id" || fail "submission $i failed"
done
delivered() { grep -c '^delivery ' "$work/deliveries.log" || true; }
for _ in $(seq 1 120); do [ "$(delivered)" -ge "$submissions" ] && break; sleep 0.5; done
[ "$(delivered)" = "$submissions" ] || fail "$(delivered) deliveries for $submissions submissions"

step "the management API's 120 requests a minute per key, counted across both instances"
statuses=""
for i in $(seq 1 120); do
  target=$a
  [ $((i % 2)) = 0 ] && target=$b
  statuses+="$(curl -sS -o /dev/null -w '%{http_code}' -H "authorization: Bearer $limit_key" "$target/v1/api/hooks") "
done
ok=$(grep -o '200' <<<"$statuses" | wc -l)
[ "$ok" = 120 ] || fail "only $ok of the first 120 requests answered 200: $statuses"
for target in "$a" "$b"; do
  status=$(curl -sS -o /dev/null -w '%{http_code}' -H "authorization: Bearer $limit_key" "$target/v1/api/hooks")
  [ "$status" = 429 ] || fail "request 121+ to $target answered $status, not 429: the limit is not shared"
done

# Checked after the rate-limit phase, so a second send by the other instance had time to show.
[ "$(delivered)" = "$submissions" ] || fail "$(delivered) deliveries for $submissions submissions"
distinct=$(grep '^delivery ' "$work/deliveries.log" | sort -u | wc -l)
[ "$distinct" = "$submissions" ] || fail "$distinct distinct webhook ids for $submissions deliveries"
attempts=$(psql -tA -h 127.0.0.1 -U postgres -d "$database" -c "select count(*) from outbox_attempts where channel = 'hooks'")
[ "$attempts" = "$submissions" ] || fail "$attempts recorded delivery attempts for $submissions submissions"
step "$submissions submissions, $submissions deliveries, 429 on both instances after 120 requests"

for c in "${run_id}-a" "${run_id}-b"; do
  pm stop -t 30 "$c" >/dev/null 2>&1
  [ "$(podman inspect -f '{{.State.ExitCode}}' "$c")" = 0 ] || fail "$c did not exit 0 on SIGTERM"
done

# --- compose.yaml --------------------------------------------------------------------------------
read -r compose_port < <(free_ports 1)
step "compose.yaml with podman-compose on $IMAGE, port 127.0.0.1:$compose_port"
compose_up=1
FORMGATE_IMAGE=$IMAGE FORMGATE_PORT="127.0.0.1:$compose_port" \
  podman-compose -p "$run_id" -f compose.yaml --podman-args="--runtime runc --cgroup-manager=cgroupfs" --podman-run-args="${RUN_FLAGS[*]}" up -d --no-build >"$work/compose.log" 2>&1 ||
  { cat "$work/compose.log" >&2; fail "podman-compose up failed"; }
compose_c=$(podman ps --filter "label=io.podman.compose.project=$run_id" --format '{{.Names}}' | head -1)
[ -n "$compose_c" ] || { cat "$work/compose.log" >&2; fail "compose started no container"; }
containers+=("$compose_c")
wait_healthy "$compose_c"
compose_base="http://127.0.0.1:$compose_port"
curl -fsS "$compose_base/readyz" | grep -q '"database":"ok"' || fail "compose's Formgate is not ready"
cli "$compose_c" accounts create --email compose@example.test --json >/dev/null || fail "accounts create failed"
form_id=$(cli "$compose_c" forms create compose@example.test --name Compose --json | jget form.id) || fail "forms create failed"
answer=$(curl -sS -H 'content-type: application/json' -H 'accept: application/json' -d '{"email":"c@example.test"}' "$compose_base/v1/submit/$form_id")
jget submissionId <<<"$answer" >/dev/null || fail "submit through compose answered $answer"
pm exec "$compose_c" sh -c 'test -s /data/formgate.db' || fail "compose's Formgate does not keep its database on the /data volume"

step "container test passed in $(($(date +%s) - started)) s (image $((size / 1000000)) MB)"
