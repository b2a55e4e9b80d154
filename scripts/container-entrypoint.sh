#!/usr/bin/env bash
# Container entrypoint: `migrate`, `admin …`, or a service name and its arguments
# (default: $SERVICE), e.g. `ops-console hash-password`.
set -euo pipefail
cd /app
service="${1:-${SERVICE:-}}"
[ $# -gt 0 ] && shift
case "$service" in
  migrate) exec bash scripts/migrate.sh ;;
  admin) exec node services/admin-cli/dist/main.js "$@" ;;
  "") echo "set SERVICE or pass a service name (api-gateway, dispatcher, …), migrate or admin" >&2; exit 2 ;;
  *)
    [ -f "services/$service/dist/main.js" ] || { echo "no service named $service" >&2; exit 2; }
    # Its V8 flags, if it has any (scripts/node-flags.json; npm start and the benches read it too).
    read -r -a flags <<<"$(node -p 'require("./scripts/node-flags.json")[process.argv[1]]?.join(" ") ?? ""' "$service")"
    exec node --enable-source-maps "${flags[@]}" "services/$service/dist/main.js" "$@" ;;
esac
