package jdbc

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"math/big"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/cells"
)

// postgres is the PostgreSQL dialect, over pgx: reads stream the binary
// result format, writes go through binary COPY (docs/jdbc.md#postgresql).
type postgres struct{}

func (postgres) Name() string { return "PostgreSQL" }

func (postgres) quote(ident string) string { return pgx.Identifier{ident}.Sanitize() }

func (postgres) param(n int) string { return "$" + strconv.Itoa(n) }

func (postgres) transactionalDDL() bool { return true }

func (postgres) emptyTable(table string) string { return "TRUNCATE TABLE " + table }

func (postgres) columnType(spark string, key bool) (string, error) {
	switch spark {
	case "long":
		return "bigint", nil
	case "integer":
		return "integer", nil
	case "short", "byte":
		return "smallint", nil
	case "double":
		return "double precision", nil
	case "float":
		return "real", nil
	case "boolean":
		return "boolean", nil
	case "string":
		return "text", nil
	case "binary":
		return "bytea", nil
	case "date":
		return "date", nil
	case "timestamp", "timestamp_ntz":
		return "timestamptz", nil
	case "void":
		return "text", nil
	}
	if strings.HasPrefix(spark, "decimal(") {
		return "numeric" + spark[len("decimal"):], nil
	}
	if strings.HasPrefix(spark, "array<") {
		elem := spark[len("array<") : len(spark)-1]
		if strings.HasPrefix(elem, "array<") || strings.HasPrefix(elem, "struct<") || strings.HasPrefix(elem, "map<") {
			return "jsonb", nil
		}
		et, err := postgres{}.columnType(elem, false)
		if err != nil {
			return "", err
		}
		return et + "[]", nil
	}
	if strings.HasPrefix(spark, "struct<") || strings.HasPrefix(spark, "map<") {
		return "jsonb", nil
	}
	return "", fmt.Errorf("no PostgreSQL column type for %s", spark)
}

// createStaging makes a staging table without the sequence column: rows
// appended by COPY to a table made in this transaction, never updated or
// deleted, lie in the order they came (ctid), which says which is last.
func (postgres) createStaging(staging, target string, cols []string) []string {
	return []string{fmt.Sprintf("CREATE TEMPORARY TABLE %s ON COMMIT DROP AS SELECT %s FROM %s WITH NO DATA",
		staging, strings.Join(cols, ", "), target)}
}

func (postgres) stagingSeq() bool { return false }

// upsert merges staging into target. Without dedupe it inserts the staged
// rows as they are — what a hand-written merge does, and fastest — which
// PostgreSQL refuses (SQLSTATE 21000) when a key is staged twice; the
// writer then runs it again with dedupe, keeping each key's last row.
func (postgres) upsert(target, staging string, cols, keys []string, dedupe bool) string {
	var set []string
	for _, c := range cols {
		if !contains(keys, c) {
			set = append(set, c+" = EXCLUDED."+c)
		}
	}
	action := "DO NOTHING"
	if len(set) > 0 {
		action = "DO UPDATE SET " + strings.Join(set, ", ")
	}
	k := strings.Join(keys, ", ")
	c := strings.Join(cols, ", ")
	src := staging
	if dedupe {
		src = fmt.Sprintf("(SELECT DISTINCT ON (%s) %s FROM %s ORDER BY %s, ctid DESC) AS src", k, c, staging, k)
	}
	return fmt.Sprintf("WITH up AS (INSERT INTO %s (%s) SELECT %s FROM %s ON CONFLICT (%s) %s RETURNING (xmax = 0) AS ins) "+
		"SELECT count(*) FILTER (WHERE ins), count(*) FILTER (WHERE NOT ins) FROM up",
		target, c, c, src, k, action)
}

func (postgres) stateTable(table string) string {
	return "CREATE TABLE IF NOT EXISTS " + table + " (table_name text PRIMARY KEY, state jsonb NOT NULL, updated_at timestamptz NOT NULL DEFAULT now())"
}

