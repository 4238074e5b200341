#!/usr/bin/env bash
# Server CPU per acknowledged intake request, a figure the machine's load barely moves
# (throughput on a shared box follows the other sessions' load):
#
#   bench/gateway/intake-cpu.sh BIN [VAR=value…]          # unique unsigned deliveries
#   SIGNED=1 bench/gateway/intake-cpu.sh BIN              # pre-signed deliveries, CONN_WEBHOOK_SECRET set
#
# Starts `BIN serve` on SQLite (synchronous=FULL), runs wrk 2 threads × 64 connections × DURATION s
# (default 10), and prints requests, acknowledged/s, p99 and the sidecar's CPU µs per request
# (utime+stime from /proc). Compare two builds by running it on each, interleaved.
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN=$1; shift
DURATION=${DURATION:-10}
WORK=$(mktemp -d)
P=
cleanup() { [ -n "$P" ] && kill "$P" 2>/dev/null; wait 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT
LUA=bench/intake/unique.lua
EXTRA=()
if [ "${SIGNED:-0}" = 1 ]; then
  SECRET=bench-secret-0123456789abcdef
  go build -o "$WORK/signgen" ./bench/gateway/signgen
  "$WORK/signgen" -secret "$SECRET" -n $((45000 * DURATION)) -o "$WORK/signed.tsv"
  export SIGNED_FILE=$WORK/signed.tsv WRK_THREADS=2
  LUA=bench/gateway/signed.lua
  EXTRA=(CONN_WEBHOOK_SECRET="$SECRET" CONN_WEBHOOK_TOLERANCE=1h)
fi
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')
env PROVIDER_NOTIFICATIONS_PROCESSING_CRON_EXPRESSION=off PROVIDER_NOTIFICATIONS_CLEANUP_CRON_EXPRESSION=off \
  "${EXTRA[@]}" "$@" "$BIN" serve --addr "127.0.0.1:$PORT" --store "sqlite:$WORK/n.db" 2>/dev/null &
P=$!
for _ in $(seq 200); do curl -fs -o /dev/null "http://127.0.0.1:$PORT/health" && break; sleep 0.05; done
tick=$(getconf CLK_TCK)
c0=$(awk '{print $14+$15}' "/proc/$P/stat")
out=$(wrk -t2 -c64 -d"${DURATION}s" --latency -s "$LUA" "http://127.0.0.1:$PORT/webhooks/notifications")
c1=$(awk '{print $14+$15}' "/proc/$P/stat")
n=$(echo "$out" | awk '/requests in/ {print $1}')
p99=$(echo "$out" | awk '$1=="99%" {print $2}')
non2xx=$(echo "$out" | awk '/Non-2xx/ {print $NF}')
awk -v a="$c0" -v b="$c1" -v t="$tick" -v n="$n" -v d="$DURATION" -v p="$p99" -v e="${non2xx:-0}" -v l="$(cut -d' ' -f1 /proc/loadavg)" \
  'BEGIN { printf "%d requests (%d non-2xx), %.0f/s, p99 %s, %.1f CPU µs/request (load %s)\n", n, e, n/d, p, (b-a)/t*1e6/n, l }'
