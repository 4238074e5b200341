package catalog_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/catalog"
	"github.com/sluicedata/sluice/dataframe"
)

// ytTables creates yt.subs (parsed, paginated items) and yt.raw (payload
// mode) over srv.
func ytTables(t *testing.T, s *catalog.Session, srv *ytServer) {
	t.Helper()
	exec(t, s, fmt.Sprintf(`
		CREATE EXTERNAL TABLE yt.subs TBLPROPERTIES (
		  'svc.storage.type'='RESTAPI',
		  'svc.restapi.url'='%[1]s/subs?channelId=UC1&key=AIza-top-secret',
		  'svc.restapi.accessKey'='AIza-top-secret',
		  'svc.restapi.parse.payload'='true',
		  'svc.restapi.records.path'='items',
		  'svc.restapi.paginate.next.field'='nextPageToken',
		  'svc.restapi.paginate.next.param'='pageToken');
		CREATE EXTERNAL TABLE yt.raw (payload string) LOCATION '%[1]s' TBLPROPERTIES (
		  'svc.storage.type'='RESTAPI', 'svc.restapi.url'='%[1]s/subs');`, srv.URL))
}

func TestExecuteStatements(t *testing.T) {
	t.Parallel()
	srv := newYTServer(t)
	s, _ := newSession(t)
	ytTables(t, s, srv)
	tests := []struct {
		sql  string
		want []string
	}{
		{"SHOW NAMESPACES", []string{`{"namespace":"yt"}`}},
		{"SHOW TABLES", []string{
			`{"namespace":"yt","tableName":"raw","isTemporary":false}`,
			`{"namespace":"yt","tableName":"subs","isTemporary":false}`,
		}},
		{"show tables in YT", []string{
			`{"namespace":"yt","tableName":"raw","isTemporary":false}`,
			`{"namespace":"yt","tableName":"subs","isTemporary":false}`,
		}},
		{"SHOW TABLES IN other", nil},
		{"DESCRIBE TABLE yt.subs", []string{
			`{"col_name":"payload","data_type":"string"}`,
			`{"col_name":"# Detailed Table Information","data_type":""}`,
			`{"col_name":"Type","data_type":"RESTAPI"}`,
			`{"col_name":"Location","data_type":""}`,
			`{"col_name":"svc.restapi.accessKey","data_type":"***"}`,
			`{"col_name":"svc.restapi.paginate.next.field","data_type":"nextPageToken"}`,
			`{"col_name":"svc.restapi.paginate.next.param","data_type":"pageToken"}`,
			`{"col_name":"svc.restapi.parse.payload","data_type":"true"}`,
			`{"col_name":"svc.restapi.records.path","data_type":"items"}`,
			`{"col_name":"svc.restapi.url","data_type":"` + srv.URL + `/subs?channelId=UC1&key=***"}`,
			`{"col_name":"svc.storage.type","data_type":"RESTAPI"}`,
		}},
		{"SET svc.restapi.header.Authorization = 'Bearer abc'", []string{`{"key":"svc.restapi.header.Authorization","value":"***"}`}},
		{"SET svc.restapi.header.Authorization", []string{`{"key":"svc.restapi.header.Authorization","value":"***"}`}},
		{"SET x.unset", []string{`{"key":"x.unset","value":"<undefined>"}`}},
		{"SET a=1; SET b.token=t0k; SET", []string{
			`{"key":"a","value":"1"}`,
			`{"key":"b.token","value":"***"}`,
			`{"key":"svc.restapi.header.Authorization","value":"***"}`,
		}},
		{"RESET a; SET", []string{
			`{"key":"b.token","value":"***"}`,
			`{"key":"svc.restapi.header.Authorization","value":"***"}`,
		}},
		{"RESET; SET", nil},
		{"SELECT snippet.title, snippet.resourceId.channelId AS channel FROM yt.subs WHERE snippet.title <> 'TEDx Talks' AND kind = 'youtube#subscription' LIMIT 3", []string{
			`{"title":"TED Residency","channel":"UCtC8aQzdEHAmuw8YvtH1CcQ"}`,
			`{"title":"TED-Ed","channel":"UCsooa4yRKGN_zEE8iknghZA"}`,
			`{"title":"TEDxYouth","channel":"UC-yTB2bUcin9mmah36sXiYA"}`,
		}},
		{"select id from yt.subs where snippet.title = 'TEDPartners' or snippet.title = 'TED'", []string{
			`{"id":"FMP3Mleijt-52zZDGkHtR907Ony4G2X5nk8s-zEHODE"}`,
		}},
		{"SELECT * FROM yt.subs LIMIT 0", nil},
		{"SELECT kind FROM yt.subs WHERE snippet.description IS NULL", nil},
		{"-- only a comment\n;", nil},
	}
	for _, tt := range tests {
		t.Run(tt.sql, func(t *testing.T) {
			require.Equal(t, tt.want, exec(t, s, tt.sql))
		})
	}
}

