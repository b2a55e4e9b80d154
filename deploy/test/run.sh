#!/usr/bin/env bash
# pnpm test:containers: the Dockerfile, docker-compose.yml and the tests' testcontainers path,
# for real. Needs a Docker engine: as root with apt-get it installs docker.io (and
# docker-compose, debootstrap) and starts dockerd when missing; otherwise one line says what
# to install. The base images are local stand-ins (deploy/test/base-images.sh), kept by tag.
set -euo pipefail
cd "$(dirname "$0")/../.."
say() { echo "test:containers: $*"; }
can_install() { command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; }

missing=()
command -v dockerd >/dev/null || missing+=(docker.io)
docker compose version >/dev/null 2>&1 || command -v docker-compose >/dev/null || missing+=(docker-compose)
command -v debootstrap >/dev/null || missing+=(debootstrap)
if [ ${#missing[@]} -gt 0 ]; then
  can_install || { say "needs a Docker engine: sudo apt-get install -y ${missing[*]}, then start dockerd"; exit 1; }
  say "installing ${missing[*]}"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi
if ! docker info >/dev/null 2>&1; then
  [ "$(id -u)" = 0 ] || { say "the Docker engine is not running: start dockerd (as root)"; exit 1; }
  say "starting dockerd (log: /var/log/dockerd.log)"
  nohup dockerd >>/var/log/dockerd.log 2>&1 &
  for _ in $(seq 60); do docker info >/dev/null 2>&1 && break; sleep 0.5; done
  docker info >/dev/null 2>&1 || { say "dockerd did not start: see /var/log/dockerd.log"; exit 1; }
fi

bash scripts/setup.sh
bash deploy/test/base-images.sh
export NODE_IMAGE=local/node:24-bookworm-slim POSTGRES_IMAGE=local/postgres:15-bookworm REDIS_IMAGE=local/redis:7-bookworm

started=$SECONDS
# Behind a TLS-inspecting proxy the build's npm needs the CA certificates this host added.
extra_ca="$(cat /usr/local/share/ca-certificates/*.crt 2>/dev/null || true)"
docker build -q --build-arg "NODE_IMAGE=$NODE_IMAGE" --build-arg "EXTRA_CA_CERTS=$extra_ca" \
  -t sms-platform:local . 2> >(grep -v -e DEPRECATED -e 'legacy builder' -e buildx -e '^ *$' >&2) >/dev/null
size=$(docker image inspect -f '{{.Size}}' sms-platform:local)
base=$(docker image inspect -f '{{.Size}}' "$NODE_IMAGE")
say "image sms-platform:local built in $((SECONDS - started)) s: $((size / 1000000)) MB ($(((size - base) / 1000000)) MB over $NODE_IMAGE)"

node deploy/check-manifests.mjs --image sms-platform:local
pnpm exec jest -c deploy/test/jest.config.js "$@"

# The README's "else testcontainers": no DATABASE_URL / REDIS_URL and the local servers
# hidden, so the global setup starts PostgreSQL and Redis containers (the stand-ins; no
# Ryuk: its image cannot be pulled here, and the global teardown stops both).
say "the testcontainers path"
env -u DATABASE_URL -u REDIS_URL TEST_LOCAL_SERVERS=ignore TESTCONTAINERS_RYUK_DISABLED=true \
  TEST_POSTGRES_IMAGE="$POSTGRES_IMAGE" TEST_REDIS_IMAGE="$REDIS_IMAGE" \
  pnpm exec jest --testMatch '**/packages/testing/src/testcontainers-path.proof.ts' \
  '**/packages/db/src/session-settings.integration.test.ts' '**/packages/rate-limit/src/rate-limiter.integration.test.ts'
