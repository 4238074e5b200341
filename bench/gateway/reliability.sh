#!/usr/bin/env bash
# Reliability figures of the notification sidecar (issue 11), rerunnable:
#
#   bench/gateway/reliability.sh     # SQLite, plus Postgres when SLUICE_TEST_POSTGRES_DSN is set
#
# kill -9 under intake load (0 acknowledged lost), a gzip bomb (413, peak RSS < 100 MiB),
# 1,000 slow connections (RSS < 300 MiB), 2,000 malformed bodies (0 5xx). Each figure is one
# line from bench/gateway/attack; the script exits 1 when one misses its bound.
# Throughput: bench/intake/run.sh (SIGNED=1 adds the signed-intake run).
set -euo pipefail
cd "$(dirname "$0")/../.."
WORK=$(mktemp -d)
SCHEMAS=()
cleanup() {
  for s in "${SCHEMAS[@]}"; do "$WORK/pgschema" "$SLUICE_TEST_POSTGRES_DSN" "DROP SCHEMA $s CASCADE" || true; done
  rm -rf "$WORK"
}
trap cleanup EXIT
go build -o "$WORK/sluice" ./cmd/sluice
go build -o "$WORK/attack" ./bench/gateway/attack
echo "# sidecar reliability — $(date -u +%FT%TZ), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
fail=0
for a in kill9 bomb slow malformed; do
  "$WORK/attack" -bin "$WORK/sluice" -store "sqlite:$WORK/$a.db" "$a" || fail=1
done
if [ -n "${SLUICE_TEST_POSTGRES_DSN:-}" ]; then
  go build -o "$WORK/pgschema" ./bench/intake/pgschema
  sep='?'; case "$SLUICE_TEST_POSTGRES_DSN" in *\?*) sep='&';; esac
  for a in kill9 malformed bomb slow; do
    s=sluice_rel_${a}_$$
    "$WORK/pgschema" "$SLUICE_TEST_POSTGRES_DSN" "CREATE SCHEMA $s"
    SCHEMAS+=("$s")
    "$WORK/attack" -bin "$WORK/sluice" -store "$SLUICE_TEST_POSTGRES_DSN${sep}search_path=$s" "$a" || fail=1
  done
fi
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
exit $fail
