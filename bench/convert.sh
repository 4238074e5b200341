#!/usr/bin/env bash
# Throughput of `sluice convert` from generated NDJSON to every output format,
# and back from Parquet and Arrow. Prints one line per conversion: seconds and
# MB/s of NDJSON input.
#
#   bench/convert.sh            # ~100 MB
#   MB=20 bench/convert.sh
set -euo pipefail
MB=${MB:-100}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/sluice-convert.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$root"
timeout 600 go build -o "$work/sluice" ./cmd/sluice
timeout 600 go run ./bench/duckdb/gen -mb "$MB" -o "$work/in.ndjson"
bytes=$(stat -c %s "$work/in.ndjson")
echo "input: $(wc -l <"$work/in.ndjson") rows, $bytes bytes, $(nproc) CPUs"
run() { # IN OUT [flags]
  local in=$1 out=$2
  shift 2
  local t0 t1
  t0=$(date +%s.%N)
  timeout 600 "$work/sluice" convert "$work/$in" "$work/$out" "$@" 2>/dev/null
  t1=$(date +%s.%N)
  awk -v a="$t0" -v b="$t1" -v n="$bytes" -v l="$in → $out $*" \
    'BEGIN { printf "%-36s %7.3f s %8.1f MB/s (%d bytes out)\n", l, b - a, n / (b - a) / 1e6, 0 }' |
    sed "s/(0 bytes out)/($(stat -c %s "$work/$out") bytes out)/"
}
run in.ndjson out.parquet
run in.ndjson out-zstd.parquet --compression zstd
run in.ndjson out.arrow
run in.ndjson out.ndjson
run in.ndjson out.csv
run out.parquet back.ndjson
run out.arrow back2.ndjson
