package catalog_test

import (
	"context"
	"database/sql"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow/go/v17/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/catalog"
	"github.com/sluicedata/sluice/catalog/sqlparse"
	"github.com/sluicedata/sluice/dataframe"
)

// query runs text with args and returns the rows as JSON and the schema
// as printSchema prints it.
func queryArgs(t *testing.T, s *catalog.Session, text string, args ...any) (rows []string, schema string) {
	t.Helper()
	f, err := s.ExecuteBatch(context.Background(), text, args...)
	require.NoError(t, err)
	defer f.Release()
	return rowsJSON(t, f), dataframe.SchemaString(f.Schema())
}

type celsius float64

type label string

// Every Go type binds as the literal Spark gives the same value.
func TestParamsTypes(t *testing.T) {
	t.Parallel()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	s := catalog.NewSession(nil, catalog.WithAllocator(mem))
	at := time.Date(2024, 5, 1, 9, 30, 15, 123456789, time.FixedZone("CEST", 2*3600))
	str := "pointed"
	var nilPtr *int
	rows, schema := queryArgs(t, s, `SELECT ? AS n, ? AS b, ? AS y, ? AS sh, ? AS i, ? AS l, ? AS gi, ? AS big,
		? AS huge, ? AS f, ? AS d, ? AS s, ? AS bin, ? AS ts, ? AS dec, ? AS ptr, ? AS nilptr, ? AS named,
		? AS nulls, ? AS valid, ? AS u8`,
		nil, true, int8(-3), int16(300), int32(7), int64(8), 9, 5_000_000_000,
		uint64(math.MaxUint64), float32(1.5), 2.25, "it's", []byte{0x0a, 0xff}, at, catalog.Decimal("12.50"), &str, nilPtr, celsius(21.5),
		sql.NullString{}, sql.NullInt64{Int64: 42, Valid: true}, uint8(200))
	require.Equal(t, []string{`{"n":null,"b":true,"y":-3,"sh":300,"i":7,"l":8,"gi":9,"big":5000000000,` +
		`"huge":18446744073709551615,"f":1.5,"d":2.25,"s":"it's","bin":"Cv8=","ts":"2024-05-01T07:30:15.123456Z",` +
		`"dec":12.50,"ptr":"pointed","nilptr":null,"named":21.5,"nulls":null,"valid":42,"u8":200}`}, rows)
	for _, want := range []string{
		" |-- n: void ", " |-- b: boolean ", " |-- y: byte ", " |-- sh: short ", " |-- i: integer ", " |-- l: long ",
		" |-- gi: integer ", " |-- big: long ", " |-- huge: decimal(20,0) ", " |-- f: float ", " |-- d: double ",
		" |-- s: string ", " |-- bin: binary ", " |-- ts: timestamp ", " |-- dec: decimal(4,2) ", " |-- ptr: string ",
		" |-- named: double ", " |-- valid: long ", " |-- u8: short ",
	} {
		require.Contains(t, schema, want)
	}

	// NaN and the infinities are values too; an expression over a ?
	// computes with it.
	rows, _ = queryArgs(t, s, "SELECT isnan(?) AS nan, ? > 1e308 AS inf, ? + 1 AS next, upper(?) AS up, CAST(? AS DATE) AS day",
		math.NaN(), math.Inf(1), 41, label("go"), "2024-05-01")
	require.Equal(t, []string{`{"nan":true,"inf":true,"next":42,"up":"GO","day":"2024-05-01"}`}, rows)
}

// A value is a value: quotes, semicolons and comment marks in it never
// become SQL.
func TestParamsInjection(t *testing.T) {
	t.Parallel()
	s, _ := newSession(t)
	dir := t.TempDir()
	ctx := context.Background()
	evil := "x'; DROP TABLE lake.people; --"
	_, err := s.Exec(ctx, `CREATE TABLE lake.people (id long, name string)
		TBLPROPERTIES ('svc.storage.type'='PARQUET', 'svc.parquet.path'=?)`, filepath.Join(dir, "it's", "people.parquet"))
	require.NoError(t, err)
	res, err := s.Exec(ctx, "INSERT INTO lake.people VALUES (?, ?), (?, ?)", 1, evil, 2, "ana")
	require.NoError(t, err)
	require.Equal(t, int64(2), res.RowsAffected)

	rows, _ := queryArgs(t, s, "SELECT id, name FROM lake.people WHERE name = ?", evil)
	require.Equal(t, []string{`{"id":1,"name":"x'; DROP TABLE lake.people; --"}`}, rows)
	rows, _ = queryArgs(t, s, "SELECT count(*) AS n FROM lake.people WHERE name = ?", "x' OR '1'='1")
	require.Equal(t, []string{`{"n":0}`}, rows)
	rows, _ = queryArgs(t, s, "SELECT count(*) AS n FROM lake.people")
	require.Equal(t, []string{`{"n":2}`}, rows)

	// The path with its quote went into the property as it is.
	rows = exec(t, s, "DESCRIBE EXTENDED lake.people")
	require.Contains(t, rows, `{"col_name":"svc.parquet.path","data_type":"`+filepath.Join(dir, "it's", "people.parquet")+`"}`)
}

