#!/usr/bin/env bash
# Side by side: queries over a generated 10M-row Parquet table (k: long
# with 10,000 distinct values, s: string with 1,000, x and y: double, ts:
# timestamp), a 100,000-row dimension and a 10M-row events table (1M ids,
# updated_at, v, status), with `sluice sql` and with DuckDB, in one run:
# GROUP BY, JOIN + GROUP BY, top-N, the latest row per key (a window,
# row_number() … WHERE rn = 1) and a ROLLUP. sluice is timed as a whole process (start included); DuckDB
# both as a whole `node` process and as the query alone. Peak RSS of both,
# and CPU time (user+sys) of both processes: on a busy machine wall times
# are noisy, CPU time much less.
#
#   bench/sql/run.sh                    # 10M rows, 3 runs each, interleaved
#   ROWS=1000000 RUNS=1 bench/sql/run.sh
#   BASE=main bench/sql/run.sh          # also a sluice built from a git revision
#   QUERIES="window rollup" bench/sql/run.sh   # only those queries
#
# With BASE set, the sluice of that revision (exported with git archive, so
# no worktree is created) runs in the same loop, between this checkout's
# sluice and DuckDB: before and after figures from one run.
#
# Needs go, node ≥ 18 and npm. Everything lives in one temporary directory,
# removed on exit.
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
if [ -n "${BASE:-}" ]; then
  mkdir -p "$work/base"
  git archive "$BASE" | tar -x -C "$work/base"
  (cd "$work/base" && timeout "$STEP_TIMEOUT" go build -o "$work/sluice-base" ./cmd/sluice)
  echo "base: $BASE ($(git rev-parse --short "$BASE")), head: $(git rev-parse --short HEAD)$(git diff --quiet || echo '+changes')"
fi
timeout "$STEP_TIMEOUT" go run ./bench/sql/gen -rows "$ROWS" -keys "${KEYS:-$((ROWS / 10))}" -o "$work"
export SLUICE_CATALOG="$work/catalog"
"$work/sluice" sql -e "CREATE TABLE b.fact TBLPROPERTIES ('svc.storage.type'='PARQUET', 'svc.parquet.path'='$work/fact.parquet');
  CREATE TABLE b.dim TBLPROPERTIES ('svc.storage.type'='PARQUET', 'svc.parquet.path'='$work/dim.parquet');
  CREATE TABLE b.events TBLPROPERTIES ('svc.storage.type'='PARQUET', 'svc.parquet.path'='$work/events.parquet')" >/dev/null
echo "fact: $ROWS rows, $(stat -c %s "$work/fact.parquet") bytes; $(nproc) CPUs; load $(cut -d' ' -f1-3 /proc/loadavg); DuckDB via @duckdb/node-api $DUCKDB_NODE_API_VERSION"

