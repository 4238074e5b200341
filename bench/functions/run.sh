#!/usr/bin/env bash
# Side by side: Spark's scalar functions over the SQL benchmark's fact table
# (bench/sql/gen: s a string, k a long, ts a timestamp), with `sluice sql`
# and with DuckDB's nearest functions, in one run. Each query folds the
# function's result with max() so that the function runs on every row and
# the output is one value. sluice is timed as a whole process (start and
# Parquet read included), DuckDB both as a whole `node` process and as the
# query alone; CPU time (user+sys) of both, as on a busy machine wall times
# are noisy.
#
#   bench/functions/run.sh                   # 10M rows, 3 runs each
#   ROWS=1000000 RUNS=1 bench/functions/run.sh
#
# Needs go, node ≥ 18, npm and GNU time. Everything lives in one temporary directory,
# removed on exit.
set -euo pipefail

ROWS=${ROWS:-10000000}
RUNS=${RUNS:-3}

# shellcheck source=bench/duckdb/npm.sh
source "$(dirname "${BASH_SOURCE[0]}")/../duckdb/npm.sh"
bench_start /usr/bin/time

echo "== setup (in $work)"
duckdb_npm "$work/npm" "$root/bench/sql/duck.mjs"
bench_build_sluice
timeout "$STEP_TIMEOUT" go run ./bench/sql/gen -rows "$ROWS" -o "$work"
export SLUICE_CATALOG="$work/catalog"
"$work/sluice" sql -e "CREATE TABLE b.fact TBLPROPERTIES ('svc.storage.type'='PARQUET', 'svc.parquet.path'='$work/fact.parquet')" >/dev/null
echo "fact: $ROWS rows; $(nproc) CPUs; load $(cut -d' ' -f1-3 /proc/loadavg); DuckDB via @duckdb/node-api $DUCKDB_NODE_API_VERSION"

names=(baseline upper substring date_format regexp_replace concat_ws get_json_object)
sluice_q=(
  "SELECT max(s) FROM b.fact"
  "SELECT max(upper(s)) FROM b.fact"
  "SELECT max(substring(s, 2, 4)) FROM b.fact"
  "SELECT max(date_format(ts, 'yyyy-MM-dd HH:mm:ss')) FROM b.fact"
  "SELECT max(regexp_replace(s, '[0-9]+', '#')) FROM b.fact"
  "SELECT max(concat_ws('-', s, s)) FROM b.fact"
  "SELECT max(get_json_object(concat('{\"a\":', k, '}'), '\$.a')) FROM b.fact"
)
duck_q=(
  "SELECT max(s) FROM fact"
  "SELECT max(upper(s)) FROM fact"
  "SELECT max(substring(s, 2, 4)) FROM fact"
  "SELECT max(strftime(ts, '%Y-%m-%d %H:%M:%S')) FROM fact"
  "SELECT max(regexp_replace(s, '[0-9]+', '#', 'g')) FROM fact"
  "SELECT max(concat_ws('-', s, s)) FROM fact"
  "SELECT max(json_extract_string('{\"a\":' || k || '}', '\$.a')) FROM fact"
)
for i in "${!names[@]}"; do
  best_s="" best_d="" best_dq="" cpu_s="" cpu_d=""
  for run in $(seq 1 "$RUNS"); do
    bench_time "$work/sluice" sql --format csv -e "${sluice_q[$i]}" >/dev/null
    s=$wall cs=$cpu
    bench_time node "$work/npm/duck.mjs" "$work/fact.parquet" "$work/dim.parquet" "${duck_q[$i]}" >"$work/d.json"
    d=$wall cd_=$cpu
    dq=$(duck_seconds "$work/d.json")
    best_s=$(bench_min "$best_s" "$s"); best_d=$(bench_min "$best_d" "$d"); best_dq=$(bench_min "$best_dq" "$dq")
    cpu_s=$(bench_min "$cpu_s" "$cs"); cpu_d=$(bench_min "$cpu_d" "$cd_")
  done
  awk -v n="${names[$i]}" -v s="$best_s" -v d="$best_d" -v q="$best_dq" -v cs="$cpu_s" -v cd="$cpu_d" 'BEGIN {
    printf "%-16s sluice %.2fs (cpu %.2fs)  duckdb process %.2fs (cpu %.2fs), query %.2fs  speed vs process %.2fx, cpu ratio %.2fx\n", n, s, cs, d, cd, q, d / s, cd / cs }'
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
