#!/usr/bin/env bash
# Side by side, in one run, interleaved over several rounds: Sluice's JDBC
# connector and the databases' own command-line bulk paths on the same rows
# (id, k, s, x, ts; default 10M) — see docs/jdbc.md#speed:
#
#   load    Parquet → PostgreSQL (sluice run: read → write, append into an
#           empty table)            vs  psql \copy t FROM 'rows.csv' CSV
#   read    PostgreSQL → Parquet (sluice read -o)
#                                   vs  psql \copy (SELECT …) TO 'out.csv' CSV
#   merge   1M changed rows into the table (sluice run … mode: merge)
#                                   vs  psql: staging \copy + INSERT … ON CONFLICT, one transaction
#   mariadb Parquet → MariaDB (append into an empty table)
#                                   vs  mysql --local-infile: LOAD DATA LOCAL INFILE 'rows.tsv'
#
# Wall time and peak RSS of every process (/usr/bin/time); the ratio is
# peer wall / sluice wall (≥ 1.0: Sluice is at least as fast). The machine
# may be shared: every round runs the peer and Sluice back to back, and the
# summary gives the range over rounds; odd rounds run the peer first, even
# rounds Sluice first.
#
#   bench/jdbc/run.sh                         # 10M rows, 1M changes, 3 rounds
#   ROWS=1000000 CHANGES=100000 ROUNDS=1 bench/jdbc/run.sh
#
# Needs go, psql, mysql, PostgreSQL on PG_DSN (postgres://postgres@127.0.0.1:5432/postgres)
# and MariaDB on MY_HOST:MY_PORT as root (local_infile on). It creates and
# drops the database sluice_bench on both.
set -euo pipefail

