#!/usr/bin/env bash
# Side by side: subqueries over bench/sql's generated tables (fact: ROWS rows,
# k with 10,000 distinct values; dim: 100,000 rows, k 0…99,999), with
# `sluice sql` and with DuckDB, in one run. The queries: an uncorrelated
# IN (a hash semi join), NOT IN (a hashed set probed per row), a correlated
# EXISTS (a semi join on the correlation key) and a correlated scalar
# aggregate (a left join with the aggregate grouped by the key). Times as
# in bench/sql/run.sh: sluice as a whole process, DuckDB as a process and
# as the query alone; CPU time (user+sys) and peak RSS of both.
#
#   bench/sql/subquery.sh                    # 10M fact rows, 3 runs each
#   ROWS=1000000 RUNS=1 bench/sql/subquery.sh
#
# Needs go, node ≥ 18 and npm. Everything lives in one temporary
# directory, removed on exit.
set -euo pipefail

ROWS=${ROWS:-10000000}
RUNS=${RUNS:-3}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=bench/duckdb/npm.sh
source "$here/../duckdb/npm.sh"
bench_start /usr/bin/time

echo "== setup (in $work)"
duckdb_npm "$work/npm" "$here/duck.mjs"
bench_build_sluice
timeout "$STEP_TIMEOUT" go run ./bench/sql/gen -rows "$ROWS" -o "$work"
export SLUICE_CATALOG="$work/catalog"
"$work/sluice" sql -e "CREATE TABLE b.fact TBLPROPERTIES ('svc.storage.type'='PARQUET', 'svc.parquet.path'='$work/fact.parquet');
  CREATE TABLE b.dim TBLPROPERTIES ('svc.storage.type'='PARQUET', 'svc.parquet.path'='$work/dim.parquet')" >/dev/null
echo "fact: $ROWS rows; $(nproc) CPUs; load $(cut -d' ' -f1-3 /proc/loadavg); DuckDB via @duckdb/node-api $DUCKDB_NODE_API_VERSION"

names=(in notin exists scalar)
queries=(
  "SELECT count(*), sum(x) FROM fact WHERE k IN (SELECT k FROM dim WHERE weight < 0.5)"
  "SELECT count(*), sum(x) FROM fact WHERE k NOT IN (SELECT k FROM dim WHERE weight < 0.5)"
  "SELECT count(*) FROM dim d WHERE EXISTS (SELECT 1 FROM fact f WHERE f.k = d.k AND f.x > 999)"
  "SELECT count(*) FROM dim d WHERE d.weight * 1000 > (SELECT avg(f.x) FROM fact f WHERE f.k = d.k)"
)
min() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b < a) print b; else print a }'; }
for i in "${!names[@]}"; do
  q=${queries[$i]}
  sq=$(sed -E 's/FROM (fact|dim)/FROM b.\1/g' <<<"$q")
  best_s="" best_d="" best_dq="" rss_s=0 rss_d=0 cpu_s="" cpu_d=""
  for run in $(seq 1 "$RUNS"); do
    /usr/bin/time -f "%e %M %U %S" -o "$work/t" timeout "$STEP_TIMEOUT" "$work/sluice" sql --format csv -e "$sq" >"$work/s.csv"
    read -r s rs us ss <"$work/t"
    cs=$(awk -v u="$us" -v s="$ss" 'BEGIN { print u + s }')
    /usr/bin/time -f "%e %M %U %S" -o "$work/t" timeout "$STEP_TIMEOUT" node "$work/npm/duck.mjs" "$work/fact.parquet" "$work/dim.parquet" "$q" show >"$work/d.json"
    read -r d rd ud sd <"$work/t"
    cd_=$(awk -v u="$ud" -v s="$sd" 'BEGIN { print u + s }')
    dq=$(sed -E 's/.*"seconds":([0-9.eE+-]+).*/\1/' "$work/d.json")
    printf '%-7s run %d: sluice %.2fs (cpu %.2fs, %d MB)  duckdb process %.2fs (cpu %.2fs, %d MB), query %.2fs  [sluice %s, duckdb %s]\n' \
      "${names[$i]}" "$run" "$s" "$cs" $((rs / 1024)) "$d" "$cd_" $((rd / 1024)) "$dq" "$(tail -n 1 "$work/s.csv")" \
      "$(sed -E 's/.*"first":"([^"]*)".*/\1/' "$work/d.json")"
    best_s=$(min "$best_s" "$s"); best_d=$(min "$best_d" "$d"); best_dq=$(min "$best_dq" "$dq")
    cpu_s=$(min "$cpu_s" "$cs"); cpu_d=$(min "$cpu_d" "$cd_")
    rss_s=$((rs > rss_s ? rs : rss_s)); rss_d=$((rd > rss_d ? rd : rss_d))
  done
  awk -v n="${names[$i]}" -v s="$best_s" -v d="$best_d" -v q="$best_dq" -v rs="$rss_s" -v rd="$rss_d" -v cs="$cpu_s" -v cd="$cpu_d" 'BEGIN {
    printf "%-7s best: sluice %.2fs, duckdb %.2fs (query %.2fs); speed vs duckdb process %.2fx; cpu sluice %.2fs, duckdb %.2fs (%.2fx); peak RSS sluice %d MB, duckdb %d MB\n", n, s, d, q, d / s, cs, cd, cd / cs, rs / 1024, rd / 1024 }'
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
