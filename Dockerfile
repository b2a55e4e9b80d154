# One image for every service; the service is chosen by SERVICE (or the command).
#   docker build -t sms-platform .
#   docker run -e SERVICE=api-gateway -e DATABASE_URL=… -e REDIS_URL=… sms-platform
FROM node:20-bookworm-slim AS build
WORKDIR /app
RUN npm install -g pnpm@10 >/dev/null
COPY pnpm-lock.yaml pnpm-workspace.yaml package.json ./
COPY packages ./packages
COPY services ./services
COPY bench ./bench
COPY prisma ./prisma
COPY prisma.config.ts tsconfig.json ./
COPY scripts ./scripts
RUN pnpm install --frozen-lockfile \
 && DATABASE_URL=postgresql://build@localhost/build bash scripts/prisma.sh generate \
 && pnpm run build

FROM node:20-bookworm-slim AS runtime
ENV NODE_ENV=production
WORKDIR /app
RUN npm install -g pnpm@10 >/dev/null && apt-get update -qq && apt-get install -y -qq --no-install-recommends tini && rm -rf /var/lib/apt/lists/*
# The bundles carry their npm dependencies; node_modules stays for the migration
# step (Prisma CLI) and the few modules kept external (swagger-ui-dist).
COPY --from=build /app /app
USER node
ENTRYPOINT ["/usr/bin/tini", "--", "/app/scripts/container-entrypoint.sh"]
