// Package catalog is Sluice's Hive-like catalog and session: table
// definitions stored one JSON file per table under
// <catalog>/<namespace>/<table>.json, and a Session that reads and writes
// datasets through the connector registry, with Gimel's provider modes
// (HIVE: properties from the catalog table; USER: from a
// `<name>.dataSetProperties` entry) and property precedence (session
// setting > runtime property > table property > connector default). The
// session also runs SQL batches (package catalog/sqlparse parses them).
//
//	cat, err := catalog.Open(catalog.ResolveDir(flagDir, os.Getenv, wd))
//	s := catalog.NewSession(cat)
//	f, err := s.ExecuteBatch(ctx, `
//	  CREATE EXTERNAL TABLE yt.subs TBLPROPERTIES (
//	    'svc.storage.type'='RESTAPI', 'svc.restapi.url'='http://127.0.0.1:8080/subs');
//	  SELECT * FROM yt.subs`)
//	defer f.Release()
//
// Tables are created exclusively (temporary file, fsync, hard link to the
// final name), so of concurrent CREATEs of one table exactly one wins and no
// reader sees a partial file. Names are identifiers, case-insensitive and
// stored lower-case; nothing else can name a file, so a name never escapes
// the catalog directory.
package catalog
