#!/usr/bin/env bash
# Intake and processing benchmark of the notification sidecar (bench/intake).
#
#   bench/intake/run.sh            # SQLite, plus Postgres when SLUICE_TEST_POSTGRES_DSN is set
#
# Env: DURATION (wrk seconds, default 10), CONNS (default 64), THREADS (default 2),
#      SLUICE_BIN (a prebuilt sluice binary; default: go build ./cmd/sluice),
#      SLUICE_TEST_POSTGRES_DSN (postgres://…; a scratch schema is created and dropped),
#      DRAIN_LOAD (seconds of intake load before the drain measurement, default 5),
#      INTAKE_ONLY=1 (skip the drain measurements),
#      SIGNED=1 (also measure SQLite intake with signed deliveries, CONN_WEBHOOK_SECRET;
#      pre-signed by bench/gateway/signgen, sent by bench/gateway/signed.lua).
# Prints one line per measurement; the figures go to BENCHMARKS.md by hand.
set -euo pipefail
cd "$(dirname "$0")/../.."
DURATION=${DURATION:-10}
CONNS=${CONNS:-64}
THREADS=${THREADS:-2}
DRAIN_LOAD=${DRAIN_LOAD:-5}
INTAKE_ONLY=${INTAKE_ONLY:-0}
SIGNED=${SIGNED:-0}
WORK=$(mktemp -d)
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

if ! command -v wrk >/dev/null; then
  echo "installing wrk (apt-get)…" >&2
  apt-get install -y wrk >/dev/null 2>&1 || { apt-get update >/dev/null && apt-get install -y wrk >/dev/null; }
fi
BIN=${SLUICE_BIN:-}
if [ -z "$BIN" ]; then
  BIN=$WORK/sluice
  go build -o "$BIN" ./cmd/sluice
fi
go build -o "$WORK/bare" ./bench/intake/bare
go build -o "$WORK/market" ./bench/intake/market
LUA=bench/intake/unique.lua

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }

wait_up() { # url
  for _ in $(seq 1 200); do curl -fs -o /dev/null "$1" && return 0; sleep 0.05; done
  echo "server at $1 did not come up" >&2; return 1
}

# wrk_run NAME URL [SCRIPT]: prints acknowledged/s and p99.
wrk_run() {
  local name=$1 url=$2 script=${3:-$LUA} out
  out=$(WRK_THREADS=$THREADS wrk -t"$THREADS" -c"$CONNS" -d"${DURATION}s" --latency -s "$script" "$url")
  local reqs non2xx secs p99
  reqs=$(echo "$out" | awk '/requests in/ {print $1}')
  secs=$(echo "$out" | awk '/requests in/ {gsub(/s,/,"",$4); print $4}')
  non2xx=$(echo "$out" | awk '/Non-2xx/ {print $NF}')
  non2xx=${non2xx:-0}
  p99=$(echo "$out" | awk '$1=="99%" {print $2}')
  awk -v n="$name" -v r="$reqs" -v e="$non2xx" -v s="$secs" -v p="$p99" -v c="$CONNS" \
    'BEGIN { printf "%-28s %10.0f acknowledged/s   p99 %-8s (%d conns, %d requests, %d non-2xx)\n", n, (r-e)/s, p, c, r, e }'
}

start_sidecar() { # DSN PORT [VAR=…]…
  local dsn=$1 port=$2; shift 2
  env PROVIDER_NOTIFICATIONS_PROCESSING_CRON_EXPRESSION=off PROVIDER_NOTIFICATIONS_CLEANUP_CRON_EXPRESSION=off "$@" \
    "$BIN" serve --addr "127.0.0.1:$port" --store "$dsn" 2>>"$WORK/serve.log" &
  PIDS+=($!)
  wait_up "http://127.0.0.1:$port/health"
}

stop_last() { local p=${PIDS[-1]}; kill -TERM "$p"; wait "$p" 2>/dev/null || true; unset 'PIDS[-1]'; }

pending() { curl -fs "http://127.0.0.1:$1/metrics" | awk '/^sluice_notifications_queue_depth\{status="PENDING"\}/ {print $2}'; }

