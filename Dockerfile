# Formgate container image (docs/deploy.md). Build:  docker build -t formgate .
#
# NODE_IMAGE: any Debian-based image with Node.js 20.19+ and npm (the official one by default).
# NPM_CONFIG_REGISTRY / NPM_CONFIG_CAFILE: a private npm registry and its CA for the build; empty
# means npm's defaults. They are read by the build stages' npm only: nothing of them reaches the
# final image (build arguments of earlier stages are not part of it).
ARG NODE_IMAGE=node:20-bookworm-slim

# Production dependencies, with better-sqlite3's native addon compiled against NODE_IMAGE's Node.
# (The compiler stays in this stage; force-unsafe-io: no fsync per file in a throwaway layer.)
FROM ${NODE_IMAGE} AS deps
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      -o Dpkg::Options::=--force-unsafe-io python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
# The ARGs come after the compiler: apt-get does not read them, and a first step this stage shares
# with the build stage's would be made twice when podman builds both at once (--jobs 2), leaving
# the next build a cache that misses this stage.
ARG NPM_CONFIG_REGISTRY=
ARG NPM_CONFIG_CAFILE=
WORKDIR /app
# The client package is an npm workspace: the lock file names it, so npm ci needs its manifest.
COPY package.json package-lock.json ./
COPY client/package.json ./client/
# Scripts are off for the install (the package's own `prepare` would compile TypeScript) and run
# for better-sqlite3 alone. It compiles from source: no prebuilt download from GitHub, which
# networks that only reach an npm registry cannot fetch. The headers come from the image
# (/usr/local/include/node in the official one, /usr/include/node in Debian's) instead of nodejs.org.
RUN set -eu; \
    [ -n "$NPM_CONFIG_REGISTRY" ] || unset NPM_CONFIG_REGISTRY; \
    [ -n "$NPM_CONFIG_CAFILE" ] || unset NPM_CONFIG_CAFILE; \
    if [ -f /usr/local/include/node/node.h ]; then export npm_config_nodedir=/usr/local; \
    elif [ -f /usr/include/node/node.h ]; then export npm_config_nodedir=/usr; fi; \
    npm ci --omit=dev --ignore-scripts --no-audit --no-fund; \
    npm_config_build_from_source=true npm rebuild better-sqlite3; \
    cd node_modules/better-sqlite3; \
    mv build/Release/better_sqlite3.node /tmp/; \
    rm -rf build deps src; \
    mkdir -p build/Release; mv /tmp/better_sqlite3.node build/Release/; \
    node -e "new (require('/app/node_modules/better-sqlite3'))(':memory:').prepare('select 1').get()"; \
    rm -rf /root/.npm /tmp/*

# The TypeScript build, with every development dependency.
FROM ${NODE_IMAGE} AS build
ARG NPM_CONFIG_REGISTRY=
ARG NPM_CONFIG_CAFILE=
WORKDIR /app
COPY package.json package-lock.json ./
COPY client/package.json ./client/
RUN set -eu; \
    [ -n "$NPM_CONFIG_REGISTRY" ] || unset NPM_CONFIG_REGISTRY; \
    [ -n "$NPM_CONFIG_CAFILE" ] || unset NPM_CONFIG_CAFILE; \
    npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY client ./client
COPY src ./src
# bench/ stays out: a workspace of its own that the image never runs, and its results.json changes
# every time the benchmarks are written, which would rebuild this stage without a source change.
RUN npm run build && find dist -name '*.map' -delete && rm -f dist/.tsbuildinfo

FROM ${NODE_IMAGE} AS runtime
# A fixed numeric user, so Kubernetes' runAsNonRoot can verify it without a passwd lookup.
RUN set -eu; \
    if command -v useradd >/dev/null; then \
      groupadd --gid 10001 formgate; \
      useradd --uid 10001 --no-log-init --gid formgate --home-dir /data --no-create-home --shell /usr/sbin/nologin formgate; \
    else \
      echo 'formgate:x:10001:10001:Formgate:/data:/usr/sbin/nologin' >>/etc/passwd; \
      echo 'formgate:x:10001:' >>/etc/group; \
    fi; \
    mkdir -p /data; chown 10001:10001 /data; \
    ln -s /app/bin/formgate.js /usr/local/bin/formgate
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist/src ./dist/src
# The browser script the server serves at /v1/client.js, its sealing chunk, the dashboard's sealed-form tools.
COPY --from=build /app/client/dist/formgate.min.js ./client/dist/formgate.min.js
COPY --from=build /app/client/dist/formgate-seal.min.js ./client/dist/formgate-seal.min.js
COPY --from=build /app/client/dist/dashboard-sealed.min.js ./client/dist/dashboard-sealed.min.js
COPY package.json LICENSE ./
COPY bin ./bin
# MALLOC_ARENA_MAX: glibc gives every thread that allocates an arena of its own, which keeps what
# start-up freed; two hold ~2–3 MB less at idle, no throughput change measured (docs/choices.md).
ENV HOST=0.0.0.0 \
    PORT=3000 \
    DATABASE_URL=sqlite:/data/formgate.db \
    FILES_DIR=/data/files \
    MALLOC_ARENA_MAX=2
USER 10001:10001
VOLUME ["/data"]
EXPOSE 3000
# Node itself asks (no curl in the image): healthy when /readyz answers 200 (database reachable).
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/readyz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# Exec form: the server is PID 1 (env execs node) and handles SIGTERM itself: it stops accepting,
# lets requests in progress finish (SHUTDOWN_TIMEOUT_MS), closes the database and exits 0. No
# entrypoint script of the base image in between (the official one has docker-entrypoint.sh).
ENTRYPOINT []
CMD ["formgate", "serve"]
