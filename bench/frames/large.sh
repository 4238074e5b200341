#!/usr/bin/env bash
# Frames at any size: NDJSON → Parquet (snappy) with DuckDB and with
# `sluice convert` on the same generated files (nested YouTube-like listing
# records, bench/duckdb/gen), one size after the other, in one run. For each
# size it prints both wall times, both peak RSS (/usr/bin/time -f %M, the
# whole process) and the ratio, then checks that DuckDB reads sluice's file
# back with the input's row count. See BENCHMARKS.md, "Frames at any size".
#
#   bench/frames/large.sh                    # 200 MB, 1 GB and 4 GB, 2 runs each
#   SIZES="200 1000" RUNS=1 bench/frames/large.sh
#
# Needs go, node ≥ 18, npm and GNU time. Inputs live in one temporary
# directory (about the largest size free on its disk) and are deleted as soon
# as their size is done, and all of it on exit.
set -euo pipefail

SIZES=${SIZES:-"200 1000 4000"}
RUNS=${RUNS:-2}
STEP_TIMEOUT=${STEP_TIMEOUT:-1800}
LIMIT_KB=$((512 * 1024)) # the RSS bound sluice must stay under

# shellcheck source=bench/duckdb/npm.sh
source "$(dirname "${BASH_SOURCE[0]}")/../duckdb/npm.sh"
bench_start /usr/bin/time

echo "== setup (in $work; $(df -h --output=avail "$work" | tail -1 | tr -d ' ') free)"
duckdb_npm "$work/npm" "$root/bench/duckdb/duck.mjs"
bench_build_sluice
timeout "$STEP_TIMEOUT" go build -o "$work/gen" ./bench/duckdb/gen
echo "$(nproc) CPUs; DuckDB via @duckdb/node-api $DUCKDB_NODE_API_VERSION; load at start: $(cut -d' ' -f1-3 /proc/loadavg)"

fail=0
declare -A wall
printf '%-8s %8s %10s %10s %10s %12s %8s %8s %6s\n' size duck_s copy_s duck_MiB sluice_s sluice_MiB ratio ratio_c load
for mb in $SIZES; do
  in="$work/in-$mb.ndjson"
  "$work/gen" -mb "$mb" -o "$in" 2>/dev/null
  rows=$(wc -l <"$in")
  bd="" bc="" bs="" md="" ms=""
  for run in $(seq 1 "$RUNS"); do
    rm -f "$work/duck.parquet" "$work/sluice.parquet"
    # DuckDB: the whole node process (its COPY alone is in duck.log).
    bench_time node "$work/npm/duck.mjs" convert "$in" "$work/duck.parquet" >"$work/duck.log" 2>&1
    d=$wall dk=$rss
    c=$(duck_seconds "$work/duck.log")
    rm -f "$work/duck.parquet"
    bench_time "$work/sluice" convert "$in" "$work/sluice.parquet" >"$work/sluice.log" 2>&1
    s=$wall sk=$rss
    grep -q "^wrote $rows rows" "$work/sluice.log" || { echo "sluice failed: $(cat "$work/sluice.log")" >&2; exit 1; }
    bd=$(bench_min "$bd" "$d"); bc=$(bench_min "$bc" "$c"); bs=$(bench_min "$bs" "$s")
    md=$(bench_max "$md" "$dk"); ms=$(bench_max "$ms" "$sk")
  done
  load=$(cut -d' ' -f1 /proc/loadavg)
  wall[$mb]=$bs
  awk -v mb="$mb" -v d="$bd" -v c="$bc" -v dk="$md" -v s="$bs" -v sk="$ms" -v l="$load" 'BEGIN {
    printf "%-8s %8.2f %10.2f %10.0f %10.2f %12.0f %8.2f %8.2f %6s\n", mb " MB", d, c, dk / 1024, s, sk / 1024, d / s, c / s, l }'
  if [ "$ms" -ge "$LIMIT_KB" ]; then
    echo "  OVER: sluice peaked at $((ms / 1024)) MiB, the bound is 512 MiB" >&2
    fail=1
  fi
  got=$(cd "$work/npm" && timeout "$STEP_TIMEOUT" node duck.mjs inspect "$work/sluice.parquet")
  case "$got" in
    *"\"rows\":$rows,"*) ;;
    *) echo "  MISMATCH: DuckDB reads $got from sluice's file, the input has $rows rows" >&2; fail=1 ;;
  esac
  rm -f "$in" "$work/sluice.parquet"
done
echo "duck_s: the whole node process; copy_s: DuckDB's COPY statement alone (favours DuckDB); sluice_s: the whole process"
echo "ratio = duck_s / sluice_s, ratio_c = copy_s / sluice_s (above 1: sluice faster); best of $RUNS; RSS = highest of the runs"
if [ -n "${wall[1000]:-}" ] && [ -n "${wall[4000]:-}" ]; then
  awk -v a="${wall[1000]}" -v b="${wall[4000]}" 'BEGIN { printf "4 GB wall / 1 GB wall = %.2f (linear: 4)\n", b / a }'
fi
exit $fail
