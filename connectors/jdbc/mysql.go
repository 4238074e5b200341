package jdbc

import (
	"context"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/cells"
	"github.com/sluicedata/sluice/dataframe/sparktype"
)

// mysqlDialect is the MySQL and MariaDB dialect, over go-sql-driver/mysql:
// reads stream an unbuffered text result, writes go through LOAD DATA
// LOCAL INFILE from a reader (docs/jdbc.md#mysql-and-mariadb).
type mysqlDialect struct{}

func (mysqlDialect) Name() string { return "MySQL" }

func (mysqlDialect) quote(ident string) string {
	return "`" + strings.ReplaceAll(ident, "`", "``") + "`"
}

func (mysqlDialect) param(int) string { return "?" }

func (mysqlDialect) transactionalDDL() bool { return false }

func (mysqlDialect) nullSafeEqual() string { return "<=>" }

func (mysqlDialect) typedParam(int, any, column) string { return "?" }

func (mysqlDialect) decimalParam(int) string { return "CAST(? AS DECIMAL(65,30))" }

// emptyTable is DELETE: MySQL's TRUNCATE commits the transaction.
func (mysqlDialect) emptyTable(table string) string { return "DELETE FROM " + table }

func (mysqlDialect) columnType(spark string, key bool) (string, error) {
	switch spark {
	case "long":
		return "bigint", nil
	case "integer":
		return "int", nil
	case "short", "byte":
		return "smallint", nil
	case "double":
		return "double", nil
	case "float":
		return "float", nil
	case "boolean":
		return "boolean", nil
	case "string", "void":
		if key {
			return "varchar(255)", nil
		}
		return "longtext", nil
	case "binary":
		if key {
			return "varbinary(255)", nil
		}
		return "longblob", nil
	case "date":
		return "date", nil
	case "timestamp", "timestamp_ntz":
		return "datetime(6)", nil
	}
	if strings.HasPrefix(spark, "decimal(") {
		return spark, nil
	}
	if strings.HasPrefix(spark, "array<") || strings.HasPrefix(spark, "struct<") || strings.HasPrefix(spark, "map<") {
		return "json", nil
	}
	return "", fmt.Errorf("no MySQL column type for %s", spark)
}

func (mysqlDialect) stagingSeq() bool { return true }

func (d mysqlDialect) createStaging(staging, target string, cols []string) []string {
	return []string{
		"DROP TEMPORARY TABLE IF EXISTS " + staging,
		fmt.Sprintf("CREATE TEMPORARY TABLE %s (%s BIGINT) SELECT %s FROM %s LIMIT 0", staging, d.quote(seqColumn), strings.Join(cols, ", "), target),
	}
}

// upsert applies the staged rows in order: a key's last row wins. MySQL
// cannot say which rows it inserted, so it returns no counts (the writer
// counts before).
func (d mysqlDialect) upsert(target, staging string, cols, keys []string, _ bool) string {
	var set []string
	for _, c := range cols {
		if !contains(keys, c) {
			set = append(set, c+" = VALUES("+c+")")
		}
	}
	if len(set) == 0 {
		set = append(set, keys[0]+" = "+keys[0])
	}
	c := strings.Join(cols, ", ")
	return fmt.Sprintf("INSERT INTO %s (%s) SELECT %s FROM %s ORDER BY %s ON DUPLICATE KEY UPDATE %s",
		target, c, c, staging, d.quote(seqColumn), strings.Join(set, ", "))
}

func (mysqlDialect) stateTable(table string) string {
	return "CREATE TABLE IF NOT EXISTS " + table + " (table_name varchar(255) NOT NULL PRIMARY KEY, state json NOT NULL, updated_at datetime(6) NOT NULL)"
}

func (mysqlDialect) saveState(table string) string {
	return "INSERT INTO " + table + " (table_name, state, updated_at) VALUES (?, ?, UTC_TIMESTAMP(6)) " +
		"ON DUPLICATE KEY UPDATE state = VALUES(state), updated_at = VALUES(updated_at)"
}

func (mysqlDialect) claimState(table string) string {
	return "INSERT INTO " + table + " (table_name, state, updated_at) VALUES (?, ?, UTC_TIMESTAMP(6))"
}