func (postgres) saveState(table string) string {
	return "INSERT INTO " + table + " (table_name, state, updated_at) VALUES ($1, $2::jsonb, now()) " +
		"ON CONFLICT (table_name) DO UPDATE SET state = EXCLUDED.state, updated_at = EXCLUDED.updated_at"
}

func (postgres) claimState(table string) string {
	return "INSERT INTO " + table + " (table_name, state, updated_at) VALUES ($1, $2::jsonb, now())"
}

func (postgres) exactOperand(quoted string, c column) (string, bool) {
	if !c.pushable {
		return "", false
	}
	if c.Spark == "string" {
		// Spark compares strings byte by byte; so does the C collation.
		return quoted + ` COLLATE "C"`, true
	}
	return quoted, true
}

// orderOperand: PostgreSQL sorts numbers by value with NaN above every
// other number, as Spark does, and strings in the C collation byte by byte
// (the database's encoding, UTF-8).
func (d postgres) orderOperand(quoted string, c column) (string, bool) {
	return d.exactOperand(quoted, c)
}

// orderKey leaves out NULLS FIRST/LAST on a NOT NULL column, where an
// index sorted either way serves.
func (postgres) orderKey(op string, nullable, desc, nullsFirst bool) string {
	s := sortItem(op, desc)
	if !nullable {
		return s
	}
	if nullsFirst {
		return s + " NULLS FIRST"
	}
	return s + " NULLS LAST"
}

func (postgres) nullSafeEqual() string { return "IS NOT DISTINCT FROM" }

// typedParam casts a literal to its own type: the database must not take
// the column's (a long literal beyond an int column's range, a double
// compared with an integer column).
func (postgres) typedParam(n int, v any, c column) string {
	p := "$" + strconv.Itoa(n)
	switch v.(type) {
	case int64:
		return p + "::bigint"
	case float64:
		return p + "::float8"
	case string:
		return p + "::text"
	case bool:
		return p + "::boolean"
	case []byte:
		return p + "::bytea"
	case time.Time:
		switch {
		case c.Spark == "date":
			return p + "::date"
		case strings.Contains(c.DBType, "with time zone"):
			return p + "::timestamptz"
		}
		return p + "::timestamp"
	}
	return p
}

func (postgres) decimalParam(n int) string { return "$" + strconv.Itoa(n) + "::numeric" }

// pgConn is one PostgreSQL connection.
type pgConn struct {
	c   *pgx.Conn
	t   target
	log func(string)
}

func (d postgres) open(ctx context.Context, t target, timeout time.Duration, log func(string)) (conn, error) {
	u := url.URL{Scheme: "postgres", Host: t.addr(), Path: "/" + t.Database}
	if t.Password != "" {
		u.User = url.UserPassword(t.User, t.Password)
	} else if t.User != "" {
		u.User = url.User(t.User)
	}
	q := url.Values{}
	for k, v := range t.Params {
		q[k] = v
	}
	u.RawQuery = q.Encode()
	cfg, err := pgx.ParseConfig(u.String())
	if err != nil {
		// not %w: pgx's error quotes the URL, password included; its text
		// goes on with the URL cut out.
		return nil, fmt.Errorf("property %s: %s", PropURL, strings.ReplaceAll(err.Error(), u.String(), "…"))
	}
	cfg.ConnectTimeout = timeout
	cfg.RuntimeParams["timezone"] = "UTC"
	cfg.DefaultQueryExecMode = pgx.QueryExecModeCacheDescribe
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	log(fmt.Sprintf("connect %s/%s as %s", t.addr(), t.Database, t.User))
	c, err := pgx.ConnectConfig(cctx, cfg)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, d.connectErr(t, err)
	}
	return &pgConn{c: c, t: t, log: log}, nil
}

