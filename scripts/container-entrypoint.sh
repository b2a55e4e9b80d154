#!/usr/bin/env bash
# Container entrypoint: `migrate`, `admin …`, or a service name (default: $SERVICE).
set -euo pipefail
cd /app
case "${1:-${SERVICE:-}}" in
  migrate) exec bash scripts/migrate.sh ;;
  admin) shift; exec node services/admin-cli/dist/main.js "$@" ;;
  "") echo "set SERVICE or pass a service name (api-gateway, dispatcher, …), migrate or admin" >&2; exit 2 ;;
  *) exec node --enable-source-maps "services/${1:-$SERVICE}/dist/main.js" ;;
esac