func (mysqlDialect) exactOperand(quoted string, c column) (string, bool) {
	if !c.pushable {
		return "", false
	}
	switch {
	case c.decode.kind == decTinyBool:
		return "(" + quoted + " <> 0)", true
	case c.Spark == "string":
		// Collations fold case and pad spaces; binary strings compare
		// byte by byte, as Spark does — the UTF-8 bytes, whatever the
		// column's character set: a latin1 column's own bytes are neither
		// the literal's nor in Unicode's order.
		return "CAST(CONVERT(" + quoted + " USING utf8mb4) AS BINARY)", true
	}
	return quoted, true
}

// orderOperand: MySQL sorts numbers by value (a DOUBLE holds no NaN),
// and strings, as exactOperand gives them, by their UTF-8 bytes, which is
// Spark's order.
func (d mysqlDialect) orderOperand(quoted string, c column) (string, bool) {
	return d.exactOperand(quoted, c)
}

// orderKey places NULLs with an IS NULL key: MySQL has no NULLS
// FIRST/LAST.
func (mysqlDialect) orderKey(op string, nullable, desc, nullsFirst bool) string {
	s := sortItem(op, desc)
	if !nullable {
		return s
	}
	if nullsFirst {
		return "(" + op + " IS NULL) DESC, " + s
	}
	return "(" + op + " IS NULL) ASC, " + s
}

// myConn is one MySQL connection.
type myConn struct {
	db  *sql.DB
	c   *sql.Conn
	tx  *sql.Tx
	t   target
	log func(string)
}

// querier is what a connection or its transaction runs statements on.
type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

func (c *myConn) q() querier {
	if c.tx != nil {
		return c.tx
	}
	return c.c
}

func (d mysqlDialect) open(ctx context.Context, t target, timeout time.Duration, log func(string)) (conn, error) {
	cfg := mysql.NewConfig()
	cfg.User, cfg.Passwd = t.User, t.Password
	cfg.Net, cfg.Addr, cfg.DBName = "tcp", t.addr(), t.Database
	cfg.Timeout = timeout
	cfg.Loc = time.UTC
	cfg.InterpolateParams = true
	cfg.Params = map[string]string{"time_zone": "'+00:00'"}
	for k, v := range t.Params {
		switch k {
		case "tls":
			cfg.TLSConfig = v[0]
		case "charset", "collation":
			if k == "collation" {
				cfg.Collation = v[0]
			}
		default:
			cfg.Params[k] = v[0]
		}
	}
	connector, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, fmt.Errorf("property %s: %w", PropURL, err)
	}
	db := sql.OpenDB(connector)
	db.SetMaxOpenConns(1)
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	log(fmt.Sprintf("connect %s/%s as %s", t.addr(), t.Database, t.User))
	c, err := db.Conn(cctx)
	if err == nil {
		err = c.PingContext(cctx)
	}
	if err != nil {
		db.Close()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, d.connectErr(t, err)
	}
	return &myConn{db: db, c: c, t: t, log: log}, nil
}

func (d mysqlDialect) connectErr(t target, err error) error {
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		switch me.Number {
		case 1045, 1698:
			return fmt.Errorf("%w: MySQL at %s refused user %q: %s", ErrLogin, t.addr(), t.User, me.Message)
		case 1049:
			return fmt.Errorf("%w: MySQL at %s has no database %q", ErrConnect, t.addr(), t.Database)
		case 1044:
			// MySQL says this of a database that does not exist too.
			return fmt.Errorf("%w: MySQL at %s: user %q may not use database %q, or it does not exist: %s", ErrPermission, t.addr(), t.User, t.Database, me.Message)
		}
		return fmt.Errorf("connecting to MySQL at %s as %q: %s", t.addr(), t.User, me.Message)
	}
	if e := connectError(d, t, err); e != nil {
		return e
	}
	return fmt.Errorf("%w to MySQL at %s as %q: %w", ErrConnect, t.addr(), t.User, err)
}

func (c *myConn) close() {
	if c.tx != nil {
		_ = c.tx.Rollback()
	}
	_ = c.c.Close()
	_ = c.db.Close()
}

