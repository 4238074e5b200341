package jdbc_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/connectors/jdbc"
	"github.com/sluicedata/sluice/connectors/jdbc/jdbctest"
)

// Every PostgreSQL type of docs/jdbc.md#types reads as its Spark type,
// values exact.
func TestReadTypesPostgres(t *testing.T) {
	t.Parallel()
	db := jdbctest.Postgres(t)
	db.Exec(t, `CREATE TYPE mood AS ENUM ('sad', 'happy')`,
		`CREATE TABLE types (
		s smallint, i integer NOT NULL, l bigint, r real, d double precision,
		n numeric(10,2), nu numeric, nb numeric(50,20), b boolean,
		c char(3), v varchar(10), t text, e mood, u uuid, j json, jb jsonb,
		by bytea, da date, ts timestamp, tz timestamptz,
		ai integer[], at text[], an numeric(5,1)[], iv interval)`,
		`INSERT INTO types VALUES (
		-32768, 2147483647, -9223372036854775808, 1.5, 2.25,
		-12345678.91, 1.123456789012345678, 123456789012345678.12345678901234567890, true,
		'ab', 'x', 'héllo', 'happy', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '{"a": 1}', '{"b": [1, 2]}',
		'\x00ff', '0001-01-01', '2024-01-02 03:04:05.123456', '2024-01-02 03:04:05.654321+02',
		'{1,NULL,3}', '{"a","b c"}', '{1.5,-2.0}', '1 day')`,
		`INSERT INTO types (i) VALUES (0)`)
	schema, rows := read(t, dataset(db, jdbc.PropDBTable, "types"))
	require.Equal(t, `root
 |-- s: short (nullable = true)
 |-- i: integer (nullable = false)
 |-- l: long (nullable = true)
 |-- r: float (nullable = true)
 |-- d: double (nullable = true)
 |-- n: decimal(10,2) (nullable = true)
 |-- nu: decimal(38,18) (nullable = true)
 |-- nb: decimal(38,18) (nullable = true)
 |-- b: boolean (nullable = true)
 |-- c: string (nullable = true)
 |-- v: string (nullable = true)
 |-- t: string (nullable = true)
 |-- e: string (nullable = true)
 |-- u: string (nullable = true)
 |-- j: string (nullable = true)
 |-- jb: string (nullable = true)
 |-- by: binary (nullable = true)
 |-- da: date (nullable = true)
 |-- ts: timestamp (nullable = true)
 |-- tz: timestamp (nullable = true)
 |-- ai: array (nullable = true)
 |    |-- element: integer (containsNull = true)
 |-- at: array (nullable = true)
 |    |-- element: string (containsNull = true)
 |-- an: array (nullable = true)
 |    |-- element: decimal(5,1) (containsNull = true)
 |-- iv: string (nullable = true)
`, schema)
	require.Len(t, rows, 2)
	require.Equal(t, `{"s":-32768,"i":2147483647,"l":-9223372036854775808,"r":1.5,"d":2.25,`+
		`"n":-12345678.91,"nu":1.123456789012345678,"nb":123456789012345678.123456789012345679,"b":true,`+
		`"c":"ab ","v":"x","t":"héllo","e":"happy","u":"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11","j":"{\"a\": 1}","jb":"{\"b\": [1, 2]}",`+
		`"by":"AP8=","da":"0001-01-01","ts":"2024-01-02T03:04:05.123456Z","tz":"2024-01-02T01:04:05.654321Z",`+
		`"ai":[1,null,3],"at":["a","b c"],"an":[1.5,-2.0],"iv":"1 day"}`, rows[0])
	require.True(t, strings.HasPrefix(rows[1], `{"s":null,"i":0,`), rows[1])
}

