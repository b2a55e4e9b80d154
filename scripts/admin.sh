#!/usr/bin/env bash
# `pnpm admin`: the admin CLI with this machine's .env (written by `npm start`: the key
# that seals webhook secrets, local webhook URL policy). The environment wins over .env.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -f .env ]; then
  while IFS= read -r line; do
    name="${line%%=*}"
    # ${line#*=}, not read's field split: base64 values end in "=", which read drops.
    [[ "$name" =~ ^[A-Z_][A-Z0-9_]*$ ]] && [ -z "${!name:-}" ] && export "$name=${line#*=}"
  done <.env
fi
exec node --enable-source-maps services/admin-cli/dist/main.js "$@"