func (d postgres) connectErr(t target, err error) error {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch pe.Code {
		case "28P01", "28000":
			return fmt.Errorf("%w: PostgreSQL at %s refused user %q: %s", ErrLogin, t.addr(), t.User, pe.Message)
		case "3D000":
			return fmt.Errorf("%w: PostgreSQL at %s has no database %q", ErrConnect, t.addr(), t.Database)
		}
		return fmt.Errorf("connecting to PostgreSQL at %s as %q: %s", t.addr(), t.User, pe.Message)
	}
	if e := connectError(d, t, err); e != nil {
		return e
	}
	return fmt.Errorf("%w to PostgreSQL at %s as %q: %w", ErrConnect, t.addr(), t.User, errors.Unwrap(err))
}

func (c *pgConn) close() { _ = c.c.Close(context.Background()) }

func (c *pgConn) exec(ctx context.Context, sql string, args ...any) (int64, error) {
	c.log(oneLine(sql))
	tag, err := c.c.Exec(ctx, sql, args...)
	if err != nil {
		return 0, c.err(err, sql)
	}
	return tag.RowsAffected(), nil
}

func (c *pgConn) texts(ctx context.Context, sql string, args ...any) ([][]string, error) {
	c.log(oneLine(sql))
	rows, err := c.c.Query(ctx, sql, append([]any{pgx.QueryResultFormats{pgx.TextFormatCode}}, args...)...)
	if err != nil {
		return nil, c.err(err, sql)
	}
	defer rows.Close()
	var out [][]string
	for rows.Next() {
		out = append(out, textRow(rows.RawValues()))
	}
	if err := rows.Err(); err != nil {
		return nil, c.err(err, sql)
	}
	return out, nil
}

func (c *pgConn) begin(ctx context.Context) error {
	_, err := c.exec(ctx, "BEGIN")
	return err
}

func (c *pgConn) commit(ctx context.Context) error {
	_, err := c.exec(ctx, "COMMIT")
	return err
}

func (c *pgConn) rollback(ctx context.Context) error {
	if c.c.IsClosed() {
		return nil
	}
	_, err := c.exec(context.WithoutCancel(ctx), "ROLLBACK")
	return err
}

// err words a database error; a permission error names the user and the
// privilege the statement sql needs.
func (c *pgConn) err(err error, sql string) error {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch pe.Code {
		case "42501":
			return fmt.Errorf("%w: PostgreSQL user %q lacks the %s privilege: %s", ErrPermission, c.t.User, privilegeOf(sql), pe.Message)
		}
		msg := pe.Message
		if pe.Detail != "" {
			msg += " (" + pe.Detail + ")"
		}
		return &dbError{msg: "PostgreSQL: " + msg, err: err, code: pe.Code, where: pe.Where, column: pe.ColumnName}
	}
	return err
}

// dbError is a database's error as Sluice words it.
type dbError struct {
	msg    string
	err    error
	code   string
	where  string
	column string
}

func (e *dbError) Error() string { return e.msg }
func (e *dbError) Unwrap() error { return e.err }

// describe prepares q and maps each result column's type.
func (c *pgConn) describe(ctx context.Context, q string, tn *tableName) ([]column, error) {
	c.log("describe: " + oneLine(q))
	sd, err := c.c.PgConn().Prepare(ctx, "", q, nil)
	if err != nil {
		return nil, c.err(err, q)
	}
	n := len(sd.Fields)
	idx := make([]int32, n)
	oids := make([]uint32, n)
	mods := make([]int32, n)
	rels := make([]uint32, n)
	atts := make([]int32, n)
	for i, f := range sd.Fields {
		idx[i], oids[i], mods[i], rels[i], atts[i] = int32(i), f.DataTypeOID, f.TypeModifier, f.TableOID, int32(f.TableAttributeNumber)
	}
	meta, err := c.texts(ctx, `SELECT u.i, format_type(u.o, NULLIF(u.m, -1)),
		coalesce((SELECT a.attnotnull FROM pg_attribute a WHERE a.attrelid = u.r AND a.attnum = u.a), false),
		coalesce(t.typtype::text, ''), coalesce(t.typelem, 0), coalesce(e.typtype::text, '')
		FROM unnest($1::int[], $2::oid[], $3::int[], $4::oid[], $5::int[]) AS u(i, o, m, r, a)
		LEFT JOIN pg_type t ON t.oid = u.o LEFT JOIN pg_type e ON e.oid = t.typelem AND t.typcategory = 'A'
		ORDER BY u.i`, idx, oids, mods, rels, atts)
	if err != nil {
		return nil, err
	}
	cols := make([]column, n)
	for i, f := range sd.Fields {
		m := meta[i]
		elem, _ := strconv.ParseUint(m[4], 10, 32)
		if m[5] == "" {
			elem = 0
		}
		cols[i] = pgColumn(f.Name, f.DataTypeOID, f.TypeModifier, m[1], m[2] != "t" && m[2] != "true", uint32(elem))
		if cols[i].Spark == "string" && c.c.PgConn().ParameterStatus("server_encoding") != "UTF8" {
			// COLLATE "C" compares the database's encoding byte by
			// byte: Spark's order only when that is UTF-8.
			cols[i].pushable = false
		}
	}
	return cols, nil
}

