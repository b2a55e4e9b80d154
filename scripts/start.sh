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
# Local use: webhooks may go to http:// and loopback URLs (a receiver on this machine),
# and the dashboard is served over plain http (no Secure cookies). In .env too, so
# `pnpm admin webhook set` accepts the same URLs as the services.
for setting in WEBHOOK_ALLOW_LOOPBACK=true WEBHOOK_ALLOW_HTTP=true DASHBOARD_SECURE_COOKIES=false; do
  grep -qs "^${setting%%=*}=" .env || echo "$setting" >>.env
done

bash scripts/setup.sh
# The operator's queue page (ops-console) wants a password hash; locally the password
# itself is kept beside it in .env so it can be printed below.
if ! grep -qs "^OPS_CONSOLE_PASSWORD_HASH=" .env; then
  password=$(node -e 'process.stdout.write(require("crypto").randomBytes(18).toString("base64url"))')
  hash=$(printf '%s' "$password" | node services/ops-console/dist/main.js hash-password)
  printf "OPS_CONSOLE_PASSWORD=%s\nOPS_CONSOLE_PASSWORD_HASH='%s'\n" "$password" "$hash" >>.env
fi
set -a
[ -f .env ] && . ./.env
set +a
out=$(bash scripts/migrate.sh 2>&1) || { echo "$out" >&2; exit 1; }
echo
node services/admin-cli/dist/main.js demo
echo "Queues (Bull Board): http://127.0.0.1:3090/  user ${OPS_CONSOLE_USER:-ops}, password ${OPS_CONSOLE_PASSWORD}"
echo
exec node scripts/run-all.mjs