func (c *myConn) err(err error) error {
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		switch me.Number {
		case 1142, 1143, 1044, 1227, 1370:
			// MySQL's message names the command: "INSERT command denied to user …".
			return fmt.Errorf("%w: MySQL user %q: %s", ErrPermission, c.t.User, me.Message)
		case 1148, 3948:
			// Writes load with LOAD DATA LOCAL INFILE (docs/jdbc.md#writes);
			// MySQL 8 refuses it by default.
			return fmt.Errorf("%w: MySQL at %s refuses LOAD DATA LOCAL INFILE, which writes load with: set local_infile=ON on the server (SET GLOBAL local_infile = 1): %s", ErrPermission, c.t.addr(), me.Message)
		}
		return &dbError{msg: "MySQL: " + me.Message, err: err, code: strconv.Itoa(int(me.Number))}
	}
	return err
}

func (c *myConn) exec(ctx context.Context, q string, args ...any) (int64, error) {
	c.log(oneLine(q))
	res, err := c.q().ExecContext(ctx, q, args...)
	if err != nil {
		return 0, c.err(err)
	}
	n, _ := res.RowsAffected()
	return n, nil
}

func (c *myConn) texts(ctx context.Context, q string, args ...any) ([][]string, error) {
	c.log(oneLine(q))
	rows, err := c.q().QueryContext(ctx, q, args...)
	if err != nil {
		return nil, c.err(err)
	}
	defer rows.Close()
	names, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	var out [][]string
	raw := make([]sql.RawBytes, len(names))
	dest := make([]any, len(names))
	for i := range raw {
		dest[i] = &raw[i]
	}
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return nil, err
		}
		out = append(out, textRow(raw))
	}
	if err := rows.Err(); err != nil {
		return nil, c.err(err)
	}
	return out, nil
}

func (c *myConn) begin(ctx context.Context) error {
	c.log("BEGIN")
	tx, err := c.c.BeginTx(ctx, nil)
	if err != nil {
		return c.err(err)
	}
	c.tx = tx
	return nil
}

func (c *myConn) commit(context.Context) error {
	c.log("COMMIT")
	tx := c.tx
	c.tx = nil
	if err := tx.Commit(); err != nil {
		return c.err(err)
	}
	return nil
}

func (c *myConn) rollback(context.Context) error {
	if c.tx == nil {
		return nil
	}
	c.log("ROLLBACK")
	tx := c.tx
	c.tx = nil
	return tx.Rollback()
}

// describe reads the column types: of the table tn (SHOW COLUMNS), else
// of a probe table made from q, since the protocol does not say which
// TINYINT is a tinyint(1) boolean.
func (c *myConn) describe(ctx context.Context, q string, tn *tableName) ([]column, error) {
	d := mysqlDialect{}
	if tn != nil {
		return c.showColumns(ctx, tn.quoted(d))
	}
	probe := d.quote(fmt.Sprintf("_sluice_probe_%d", probeSeq.Add(1)))
	if _, err := c.exec(ctx, "CREATE TEMPORARY TABLE "+probe+" AS SELECT * FROM ("+q+") AS q LIMIT 0"); err != nil {
		if errors.Is(err, ErrPermission) {
			// No CREATE TEMPORARY TABLES: the protocol's types, where
			// every TINYINT is a byte.
			return c.protocolColumns(ctx, q)
		}
		return nil, err
	}
	defer c.exec(context.WithoutCancel(ctx), "DROP TEMPORARY TABLE IF EXISTS "+probe) //nolint:errcheck
	return c.showColumns(ctx, probe)
}

var probeSeq atomic.Int64

// protocolColumns describes q's columns from the result's metadata.
func (c *myConn) protocolColumns(ctx context.Context, q string) ([]column, error) {
	c.log(oneLine("SELECT * FROM (" + q + ") AS q LIMIT 0"))
	rows, err := c.q().QueryContext(ctx, "SELECT * FROM ("+q+") AS q LIMIT 0")
	if err != nil {
		return nil, c.err(err)
	}
	defer rows.Close()
	types, err := rows.ColumnTypes()
	if err != nil {
		return nil, err
	}
	cols := make([]column, len(types))
	for i, ct := range types {
		name := strings.ToLower(ct.DatabaseTypeName())
		unsigned := strings.HasPrefix(name, "unsigned ")
		name = strings.TrimPrefix(name, "unsigned ")
		if p, s, ok := ct.DecimalSize(); ok && name == "decimal" {
			name = fmt.Sprintf("decimal(%d,%d)", p, s)
		}
		if unsigned {
			name += " unsigned"
		}
		nullable, _ := ct.Nullable()
		cols[i] = myColumn(ct.Name(), name, nullable)
	}
	return cols, nil
}