// pgColumn maps a PostgreSQL type (docs/jdbc.md#types).
func pgColumn(name string, oid uint32, typmod int32, dbType string, nullable bool, elemOID uint32) column {
	c := column{Name: name, DBType: dbType, Nullable: nullable}
	kind, spark, push := pgScalar(oid, typmod)
	c.decode.kind, c.Spark, c.pushable = kind, spark, push
	if kind == decText && spark == "" && elemOID != 0 {
		ek, es, _ := pgScalar(elemOID, typmod)
		if es != "" {
			c.decode = decoder{kind: decArray, elem: ek}
			c.Spark = "array<" + es + ">"
			return c
		}
	}
	if c.Spark == "" {
		c.Spark = "string" // anything else: its text
	}
	return c
}

// pgScalar maps a scalar type: how it is decoded, its Spark type ("" when
// it is read as its text) and whether comparisons of it push down.
func pgScalar(oid uint32, typmod int32) (decodeKind, string, bool) {
	switch oid {
	case pgtype.BoolOID:
		return decBool, "boolean", true
	case pgtype.Int2OID:
		return decInt, "short", true
	case pgtype.Int4OID:
		return decInt, "integer", true
	case pgtype.Int8OID:
		return decInt, "long", true
	case pgtype.Float4OID:
		return decFloat, "float", true
	case pgtype.Float8OID:
		return decFloat, "double", true
	case pgtype.NumericOID:
		return decDecimal, numericSpark(typmod), true
	case pgtype.TextOID, pgtype.VarcharOID, pgtype.NameOID:
		return decText, "string", true
	case pgtype.BPCharOID, pgtype.QCharOID:
		return decText, "string", false // blank-padded: comparisons ignore trailing spaces
	case pgtype.ByteaOID:
		return decBinary, "binary", true
	case pgtype.DateOID:
		return decDate, "date", true
	case pgtype.TimestampOID, pgtype.TimestamptzOID:
		return decTimestamp, "timestamp", true
	case pgtype.UUIDOID:
		return decUUID, "string", false
	case pgtype.JSONOID:
		return decText, "string", false
	case pgtype.JSONBOID:
		return decJSONB, "string", false
	}
	return decText, "", false
}

// numericSpark is the Spark type of numeric(typmod): decimal(p,s) up to 38
// digits, decimal(38, min(s,18)) beyond, decimal(38,18) unconstrained.
func numericSpark(typmod int32) string {
	if typmod < 4 {
		return "decimal(38,18)"
	}
	p := ((typmod - 4) >> 16) & 0xffff
	s := (typmod - 4) & 0x7ff
	if s > p || p < 1 {
		return "decimal(38,18)"
	}
	if p > 38 {
		return fmt.Sprintf("decimal(38,%d)", min(s, 18))
	}
	return fmt.Sprintf("decimal(%d,%d)", p, s)
}

// binaryResult says whether values of k are read in the binary format (the
// others, read as text, are strings).
func binaryResult(k decodeKind) bool {
	switch k {
	case decText, decJSONB:
		return false
	}
	return true
}

