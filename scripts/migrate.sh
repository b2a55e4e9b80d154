#!/usr/bin/env bash
# Creates the database when missing, then applies every committed migration.
set -euo pipefail
cd "$(dirname "$0")/.."
export DATABASE_URL="${DATABASE_URL:-postgresql://postgres@127.0.0.1:5432/sms}"
node scripts/ensure-database.mjs "$DATABASE_URL"
bash scripts/prisma.sh migrate deploy