# drain_run NAME PORT: loads for DRAIN_LOAD s, then one drain run against the local marketplace.
drain_run() {
  local name=$1 port=$2
  wrk -t"$THREADS" -c"$CONNS" -d"${DRAIN_LOAD}s" -s "$LUA" "http://127.0.0.1:$port/webhooks/notifications" >/dev/null
  local n; n=$(pending "$port")
  local t0; t0=$(date +%s.%N)
  curl -fs -XPOST "http://127.0.0.1:$port/job/process-notifications" >/dev/null
  while [ "$(pending "$port")" != "0" ]; do sleep 0.05; done
  local t1; t1=$(date +%s.%N)
  awk -v n="$name" -v c="$n" -v a="$t0" -v b="$t1" \
    'BEGIN { printf "%-28s %10.0f notifications/s  (%d records drained in %.2f s)\n", n, c/(b-a), c, b-a }'
}

echo "# sidecar intake benchmark — $(date -u +%FT%TZ), $(nproc) CPUs, wrk ${THREADS} threads × ${CONNS} conns × ${DURATION}s"

PORT=$(free_port)
"$WORK/bare" -addr "127.0.0.1:$PORT" & PIDS+=($!)
sleep 0.5
wrk_run "bare Fiber (ceiling)" "http://127.0.0.1:$PORT/webhooks/notifications"
stop_last

PORT=$(free_port)
start_sidecar "sqlite:$WORK/intake.db" "$PORT"
wrk_run "sluice serve, SQLite FULL" "http://127.0.0.1:$PORT/webhooks/notifications"
stop_last

if [ "$SIGNED" = 1 ]; then
  SECRET=bench-secret-0123456789abcdef
  go build -o "$WORK/signgen" ./bench/gateway/signgen
  "$WORK/signgen" -secret "$SECRET" -n $((45000 * DURATION)) -o "$WORK/signed.tsv"
  PORT=$(free_port)
  start_sidecar "sqlite:$WORK/signed.db" "$PORT" CONN_WEBHOOK_SECRET="$SECRET" CONN_WEBHOOK_TOLERANCE=1h
  export SIGNED_FILE=$WORK/signed.tsv
  wrk_run "sluice serve, SQLite, signed" "http://127.0.0.1:$PORT/webhooks/notifications" \
    bench/gateway/signed.lua
  stop_last
  rm -f "$WORK/signed.tsv"
fi

MPORT=$(free_port)
"$WORK/market" -addr "127.0.0.1:$MPORT" & PIDS+=($!)
MARKET="http://127.0.0.1:$MPORT/notify"
for conc in 1 8; do
  [ "$INTAKE_ONLY" = 1 ] && break
  PORT=$(free_port)
  start_sidecar "sqlite:$WORK/drain-$conc.db" "$PORT" CONN_MARKETPLACE_URL="$MARKET" CONN_PROCESSING_DRAIN=true \
    CONN_PROCESSING_CONCURRENCY=$conc PROVIDER_NOTIFICATIONS_BATCH_SIZE=500
  drain_run "drain, SQLite, concurrency $conc" "$PORT"
  stop_last
done

if [ -n "${SLUICE_TEST_POSTGRES_DSN:-}" ]; then
  SCHEMA=sluice_bench_$$
  psql_exec() { "$WORK/pgschema" "$SLUICE_TEST_POSTGRES_DSN" "$1"; }
  go build -o "$WORK/pgschema" ./bench/intake/pgschema
  psql_exec "CREATE SCHEMA $SCHEMA"
  sep='?'; case "$SLUICE_TEST_POSTGRES_DSN" in *\?*) sep='&';; esac
  PGDSN="$SLUICE_TEST_POSTGRES_DSN${sep}search_path=$SCHEMA"
  PORT=$(free_port)
  start_sidecar "$PGDSN" "$PORT"
  wrk_run "sluice serve, Postgres" "http://127.0.0.1:$PORT/webhooks/notifications"
  stop_last
  if [ "$INTAKE_ONLY" != 1 ]; then
    PORT=$(free_port)
    psql_exec "DROP SCHEMA $SCHEMA CASCADE"; psql_exec "CREATE SCHEMA $SCHEMA"
    start_sidecar "$PGDSN" "$PORT" CONN_MARKETPLACE_URL="$MARKET" CONN_PROCESSING_DRAIN=true \
      CONN_PROCESSING_CONCURRENCY=8 PROVIDER_NOTIFICATIONS_BATCH_SIZE=500
    drain_run "drain, Postgres, concurrency 8" "$PORT"
    stop_last
  fi
  psql_exec "DROP SCHEMA $SCHEMA CASCADE"
fi