func (c *pgConn) stream(ctx context.Context, q string, args []any, cols []column, b *cells.Builder, row func() error) error {
	formats := make(pgx.QueryResultFormats, len(cols))
	for i, col := range cols {
		if binaryResult(col.decode.kind) {
			formats[i] = pgx.BinaryFormatCode
		}
	}
	c.log(oneLine(q))
	rows, err := c.c.Query(ctx, q, append([]any{formats}, args...)...)
	if err != nil {
		return c.err(err, q)
	}
	defer rows.Close()
	var n int64
	for rows.Next() {
		n++
		for i, v := range rows.RawValues() {
			if err := pgDecode(b.Col(i), cols[i].decode.kind, cols[i].decode.elem, v); err != nil {
				return &readValueError{Column: cols[i].Name, Row: n, Err: err}
			}
		}
		if err := row(); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return c.err(err, q)
	}
	return nil
}

// readValueError is a value a read cannot hold in its column.
type readValueError struct {
	Column string
	Row    int64
	Err    error
}

func (e *readValueError) Error() string {
	return fmt.Sprintf("column %s, row %d: %v", e.Column, e.Row, e.Err)
}
func (e *readValueError) Unwrap() error { return e.Err }

const (
	pgEpochDays   = 10957           // 2000-01-01 in days since 1970-01-01
	pgEpochMicros = 946684800000000 // 2000-01-01 in µs since 1970-01-01
	minDays       = -719162         // 0001-01-01
	minMicros     = -62135596800000000
)

// pgDecode appends one binary-format value (nil: NULL).
func pgDecode(col *cells.Col, kind, elem decodeKind, v []byte) error {
	if v == nil {
		col.Null()
		return nil
	}
	switch kind {
	case decBool:
		col.Bool(len(v) > 0 && v[0] != 0)
	case decInt:
		switch len(v) {
		case 2:
			return col.Int(int64(int16(binary.BigEndian.Uint16(v))))
		case 4:
			return col.Int(int64(int32(binary.BigEndian.Uint32(v))))
		case 8:
			return col.Int(int64(binary.BigEndian.Uint64(v)))
		}
		return fmt.Errorf("an integer of %d bytes", len(v))
	case decFloat:
		switch len(v) {
		case 4:
			col.Float(float64(math.Float32frombits(binary.BigEndian.Uint32(v))))
		case 8:
			col.Float(math.Float64frombits(binary.BigEndian.Uint64(v)))
		default:
			return fmt.Errorf("a float of %d bytes", len(v))
		}
	case decDecimal:
		u, s, err := pgNumeric(v)
		if err != nil {
			return err
		}
		return col.Decimal(u, s)
	case decBinary:
		col.Binary(v)
	case decDate:
		d := int32(binary.BigEndian.Uint32(v))
		if d == math.MaxInt32 || d == math.MinInt32 {
			return fmt.Errorf("%w: an infinite date", cells.ErrNotFit)
		}
		days := int64(d) + pgEpochDays
		if days < minDays {
			return fmt.Errorf("%w: a date before year 1", cells.ErrNotFit)
		}
		col.Date(int32(days))
	case decTimestamp:
		t := int64(binary.BigEndian.Uint64(v))
		if t == math.MaxInt64 || t == math.MinInt64 {
			return fmt.Errorf("%w: an infinite timestamp", cells.ErrNotFit)
		}
		us := t + pgEpochMicros
		if us < minMicros {
			return fmt.Errorf("%w: a timestamp before year 1", cells.ErrNotFit)
		}
		col.Micros(us)
	case decUUID:
		if len(v) != 16 {
			return fmt.Errorf("a uuid of %d bytes", len(v))
		}
		var buf [36]byte
		hex.Encode(buf[0:8], v[0:4])
		buf[8] = '-'
		hex.Encode(buf[9:13], v[4:6])
		buf[13] = '-'
		hex.Encode(buf[14:18], v[6:8])
		buf[18] = '-'
		hex.Encode(buf[19:23], v[8:10])
		buf[23] = '-'
		hex.Encode(buf[24:], v[10:16])
		col.String(buf[:])
	case decJSONB:
		if len(v) > 0 && v[0] == 1 && binaryResult(decJSONB) {
			v = v[1:]
		}
		col.String(v)
	case decArray:
		return pgArray(col, elem, v)
	default:
		col.String(v)
	}
	return nil
}

