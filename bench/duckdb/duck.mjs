// DuckDB side of bench/duckdb/compare.sh (run with the @duckdb/node-api
// package installed next to it).
//   node duck.mjs convert IN.ndjson OUT.parquet  → {"seconds": …} (COPY only)
//   node duck.mjs inspect FILE.parquet           → {"rows": …, "columns": […]}
//   node duck.mjs same A.parquet B.parquet       → {"columns": n, "missing": rows of A not in B}
//   node duck.mjs leaves A.parquet B.parquet     → {"leaves": n, "same": count/min/max of nested leaves agree}
import { DuckDBInstance } from '@duckdb/node-api';

const [mode, a, b] = process.argv.slice(2);
const lit = (s) => "'" + s.replaceAll("'", "''") + "'";
const instance = await DuckDBInstance.create(':memory:');
const con = await instance.connect();
if (mode === 'convert') {
  const t0 = process.hrtime.bigint();
  await con.run(`COPY (SELECT * FROM read_json(${lit(a)})) TO ${lit(b)} (FORMAT parquet)`);
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  console.log(JSON.stringify({ seconds }));
} else if (mode === 'inspect') {
  const count = await con.runAndReadAll(`SELECT count(*)::BIGINT FROM read_parquet(${lit(a)})`);
  const desc = await con.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet(${lit(a)})`);
  console.log(JSON.stringify({
    rows: Number(count.getRows()[0][0]),
    columns: desc.getRows().map((r) => r[0]),
  }));
} else if (mode === 'same') {
  // Rows of a missing from b, over the top-level columns both files have
  // with the same type (nested types differ: DuckDB reads dates as
  // TIMESTAMP, Spark's inference keeps them string).
  const types = async (f) => new Map((await con.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet(${lit(f)})`)).getRows().map((r) => [r[0], r[1]]));
  const ta = await types(a);
  const tb = await types(b);
  const cols = [...ta.keys()].filter((c) => tb.get(c) === ta.get(c)).map((c) => '"' + c.replaceAll('"', '""') + '"');
  const sel = cols.join(', ');
  const diff = await con.runAndReadAll(
    `SELECT count(*)::BIGINT FROM (SELECT ${sel} FROM read_parquet(${lit(a)}) EXCEPT ALL SELECT ${sel} FROM read_parquet(${lit(b)}))`);
  console.log(JSON.stringify({ columns: cols.length, missing: Number(diff.getRows()[0][0]) }));
} else if (mode === 'leaves') {
  // count/min/max of every nested struct leaf (outside lists) that both
  // files store with the same physical type, compared file against file.
  const leaves = async (f) => new Map((await con.runAndReadAll(
    `SELECT DISTINCT path_in_schema, type FROM parquet_metadata(${lit(f)})`)).getRows()
    .map((r) => [String(r[0]), String(r[1])]));
  const la = await leaves(a);
  const lb = await leaves(b);
  const paths = [...la.keys()].filter((p) => p.includes(', ') && lb.get(p) === la.get(p) && !/\b(list|element|item)\b/.test(p));
  const agg = async (f) => {
    const exprs = paths.map((p) => p.split(', ').map((s) => '"' + s.replaceAll('"', '""') + '"').join('.'))
      .map((e) => `count(${e}), min(${e})::VARCHAR, max(${e})::VARCHAR`);
    return JSON.stringify((await con.runAndReadAll(`SELECT ${exprs.join(', ')} FROM read_parquet(${lit(f)})`)).getRows()[0].map(String));
  };
  const same = paths.length === 0 || (await agg(a)) === (await agg(b));
  console.log(JSON.stringify({ leaves: paths.length, same }));
} else {
  console.error('usage: node duck.mjs convert IN OUT | inspect FILE | same A B | leaves A B');
  process.exit(2);
}