func TestExecuteSelectCountsAndPayload(t *testing.T) {
	t.Parallel()
	srv := newYTServer(t)
	s, _ := newSession(t)
	ytTables(t, s, srv)
	ctx := context.Background()

	f, err := s.ExecuteBatch(ctx, "SELECT * FROM yt.subs")
	require.NoError(t, err)
	require.EqualValues(t, 7, f.NumRows(), "two pages merged")
	f.Release()

	f, err = s.ExecuteBatch(ctx, "SELECT * FROM yt.raw")
	require.NoError(t, err)
	require.EqualValues(t, 1, f.NumRows())
	require.Equal(t, []string{"payload"}, f.ColumnNames())
	f.Release()

	f, err = s.ExecuteBatch(ctx, "SELECT pageInfo.totalResults, nextPageToken AS next FROM yt.raw")
	require.Error(t, err, "payload mode has no parsed columns")
	require.Nil(t, f)
}

func TestExecuteErrors(t *testing.T) {
	t.Parallel()
	srv := newYTServer(t)
	s, _ := newSession(t)
	ytTables(t, s, srv)
	tests := []struct {
		sql  string
		want string
	}{
		{"SELECT * FROM yt.nope", "statement 1: reading yt.nope: table not found: yt.nope"},
		{"SET a=1;\nSELECT * FROM yt.subs WHERE snippet.title = frobnicate(5)", "statement 2: line 2, column 45: unknown function frobnicate"},
		{"SELECT * FROM yt.subs WHERE pageInfo.totalResults > 1", `statement 1: line 1, column 29: unknown column pageInfo.totalResults`},
		{"CREATE TABLE yt.subs TBLPROPERTIES ('svc.storage.type'='RESTAPI')", "statement 1: creating yt.subs: table already exists"},
		{"CREATE TABLE yt.x (a string)", "statement 1: creating yt.x: table property svc.storage.type is required: it names the connector (RESTAPI, PARQUET, NOTIFICATIONS, …)"},
		{"CREATE TABLE `../x`.t TBLPROPERTIES ('svc.storage.type'='RESTAPI')", `statement 1: invalid name: namespace "../x" (want letters, digits and _, not starting with a digit)`},
		{"DROP TABLE yt.gone", "statement 1: dropping yt.gone: table not found"},
		{"DESCRIBE yt.gone", "statement 1: table not found: yt.gone"},
		{"SET svc.catalog.provider=SPARK; SELECT * FROM yt.subs", `statement 2: reading yt.subs: catalog provider: svc.catalog.provider="SPARK" is not HIVE or USER`},
		{"SET svc.catalog.provider=USER; SELECT * FROM yt.subs", "statement 2: reading yt.subs: catalog provider USER: no yt.subs.dataSetProperties entry among the properties (set svc.catalog.provider=HIVE to read the catalog table)"},
		{"SELECT * FROM yt.subs; SELEC", `statement 2, line 1, column 24: expected a statement (CREATE, DROP, SHOW, DESCRIBE, SET, RESET, SELECT or INSERT), found "SELEC"`},
		{"SET svc.catalog.provider=x; INSERT INTO yt.raw VALUES ('a')", `statement 2: writing yt.raw: catalog provider: svc.catalog.provider="x" is not HIVE or USER`},
		{"INSERT INTO yt.nope VALUES ('a')", "statement 1: writing yt.nope: table not found: yt.nope"},
		{"INSERT INTO yt.raw VALUES ('a', 'b')", "statement 1: inserting into yt.raw: the table has 1 columns (payload string) but VALUES gives 2"},
		{"INSERT INTO yt.raw (nope) VALUES ('a')", "statement 1: inserting into yt.raw: no column nope (columns: payload string)"},
	}
	for _, tt := range tests {
		t.Run(tt.sql, func(t *testing.T) {
			sess := catalog.NewSession(s.Catalog())
			f, err := sess.ExecuteBatch(context.Background(), tt.sql)
			require.Nil(t, f)
			require.EqualError(t, err, tt.want)
			require.NotContains(t, err.Error(), "AIza-top-secret")
		})
	}
	// A syntax error anywhere runs nothing.
	_, err := s.ExecuteBatch(context.Background(), "DROP TABLE yt.raw; SELECT FROM")
	require.Error(t, err)
	require.Equal(t, []string{`{"namespace":"yt","tableName":"raw","isTemporary":false}`, `{"namespace":"yt","tableName":"subs","isTemporary":false}`}, exec(t, s, "SHOW TABLES"))
}

