package jdbc

import (
	"context"
	"strings"
	"time"

	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/cells"
)

// dialect is what differs between databases: SQL spellings, types both
// ways, the bulk paths, the catalog and the errors. Adding a database is
// one file that implements it and its conn (docs/jdbc.md#databases).
type dialect interface {
	// Name is the database's name in messages (PostgreSQL, MySQL).
	Name() string
	// open connects to t. A refused or timed-out connection is an error
	// naming host:port, a failed login one naming the user.
	open(ctx context.Context, t target, timeout time.Duration, log func(string)) (conn, error)
	// quote quotes one identifier part, whatever it holds.
	quote(ident string) string
	// param is the placeholder of the n-th (1-based) argument.
	param(n int) string
	// columnType is the type a created or added column gets for a Spark
	// type (docs/jdbc.md#types); key marks a primary-key column.
	columnType(spark string, key bool) (string, error)
	// transactionalDDL says whether CREATE/ALTER run inside a write's
	// transaction (PostgreSQL) or commit on their own (MySQL), so must run
	// before it.
	transactionalDDL() bool
	// emptyTable empties a table inside a transaction, keeping its
	// definition, indexes and grants.
	emptyTable(table string) string
	// createStaging are the statements that make a temporary table named
	// staging with target's columns cols (no keys) — and a bigint column
	// seqColumn when stagingSeq says so —, gone at the end of the session
	// or transaction.
	createStaging(staging, target string, cols []string) []string
	// stagingSeq says whether the staging table has seqColumn, the rows'
	// positions, to tell a key's last row (else the database knows the
	// order rows were loaded in).
	stagingSeq() bool
	// upsert merges staging into target by keys, the row of largest
	// seqColumn winning per key (with dedupe, where the database needs it
	// said), and returns one row: rows inserted and rows updated — when the
	// DDL is transactional; otherwise the caller counts before.
	upsert(target, staging string, cols, keys []string, dedupe bool) string
	// stateTable creates the state table (docs/jdbc.md#exactly-once) if it
	// is missing; saveState upserts one row (args: table_name, state JSON).
	stateTable(table string) string
	saveState(table string) string
	// claimState inserts a source's first row (args: table_name, state
	// JSON) and fails with a unique violation when one is there, waiting
	// for a load that is storing one to commit or roll back.
	claimState(table string) string
	// exactOperand is the SQL operand of a column in a pushed-down
	// comparison whose result the database computes exactly as Spark does,
	// and false when there is none (docs/jdbc.md#pushdown).
	exactOperand(quoted string, c column) (string, bool)
	// orderOperand is the SQL of a column as a pushed-down ORDER BY key
	// that the database sorts exactly as Spark does (NaN above every
	// number, strings byte by byte in UTF-8), and false when there is none
	// (docs/jdbc.md#pushdown).
	orderOperand(quoted string, c column) (string, bool)
	// orderKey is the ORDER BY item of an operand: descending when desc,
	// NULLs first when nullsFirst (nullable false: the column has none).
	orderKey(op string, nullable, desc, nullsFirst bool) string
	// nullSafeEqual is the operator of Spark's <=>.
	nullSafeEqual() string
	// decimalParam is the n-th placeholder holding decimal text, typed
	// as an exact number.
	decimalParam(n int) string
	// typedParam is the n-th placeholder holding v (a pushed-down literal
	// compared with column c), typed as v's own type.
	typedParam(n int, v any, c column) string
}

// conn is one connection of a dialect.
type conn interface {
	// exec runs one statement and returns the rows it affected.
	exec(ctx context.Context, sql string, args ...any) (int64, error)
	// texts runs a query and returns its rows as text (NULL as "").
	texts(ctx context.Context, sql string, args ...any) ([][]string, error)
	// describe returns the result columns of the query q without running
	// it; tn, when not nil, is the table q reads (for nullability and the
	// database's own type names).
	describe(ctx context.Context, q string, tn *tableName) ([]column, error)
	// stream runs q and appends each row to b, one Col per column in the
	// order of cols, calling row after each.
	stream(ctx context.Context, q string, args []any, cols []column, b *cells.Builder, row func() error) error
	begin(ctx context.Context) error
	commit(ctx context.Context) error
	// rollback ends a transaction without keeping anything; it runs even
	// when ctx is cancelled.
	rollback(ctx context.Context) error
	// load appends the rows of recs to table tn's columns cols over the
	// bulk path. A refused row is a *loadRowError with its 1-based
	// position in recs.
	load(ctx context.Context, tn tableName, cols []loadColumn, recs []dataframe.Record) (int64, error)
	// tableInfo describes table tn; nil when it does not exist.
	tableInfo(ctx context.Context, tn tableName) (*tableInfo, error)
	// tableNames lists the tables and views of schema ("": the current
	// one), for did-you-mean.
	tableNames(ctx context.Context, schema string) ([]string, error)
	// schemaNames lists the schemas (MySQL: databases) but the system's,
	// for did-you-mean.
	schemaNames(ctx context.Context) ([]string, error)
	close()
}