func (c *myConn) showColumns(ctx context.Context, rel string) ([]column, error) {
	rows, err := c.texts(ctx, "SHOW COLUMNS FROM "+rel)
	if err != nil {
		return nil, err
	}
	cols := make([]column, len(rows))
	for i, r := range rows {
		cols[i] = myColumn(r[0], r[1], r[2] == "YES")
	}
	return cols, nil
}

// myColumn maps a MySQL column type as SHOW COLUMNS prints it
// (docs/jdbc.md#types).
func myColumn(name, typ string, nullable bool) column {
	c := column{Name: name, DBType: typ, Nullable: nullable}
	t := strings.ToLower(typ)
	unsigned := strings.Contains(t, "unsigned")
	base, args := t, ""
	if i := strings.IndexByte(t, '('); i >= 0 {
		base = t[:i]
		if j := strings.IndexByte(t[i:], ')'); j >= 0 {
			args = t[i+1 : i+j]
		}
	} else if i := strings.IndexByte(t, ' '); i >= 0 {
		base = t[:i]
	}
	set := func(k decodeKind, spark string, push bool) { c.decode.kind, c.Spark, c.pushable = k, spark, push }
	switch base {
	case "tinyint":
		switch {
		case args == "1":
			set(decTinyBool, "boolean", true)
		case unsigned:
			set(decInt, "short", true)
		default:
			set(decInt, "byte", true)
		}
	case "smallint":
		if unsigned {
			set(decInt, "integer", true)
		} else {
			set(decInt, "short", true)
		}
	case "mediumint":
		set(decInt, "integer", true)
	case "int", "integer":
		if unsigned {
			set(decInt, "long", true)
		} else {
			set(decInt, "integer", true)
		}
	case "bigint":
		if unsigned {
			set(decUint, "decimal(20,0)", true)
		} else {
			set(decInt, "long", true)
		}
	case "float":
		set(decFloat, "float", false) // MySQL compares floats as decimals of their text
	case "double", "real":
		set(decFloat, "double", true)
	case "decimal", "numeric":
		p, s := 10, 0
		if args != "" {
			ps := strings.Split(args, ",")
			p, _ = strconv.Atoi(strings.TrimSpace(ps[0]))
			if len(ps) > 1 {
				s, _ = strconv.Atoi(strings.TrimSpace(ps[1]))
			}
		}
		if p > 38 {
			p, s = 38, min(s, 18)
		}
		set(decDecimal, fmt.Sprintf("decimal(%d,%d)", p, s), true)
	case "varchar", "text", "tinytext", "mediumtext", "longtext":
		set(decText, "string", true)
	case "char", "enum", "set", "json", "time":
		set(decText, "string", false)
	case "binary":
		set(decBinary, "binary", false) // zero-padded
	case "varbinary", "blob", "tinyblob", "mediumblob", "longblob":
		set(decBinary, "binary", true)
	case "bit":
		if args == "1" || args == "" {
			set(decBitBool, "boolean", false)
		} else {
			set(decBit, "long", false)
		}
	case "date":
		set(decDate, "date", true)
	case "datetime", "timestamp":
		set(decTimestamp, "timestamp", true)
	case "year":
		set(decInt, "integer", false)
	default:
		set(decText, "string", false)
	}
	return c
}

func (c *myConn) stream(ctx context.Context, q string, args []any, cols []column, b *cells.Builder, row func() error) error {
	c.log(oneLine(q))
	rows, err := c.q().QueryContext(ctx, q, args...)
	if err != nil {
		return c.err(err)
	}
	defer rows.Close()
	raw := make([]sql.RawBytes, len(cols))
	dest := make([]any, len(cols))
	for i := range raw {
		dest[i] = &raw[i]
	}
	var n int64
	for rows.Next() {
		n++
		if err := rows.Scan(dest...); err != nil {
			return err
		}
		for i, v := range raw {
			if err := myDecode(b.Col(i), cols[i].decode.kind, v); err != nil {
				return &readValueError{Column: cols[i].Name, Row: n, Err: err}
			}
		}
		if err := row(); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return c.err(err)
	}
	return nil
}

