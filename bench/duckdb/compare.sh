#!/usr/bin/env bash
# Side-by-side: NDJSON → Parquet (snappy) with DuckDB and with `sluice convert`
# on the same generated file, in one run. Prints both times and the ratio,
# then checks that DuckDB reads sluice's Parquet back with the same row count
# and columns as its own.
#
#   bench/duckdb/compare.sh                # ~200 MB, 3 runs each, interleaved
#   MB=50 RUNS=1 bench/duckdb/compare.sh   # quicker
#
# Needs go, node ≥ 18 and npm (the npm registry). Everything it creates lives
# in one temporary directory that is removed on exit.
set -euo pipefail

MB=${MB:-200}
RUNS=${RUNS:-3}

# shellcheck source=bench/duckdb/npm.sh
source "$(dirname "${BASH_SOURCE[0]}")/npm.sh"
bench_start

echo "== setup (in $work)"
duckdb_npm "$work/npm" "$root/bench/duckdb/duck.mjs"
bench_build_sluice
timeout "$STEP_TIMEOUT" go run ./bench/duckdb/gen -mb "$MB" -o "$work/in.ndjson"
in_bytes=$(stat -c %s "$work/in.ndjson")
in_rows=$(wc -l <"$work/in.ndjson")
echo "input: $in_rows rows, $in_bytes bytes; $(nproc) CPUs; DuckDB via @duckdb/node-api $DUCKDB_NODE_API_VERSION"

duck() { (cd "$work/npm" && timeout "$STEP_TIMEOUT" node duck.mjs "$@"); }
now() { date +%s.%N; }

best_duck=""
best_sluice=""

for run in $(seq 1 "$RUNS"); do
  rm -f "$work/duck.parquet" "$work/sluice.parquet"
  # DuckDB: the COPY statement alone (its process start and extension load
  # are not counted, which favours DuckDB).
  d=$(duck convert "$work/in.ndjson" "$work/duck.parquet" >"$work/d.json"; duck_seconds "$work/d.json")
  # sluice: the whole process, from exec to the renamed file.
  t0=$(now)
  timeout "$STEP_TIMEOUT" "$work/sluice" convert "$work/in.ndjson" "$work/sluice.parquet" 2>/dev/null
  s=$(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.3f", b - a }')
  printf 'run %d: duckdb %.3fs  sluice %.3fs\n' "$run" "$d" "$s"
  best_duck=$(bench_min "$best_duck" "$d")
  best_sluice=$(bench_min "$best_sluice" "$s")
done

echo "== result (best of $RUNS)"
awk -v d="$best_duck" -v s="$best_sluice" -v b="$in_bytes" 'BEGIN {
  printf "duckdb: %.3f s (%.1f MB/s)\n", d, b / d / 1e6
  printf "sluice: %.3f s (%.1f MB/s)\n", s, b / s / 1e6
  printf "ratio:  sluice/duckdb time = %.2f (below 1: sluice faster)\n", s / d
}'
printf 'parquet sizes: duckdb %s bytes, sluice %s bytes\n' \
  "$(stat -c %s "$work/duck.parquet")" "$(stat -c %s "$work/sluice.parquet")"

echo "== check: DuckDB reads sluice's Parquet"
ours=$(duck inspect "$work/sluice.parquet")
theirs=$(duck inspect "$work/duck.parquet")
echo "sluice.parquet: $ours"
echo "duck.parquet:   $theirs"
node -e '
  const [ours, theirs, rows] = [JSON.parse(process.argv[1]), JSON.parse(process.argv[2]), Number(process.argv[3])];
  const sorted = (c) => [...c].sort().join(",");
  let ok = true;
  if (ours.rows !== rows || theirs.rows !== rows) { console.error(`row counts differ: input ${rows}, sluice ${ours.rows}, duckdb ${theirs.rows}`); ok = false; }
  // sluice orders fields by name (Spark JSON inference), DuckDB by first appearance.
  if (sorted(ours.columns) !== sorted(theirs.columns)) { console.error(`columns differ: ${ours.columns} vs ${theirs.columns}`); ok = false; }
  console.log(ok ? "OK: same row count and columns" : "MISMATCH");
  process.exit(ok ? 0 : 1);
' "$ours" "$theirs" "$in_rows"
same=$(duck same "$work/sluice.parquet" "$work/duck.parquet")
echo "values (common top-level columns, sluice EXCEPT ALL duckdb): $same"
case "$same" in
  *'"missing":0}'*) echo "OK: same values" ;;
  *) echo "MISMATCH: values differ" >&2; exit 1 ;;
esac
leaves=$(duck leaves "$work/sluice.parquet" "$work/duck.parquet")
echo "nested struct leaves (count, min, max per leaf): $leaves"
case "$leaves" in
  *'"same":true}'*) echo "OK: same nested values" ;;
  *) echo "MISMATCH: nested values differ" >&2; exit 1 ;;
esac