// ? inside strings, back-quotes and comments is text; the others count
// across the whole batch, in order.
func TestParamsPlaceholders(t *testing.T) {
	t.Parallel()
	s := catalog.NewSession(nil)
	rows, _ := queryArgs(t, s, "SELECT '?' AS q, ? AS v, 1 AS `?` -- a ? here\n /* and ? here */", "bound")
	require.Equal(t, []string{`{"q":"?","v":"bound","?":1}`}, rows)

	sess, _ := newSession(t)
	dir := t.TempDir()
	rows, _ = queryArgs(t, sess, `CREATE TABLE lake.t (id long, at timestamp, amount decimal(10,2), raw binary) USING parquet LOCATION ?;
		INSERT INTO lake.t VALUES (?, ?, ?, ?);
		INSERT INTO lake.t (id) VALUES (?);
		SELECT id, at, amount, raw FROM lake.t WHERE id <= ? ORDER BY id LIMIT ?`,
		filepath.Join(dir, "t"), 1, time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC), catalog.Decimal("9.5"), []byte("hi"), int64(2), 5, 1)
	require.Equal(t, []string{`{"id":1,"at":"2024-01-02T03:04:05.000Z","amount":9.50,"raw":"aGk="}`}, rows)

	// SQLFrames takes them too.
	people, err := s.ExecuteBatch(context.Background(), "SELECT * FROM VALUES (1, 'ana'), (2, 'bo') AS t(id, name)")
	require.NoError(t, err)
	defer people.Release()
	out, err := catalog.SQLFrames(context.Background(), nil, "SELECT name FROM people WHERE id = ?", map[string]*dataframe.Frame{"people": people}, 2)
	require.NoError(t, err)
	defer out.Release()
	require.Equal(t, []string{`{"name":"bo"}`}, rowsJSON(t, out))
}

// A count that does not match, or a value without a SQL type, is an error
// naming the position, before anything runs.
func TestParamsErrors(t *testing.T) {
	t.Parallel()
	s, _ := newSession(t)
	ctx := context.Background()
	dir := t.TempDir()
	create := "CREATE TABLE lake.e (id long) TBLPROPERTIES ('svc.storage.type'='PARQUET', 'svc.parquet.path'='" + filepath.Join(dir, "e.parquet") + "');\n"

	_, err := s.ExecuteBatch(ctx, create+"SELECT ? AS a, ? AS b", 1)
	require.EqualError(t, err, "statement 2, line 2, column 16: parameter 2 (?) has no value: 1 argument given")
	require.ErrorIs(t, err, sqlparse.ErrSyntax)
	_, err = s.ExecuteBatch(ctx, create+"SELECT ? AS a", 1, 2, 3)
	require.EqualError(t, err, "argument 2 has no ? placeholder: 3 arguments given, the text has 1 placeholder")
	_, err = s.Exec(ctx, create+"INSERT INTO lake.e VALUES (?)", make(chan int))
	require.EqualError(t, err, "argument 1: unsupported Go type chan int (want nil, bool, an integer, a float, string, []byte, time.Time, catalog.Decimal, a pointer to one, or a driver.Valuer)")
	_, err = s.Exec(ctx, create+"INSERT INTO lake.e VALUES (?)", struct{ A int }{1})
	require.ErrorContains(t, err, "argument 1: unsupported Go type struct { A int }")
	_, err = s.ExecuteBatch(ctx, "SELECT ?", catalog.Decimal("1,5"))
	require.EqualError(t, err, `argument 1: catalog.Decimal "1,5" is not a decimal number (digits, an optional point and exponent)`)
	_, err = s.ExecuteBatch(ctx, "SELECT ?", time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC))
	require.ErrorContains(t, err, "argument 1: time.Time 10000-01-01T00:00:00Z is outside Spark's timestamps")
	_, err = s.Exec(ctx, "CREATE TABLE lake.x TBLPROPERTIES ('svc.storage.type'=?)", 1.5)
	require.EqualError(t, err, `statement 1, line 1, column 55: parameter 1 (?) for property "svc.storage.type": want a string, a boolean or an integer, found a double value`)
	// A ? where no literal may stand is a syntax error at it.
	_, err = s.ExecuteBatch(ctx, "SELECT a FROM ?", "lake.e")
	require.EqualError(t, err, `statement 1, line 1, column 15: expected a table name, found "?"`)
	// Nothing ran: the first statement's table was never created.
	_, err = s.ExecuteBatch(ctx, "SELECT * FROM lake.e")
	require.ErrorIs(t, err, catalog.ErrTableNotFound)
	// Without arguments a ? says what it is missing.
	_, err = s.ExecuteBatch(ctx, "SELECT a FROM t WHERE a = ?")
	require.EqualError(t, err, "statement 1, line 1, column 27: parameter 1 (?) has no value: 0 arguments given")
	require.True(t, strings.HasPrefix(err.Error(), "statement 1"))
}
