#!/usr/bin/env bash
# Reproduces every figure in BENCHMARKS.md: the Go benchmarks of each issue,
# then the side-by-side scripts (DuckDB for JSON → Parquet, wrk against the
# sidecar with the bare-Fiber ceiling). Output is printed and kept in
# bench/out/<UTC time>.txt. Run it on a quiet machine: figures taken while
# other work runs on the same cores are meaningless.
#
#   bench/run.sh              # everything (~15 minutes)
#   ONLY=go bench/run.sh      # just the testing.B benchmarks
#   ONLY=peers bench/run.sh   # just the scripts with peers
#
# Env: SLUICE_TEST_POSTGRES_DSN enables the Postgres figures (set by default
# when Postgres answers on 127.0.0.1:5432), BENCHTIME (default 3x).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
mkdir -p bench/out
out="bench/out/$(date -u +%Y%m%dT%H%M%SZ).txt"
BENCHTIME=${BENCHTIME:-3x}
ONLY=${ONLY:-all}
if [ -z "${SLUICE_TEST_POSTGRES_DSN:-}" ] && timeout 3 bash -c 'exec 3<>/dev/tcp/127.0.0.1/5432' 2>/dev/null; then
  export SLUICE_TEST_POSTGRES_DSN='postgres://postgres@127.0.0.1:5432/test?sslmode=disable'
fi

{
  echo "# sluice benchmarks, $(date -u), $(go version), $(nproc) CPUs, load: $(cut -d' ' -f1-3 /proc/loadavg)"
  if [ "$ONLY" = all ] || [ "$ONLY" = go ]; then
    gobench() { # package regexp [extra flags]
      local pkg=$1 re=$2
      shift 2
      echo "## go test $pkg -bench '$re' $*"
      timeout 1200 go test "$pkg" -run '^$' -bench "$re" -benchtime "$BENCHTIME" -benchmem "$@" 2>&1 |
        grep -E '^(Benchmark|ok|FAIL|---)' || true
    }
    # Issue 2: frames
    gobench ./dataframe 'ListingToFrame|InferOnly' -cpu 1,2
    gobench ./dataframe 'NDJSONToFrame|NDJSONToParquet|WriteParquet|FrameToGota'
    gobench ./dataframe 'TakeStrings|FilterStrings|ExplodeStrings|ExplodeListing'
    # REST (issues 3, 22): a listing on loopback; pages over HTTPS at 50 ms
    gobench ./connectors/restapi 'ReadListing'
    gobench ./connectors/restapi 'Remote|Fanout$' -benchtime 1x
    gobench ./catalog/sqlparse 'ParseBatch100'
    # Issue 4: sidecar
    # Parallel and per-record figures need time, not a fixed count: batches
    # only fill once many callers wait together.
    gobench ./notifications/sqlstore 'EnqueueParallel|ClaimFinish' -benchtime 3s
    gobench ./notifications/sqlstore 'Scan'
    gobench ./notifications 'Intake|ParseDelivery|Processing' -benchtime 3s
    # Issue 5: pipelines, datasets
    gobench ./pipelines 'RESTToParquet' -benchtime 1x
    gobench ./connectors/notifications 'ReadSQLite' -benchtime 1x
    gobench ./connectors/parquet 'PartitionedWrite'
    # Issue 10: SQL functions (1M-row arrays)
    gobench ./dataframe/query/functions 'Lower|Substr|RegexpReplace|ToTimestamp|CastStringToLong'
    # Issue 21: IN (subquery) over 1M rows a side
    gobench ./dataframe/query 'InSubquery'
  fi
  if [ "$ONLY" = all ] || [ "$ONLY" = peers ]; then
    echo "## bench/duckdb/compare.sh (NDJSON → Parquet, sluice vs DuckDB)"
    MB=${MB:-200} RUNS=${RUNS:-3} bash bench/duckdb/compare.sh 2>&1 || echo "compare.sh failed"
    echo "## bench/intake/run.sh (wrk, 64 connections)"
    bash bench/intake/run.sh 2>&1 || echo "intake/run.sh failed"
    echo "## bench/restapi/remote.sh (HTTPS, 50 ms a page: offset x8, token vs a plain net/http client, fan-out)"
    GOBENCH=0 bash bench/restapi/remote.sh 2>&1 || echo "remote.sh failed"
    echo "## bench/restapi/memory.sh (peak RSS of a body refused at max.response.bytes)"
    bash bench/restapi/memory.sh 2>&1 || echo "memory.sh failed"
    echo "## bench/restapi/paginators.sh (client CPU per page on loopback; rate.limit=20 over 100 pages)"
    bash bench/restapi/paginators.sh 2>&1 || echo "paginators.sh failed"
    echo "## bench/restapi/spool.sh (peak RSS of a REST read into Parquet vs pages, spooled and in memory)"
    bash bench/restapi/spool.sh 2>&1 || echo "spool.sh failed"
    echo "## bench/sql/subquery.sh (IN, NOT IN, EXISTS, scalar subqueries vs DuckDB, 10M rows)"
    RUNS=${RUNS:-3} bash bench/sql/subquery.sh 2>&1 || echo "subquery.sh failed"
  fi
} 2>&1 | tee "$out"
echo "kept in $out"
