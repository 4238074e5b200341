#!/usr/bin/env bash
# What the RESTAPI client costs per page, on loopback (docs/restapi.md#speed;
# not a target: speed is judged where APIs are, bench/restapi/remote.sh).
# For each paginator type: `sluice read` of PAGES small pages (PER records
# each) from a loopback fake, parsed mode; prints sluice's own CPU (user +
# system, start-up and output included) per page, and pages/s. Then a read
# of 100 pages with svc.restapi.rate.limit=20 (expected 4.9–5.5 s).
#
# The fake serves on fasthttp (SERVER=net: on net/http), so that on two
# shared cores the server's CPU does not crowd out the client's.
# SLUICE=path measures that sluice binary instead of building one.
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
  # sluice's CPU per page (user + system): what the client costs, whatever
  # else runs on the machine (the fake shares its cores).
  awk -v k="$kind" -v s="$start" -v e="$end" -v p="$PAGES" -v r="$rows" -v cpu="$(awk '{print $1 + $2}' "$tmp/cpu")" \
    'BEGIN { printf "%-13s %6d rows %8.3f s %9.0f pages/s   sluice CPU %6.3f s = %5.1f µs a page\n", k, r, e - s, p / (e - s), cpu, cpu / p * 1e6 }'
done <"$tmp/props"
props=$(grep '^token-body' "$tmp/props100" | cut -d' ' -f2-)
start=$(now)
# shellcheck disable=SC2086
rows=$("$tmp/sluice" read bench --type restapi $props --prop svc.restapi.rate.limit=20 --format json | wc -l)
end=$(now)
awk -v s="$start" -v e="$end" -v r="$rows" 'BEGIN { printf "rate.limit=20 over 100 pages (%d rows): %.3f s (expected 4.9-5.5 s)\n", r, e - s }'
