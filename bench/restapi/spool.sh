#!/usr/bin/env bash
# Peak memory of a paginated REST read into Parquet against the number of
# pages (docs/restapi.md#memory). For each page count: `sluice read -o
# x.parquet` (streamed: the pages are spooled to a temporary file) and, for
# comparison, `sluice read --format json` (the whole frame in memory), one
# after the other; peak RSS is GNU time's %M of the sluice process.
#
#   bench/restapi/spool.sh               # PAGES="500 2000 8000" ITEMS=20
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
PAGES=${PAGES:-500 2000 8000}
ITEMS=${ITEMS:-20}
tmp=$(mktemp -d)
trap 'exec 3>&- 2>/dev/null || true; rm -rf "$tmp"' EXIT
go build -o "$tmp/sluice" ./cmd/sluice
go build -o "$tmp/fakeapi" ./bench/restapi/fakeapi
max=0
for p in $PAGES; do [ "$p" -gt "$max" ] && max=$p; done
mkfifo "$tmp/in"
"$tmp/fakeapi" -youtube "$ITEMS" -pages "$max" <"$tmp/in" >"$tmp/props" &
exec 3>"$tmp/in" # the fake serves while fd 3 is open
for _ in $(seq 100); do grep -q ready "$tmp/props" 2>/dev/null && break; sleep 0.1; done
url=$(grep -o 'svc.restapi.url=[^ ]*' "$tmp/props" | cut -d= -f2-)
props=$(grep '^youtube' "$tmp/props" | cut -d' ' -f2- | sed 's/--prop svc.restapi.url=[^ ]*//')
mkdir "$tmp/spool"
echo "# RESTAPI read into Parquet, pages of $ITEMS YouTube-like items (~$((ITEMS * 3 / 2)) KB), $(nproc) CPUs, load: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-6s %-28s %8s %8s %8s %9s\n' pages path rows wall_s cpu_s peak_MiB
run() { # label, then sluice's arguments
  local label=$1
  shift
  /usr/bin/time -f "%e %U %S %M" -o "$tmp/t" "$tmp/sluice" "$@" 2>"$tmp/err" >"$tmp/out" || { cat "$tmp/err"; exit 1; }
  local rows wall u s rss
  rows=$(grep -o 'wrote [0-9]* rows' "$tmp/err" | cut -d' ' -f2 || true)
  [ -n "$rows" ] || rows=$(wc -l <"$tmp/out")
  read -r wall u s rss <"$tmp/t"
  awk -v p="$p" -v l="$label" -v r="$rows" -v w="$wall" -v c="$u" -v c2="$s" -v m="$rss" \
    'BEGIN { printf "%-6d %-28s %8d %8.2f %8.2f %9.0f\n", p, l, r, w, c + c2, m / 1024 }'
}
for p in $PAGES; do
  # shellcheck disable=SC2086
  set -- read yt --type restapi $props --prop "svc.restapi.url=$url?n=$p"
  TMPDIR="$tmp/spool" run "read -o x.parquet (spooled)" "$@" -o "$tmp/x.parquet"
  [ -z "$(ls -A "$tmp/spool")" ] || { echo "spool left behind: $(ls "$tmp/spool")"; exit 1; }
  run "read --format json (memory)" "$@" --format json
done