func TestInsertIntoRestAPI(t *testing.T) {
	t.Parallel()
	srv := newYTServer(t)
	s, _ := newSession(t)
	exec(t, s, fmt.Sprintf(`
		CREATE TABLE api.events TBLPROPERTIES ('svc.storage.type'='RESTAPI', 'svc.restapi.url'='%[1]s/events', 'svc.restapi.use.payload'='true');
		CREATE TABLE api.objects TBLPROPERTIES ('svc.storage.type'='RESTAPI', 'svc.restapi.url'='%[1]s/events');
		CREATE TABLE yt.subs TBLPROPERTIES ('svc.storage.type'='RESTAPI', 'svc.restapi.url'='%[1]s/subs',
		  'svc.restapi.parse.payload'='true', 'svc.restapi.records.path'='items');`, srv.URL))

	got := exec(t, s, `INSERT INTO api.events VALUES ('{"a":1}'), ('{"b":"it''s"}')`)
	require.Equal(t, []string{`{"num_affected_rows":2,"num_inserted_rows":2}`}, got)
	_, bodies := srv.seen()
	require.Equal(t, []string{`{"a":1}`, `{"b":"it's"}`}, bodies)

	// Without use.payload each row goes as a JSON object; INSERT … SELECT
	// keeps the query's column names when the counts differ from the table's.
	got = exec(t, s, "INSERT INTO api.objects SELECT id, snippet.title FROM yt.subs WHERE snippet.title = 'TEDx Talks' OR snippet.title = 'TED-Ed'")
	require.Equal(t, []string{`{"num_affected_rows":2,"num_inserted_rows":2}`}, got)
	_, bodies = srv.seen()
	require.Equal(t, []string{
		`{"id":"FMP3Mleijt-52zZDGkHtR5KhwkvCcdQKWWWIA1j5eGc","title":"TEDx Talks"}`,
		`{"id":"FMP3Mleijt-52zZDGkHtRypBo_RsBLYwvw2DbDoGUl8","title":"TED-Ed"}`,
	}, bodies[2:])

	// One column: by position it becomes the table's payload column.
	got = exec(t, s, "INSERT INTO api.events SELECT etag FROM yt.subs LIMIT 1")
	require.Equal(t, []string{`{"num_affected_rows":1,"num_inserted_rows":1}`}, got)
	_, bodies = srv.seen()
	require.Len(t, bodies, 5)
	require.Equal(t, `"p4VTdlkQv3HQeTEaXgvLePAydmU/ah58pA0LZUrj8p8Ay6v9PqipM1E"`, bodies[4])
}

func TestInsertValuesTyped(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, cat := newSession(t)
	require.NoError(t, cat.Create(ctx, catalog.Table{Namespace: "w", Name: "t",
		Columns:    []catalog.Column{{Name: "name", Type: "string"}, {Name: "n", Type: "bigint"}, {Name: "x", Type: "double"}, {Name: "ok", Type: "boolean"}},
		Properties: map[string]string{"svc.storage.type": testType}}, false))
	got := exec(t, s, "INSERT INTO w.t VALUES ('a', 1, 2, true), (3, -4, 0.5, NULL)")
	require.Equal(t, []string{`{"num_affected_rows":2,"num_inserted_rows":2}`}, got)
	calls := testConn.written("w.t")
	require.Len(t, calls, 1)
	require.Equal(t, []string{`{"name":"a","n":1,"x":2.0,"ok":true}`, `{"name":"3","n":-4,"x":0.5,"ok":null}`}, calls[0].rows)

	_, err := s.ExecuteBatch(ctx, "INSERT INTO w.t (n) VALUES ('x')")
	require.EqualError(t, err, "statement 1: inserting into w.t: row 1, column n: 'x' is not a long")
	_, err = s.ExecuteBatch(ctx, "INSERT INTO w.t (n, ok) VALUES (1.5, 1)")
	require.EqualError(t, err, "statement 1: inserting into w.t: row 1, column n: 1.5 is not a long")
}

