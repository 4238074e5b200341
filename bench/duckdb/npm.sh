# Sourced by the bench scripts that run DuckDB beside sluice
# (bench/duckdb/compare.sh, bench/functions/run.sh, bench/sql/*.sh,
# bench/frames/large.sh). One copy of their set-up and timing:
#
#   bench_start TOOL…       # root, work (a temporary directory removed on exit),
#                           # cd "$root"; fails unless go, node, npm and each TOOL exist
#   duckdb_npm DIR SCRIPT   # installs @duckdb/node-api into DIR, with SCRIPT as DIR/duck.mjs
#   bench_build_sluice      # go build ./cmd/sluice into "$work/sluice"
#   bench_time CMD…         # runs CMD under GNU time and timeout; sets
#                           # wall (s), rss (KiB) and cpu (user+sys s)
#   duck_seconds FILE       # the "seconds" duck.mjs printed: the query alone
#   bench_min A B, bench_max A B   # numeric; an empty A is "none yet"
#
# DUCKDB_NODE_API_VERSION picks the package version; STEP_TIMEOUT (seconds)
# bounds each step (install, build, timed run).
DUCKDB_NODE_API_VERSION=${DUCKDB_NODE_API_VERSION:-1.5.6-r.1} # `npm view @duckdb/node-api version`
STEP_TIMEOUT=${STEP_TIMEOUT:-900}

bench_start() {
  root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
  local tool name
  name=$(basename "$0")
  for tool in go node npm "$@"; do
    command -v "$tool" >/dev/null || { echo "$name: $tool is required" >&2; exit 1; }
  done
  work=$(mktemp -d "${TMPDIR:-/tmp}/sluice-${name%.sh}.XXXXXX")
  trap 'rm -rf "$work"' EXIT
  cd "$root"
}

duckdb_npm() {
  mkdir -p "$1"
  cp "$2" "$1/duck.mjs"
  (cd "$1" && printf '{"private":true,"type":"module"}\n' >package.json &&
    timeout "$STEP_TIMEOUT" npm install --no-audit --no-fund --loglevel=error \
      "@duckdb/node-api@$DUCKDB_NODE_API_VERSION" >/dev/null)
}

bench_build_sluice() {
  timeout "$STEP_TIMEOUT" go build -o "$work/sluice" ./cmd/sluice
}

bench_time() {
  local u s
  /usr/bin/time -f "%e %M %U %S" -o "$work/time.txt" timeout "$STEP_TIMEOUT" "$@"
  read -r wall rss u s <"$work/time.txt"
  cpu=$(awk -v u="$u" -v s="$s" 'BEGIN { print u + s }')
}

duck_seconds() { sed -E 's/.*"seconds":([0-9.eE+-]+).*/\1/' "$1"; }

bench_min() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b + 0 < a + 0) print b; else print a }'; }
bench_max() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b + 0 > a + 0) print b; else print a }'; }
