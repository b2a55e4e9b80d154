#!/usr/bin/env bash
# Idempotent set-up shared by `npm start` and `npm test`: pnpm, dependencies,
# the generated Prisma client and the service bundles. Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v pnpm >/dev/null 2>&1; then
  echo "setup: installing pnpm 10 (corepack's signature check fails offline, npm works)"
  npm install -g pnpm@10 >/dev/null
fi

# --frozen-lockfile: install exactly what the lockfile says, or fail.
pnpm install --frozen-lockfile --reporter=silent
quietly() { local out; out=$("$@" 2>&1) || { echo "$out" >&2; return 1; }; }
quietly bash scripts/prisma.sh generate
pnpm run -s build