ROWS=${ROWS:-10000000}
CHANGES=${CHANGES:-1000000}
ROUNDS=${ROUNDS:-3}
PG_DSN=${PG_DSN:-postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable}
MY_HOST=${MY_HOST:-127.0.0.1}
MY_PORT=${MY_PORT:-3306}
SKIP_MARIADB=${SKIP_MARIADB:-}

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/sluice-jdbcbench.XXXXXX")
pgdb="${PG_DSN%%\?*}"; pgdb="${pgdb%/*}/sluice_bench"
cleanup() {
  psql -q "$PG_DSN" -c "DROP DATABASE IF EXISTS sluice_bench WITH (FORCE)" >/dev/null 2>&1 || true
  mysql -h "$MY_HOST" -P "$MY_PORT" -u root -e "DROP DATABASE IF EXISTS sluice_bench" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
cd "$root"

echo "== setup (in $work)"
go build -o "$work/sluice" ./cmd/sluice
go run ./bench/jdbc/gen -rows "$ROWS" -changes "$CHANGES" -o "$work"
psql -q "$PG_DSN" -c "DROP DATABASE IF EXISTS sluice_bench WITH (FORCE)" -c "CREATE DATABASE sluice_bench" >/dev/null
[ -n "$SKIP_MARIADB" ] || mysql -h "$MY_HOST" -P "$MY_PORT" -u root -e "DROP DATABASE IF EXISTS sluice_bench; CREATE DATABASE sluice_bench"
export SLUICE_CATALOG="$work/catalog"
pgt="(id bigint PRIMARY KEY, k bigint, s text, x double precision, ts timestamptz)"
myt="(id bigint PRIMARY KEY, k bigint, s longtext, x double, ts datetime(6))"
"$work/sluice" sql -e "
  CREATE TABLE b.rows TBLPROPERTIES ('svc.storage.type'='PARQUET', 'svc.parquet.path'='$work/rows.parquet');
  CREATE TABLE b.changes TBLPROPERTIES ('svc.storage.type'='PARQUET', 'svc.parquet.path'='$work/changes.parquet');
  CREATE TABLE pg.load TBLPROPERTIES ('svc.storage.type'='JDBC', 'svc.jdbc.url'='$pgdb?sslmode=disable', 'svc.jdbc.dbtable'='load_s');
  CREATE TABLE pg.t TBLPROPERTIES ('svc.storage.type'='JDBC', 'svc.jdbc.url'='$pgdb?sslmode=disable', 'svc.jdbc.dbtable'='t');
  CREATE TABLE my.load TBLPROPERTIES ('svc.storage.type'='JDBC', 'svc.jdbc.url'='mysql://root@$MY_HOST:$MY_PORT/sluice_bench', 'svc.jdbc.dbtable'='load_s')" >/dev/null
cat >"$work/load_pg.yaml" <<YAML
name: load_pg
steps:
  - read: {table: b.rows}
  - write: {table: pg.load}
YAML
cat >"$work/load_my.yaml" <<YAML
name: load_my
steps:
  - read: {table: b.rows}
  - write: {table: my.load}
YAML
cat >"$work/merge_pg.yaml" <<YAML
name: merge_pg
steps:
  - read: {table: b.changes}
  - write: {table: pg.t, mode: merge, key: [id]}
YAML
cat >"$work/merge_peer.sql" <<SQL
BEGIN;
CREATE TEMP TABLE stage (LIKE t INCLUDING DEFAULTS) ON COMMIT DROP;
\\copy stage FROM '$work/changes.csv' CSV
INSERT INTO t SELECT * FROM stage ON CONFLICT (id) DO UPDATE SET k = EXCLUDED.k, s = EXCLUDED.s, x = EXCLUDED.x, ts = EXCLUDED.ts;
COMMIT;
SQL
pg() { psql -q -v ON_ERROR_STOP=1 "$pgdb?sslmode=disable" "$@"; }
my() { mysql -h "$MY_HOST" -P "$MY_PORT" -u root --local-infile=1 sluice_bench "$@"; }
pg -c "CREATE TABLE t $pgt" -c "\\copy t FROM '$work/rows.csv' CSV" -c "VACUUM ANALYZE t"
echo "rows: $ROWS ($(stat -c %s "$work/rows.parquet") bytes Parquet, $(stat -c %s "$work/rows.csv") bytes CSV); changes: $CHANGES; $(nproc) CPUs; load $(cut -d' ' -f1-3 /proc/loadavg)"

# timed NAME CMD…: runs CMD under /usr/bin/time, appends "NAME wall rss_kb" to results.
timed() {
  local name=$1; shift
  /usr/bin/time -f "%e %M" -o "$work/t" "$@" >/dev/null 2>>"$work/stderr"
  read -r wall rss <"$work/t"
  echo "$name $wall $rss" >>"$work/results"
  printf '  %-14s %7.2f s  %6d MiB\n' "$name" "$wall" $((rss / 1024))
}
# pair NAME PEER… -- SLUICE…: runs both, the peer first in odd rounds and
# Sluice first in even ones (a merge leaves dead rows the next one pays for).
pair() {
  local name=$1; shift
  local peer=() sl=()
  while [ "$1" != "--" ]; do peer+=("$1"); shift; done
  shift
  sl=("$@")
  if [ $((round % 2)) = 1 ]; then
    ${prep_peer:-true}; timed "${name}_peer" "${peer[@]}"
    ${prep_sluice:-true}; timed "${name}_sluice" "${sl[@]}"
  else
    ${prep_sluice:-true}; timed "${name}_sluice" "${sl[@]}"
    ${prep_peer:-true}; timed "${name}_peer" "${peer[@]}"
  fi
}
pg_fresh_p() { pg -c "DROP TABLE IF EXISTS load_p" -c "CREATE TABLE load_p $pgt"; }
pg_fresh_s() { pg -c "DROP TABLE IF EXISTS load_s" -c "CREATE TABLE load_s $pgt"; }
my_fresh_p() { my -e "DROP TABLE IF EXISTS load_p; CREATE TABLE load_p $myt"; }
my_fresh_s() { my -e "DROP TABLE IF EXISTS load_s; CREATE TABLE load_s $myt"; }
for round in $(seq 1 "$ROUNDS"); do
  echo "== round $round (load $(cut -d' ' -f1 /proc/loadavg))"
  prep_peer=pg_fresh_p prep_sluice=pg_fresh_s pair load \
    psql -q -v ON_ERROR_STOP=1 "$pgdb?sslmode=disable" -c "\\copy load_p FROM '$work/rows.csv' CSV" -- \
    "$work/sluice" run "$work/load_pg.yaml"
  [ "$(pg -tAc 'SELECT count(*) FROM load_s')" = "$ROWS" ] || { echo "load_s has the wrong row count" >&2; exit 1; }

  prep_peer= prep_sluice= pair read \
    psql -q -v ON_ERROR_STOP=1 "$pgdb?sslmode=disable" -c "\\copy (SELECT * FROM t) TO '$work/out.csv' CSV" -- \
    "$work/sluice" read pg.t -o "$work/out.parquet"

  prep_peer= prep_sluice= pair merge \
    psql -q -v ON_ERROR_STOP=1 "$pgdb?sslmode=disable" -f "$work/merge_peer.sql" -- \
    "$work/sluice" run "$work/merge_pg.yaml"

  if [ -z "$SKIP_MARIADB" ]; then
    prep_peer=my_fresh_p prep_sluice=my_fresh_s pair mariadb \
      mysql -h "$MY_HOST" -P "$MY_PORT" -u root --local-infile=1 sluice_bench -e "LOAD DATA LOCAL INFILE '$work/rows.tsv' INTO TABLE load_p FIELDS TERMINATED BY '\\t'" -- \
      "$work/sluice" run "$work/load_my.yaml"
    [ "$(my -N -e 'SELECT count(*) FROM load_s')" = "$ROWS" ] || { echo "MariaDB load_s has the wrong row count" >&2; exit 1; }
  fi
done

echo "== summary over $ROUNDS rounds (ratio = peer wall / sluice wall; RSS of sluice)"
for what in load read merge mariadb; do
  awk -v w="$what" '
    $1 == w"_peer"   { p[++np] = $2 }
    $1 == w"_sluice" { s[++ns] = $2; if ($3 > rss) rss = $3 }
    END {
      if (ns == 0) exit
      for (i = 1; i <= ns; i++) { r = p[i] / s[i]; if (i == 1 || r < lo) lo = r; if (i == 1 || r > hi) hi = r
        if (i == 1 || p[i] < pmin) pmin = p[i]; if (p[i] > pmax) pmax = p[i]; if (i == 1 || s[i] < smin) smin = s[i]; if (s[i] > smax) smax = s[i] }
      printf "  %-8s peer %6.2f–%6.2f s   sluice %6.2f–%6.2f s   ratio %.2f–%.2f   sluice peak RSS %d MiB\n", w, pmin, pmax, smin, smax, lo, hi, rss / 1024
    }' "$work/results"
done
