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
# Needs go, node ≥ 18 and npm. Everything lives in one temporary directory,
# removed on exit.
set -euo pipefail

ROWS=${ROWS:-10000000}
RUNS=${RUNS:-3}
STEP_TIMEOUT=${STEP_TIMEOUT:-900}

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/sluice-fnbench.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$root"
# shellcheck source=bench/duckdb/npm.sh
source "$root/bench/duckdb/npm.sh"

for tool in go node npm; do
  command -v "$tool" >/dev/null || { echo "run.sh: $tool is required" >&2; exit 1; }
done

echo "== setup (in $work)"
duckdb_npm "$work/npm" "$root/bench/sql/duck.mjs"
timeout "$STEP_TIMEOUT" go build -o "$work/sluice" ./cmd/sluice
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
min() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b < a) print b; else print a }'; }
for i in "${!names[@]}"; do
  best_s="" best_d="" best_dq="" cpu_s="" cpu_d=""
  for run in $(seq 1 "$RUNS"); do
    /usr/bin/time -f "%e %M %U %S" -o "$work/t" timeout "$STEP_TIMEOUT" "$work/sluice" sql --format csv -e "${sluice_q[$i]}" >/dev/null
    read -r s _ us ss <"$work/t"
    cs=$(awk -v u="$us" -v s="$ss" 'BEGIN { print u + s }')
    /usr/bin/time -f "%e %M %U %S" -o "$work/t" timeout "$STEP_TIMEOUT" node "$work/npm/duck.mjs" "$work/fact.parquet" "$work/dim.parquet" "${duck_q[$i]}" >"$work/d.json"
    read -r d _ ud sd <"$work/t"
    cd_=$(awk -v u="$ud" -v s="$sd" 'BEGIN { print u + s }')
    dq=$(sed -E 's/.*"seconds":([0-9.eE+-]+).*/\1/' "$work/d.json")
    best_s=$(min "$best_s" "$s"); best_d=$(min "$best_d" "$d"); best_dq=$(min "$best_dq" "$dq")
    cpu_s=$(min "$cpu_s" "$cs"); cpu_d=$(min "$cpu_d" "$cd_")
  done
  awk -v n="${names[$i]}" -v s="$best_s" -v d="$best_d" -v q="$best_dq" -v cs="$cpu_s" -v cd="$cpu_d" 'BEGIN {
    printf "%-16s sluice %.2fs (cpu %.2fs)  duckdb process %.2fs (cpu %.2fs), query %.2fs  speed vs process %.2fx, cpu ratio %.2fx\n", n, s, cs, d, cd, q, d / s, cd / cs }'
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
