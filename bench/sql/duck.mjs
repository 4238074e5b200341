// DuckDB side of bench/sql/run.sh (run with @duckdb/node-api installed next
// to it): node duck.mjs FACT.parquet DIM.parquet QUERY [show] → {"seconds": …, "rows": n[, "first": "a,b"]}
// The query names the tables fact and dim; the time covers the query only.
import { DuckDBInstance } from '@duckdb/node-api';

const [fact, dim, sql, show] = process.argv.slice(2);
const lit = (s) => "'" + s.replaceAll("'", "''") + "'";
const instance = await DuckDBInstance.create(':memory:');
const con = await instance.connect();
await con.run(`CREATE VIEW fact AS SELECT * FROM read_parquet(${lit(fact)})`);
await con.run(`CREATE VIEW dim AS SELECT * FROM read_parquet(${lit(dim)})`);
const t0 = process.hrtime.bigint();
const res = await con.runAndReadAll(sql);
const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
const rows = res.getRows();
const out = { seconds, rows: rows.length };
if (show) out.first = rows.length ? rows[0].map(String).join(',') : ''; // the first row, to compare answers
console.log(JSON.stringify(out));
