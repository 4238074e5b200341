#!/usr/bin/env bash
# A/B of the sidecar's intake throughput between two revisions, interleaved
# so that both see the same machine load (BENCHMARKS.md, "Gateway records,
# quarantine, UI (issue 11)"):
#
#   bench/intake-ab.sh BASE [HEAD] [ROUNDS]
#
# builds the notifications test binary of each revision (from `git archive`,
# in a temp dir) and runs BenchmarkIntake and BenchmarkIntakeDiscards ROUNDS
# times (default 3), BASE then HEAD each round, printing the load beside
# every run. OVERLAY_BENCH=REV takes notifications/bench_test.go from REV
# for the BASE build (a revision older than BenchmarkIntakeDiscards);
# BENCH=regexp and BENCHTIME=3s change what runs and for how long.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
base=${1:?usage: bench/intake-ab.sh BASE [HEAD] [ROUNDS]}
head=${2:-HEAD}
rounds=${3:-3}
bench=${BENCH:-'BenchmarkIntake$|BenchmarkIntakeDiscards'}
work=$(mktemp -d "${TMPDIR:-/tmp}/sluice-intake-ab.XXXXXX")
trap 'rm -rf "$work"' EXIT
build() { # rev name
  mkdir -p "$work/$2"
  git archive "$1" | tar -x -C "$work/$2"
  if [ "$2" = base ] && [ -n "${OVERLAY_BENCH:-}" ]; then
    git show "$OVERLAY_BENCH:notifications/bench_test.go" >"$work/base/notifications/bench_test.go"
  fi
  (cd "$work/$2/notifications" && go test -c -o "$work/$2.test" .)
}
build "$base" base
build "$head" head
echo "base $(git rev-parse --short "$base")  head $(git rev-parse --short "$head")  $(nproc) CPUs"
for i in $(seq "$rounds"); do
  for v in base head; do
    echo "== $v round $i, load $(cut -d' ' -f1-3 /proc/loadavg)"
    (cd "$work" && "./$v.test" -test.run '^$' -test.bench "$bench" -test.benchtime "${BENCHTIME:-3s}" | grep '^Benchmark')
  done
done
echo "== end, load $(cut -d' ' -f1-3 /proc/loadavg)"
