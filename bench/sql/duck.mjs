// DuckDB side of bench/sql/run.sh (run with @duckdb/node-api installed next
// to it): node duck.mjs FACT.parquet DIM.parquet QUERY [EVENTS.parquet]
// → {"seconds": …, "rows": n}. The query names the tables fact, dim and
// events; the time covers the query only.
import { DuckDBInstance } from '@duckdb/node-api';

const [fact, dim, sql, events] = process.argv.slice(2);
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
console.log(JSON.stringify({ seconds, rows: res.getRows().length }));
