#!/usr/bin/env bash
# Intake throughput of a Standard Webhooks source beside the unsigned HMC
# source, and the HMC source against the build before sources (issue 23):
#
#   bench/gateway/sources.sh
#
# Env: DURATION (wrk seconds per run, default 10), CONNS (default 64), ROUNDS (default 3),
#      BASE_REF (the build compared against, default 94a5a7e: a git worktree of it is built),
#      BASE_BIN / SLUICE_BIN (prebuilt binaries instead).
# Every run is a fresh sidecar on a fresh SQLite store (synchronous=FULL), wrk 2 threads × CONNS
# connections; the three set-ups run interleaved, ROUNDS times, so that the shared machine's load
# falls on each alike. Prints each run, then per set-up the median acknowledged/s, p99 and the
# sidecar's CPU µs per request (utime+stime from /proc: a figure the machine's load barely moves),
# and the ratios the issue names (standard / HMC ≥ 0.85, HMC now / HMC before ≈ 1).
set -euo pipefail
cd "$(dirname "$0")/../.."
DURATION=${DURATION:-10}
CONNS=${CONNS:-64}
ROUNDS=${ROUNDS:-3}
BASE_REF=${BASE_REF:-94a5a7e}
WORK=$(mktemp -d)
P=
cleanup() {
  [ -n "$P" ] && kill "$P" 2>/dev/null || true
  wait 2>/dev/null || true
  [ -d "$WORK/base" ] && git worktree remove --force "$WORK/base" >/dev/null 2>&1 || true
  rm -rf "$WORK"
}
trap cleanup EXIT

command -v wrk >/dev/null || { echo "wrk is missing (apt-get install wrk)" >&2; exit 1; }
NEW=${SLUICE_BIN:-}
if [ -z "$NEW" ]; then NEW=$WORK/sluice; go build -o "$NEW" ./cmd/sluice; fi
BASE=${BASE_BIN:-}
if [ -z "$BASE" ]; then
  git worktree add --detach "$WORK/base" "$BASE_REF" >/dev/null 2>&1
  (cd "$WORK/base" && go build -o "$WORK/sluice-base" ./cmd/sluice)
  BASE=$WORK/sluice-base
fi
SECRET=whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw
go build -o "$WORK/signgen" ./bench/gateway/signgen
"$WORK/signgen" -scheme standard -secret "$SECRET" -n $((40000 * DURATION)) -o "$WORK/standard.tsv"
# The HMC runs send the same kind of pre-built requests (HMC bodies; their
# X-Sluice-* headers are ignored by the unsigned HMC source), so that wrk
# costs the box alike in every run.
"$WORK/signgen" -scheme sluice -secret unused-secret-0123456789 -n $((40000 * DURATION)) -o "$WORK/hmc.tsv"
cat >"$WORK/sources.yaml" <<YAML
sources:
  - name: acme
    scheme: standard
    secrets:
      - $SECRET
    tolerance: 1h
    mapping:
      objectToken: data.id
YAML

port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }

# run NAME BIN PATH FILE [serve args…]: one fresh sidecar, one wrk run sending FILE's deliveries;
# prints "NAME acks/s p99".
run() {
  local name=$1 bin=$2 path=$3 file=$4; shift 4
  local p; p=$(port)
  rm -f "$WORK"/n.db*
  env PROVIDER_NOTIFICATIONS_PROCESSING_CRON_EXPRESSION=off PROVIDER_NOTIFICATIONS_CLEANUP_CRON_EXPRESSION=off \
    "$bin" serve --addr "127.0.0.1:$p" --store "sqlite:$WORK/n.db" "$@" 2>>"$WORK/serve.log" &
  P=$!
  for _ in $(seq 200); do curl -fs -o /dev/null "http://127.0.0.1:$p/health" && break; sleep 0.05; done
  local out c0 c1
  c0=$(awk '{print $14+$15}' "/proc/$P/stat")
  out=$(SIGNED_FILE=$file WRK_THREADS=2 wrk -t2 -c"$CONNS" -d"${DURATION}s" --latency -s bench/gateway/signed.lua "http://127.0.0.1:$p$path")
  c1=$(awk '{print $14+$15}' "/proc/$P/stat")
  kill -TERM "$P"; wait "$P" 2>/dev/null || true; P=
  local reqs secs non2xx p99
  reqs=$(echo "$out" | awk '/requests in/ {print $1}')
  secs=$(echo "$out" | awk '/requests in/ {gsub(/s,/,"",$4); print $4}')
  non2xx=$(echo "$out" | awk '/Non-2xx/ {print $NF}')
  p99=$(echo "$out" | awk '$1=="99%" {print $2}')
  awk -v n="$name" -v r="$reqs" -v e="${non2xx:-0}" -v s="$secs" -v p="$p99" -v a="$c0" -v b="$c1" -v t="$(getconf CLK_TCK)" \
    'BEGIN { printf "%-26s %8.0f acknowledged/s  p99 %-8s %6.1f CPU µs/request (%d requests, %d non-2xx)\n", n, (r-e)/s, p, (b-a)/t*1e6/r, r, e }'
}

echo "# sources intake — $(date -u +%FT%TZ), $(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg), wrk 2 threads × $CONNS conns × ${DURATION}s, $ROUNDS rounds"
echo "# base: $BASE_REF"
: >"$WORK/results"
for r in $(seq "$ROUNDS"); do
  run "hmc, base build" "$BASE" /webhooks/notifications "$WORK/hmc.tsv" | tee -a "$WORK/results"
  run "hmc, this build" "$NEW" /webhooks/notifications "$WORK/hmc.tsv" --config "$WORK/sources.yaml" | tee -a "$WORK/results"
  run "standard, this build" "$NEW" /webhooks/acme "$WORK/standard.tsv" --config "$WORK/sources.yaml" | tee -a "$WORK/results"
done
echo "# medians"
python3 - "$WORK/results" <<'PY'
import re, statistics, sys
runs = {}
for line in open(sys.argv[1]):
    m = re.match(r"(.+?)\s{2,}(\d+) acknowledged/s\s+p99 (\S+)\s+([\d.]+) CPU", line)
    if m:
        def ms(v):
            n = float(re.match(r"[\d.]+", v).group())
            return n / 1000 if v.endswith("us") else n * 1000 if v.endswith("s") and not v.endswith("ms") else n
        runs.setdefault(m.group(1).strip(), []).append((int(m.group(2)), ms(m.group(3)), float(m.group(4))))
med = {k: tuple(statistics.median(x[i] for x in v) for i in range(3)) for k, v in runs.items()}
for k, (a, p, c) in med.items():
    print(f"{k:<26} {a:8.0f} acknowledged/s  p99 {p:.2f}ms  {c:.1f} CPU µs/request")
s, h, b = med.get("standard, this build"), med.get("hmc, this build"), med.get("hmc, base build")
if s and h:
    print(f"standard / hmc (this build): {s[0] / h[0]:.2f}x (target >= 0.85)")
if h and b:
    print(f"hmc this build / base build: {h[0] / b[0]:.2f}x throughput, {h[2] / b[2]:.2f}x CPU per request")
if s and h:
    print(f"standard / hmc CPU per request: {s[2] / h[2]:.2f}x")
PY