// pgArray decodes a one-dimensional array in the binary format.
func pgArray(col *cells.Col, elem decodeKind, v []byte) error {
	if len(v) < 12 {
		return errors.New("a truncated array")
	}
	ndim := int32(binary.BigEndian.Uint32(v))
	if ndim > 1 {
		return fmt.Errorf("%w: a %d-dimensional array", cells.ErrNotFit, ndim)
	}
	p := 12
	n := 0
	if ndim == 1 {
		if len(v) < 20 {
			return errors.New("a truncated array")
		}
		n = int(int32(binary.BigEndian.Uint32(v[12:])))
		p = 20
	}
	ec := col.BeginList()
	for i := 0; i < n; i++ {
		if p+4 > len(v) {
			return errors.New("a truncated array")
		}
		l := int32(binary.BigEndian.Uint32(v[p:]))
		p += 4
		if l < 0 {
			ec.Null()
			continue
		}
		if p+int(l) > len(v) {
			return errors.New("a truncated array")
		}
		val := v[p : p+int(l)]
		p += int(l)
		if elem == decJSONB && len(val) > 0 && val[0] == 1 {
			val = val[1:] // binary jsonb: a version byte, then the text
		}
		if elem == decJSONB {
			ec.String(val)
			continue
		}
		if err := pgDecode(ec, elem, 0, val); err != nil {
			return err
		}
	}
	return nil
}

// pgNumeric decodes a binary numeric into its unscaled digits and scale.
func pgNumeric(v []byte) (*big.Int, int32, error) {
	if len(v) < 8 {
		return nil, 0, errors.New("a truncated numeric")
	}
	ndigits := int(binary.BigEndian.Uint16(v))
	weight := int(int16(binary.BigEndian.Uint16(v[2:])))
	sign := binary.BigEndian.Uint16(v[4:])
	switch sign {
	case 0xC000:
		return nil, 0, fmt.Errorf("%w: NaN", cells.ErrNotFit)
	case 0xD000, 0xF000:
		return nil, 0, fmt.Errorf("%w: an infinite numeric", cells.ErrNotFit)
	}
	if len(v) < 8+2*ndigits {
		return nil, 0, errors.New("a truncated numeric")
	}
	u := new(big.Int)
	if ndigits <= 4 {
		var x uint64
		for i := 0; i < ndigits; i++ {
			x = x*10000 + uint64(binary.BigEndian.Uint16(v[8+2*i:]))
		}
		u.SetUint64(x)
	} else {
		tenK := big.NewInt(10000)
		for i := 0; i < ndigits; i++ {
			u.Mul(u, tenK)
			u.Add(u, big.NewInt(int64(binary.BigEndian.Uint16(v[8+2*i:]))))
		}
	}
	scale := int32(4 * (ndigits - 1 - weight))
	if ndigits == 0 {
		scale = 0
	}
	if sign == 0x4000 {
		u.Neg(u)
	}
	return u, scale, nil
}

