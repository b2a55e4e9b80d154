#!/usr/bin/env bash
# Writes prisma/migrations/<timestamp>_<name>/migration.sql: the SQL from the schema
# as last committed to the schema in the working tree. Prisma's `--from-migrations`
# needs a shadow database and `--from-schema-datasource` is not supported with a
# driver adapter (the only offline route), so we diff datamodel to datamodel.
set -euo pipefail
cd "$(dirname "$0")/.."
name="${1:?usage: scripts/new-migration.sh <name>}"
dir="prisma/migrations/$(date -u +%Y%m%d%H%M%S)_${name}"
before=$(mktemp --suffix=.prisma)
git show HEAD:prisma/schema.prisma >"$before"
mkdir -p "$dir"
bash scripts/prisma.sh migrate diff --from-schema-datamodel "$before" --to-schema-datamodel prisma/schema.prisma --script | grep -v "^Loaded Prisma config" >"$dir/migration.sql"
rm -f "$before"
echo "wrote $dir/migration.sql: review it, then apply with pnpm migrate"