// A value beyond its Spark type is an error naming table, column and row,
// never a NULL.
func TestReadValueDoesNotFit(t *testing.T) {
	t.Parallel()
	db := jdbctest.Postgres(t)
	db.Exec(t, `CREATE TABLE wide (id int, n numeric)`,
		`INSERT INTO wide VALUES (1, 1), (2, 123456789012345678901234567890)`,
		`CREATE TABLE old (id int, d date)`, `INSERT INTO old VALUES (1, '0044-03-15 BC')`)
	_, err := (&jdbc.Connector{}).Read(ctx(t), dataset(db, jdbc.PropDBTable, "wide"))
	require.ErrorIs(t, err, jdbc.ErrValue)
	require.ErrorContains(t, err, "table wide, column n, row 2")
	_, err = (&jdbc.Connector{}).Read(ctx(t), dataset(db, jdbc.PropDBTable, "old"))
	require.ErrorContains(t, err, "table old, column d, row 1")
	require.ErrorContains(t, err, "before year 1")
	// A query read names the query, not a table called "query".
	_, err = (&jdbc.Connector{}).Read(ctx(t), dataset(db, jdbc.PropQuery, "SELECT d FROM old"))
	require.ErrorIs(t, err, jdbc.ErrValue)
	require.ErrorContains(t, err, "value does not fit: svc.jdbc.query, column d, row 1")
}

func TestReadTypesMySQL(t *testing.T) {
	t.Parallel()
	db := jdbctest.MySQL(t)
	db.Exec(t, `CREATE TABLE types (
		b tinyint(1), ti tinyint, tu tinyint unsigned, s smallint, m mediumint, i int NOT NULL, iu int unsigned,
		l bigint, lu bigint unsigned, f float, d double, n decimal(10,2), nb decimal(50,20),
		c char(3), v varchar(10), t text, e enum('sad','happy'), j json, bi varbinary(4), bl blob,
		da date, dt datetime(6), ts timestamp(3) NULL, bt bit(1), y year)`,
		`INSERT INTO types VALUES (1, -128, 255, -32768, 8388607, 2147483647, 4294967295,
		-9223372036854775808, 18446744073709551615, 1.5, 2.25, -12345678.91, 123456789012345678.12345678901234567890,
		'ab', 'x', 'héllo', 'happy', '{"a": 1}', x'00ff', x'01', '2024-01-02', '2024-01-02 03:04:05.123456',
		'2024-01-02 03:04:05.654', b'1', 2024)`,
		`INSERT INTO types (i) VALUES (0)`)
	schema, rows := read(t, dataset(db, jdbc.PropDBTable, "types"))
	require.Equal(t, `root
 |-- b: boolean (nullable = true)
 |-- ti: byte (nullable = true)
 |-- tu: short (nullable = true)
 |-- s: short (nullable = true)
 |-- m: integer (nullable = true)
 |-- i: integer (nullable = false)
 |-- iu: long (nullable = true)
 |-- l: long (nullable = true)
 |-- lu: decimal(20,0) (nullable = true)
 |-- f: float (nullable = true)
 |-- d: double (nullable = true)
 |-- n: decimal(10,2) (nullable = true)
 |-- nb: decimal(38,18) (nullable = true)
 |-- c: string (nullable = true)
 |-- v: string (nullable = true)
 |-- t: string (nullable = true)
 |-- e: string (nullable = true)
 |-- j: string (nullable = true)
 |-- bi: binary (nullable = true)
 |-- bl: binary (nullable = true)
 |-- da: date (nullable = true)
 |-- dt: timestamp (nullable = true)
 |-- ts: timestamp (nullable = true)
 |-- bt: boolean (nullable = true)
 |-- y: integer (nullable = true)
`, schema)
	require.Equal(t, `{"b":true,"ti":-128,"tu":255,"s":-32768,"m":8388607,"i":2147483647,"iu":4294967295,`+
		`"l":-9223372036854775808,"lu":18446744073709551615,"f":1.5,"d":2.25,"n":-12345678.91,"nb":123456789012345678.123456789012345679,`+
		`"c":"ab","v":"x","t":"héllo","e":"happy","j":"{\"a\": 1}","bi":"AP8=","bl":"AQ==",`+
		`"da":"2024-01-02","dt":"2024-01-02T03:04:05.123456Z","ts":"2024-01-02T03:04:05.654Z","bt":true,"y":2024}`, rows[0])
	require.True(t, strings.HasPrefix(rows[1], `{"b":null,`), rows[1])
}
