#!/usr/bin/env bash
# Peak memory of `sluice run` over a streaming pipeline (Parquet → filter →
# with_columns → select → Parquet) at two input sizes, side by side with the
# same pipeline on BASE, a revision before pipelines streamed (BENCHMARKS.md,
# "Pipelines streaming (issue 13)"):
#
#   bench/pipelines-stream.sh                 # 100 and 400 MB of NDJSON, as Parquet
#   SIZES="50 200" BASE=ccd6284 bench/pipelines-stream.sh
#   ROW_GROUP_ROWS=0 bench/pipelines-stream.sh  # the input's row groups as convert makes them
#
# The PARQUET connector streams a row group at a time (and reads the next
# one meanwhile), so the input is written with ROW_GROUP_ROWS-row groups
# (default 16384): with convert's default (131072 rows, or 32 MB of
# encoded pages) a row group of these wide rows is ~100 MB in memory.
#
# Prints, per size and revision: wall and CPU (user+sys) seconds, peak RSS
# (/usr/bin/time -f %M) and the load average.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
SIZES=${SIZES:-"100 400"}
BASE=${BASE:-ccd6284}
ROW_GROUP_ROWS=${ROW_GROUP_ROWS:-16384}
work=$(mktemp -d "${TMPDIR:-/tmp}/sluice-pipes.XXXXXX")
trap 'rm -rf "$work"' EXIT
timeout 600 go build -o "$work/head" ./cmd/sluice
mkdir -p "$work/base-src"
git archive "$BASE" | tar -x -C "$work/base-src"
(cd "$work/base-src" && timeout 600 go build -o "$work/base" ./cmd/sluice)
cat >"$work/p.yaml" <<'EOF'
name: bench_stream
steps:
  - read: {type: PARQUET, properties: {svc.parquet.path: "${IN}"}}
  - filter: statistics.subscribed AND contentDetails.totalItemCount > 100
  - with_columns:
      title_upper: upper(snippet.title)
      items: contentDetails.totalItemCount
  - select: [id, snippet.publishedAt AS published, title_upper, items, statistics.score AS score]
  - write: {file: "${OUT}"}
EOF
echo "base $(git rev-parse --short "$BASE"), head $(git rev-parse --short HEAD) (+ worktree), $(nproc) CPUs, input row groups of ${ROW_GROUP_ROWS} rows (0: convert's default)"
printf '%-10s %-5s %10s %8s %8s %10s %12s  %s\n' input rev rows wall_s cpu_s peak_MiB out_bytes load
for mb in $SIZES; do
  timeout 600 go run ./bench/duckdb/gen -mb "$mb" -o "$work/in.ndjson" 2>/dev/null
  rows=$(wc -l <"$work/in.ndjson")
  timeout 600 "$work/head" convert --row-group-rows "$ROW_GROUP_ROWS" "$work/in.ndjson" "$work/in.parquet" 2>/dev/null
  rm -f "$work/in.ndjson"
  for rev in base head; do
    rm -f "$work/out.parquet"
    IN="$work/in.parquet" OUT="$work/out.parquet" SLUICE_CATALOG="$work/cat" \
      /usr/bin/time -f '%e %U %S %M' -o "$work/time" timeout 900 "$work/$rev" run "$work/p.yaml" 2>"$work/log" ||
      { cat "$work/log"; exit 1; }
    read -r wall user sys rss <"$work/time"
    printf '%-10s %-5s %10d %8.2f %8.2f %10.1f %12d  %s\n' "${mb}MB" "$rev" "$rows" "$wall" \
      "$(echo "$user + $sys" | bc)" "$(echo "scale=1; $rss / 1024" | bc)" "$(stat -c %s "$work/out.parquet")" \
      "$(cut -d' ' -f1-3 /proc/loadavg)"
  done
done
