#!/usr/bin/env bash
# RESTAPI paginators and rate limits through the CLI (docs/restapi.md).
# For each paginator type: `sluice read` of PAGES small pages (PER records
# each) from a loopback fake, parsed mode; prints pages/s. Then a read of
# 100 pages with svc.restapi.rate.limit=20 (expected 4.9–5.5 s).
#
# The fake serves on fasthttp (SERVER=net: on net/http; see
# docs/restapi.md#speed). SLUICE=path times that sluice binary instead of
# building one (e.g. an older build, side by side in the same minutes).
#
#   bench/restapi/paginators.sh          # PAGES=10000 PER=2 SERVER=fast
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
PAGES=${PAGES:-10000}
PER=${PER:-2}
SERVER=${SERVER:-fast}
tmp=$(mktemp -d)
trap 'exec 3>&- 4>&- 2>/dev/null || true; rm -rf "$tmp"' EXIT
if [ -n "${SLUICE:-}" ]; then cp "$SLUICE" "$tmp/sluice"; else go build -o "$tmp/sluice" ./cmd/sluice; fi
go build -o "$tmp/fakeapi" ./bench/restapi/fakeapi
mkfifo "$tmp/in" "$tmp/in100"
"$tmp/fakeapi" -server "$SERVER" -pages "$PAGES" -per "$PER" <"$tmp/in" >"$tmp/props" &
exec 3>"$tmp/in" # the fakes serve while fds 3 and 4 are open
"$tmp/fakeapi" -server "$SERVER" -pages 100 -per "$PER" <"$tmp/in100" >"$tmp/props100" &
exec 4>"$tmp/in100"
for _ in $(seq 100); do grep -q ready "$tmp/props" "$tmp/props100" 2>/dev/null && grep -q ready "$tmp/props100" && break; sleep 0.1; done
echo "# RESTAPI paginators through sluice read, $PAGES pages x $PER records, $SERVER server, $(nproc) CPUs, load: $(cut -d' ' -f1-3 /proc/loadavg)"
now() { date +%s.%N; }
while read -r kind props; do
  [ "$kind" = ready ] && break
  start=$(now)
  # shellcheck disable=SC2086
  rows=$(/usr/bin/time -f "%U %S" -o "$tmp/cpu" "$tmp/sluice" read bench --type restapi $props --format json | wc -l)
  end=$(now)
  # Wall-clock pages/s, and pages per CPU-second of sluice itself (user +
  # system): the second figure is what the client costs, whatever else
  # runs on the machine (the fake server shares its cores), its spinning
  # while it waits for an answer included (docs/restapi.md#connections).
  awk -v k="$kind" -v s="$start" -v e="$end" -v p="$PAGES" -v r="$rows" -v cpu="$(awk '{print $1 + $2}' "$tmp/cpu")" \
    'BEGIN { printf "%-13s %6d rows %8.3f s %9.0f pages/s   sluice CPU %6.3f s = %7.0f pages per CPU-second\n", k, r, e - s, p / (e - s), cpu, p / cpu }'
done <"$tmp/props"
props=$(grep '^token-body' "$tmp/props100" | cut -d' ' -f2-)
start=$(now)
# shellcheck disable=SC2086
rows=$("$tmp/sluice" read bench --type restapi $props --prop svc.restapi.rate.limit=20 --format json | wc -l)
end=$(now)
awk -v s="$start" -v e="$end" -v r="$rows" 'BEGIN { printf "rate.limit=20 over 100 pages (%d rows): %.3f s (expected 4.9-5.5 s)\n", r, e - s }'