func TestExecuteBatchReturnsLastFrame(t *testing.T) {
	t.Parallel()
	s, _ := newSession(t)
	f, err := s.ExecuteBatch(context.Background(), "CREATE TABLE a.b TBLPROPERTIES ('svc.storage.type'='CATTEST')")
	require.NoError(t, err)
	require.Equal(t, 0, f.NumCols())
	f.Release()
	f, err = s.ExecuteBatch(context.Background(), "")
	require.NoError(t, err)
	require.Equal(t, 0, f.NumCols())
	require.Equal(t, "root\n", dataframe.SchemaString(f.Schema()))
	f.Release()
}

func TestWhereThreeValuedLogicOnFrames(t *testing.T) {
	t.Parallel()
	srv := newYTServer(t)
	s, _ := newSession(t)
	exec(t, s, "CREATE TABLE t.v TBLPROPERTIES ('svc.storage.type'='RESTAPI', 'svc.restapi.parse.payload'='true', 'svc.restapi.url'='"+srv.URL+"/nulls')")
	tests := []struct {
		where string
		want  []string
	}{
		{"a <> 'x'", []string{`{"a":"y"}`}}, // NULL <> 'x' is not true
		{"NOT (a = 'x')", []string{`{"a":"y"}`}},
		{"a IS NULL", []string{`{"a":null}`, `{"a":null}`}},
		{"a = 'x' OR a IS NULL", []string{`{"a":"x"}`, `{"a":null}`, `{"a":null}`}},
		{"n > 1", []string{`{"a":null}`}}, // long and double compare
		{"n < 2.5 AND n >= -3", []string{`{"a":"x"}`, `{"a":null}`}},
		{"ok", []string{`{"a":"x"}`}},
		{"NOT ok", []string{`{"a":"y"}`}},
		{"ok IS NOT NULL AND NOT ok = true", []string{`{"a":"y"}`}},
		{"ok OR n IS NULL", []string{`{"a":"x"}`, `{"a":"y"}`}},
	}
	for _, tt := range tests {
		t.Run(tt.where, func(t *testing.T) {
			require.Equal(t, tt.want, exec(t, s, "SELECT a FROM t.v WHERE "+tt.where))
		})
	}
	// A string is cast to boolean as Spark does (ANSI mode off): one that
	// converts compares, one that does not is NULL, so no row matches
	// (docs/sql.md#types; this replaced the former error).
	require.Equal(t, []string{`{"a":"x"}`}, exec(t, s, "SELECT a FROM t.v WHERE ok = 'true'"))
	require.Empty(t, exec(t, s, "SELECT a FROM t.v WHERE ok = 'maybe'"))
}

func TestParquetTableLocation(t *testing.T) {
	t.Parallel()
	s, cat := newSession(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "rows.parquet")
	exec(t, s, "CREATE TABLE files.rows (id bigint, who struct<name:string>) LOCATION '"+path+"' TBLPROPERTIES ('svc.storage.type'='PARQUET')")
	tbl, err := cat.Get(context.Background(), "files", "rows")
	require.NoError(t, err)
	require.Equal(t, map[string]string{"svc.storage.type": "PARQUET"}, tbl.Properties, "the file keeps what was written")
	require.Equal(t, []catalog.Column{{Name: "id", Type: "long"}, {Name: "who", Type: "struct<name:string>"}}, tbl.Columns)

	require.Equal(t, []string{`{"num_affected_rows":2,"num_inserted_rows":2}`}, exec(t, s, "INSERT INTO files.rows (id) VALUES (1), (2)"))
	_, err = os.Stat(path)
	require.NoError(t, err, "LOCATION is the PARQUET path")
	require.Equal(t, []string{`{"id":2}`}, exec(t, s, "SELECT id FROM files.rows WHERE id > 1"))
}
