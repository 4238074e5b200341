// DuckDB side of bench/sql/run.sh and subquery.sh (run with @duckdb/node-api
// installed next to it):
//   node duck.mjs FACT.parquet DIM.parquet QUERY [EVENTS.parquet] [show]
// → {"seconds": …, "rows": n[, "first": "a,b"]}. The query names the tables
// fact, dim and (when given) events; the time covers the query only; `show`
// adds the first row, to compare answers.
import { DuckDBInstance } from '@duckdb/node-api';

const [fact, dim, sql, ...rest] = process.argv.slice(2);
const events = rest.find((a) => a.endsWith('.parquet'));
const show = rest.includes('show');
const lit = (s) => "'" + s.replaceAll("'", "''") + "'";
const instance = await DuckDBInstance.create(':memory:');
const con = await instance.connect();
await con.run(`CREATE VIEW fact AS SELECT * FROM read_parquet(${lit(fact)})`);
await con.run(`CREATE VIEW dim AS SELECT * FROM read_parquet(${lit(dim)})`);
if (events) {
  await con.run(`CREATE VIEW events AS SELECT * FROM read_parquet(${lit(events)})`);
}
const t0 = process.hrtime.bigint();
const res = await con.runAndReadAll(sql);
const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
const rows = res.getRows();
const out = { seconds, rows: rows.length };
if (show) out.first = rows.length ? rows[0].map(String).join(',') : '';
console.log(JSON.stringify(out));