// column is one column of a read or of a table, as the database
// describes it and as Sluice reads it.
type column struct {
	Name string
	// DBType is the type as the database names it (numeric(10,2)).
	DBType string
	// Spark is the Spark type read (decimal(10,2)); see docs/jdbc.md#types.
	Spark string
	// Nullable is false for NOT NULL columns.
	Nullable bool
	// decode is the dialect's way of reading values of the column.
	decode decoder
	// pushable: comparisons of the column in the database give Spark's
	// answers (see dialect.exactOperand).
	pushable bool
}

// decoder identifies how a dialect reads one column's values.
type decoder struct {
	kind decodeKind
	elem decodeKind // arrays: the elements' kind
}

type decodeKind int

const (
	decText decodeKind = iota
	decBool
	decInt
	decUint // MySQL unsigned bigint → decimal(20,0)
	decFloat
	decDecimal
	decBinary
	decDate
	decTimestamp
	decArray
	decTinyBool // MySQL tinyint(1): nonzero is true
	decBit      // MySQL bit(n)
	decBitBool  // MySQL bit(1)
	decUUID
	decJSONB
)

// tableName is a dbtable: an optional schema (MySQL: database) and a
// name, each taken literally.
type tableName struct{ Schema, Name string }

func parseTableName(s string) tableName {
	if i := strings.IndexByte(s, '.'); i >= 0 {
		return tableName{Schema: s[:i], Name: s[i+1:]}
	}
	return tableName{Name: s}
}

func (t tableName) String() string {
	if t.Schema == "" {
		return t.Name
	}
	return t.Schema + "." + t.Name
}

// quoted is the table's name quoted for d.
func (t tableName) quoted(d dialect) string {
	if t.Schema == "" {
		return d.quote(t.Name)
	}
	return d.quote(t.Schema) + "." + d.quote(t.Name)
}

// sibling is a table of the same schema.
func (t tableName) sibling(name string) tableName { return tableName{Schema: t.Schema, Name: name} }

// tableInfo describes an existing table.
type tableInfo struct {
	Columns []column
	// Key is the primary key's columns, in key order.
	Key []string
	// Unique are the column lists of the primary key and the unique
	// indexes.
	Unique [][]string
}

func (ti *tableInfo) column(name string) (column, bool) {
	for _, c := range ti.Columns {
		if c.Name == name {
			return c, true
		}
	}
	for _, c := range ti.Columns {
		if strings.EqualFold(c.Name, name) {
			return c, true
		}
	}
	return column{}, false
}

func (ti *tableInfo) names() []string {
	out := make([]string, len(ti.Columns))
	for i, c := range ti.Columns {
		out[i] = c.Name
	}
	return out
}

// loadColumn is one column of a bulk load: where its values come from in
// the frame and what the table's column is.
type loadColumn struct {
	// Name is the table's column.
	Name string
	// Src is the frame's column index; -1 for the staging sequence column
	// (the row's 1-based position in the write).
	Src int
	// Target is the table's column (its Spark type bounds the values).
	Target column
	// seqBase is added to the row position of the sequence column.
	seqBase int64
}

// seqColumn is the staging table's column of row positions: the last row
// of a key within one merge wins.
const seqColumn = "_sluice_seq"

// stateTableName is the table of incremental states in a target's schema
// (docs/jdbc.md#exactly-once).
const stateTableName = "sluice_state"

// oneLine is a statement as one log line.
func oneLine(sql string) string { return strings.Join(strings.Fields(sql), " ") }

// textRow is a result row's values as text (NULL as "").
func textRow[B ~[]byte](raw []B) []string {
	row := make([]string, len(raw))
	for i, v := range raw {
		row[i] = string(v)
	}
	return row
}

// firstColumn is the first column of a texts result (names from the
// database's catalog).
func firstColumn(rows [][]string, err error) ([]string, error) {
	if err != nil {
		return nil, err
	}
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = r[0]
	}
	return out, nil
}

// sortItem is an ORDER BY item of op, ascending or descending.
func sortItem(op string, desc bool) string {
	if desc {
		return op + " DESC"
	}
	return op + " ASC"
}