names=(groupby join topn window rollup)
sluice_q=(
  "SELECT k, count(*), sum(x), avg(y) FROM b.fact GROUP BY k ORDER BY k"
  "SELECT d.name, count(*), sum(f.x) FROM b.fact f JOIN b.dim d ON f.k = d.k GROUP BY d.name ORDER BY d.name"
  "SELECT k, s, x FROM b.fact ORDER BY x DESC LIMIT 10"
  "SELECT * FROM (SELECT *, row_number() OVER (PARTITION BY id ORDER BY updated_at DESC) AS rn FROM b.events) WHERE rn = 1"
  "SELECT s, k % 100, count(*), sum(x) FROM b.fact GROUP BY ROLLUP(s, k % 100) ORDER BY 1, 2"
)
duck_q=(
  "SELECT k, count(*), sum(x), avg(y) FROM fact GROUP BY k ORDER BY k"
  "SELECT d.name, count(*), sum(f.x) FROM fact f JOIN dim d ON f.k = d.k GROUP BY d.name ORDER BY d.name"
  "SELECT k, s, x FROM fact ORDER BY x DESC LIMIT 10"
  "SELECT * FROM (SELECT *, row_number() OVER (PARTITION BY id ORDER BY updated_at DESC) AS rn FROM events) WHERE rn = 1"
  "SELECT s, k % 100, count(*), sum(x) FROM fact GROUP BY ROLLUP(s, k % 100) ORDER BY 1, 2"
)
min() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b < a) print b; else print a }'; }
for i in "${!names[@]}"; do
  if [ -n "${QUERIES:-}" ] && [[ " $QUERIES " != *" ${names[$i]} "* ]]; then continue; fi
  best_s="" best_d="" best_dq="" rss_s=0 rss_d=0 cpu_s="" cpu_d="" best_b="" cpu_b=""
  for run in $(seq 1 "$RUNS"); do
    if [ -n "${BASE:-}" ]; then
      /usr/bin/time -f "%e %M %U %S" -o "$work/t" timeout "$STEP_TIMEOUT" "$work/sluice-base" sql --format csv -e "${sluice_q[$i]}" >/dev/null
      read -r b rb ub sb <"$work/t"
      cb=$(awk -v u="$ub" -v s="$sb" 'BEGIN { print u + s }')
      printf '%-8s run %d: base   %.2fs (cpu %.2fs, %d MB)\n' "${names[$i]}" "$run" "$b" "$cb" $((rb / 1024))
      best_b=$(min "$best_b" "$b"); cpu_b=$(min "$cpu_b" "$cb")
    fi
    # sluice: the whole process, output to /dev/null.
    /usr/bin/time -f "%e %M %U %S" -o "$work/t" timeout "$STEP_TIMEOUT" "$work/sluice" sql --format csv -e "${sluice_q[$i]}" >/dev/null
    read -r s rs us ss <"$work/t"
    cs=$(awk -v u="$us" -v s="$ss" 'BEGIN { print u + s }')
    # DuckDB: the whole node process, and the query alone.
    /usr/bin/time -f "%e %M %U %S" -o "$work/t" timeout "$STEP_TIMEOUT" node "$work/npm/duck.mjs" "$work/fact.parquet" "$work/dim.parquet" "${duck_q[$i]}" "$work/events.parquet" >"$work/d.json"
    read -r d rd ud sd <"$work/t"
    cd_=$(awk -v u="$ud" -v s="$sd" 'BEGIN { print u + s }')
    dq=$(sed -E 's/.*"seconds":([0-9.eE+-]+).*/\1/' "$work/d.json")
    printf '%-8s run %d: sluice %.2fs (cpu %.2fs, %d MB)  duckdb process %.2fs (cpu %.2fs, %d MB), query %.2fs\n' "${names[$i]}" "$run" "$s" "$cs" $((rs / 1024)) "$d" "$cd_" $((rd / 1024)) "$dq"
    best_s=$(min "$best_s" "$s"); best_d=$(min "$best_d" "$d"); best_dq=$(min "$best_dq" "$dq")
    cpu_s=$(min "$cpu_s" "$cs"); cpu_d=$(min "$cpu_d" "$cd_")
    rss_s=$((rs > rss_s ? rs : rss_s)); rss_d=$((rd > rss_d ? rd : rss_d))
  done
  awk -v n="${names[$i]}" -v s="$best_s" -v d="$best_d" -v q="$best_dq" -v rs="$rss_s" -v rd="$rss_d" -v cs="$cpu_s" -v cd="$cpu_d" 'BEGIN {
    printf "%-8s best: sluice %.2fs, duckdb %.2fs (query %.2fs); speed vs duckdb process %.2fx, vs its query alone %.2fx; cpu sluice %.2fs, duckdb %.2fs (%.2fx); peak RSS sluice %d MB, duckdb %d MB\n", n, s, d, q, d / s, q / s, cs, cd, cd / cs, rs / 1024, rd / 1024 }'
  if [ -n "${BASE:-}" ]; then
    awk -v n="${names[$i]}" -v b="$best_b" -v d="$best_d" -v cb="$cpu_b" -v cd="$cpu_d" 'BEGIN {
      printf "%-8s base: %.2fs, speed vs duckdb process %.2fx; cpu %.2fs (%.2fx)\n", n, b, d / b, cb, cd / cb }'
  fi
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
