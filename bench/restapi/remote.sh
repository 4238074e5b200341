#!/usr/bin/env bash
# RESTAPI where real APIs are (docs/restapi.md#speed): `sluice read` against
# an HTTPS fake (HTTP/2, bench/restapi/fakeapi -remote) that answers every
# request after LATENCY (50ms), PAGES pages of PER records (200 × 50), one
# run each:
#   offset   offset pagination with a total, svc.restapi.concurrency=8
#            (target ≥ 0.8 × 8 / 50 ms = 128 pages/s)
#   token    token pagination, page by page (target ≥ 0.9 / 50 ms = 18
#            pages/s), beside plainclient: a plain sequential Go net/http
#            client reading the same pages, the limit
#   fan-out  CHILDREN (1,000) child reads, fanout.concurrency=8
#            (target ≥ 144 children/s)
# Wall time includes sluice's start-up and its first TLS handshake; the
# machine's load average is printed beside the figures (it is shared).
# Then the testing.B side (BenchmarkRemote, BenchmarkFanout in
# connectors/restapi: the same reads in one process), unless GOBENCH=0.
#
#   bench/restapi/remote.sh
#   PAGES=40 CHILDREN=100 GOBENCH=0 bench/restapi/remote.sh     # a quick check
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
PAGES=${PAGES:-200}
PER=${PER:-50}
LATENCY=${LATENCY:-50ms}
CHILDREN=${CHILDREN:-1000}
tmp=$(mktemp -d)
trap 'exec 3>&- 2>/dev/null || true; rm -rf "$tmp"' EXIT
go build -o "$tmp/sluice" ./cmd/sluice
go build -o "$tmp/fakeapi" ./bench/restapi/fakeapi
go build -o "$tmp/plainclient" ./bench/restapi/plainclient
mkfifo "$tmp/in"
"$tmp/fakeapi" -remote -pages "$PAGES" -per "$PER" -latency "$LATENCY" -children "$CHILDREN" \
  -cert "$tmp/cert.pem" -sql "$tmp/fanout.sql" <"$tmp/in" >"$tmp/props" &
exec 3>"$tmp/in" # the fake serves while fd 3 is open
for _ in $(seq 100); do grep -q ready "$tmp/props" 2>/dev/null && break; sleep 0.1; done
export SSL_CERT_FILE=$tmp/cert.pem # trust the fake's self-signed certificate
echo "# RESTAPI over HTTPS (HTTP/2), $LATENCY per answer, $PAGES pages x $PER records, $(nproc) CPUs, load: $(cut -d' ' -f1-3 /proc/loadavg)"
now() { date +%s.%N; }
report() { # label, units done, unit, target, start, end
  awk -v l="$1" -v n="$2" -v u="$3" -v t="$4" -v s="$5" -v e="$6" \
    'BEGIN { r = n / (e - s); printf "%-34s %5d %-8s %7.3f s %7.1f %s/s   target >= %s: %s\n", l, n, u, e - s, r, u, t, (r >= t ? "met" : "MISSED") }'
}
for kind in offset token; do
  props=$(grep "^$kind " "$tmp/props" | cut -d' ' -f2-)
  start=$(now)
  # shellcheck disable=SC2086
  rows=$("$tmp/sluice" read bench --type restapi $props --format json | wc -l)
  end=$(now)
  [ "$rows" -eq $((PAGES * PER)) ] || { echo "$kind: $rows rows, want $((PAGES * PER))"; exit 1; }
  if [ "$kind" = offset ]; then report "offset, total, concurrency=8" "$PAGES" pages 128 "$start" "$end"; else report "token, sequential" "$PAGES" pages 18 "$start" "$end"; fi
done
url=$(grep '^token ' "$tmp/props" | grep -o 'svc.restapi.url=[^ ]*' | cut -d= -f2-)
printf '%-34s %s\n' "plain Go net/http client (limit)" "$("$tmp/plainclient" -url "$url")"
"$tmp/sluice" sql --catalog "$tmp/cat" -f "$tmp/fanout.sql" >/dev/null
start=$(now)
rows=$("$tmp/sluice" read bench.children --catalog "$tmp/cat" --format json | wc -l)
end=$(now)
[ "$rows" -eq "$CHILDREN" ] || { echo "fan-out: $rows rows, want $CHILDREN"; exit 1; }
report "fan-out, fanout.concurrency=8" "$CHILDREN" children 144 "$start" "$end"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
if [ "${GOBENCH:-1}" != 0 ]; then
  REMOTE_PAGES=$PAGES REMOTE_LATENCY=$LATENCY FANOUT_CHILDREN=$CHILDREN FANOUT_LATENCY=$LATENCY \
    go test -run '^$' -bench 'BenchmarkRemote|BenchmarkFanout$' -benchtime 1x ./connectors/restapi/ | grep -E '^Benchmark'
fi
