// Package parquet is the PARQUET connector: a dataset stored as one Parquet
// file or a directory of part files, read and written through the
// dataframe package's Parquet IO.
//
// svc.parquet.path names a single file, or a directory (an existing one, or
// a path ending in /) whose *.parquet files are read in name order,
// Hive-partitioned subdirectories `key=value/` included: their values come
// back as columns (strings, or typed when the dataset's fields say so).
// Writes replace the data — new files are written under hidden names and
// renamed into place, then the old ones removed — or, with
// svc.parquet.mode=append, add a part file (directories only).
// svc.parquet.compression picks the codec (snappy by default) and
// svc.parquet.partition.by writes Hive partitions.
//
//	CREATE TABLE lake.subs
//	TBLPROPERTIES ('svc.storage.type'='PARQUET', 'svc.parquet.path'='data/subs/');
//	INSERT INTO lake.subs SELECT * FROM yt.subs;
package parquet
