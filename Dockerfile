# One image for every service; the service is chosen by SERVICE (or the command).
#   docker build -t sms-platform .
#   docker run -e SERVICE=api-gateway -e DATABASE_URL=… -e REDIS_URL=… sms-platform
# The base image is a setting: the official Node 24 LTS image by default (the tests build
# with a local stand-in: deploy/test/base-images.sh).
ARG NODE_IMAGE=node:24-bookworm-slim

FROM ${NODE_IMAGE} AS build
# Behind a TLS-inspecting proxy, its CA certificates (PEM text) let npm and pnpm reach the
# registry: --build-arg EXTRA_CA_CERTS="$(cat /usr/local/share/ca-certificates/*.crt)".
# Used by this stage only; the runtime image does not carry them.
ARG EXTRA_CA_CERTS=""
ENV NODE_EXTRA_CA_CERTS=/tmp/extra-ca-certificates.pem
RUN printf '%s\n' "$EXTRA_CA_CERTS" >"$NODE_EXTRA_CA_CERTS"
WORKDIR /app
RUN npm install -g pnpm@10.34.9 >/dev/null
# Every locked package into pnpm's store, from the lockfile alone: this layer is reused
# until the lockfile changes, whatever else does.
COPY pnpm-lock.yaml pnpm-workspace.yaml ./
RUN pnpm fetch >/dev/null
COPY . .
RUN pnpm install --offline --frozen-lockfile --reporter=silent \
 && DATABASE_URL=postgresql://build@localhost/build bash scripts/prisma.sh generate >/dev/null \
 && pnpm run build
# The production dependencies of deploy/image alone, as locked: a workspace of that one
# package (pnpm deploy would resolve them anew), its direct dependencies then linked at the top.
RUN mkdir -p /deps/deploy/image \
 && cp pnpm-lock.yaml pnpm-workspace.yaml package.json /deps/ && cp deploy/image/package.json /deps/deploy/image/ \
 && cd /deps && pnpm install --prod --frozen-lockfile --offline --filter @sms/image --reporter=silent \
 && cd /deps/deploy/image/node_modules \
 && for dep in $(ls -d -- [!.@]* @*/*); do \
      mkdir -p "/deps/node_modules/$(dirname "$dep")"; \
      ln -s "$(realpath --relative-to="/deps/node_modules/$(dirname "$dep")" "$(readlink -f "$dep")")" "/deps/node_modules/$dep"; \
    done
# What the runtime needs, laid out as in the repository: each service's bundle (its npm
# dependencies inside), the migration step (Prisma CLI, schema, migrations, the adapter
# prisma.config.ts loads) and those production dependencies.
RUN mkdir -p /out/scripts /out/packages/db/src \
 && for dist in services/*/dist; do mkdir -p "/out/$dist" && cp -a "$dist/." "/out/$dist/"; done \
 && cp -a prisma prisma.config.ts /out/ \
 && cp packages/db/src/migrate-adapter.ts /out/packages/db/src/ \
 && cp scripts/container-entrypoint.sh scripts/node-flags.json scripts/migrate.sh scripts/prisma.sh scripts/ensure-database.mjs /out/scripts/ \
 && mv /deps/node_modules /out/node_modules

FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production
WORKDIR /app
# tini as PID 1: forwards SIGTERM to the service and reaps GATEWAY_WORKERS' children.
RUN apt-get update -qq && apt-get install -y -qq --no-install-recommends tini >/dev/null \
 && rm -rf /var/lib/apt/lists/* /var/cache/apt/*
COPY --from=build /out /app
# The official image's unprivileged user (uid 1000, as the Kubernetes manifests' runAsUser).
USER node
ENTRYPOINT ["/usr/bin/tini", "--", "/app/scripts/container-entrypoint.sh"]