func (c *pgConn) load(ctx context.Context, tn tableName, cols []loadColumn, recs []dataframe.Record) (int64, error) {
	src, err := newRowSource(cols, recs)
	if err != nil {
		return 0, err
	}
	names := make([]string, len(cols))
	for i, lc := range cols {
		names[i] = lc.Name
	}
	ident := pgx.Identifier{tn.Name}
	if tn.Schema != "" {
		ident = pgx.Identifier{tn.Schema, tn.Name}
	}
	c.log(fmt.Sprintf("COPY %s (%s) FROM STDIN (FORMAT binary) -- %d rows", ident.Sanitize(), strings.Join(quoteAll(postgres{}, names), ", "), src.total))
	pg := &pgSource{rowSource: src}
	n, err := c.c.CopyFrom(ctx, ident, names, pg)
	if err != nil {
		if src.err != nil {
			return 0, src.err
		}
		var pe *pgconn.PgError
		if errors.As(err, &pe) {
			if line, ok := lineOf(pe.Where); ok {
				col := pe.ColumnName
				if col == "" {
					col = columnFromWhere(pe.Where)
				}
				return 0, &loadRowError{Row: line, Column: col, Err: c.err(err, "COPY")}
			}
			return 0, c.err(err, "COPY")
		}
		if ctx.Err() == nil && src.row > 0 {
			// pgx refused to encode the current row's value.
			return 0, &loadRowError{Row: src.row, Column: src.column, Err: err}
		}
		return 0, err
	}
	return n, nil
}

// columnFromWhere finds the column of "COPY t, line 5, column x: …".
func columnFromWhere(w string) string {
	i := strings.Index(w, ", column ")
	if i < 0 {
		return ""
	}
	rest := w[i+len(", column "):]
	if j := strings.IndexByte(rest, ':'); j >= 0 {
		rest = rest[:j]
	}
	return rest
}

// pgSource feeds CopyFrom, turning Sluice's values into pgx's.
type pgSource struct{ *rowSource }

func (s *pgSource) Values() ([]any, error) {
	vals, err := s.values()
	if err != nil {
		return nil, err
	}
	for i, v := range vals {
		switch x := v.(type) {
		case decimalValue:
			vals[i] = pgtype.Numeric{Int: x.unscaled, Exp: -x.scale, Valid: true}
		case dateValue:
			vals[i] = pgtype.Date{Time: x.time(), Valid: true}
		case []any:
			for j, e := range x {
				switch y := e.(type) {
				case decimalValue:
					x[j] = pgtype.Numeric{Int: y.unscaled, Exp: -y.scale, Valid: true}
				case dateValue:
					x[j] = pgtype.Date{Time: y.time(), Valid: true}
				}
			}
		}
	}
	return vals, nil
}

func (c *pgConn) tableInfo(ctx context.Context, tn tableName) (*tableInfo, error) {
	rel := tn.quoted(postgres{})
	exists, err := c.texts(ctx, "SELECT to_regclass($1)::oid", rel)
	if err != nil {
		return nil, err
	}
	if len(exists) == 0 || exists[0][0] == "" {
		return nil, nil
	}
	oid := exists[0][0]
	cols, err := c.describe(ctx, "SELECT * FROM "+rel, &tn)
	if err != nil {
		return nil, err
	}
	ti := &tableInfo{Columns: cols}
	keys, err := c.texts(ctx, `SELECT i.indisprimary, array_to_string(array_agg(a.attname ORDER BY k.n), chr(1))
		FROM pg_index i CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, n)
		JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
		WHERE i.indrelid = $1::oid AND i.indisunique AND i.indpred IS NULL
		GROUP BY i.indexrelid, i.indisprimary ORDER BY i.indisprimary DESC`, oid)
	if err != nil {
		return nil, err
	}
	for _, k := range keys {
		names := strings.Split(k[1], "\x01")
		if k[0] == "t" && ti.Key == nil {
			ti.Key = names
		}
		ti.Unique = append(ti.Unique, names)
	}
	return ti, nil
}

func (c *pgConn) tableNames(ctx context.Context, schema string) ([]string, error) {
	q := "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()"
	args := []any{}
	if schema != "" {
		q = "SELECT table_name FROM information_schema.tables WHERE table_schema = $1"
		args = append(args, schema)
	}
	return firstColumn(c.texts(ctx, q, args...))
}

func (c *pgConn) schemaNames(ctx context.Context) ([]string, error) {
	return firstColumn(c.texts(ctx, "SELECT nspname FROM pg_namespace WHERE nspname NOT LIKE 'pg\\_%' AND nspname <> 'information_schema'"))
}

func quoteAll(d dialect, names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = d.quote(n)
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