// myDecode appends one text-protocol value (nil: NULL).
func myDecode(col *cells.Col, kind decodeKind, v []byte) error {
	if v == nil {
		col.Null()
		return nil
	}
	switch kind {
	case decInt:
		n, err := strconv.ParseInt(string(v), 10, 64)
		if err != nil {
			return err
		}
		return col.Int(n)
	case decUint, decDecimal:
		return col.DecimalText(v)
	case decFloat:
		f, err := strconv.ParseFloat(string(v), 64)
		if err != nil {
			return err
		}
		col.Float(f)
	case decTinyBool:
		col.Bool(string(v) != "0")
	case decBitBool:
		col.Bool(len(v) > 0 && v[len(v)-1] != 0)
	case decBit:
		var n int64
		for _, b := range v {
			n = n<<8 | int64(b)
		}
		return col.Int(n)
	case decBinary:
		col.Binary(v)
	case decDate:
		days, ok := sparktype.ParseDateDays(string(v))
		if !ok || string(v) < "0001-01-01" {
			return fmt.Errorf("%w: date %q", cells.ErrNotFit, v)
		}
		col.Date(days)
	case decTimestamp:
		us, ok := sparktype.ParseTimestampMicros(string(v) + "Z")
		if !ok || string(v) < "0001-01-01" {
			return fmt.Errorf("%w: timestamp %q", cells.ErrNotFit, v)
		}
		col.Micros(us)
	default:
		col.String(v)
	}
	return nil
}

var loadSeq atomic.Int64

// load streams the rows as LOAD DATA LOCAL INFILE input and turns every
// warning (a value MySQL truncated or refused: LOCAL makes them warnings)
// into an error naming the row.
func (c *myConn) load(ctx context.Context, tn tableName, cols []loadColumn, recs []dataframe.Record) (int64, error) {
	src, err := newRowSource(cols, recs)
	if err != nil {
		return 0, err
	}
	d := mysqlDialect{}
	name := fmt.Sprintf("sluice-%d", loadSeq.Add(1))
	r := &loadReader{src: src, cols: cols}
	mysql.RegisterReaderHandler(name, func() io.Reader { return r })
	defer mysql.DeregisterReaderHandler(name)
	var list, sets []string
	for i, lc := range cols {
		if lc.Target.Spark == "binary" && (lc.Src < 0 || cells.KindOf(recs[0].Schema().Field(lc.Src).Type) == cells.KindBinary) {
			v := fmt.Sprintf("@v%d", i)
			list = append(list, v)
			sets = append(sets, d.quote(lc.Name)+" = UNHEX("+v+")")
			continue
		}
		list = append(list, d.quote(lc.Name))
	}
	q := fmt.Sprintf(`LOAD DATA LOCAL INFILE 'Reader::%s' INTO TABLE %s CHARACTER SET utf8mb4 FIELDS TERMINATED BY '\t' ESCAPED BY '\\' LINES TERMINATED BY '\n' (%s)`,
		name, tn.quoted(d), strings.Join(list, ", "))
	if len(sets) > 0 {
		q += " SET " + strings.Join(sets, ", ")
	}
	n, err := c.exec(ctx, q+fmt.Sprintf(" -- %d rows", src.total))
	if src.err != nil {
		return 0, src.err
	}
	if err != nil {
		return 0, err
	}
	warns, err := c.texts(ctx, "SHOW WARNINGS LIMIT 1")
	if err != nil {
		return 0, err
	}
	if len(warns) > 0 {
		msg := warns[0][2]
		row, _ := lineOf(msg)
		col := ""
		if i := strings.Index(msg, "column '"); i >= 0 {
			col = msg[i+len("column '"):]
			if j := strings.IndexByte(col, '\''); j >= 0 {
				col = col[:j]
			}
		}
		// Row 0: the warning names no row (a duplicate key); the writer
		// finds it by the key (writer.rowErr).
		return 0, &loadRowError{Row: row, Column: col, Err: &dbError{msg: "MySQL: " + msg, code: warns[0][1]}}
	}
	return n, nil
}

// loadReader encodes rows for LOAD DATA as they are read: tab-separated
// fields, backslash escapes, \N for NULL.
type loadReader struct {
	src  *rowSource
	cols []loadColumn
	buf  []byte
	off  int
	done bool
}

