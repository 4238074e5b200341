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

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/sluice-large.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$root"
# shellcheck source=bench/duckdb/npm.sh
source "$root/bench/duckdb/npm.sh"

for tool in go node npm /usr/bin/time; do
  command -v "$tool" >/dev/null || { echo "large.sh: $tool is required" >&2; exit 1; }
done

echo "== setup (in $work; $(df -h --output=avail "$work" | tail -1 | tr -d ' ') free)"
duckdb_npm "$work/npm" "$root/bench/duckdb/duck.mjs"
timeout "$STEP_TIMEOUT" go build -o "$work/sluice" ./cmd/sluice
timeout "$STEP_TIMEOUT" go build -o "$work/gen" ./bench/duckdb/gen
echo "$(nproc) CPUs; DuckDB via @duckdb/node-api $DUCKDB_NODE_API_VERSION; load at start: $(cut -d' ' -f1-3 /proc/loadavg)"

# measure OUT CMD…: runs CMD under GNU time; prints "seconds kb".
measure() {
  local out=$1
  shift
  /usr/bin/time -o "$work/time.txt" -f '%e %M' timeout "$STEP_TIMEOUT" "$@" >"$out" 2>&1
  cat "$work/time.txt"
}
min() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b + 0 < a + 0) print b; else print a }'; }
maxv() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b + 0 > a + 0) print b; else print a }'; }

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
    read -r d dk < <(cd "$work/npm" && measure "$work/duck.log" node duck.mjs convert "$in" "$work/duck.parquet")
    c=$(sed -E 's/.*"seconds":([0-9.eE+-]+).*/\1/' "$work/duck.log")
    rm -f "$work/duck.parquet"
    read -r s sk < <(measure "$work/sluice.log" "$work/sluice" convert "$in" "$work/sluice.parquet")
    grep -q "^wrote $rows rows" "$work/sluice.log" || { echo "sluice failed: $(cat "$work/sluice.log")" >&2; exit 1; }
    bd=$(min "$bd" "$d"); bc=$(min "$bc" "$c"); bs=$(min "$bs" "$s")
    md=$(maxv "$md" "$dk"); ms=$(maxv "$ms" "$sk")
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
