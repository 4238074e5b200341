// Package jdbc is the JDBC connector: PostgreSQL and MySQL/MariaDB tables
// as datasets (`svc.storage.type=JDBC`), chosen by `svc.jdbc.url` as in
// Spark's and Gimel's JDBC sources. Reads stream record batches over each
// database's bulk path (pgx's binary row stream, MySQL's unbuffered
// result), in parallel ranges with Spark's partitionColumn meaning, with
// the columns, filters and limit a query pushes down (connectors.ScanReader)
// and incremental cursors. Writes are one transaction each — append,
// overwrite or merge, over binary COPY or LOAD DATA LOCAL INFILE — and can
// carry the incremental states of their sources (connectors.StateStore),
// which makes a load exactly once.
//
// What differs between databases is one small dialect interface (quoting,
// types both ways, bulk load, upsert, schema-evolution DDL, catalog
// look-ups, errors): a third database is one file. See docs/jdbc.md.
//
//	CREATE TABLE shop.orders TBLPROPERTIES (
//	  'svc.storage.type'='JDBC',
//	  'svc.jdbc.url'='postgres://app@db:5432/shop',
//	  'svc.jdbc.password'='${env:PGPASSWORD}',
//	  'svc.jdbc.dbtable'='public.orders')
package jdbc
