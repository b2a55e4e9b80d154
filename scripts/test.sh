#!/usr/bin/env bash
# The test command of the README: set up, then every unit and integration test.
# Tests use DATABASE_URL / REDIS_URL when set, else the local servers on
# 127.0.0.1:5432 / :6379, else testcontainers (needs a Docker engine).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/test-prerequisites.sh
exec pnpm exec jest "$@"
