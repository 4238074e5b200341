#!/usr/bin/env bash
# Peak memory of a body refused at svc.restapi.max.response.bytes
# (docs/restapi.md#memory): `sluice read` of a gzip body that decodes to
# BODY MiB of zeros (a few hundred KB on the wire) and of a chunked body of
# BODY MiB, with the limit at LIMIT MiB (default 256, the property's
# default; BODY 300). Peak RSS is GNU time's %M of the sluice process; the
# bound is 1.25 × LIMIT + 64 MiB. Each read must fail with "response too
# large" and exit 1. SLUICE=path measures that sluice binary instead of
# building one (an older build, say).
#
#   bench/restapi/memory.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
LIMIT=${LIMIT:-256}
BODY=${BODY:-300}
tmp=$(mktemp -d)
trap 'exec 3>&- 2>/dev/null || true; rm -rf "$tmp"' EXIT
if [ -n "${SLUICE:-}" ]; then cp "$SLUICE" "$tmp/sluice"; else go build -o "$tmp/sluice" ./cmd/sluice; fi
go build -o "$tmp/fakeapi" ./bench/restapi/fakeapi
mkfifo "$tmp/in"
"$tmp/fakeapi" -bomb "$BODY" <"$tmp/in" >"$tmp/props" &
exec 3>"$tmp/in"
for _ in $(seq 300); do grep -q ready "$tmp/props" 2>/dev/null && break; sleep 0.1; done
base=$(grep -o 'svc.restapi.url=[^ ]*' "$tmp/props" | cut -d= -f2-)
bound=$((LIMIT * 5 / 4 + 64))
echo "# a $BODY MiB body refused at max.response.bytes=$LIMIT MiB; bound 1.25 x $LIMIT + 64 = $bound MiB; $(nproc) CPUs, load: $(cut -d' ' -f1-3 /proc/loadavg)"
for path in gzip chunked; do
  code=0
  /usr/bin/time -f "%e %M" -o "$tmp/t" "$tmp/sluice" read big --type restapi --prop "svc.restapi.url=$base/$path" \
    --prop svc.restapi.retry.max=0 --prop "svc.restapi.max.response.bytes=$((LIMIT << 20))" --format json >/dev/null 2>"$tmp/err" || code=$?
  grep -q "response too large" "$tmp/err" || { echo "$path: not refused (exit $code):"; cat "$tmp/err"; exit 1; }
  read -r wall rss < <(tail -1 "$tmp/t") # GNU time first says the exit status
  awk -v p="$path" -v w="$wall" -v m="$rss" -v b="$bound" -v c="$code" \
    'BEGIN { printf "%-8s exit %d  %6.2f s  peak RSS %5.0f MiB  (bound %d MiB: %s)\n", p, c, w, m / 1024, b, (m / 1024 <= b ? "within" : "EXCEEDED") }'
done
