# Sourced by the bench scripts that run DuckDB beside sluice
# (bench/duckdb/compare.sh, bench/sql/run.sh, bench/frames/large.sh).
#
#   duckdb_npm DIR SCRIPT   # installs @duckdb/node-api into DIR, with SCRIPT as DIR/duck.mjs
#
# DUCKDB_NODE_API_VERSION picks the package version; STEP_TIMEOUT (seconds)
# bounds the install.
DUCKDB_NODE_API_VERSION=${DUCKDB_NODE_API_VERSION:-1.5.6-r.1} # `npm view @duckdb/node-api version`

duckdb_npm() {
  mkdir -p "$1"
  cp "$2" "$1/duck.mjs"
  (cd "$1" && printf '{"private":true,"type":"module"}\n' >package.json &&
    timeout "${STEP_TIMEOUT:-900}" npm install --no-audit --no-fund --loglevel=error \
      "@duckdb/node-api@$DUCKDB_NODE_API_VERSION" >/dev/null)
}
