#!/usr/bin/env bash
# The start command of the README: set up, migrate, make sure a demo account
# exists, then run every service in one process tree (Ctrl-C stops them all).
set -euo pipefail
cd "$(dirname "$0")/.."
export DATABASE_URL="${DATABASE_URL:-postgresql://postgres@127.0.0.1:5432/sms}"
export REDIS_URL="${REDIS_URL:-redis://127.0.0.1:6379}"
export PORT="${PORT:-3000}"
export GATEWAY_URL="${GATEWAY_URL:-http://127.0.0.1:${PORT}}"
# This machine's secrets (the OTP code HMAC key, the key sealing OTP texts and webhook
# secrets): made once and kept in .env (git-ignored), as sealed values must open after a restart.
for name in SECRET_ENCRYPTION_KEY OTP_HMAC_SECRET; do
  if [ -z "${!name:-}" ] && ! grep -qs "^${name}=" .env; then
    echo "${name}=$(node -e 'process.stdout.write(require("crypto").randomBytes(32).toString("base64"))')" >>.env
  fi
done
# Local use: webhooks may go to http:// and loopback URLs (a receiver on this machine).
# In .env too, so `pnpm admin webhook set` accepts the same URLs as the services.
for setting in WEBHOOK_ALLOW_LOOPBACK=true WEBHOOK_ALLOW_HTTP=true; do
  grep -qs "^${setting%%=*}=" .env || echo "$setting" >>.env
done
set -a
[ -f .env ] && . ./.env
set +a

bash scripts/setup.sh
out=$(bash scripts/migrate.sh 2>&1) || { echo "$out" >&2; exit 1; }
echo
node services/admin-cli/dist/main.js demo
echo
exec node scripts/run-all.mjs
