#!/usr/bin/env bash
# Runs the Prisma CLI offline. Prisma needs DATABASE_URL even to generate (it reads
# the datasource); without it the CLI falls back to downloading a native engine.
set -euo pipefail
cd "$(dirname "$0")/.."
export DATABASE_URL="${DATABASE_URL:-postgresql://postgres@127.0.0.1:5432/sms}"
export PRISMA_HIDE_UPDATE_MESSAGE=1 CHECKPOINT_DISABLE=1
# The CLI itself, not through pnpm: the runtime image has no pnpm.
exec node node_modules/prisma/build/index.js "$@"