func (r *loadReader) Read(p []byte) (int, error) {
	for len(r.buf)-r.off < len(p) && !r.done {
		if r.off > 0 {
			r.buf = append(r.buf[:0], r.buf[r.off:]...)
			r.off = 0
		}
		if !r.src.Next() {
			r.done = true
			break
		}
		vals, err := r.src.values()
		if err != nil {
			return 0, err
		}
		for i, v := range vals {
			if i > 0 {
				r.buf = append(r.buf, '\t')
			}
			if r.buf, err = appendLoadValue(r.buf, v, r.cols[i].Target); err != nil {
				r.src.err = &loadRowError{Row: r.src.row, Column: r.cols[i].Name, Err: err, local: true}
				return 0, r.src.err
			}
		}
		r.buf = append(r.buf, '\n')
	}
	n := copy(p, r.buf[r.off:])
	r.off += n
	if n == 0 && r.done {
		return 0, io.EOF
	}
	return n, nil
}

func appendLoadValue(dst []byte, v any, target column) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(dst, `\N`...), nil
	case bool:
		if x {
			return append(dst, '1'), nil
		}
		return append(dst, '0'), nil
	case int64:
		return strconv.AppendInt(dst, x, 10), nil
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, fmt.Errorf("%v: MySQL has no NaN or infinity", x)
		}
		return strconv.AppendFloat(dst, x, 'g', -1, 64), nil
	case decimalValue:
		return append(dst, x.String()...), nil
	case string:
		return appendEscaped(dst, x), nil
	case []byte:
		if target.Spark == "binary" {
			return hex.AppendEncode(dst, x), nil
		}
		return appendEscaped(dst, string(x)), nil
	case dateValue:
		return x.time().AppendFormat(dst, "2006-01-02"), nil
	case time.Time:
		if target.Spark == "date" {
			return x.AppendFormat(dst, "2006-01-02"), nil
		}
		return x.AppendFormat(dst, "2006-01-02 15:04:05.999999"), nil
	}
	return nil, fmt.Errorf("cannot load a %T", v)
}

func appendEscaped(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		switch ch := s[i]; ch {
		case '\\':
			dst = append(dst, '\\', '\\')
		case '\t':
			dst = append(dst, '\\', 't')
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case 0:
			dst = append(dst, '\\', '0')
		default:
			dst = append(dst, ch)
		}
	}
	return dst
}

func (c *myConn) tableInfo(ctx context.Context, tn tableName) (*tableInfo, error) {
	schema := any(nil)
	if tn.Schema != "" {
		schema = tn.Schema
	}
	ex, err := c.texts(ctx, "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = COALESCE(?, DATABASE()) AND TABLE_NAME = ?", schema, tn.Name)
	if err != nil {
		return nil, err
	}
	if len(ex) == 0 || ex[0][0] == "0" {
		return nil, nil
	}
	cols, err := c.describe(ctx, "", &tn)
	if err != nil {
		return nil, err
	}
	ti := &tableInfo{Columns: cols}
	idx, err := c.texts(ctx, `SELECT INDEX_NAME, COLUMN_NAME FROM information_schema.STATISTICS
		WHERE TABLE_SCHEMA = COALESCE(?, DATABASE()) AND TABLE_NAME = ? AND NON_UNIQUE = 0
		ORDER BY INDEX_NAME = 'PRIMARY' DESC, INDEX_NAME, SEQ_IN_INDEX`, schema, tn.Name)
	if err != nil {
		return nil, err
	}
	cur := ""
	for _, r := range idx {
		if r[0] != cur || len(ti.Unique) == 0 {
			cur = r[0]
			ti.Unique = append(ti.Unique, nil)
		}
		ti.Unique[len(ti.Unique)-1] = append(ti.Unique[len(ti.Unique)-1], r[1])
	}
	if len(idx) > 0 && idx[0][0] == "PRIMARY" {
		ti.Key = ti.Unique[0]
	}
	return ti, nil
}

func (c *myConn) tableNames(ctx context.Context, schema string) ([]string, error) {
	s := any(nil)
	if schema != "" {
		s = schema
	}
	return firstColumn(c.texts(ctx, "SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = COALESCE(?, DATABASE())", s))
}

func (c *myConn) schemaNames(ctx context.Context) ([]string, error) {
	return firstColumn(c.texts(ctx, "SELECT SCHEMA_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME NOT IN ('mysql', 'information_schema', 'performance_schema', 'sys')"))
}
