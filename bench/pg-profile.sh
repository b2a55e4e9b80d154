#!/usr/bin/env bash
# pnpm bench:pg-profile -- <bench script> [its arguments]
#
# Runs a bench against a private PostgreSQL 15 with pg_stat_statements (initdb in a temporary
# folder, on a free port, as the postgres user; the machine's own server is not touched), then
# prints the statements that took the most time in the bench's database, planning included, per
# message when BENCH_MESSAGES_DONE is given (else in total). Example:
#   BENCH_E2E_EVENTS=final BENCH_E2E_MESSAGES=10000 BENCH_MESSAGES_DONE=10000 \
#     pnpm -s bench:pg-profile -- bench:e2e
set -euo pipefail
cd "$(dirname "$0")/.."
bench="${1:?usage: bench/pg-profile.sh <bench script> [arguments]}"
shift
bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
dir=$(mktemp -d)
chown postgres "$dir"
port=$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
as_postgres() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
as_postgres "$bin/initdb" -D "$dir/data" -U postgres -A trust >/dev/null
cat >>"$dir/data/postgresql.conf" <<EOF
port = $port
listen_addresses = '127.0.0.1'
unix_socket_directories = '$dir'
shared_preload_libraries = 'pg_stat_statements'
pg_stat_statements.track = all
pg_stat_statements.track_planning = on
pg_stat_statements.max = 10000
EOF
as_postgres "$bin/pg_ctl" -D "$dir/data" -l "$dir/log" -w start >/dev/null
stop() { as_postgres "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null || true; rm -rf "$dir"; }
trap stop EXIT
url="postgresql://postgres@127.0.0.1:$port/sms"
psql "postgresql://postgres@127.0.0.1:$port/postgres" -qc "CREATE EXTENSION pg_stat_statements"
DATABASE_URL="$url" pnpm -s "$bench" "$@"
per="${BENCH_MESSAGES_DONE:-1}"
echo
echo "Statements by time spent (execution + planning), $([ "$per" = 1 ] && echo "in total, ms" || echo "µs per message over $per messages"):"
psql "postgresql://postgres@127.0.0.1:$port/postgres" -P pager=off -c "
SELECT round(((s.total_exec_time + s.total_plan_time) * 1000 / $per)::numeric, 1) AS per_msg_us,
       round((s.total_plan_time * 1000 / $per)::numeric, 1) AS plan_us,
       s.calls, s.rows,
       left(regexp_replace(s.query, '\s+', ' ', 'g'), 110) AS statement
FROM pg_stat_statements AS s JOIN pg_database AS d ON d.oid = s.dbid
WHERE d.datname LIKE 'sms_bench%'
ORDER BY s.total_exec_time + s.total_plan_time DESC LIMIT 25"
