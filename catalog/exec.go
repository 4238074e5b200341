package catalog

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/sluicedata/sluice/catalog/sqlparse"
	"github.com/sluicedata/sluice/connectors"
	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/jsonframe"
	"github.com/sluicedata/sluice/dataframe/sparktype"
)

// ExecuteBatch runs a batch of SQL statements (docs/catalog.md, docs/sql.md) in order and
// returns the last statement's frame; the caller releases it. The whole
// batch is parsed and planned first, so a syntax error anywhere runs
// nothing. A failing statement stops the batch; the error starts with its
// number (`statement 2: reading yt.subs: …`).
//
// args are the values of the batch's ? placeholders, in order, as
// database/sql takes them: each binds as a typed literal (bool, integers,
// floats, string, []byte, time.Time, Decimal, nil; see
// docs/go-api.md#parameters), never pasted into the text. A ? without a
// value, a value without a ?, or a Go type without a SQL type is an error
// before anything runs.
//
// Result frames follow Spark: SELECT gives its rows; SET gives `key`,
// `value` rows (secrets redacted); SHOW TABLES gives `namespace`,
// `tableName`, `isTemporary`; SHOW NAMESPACES gives `namespace`; DESCRIBE
// gives `col_name`, `data_type`; INSERT gives `num_affected_rows`,
// `num_inserted_rows`; CREATE, DROP and RESET give a frame without columns.
func (s *Session) ExecuteBatch(ctx context.Context, text string, args ...any) (*dataframe.Frame, error) {
	stmts, err := parseBatch(text, args)
	if err != nil {
		return nil, err
	}
	var last *dataframe.Frame
	for _, st := range stmts {
		if err := ctx.Err(); err != nil {
			if last != nil {
				last.Release()
			}
			return nil, fmt.Errorf("statement %d: %w", st.Number(), err)
		}
		f, err := s.execute(ctx, st)
		if last != nil {
			last.Release()
			last = nil
		}
		if err != nil {
			return nil, fmt.Errorf("statement %d: %w", st.Number(), err)
		}
		last = f
	}
	if last == nil {
		return noColumns()
	}
	return last, nil
}

// parseBatch parses a batch with the values of its ? placeholders.
func parseBatch(text string, args []any) ([]sqlparse.Statement, error) {
	params, err := bindArgs(args)
	if err != nil {
		return nil, err
	}
	// A SQL file saved by a Windows editor starts with a byte order mark;
	// positions are counted as the editor shows them, without it.
	return sqlparse.ParseParams(strings.TrimPrefix(text, "\ufeff"), params)
}

func noColumns() (*dataframe.Frame, error) { return jsonframe.FromValues(nil, nil) }

// ExecResult summarises the statements Exec ran.
type ExecResult struct {
	// Statements is the number of statements run.
	Statements int
	// RowsAffected is the rows INSERT statements wrote, summed.
	RowsAffected int64
}

// Exec runs a batch of statements that give no rows — CREATE, DROP,
// INSERT, SET key=value, RESET — as ExecuteBatch does (parsed whole first,
// stopped by the first failure, errors numbered by statement), and returns
// a summary instead of a frame, so there is nothing to release. A
// statement that gives rows (SELECT, EXPLAIN, SHOW, DESCRIBE, SET without
// a value) is an error naming it before anything runs: read rows with
// ExecuteBatch or Query. args are the values of the text's ? placeholders,
// as ExecuteBatch takes them.
func (s *Session) Exec(ctx context.Context, text string, args ...any) (ExecResult, error) {
	stmts, err := parseBatch(text, args)
	if err != nil {
		return ExecResult{}, err
	}
	for _, st := range stmts {
		if kind, rows := givesRows(st); rows {
			return ExecResult{}, fmt.Errorf("statement %d: %s gives rows: run it with ExecuteBatch or Query, not Exec", st.Number(), kind)
		}
	}
	var res ExecResult
	for _, st := range stmts {
		if err := ctx.Err(); err != nil {
			return res, fmt.Errorf("statement %d: %w", st.Number(), err)
		}
		f, err := s.execute(ctx, st)
		if err != nil {
			return res, fmt.Errorf("statement %d: %w", st.Number(), err)
		}
		if _, ok := st.(*sqlparse.Insert); ok {
			res.RowsAffected += insertedRows(f)
		}
		f.Release()
		res.Statements++
	}
	return res, nil
}

// givesRows reports whether st answers with rows, and its kind for the
// message.
func givesRows(st sqlparse.Statement) (string, bool) {
	switch x := st.(type) {
	case *sqlparse.Select:
		if x.Explain {
			return "EXPLAIN", true
		}
		return "SELECT", true
	case *sqlparse.ShowTables:
		return "SHOW TABLES", true
	case *sqlparse.ShowNamespaces:
		return "SHOW NAMESPACES", true
	case *sqlparse.Describe:
		return "DESCRIBE", true
	case *sqlparse.Set:
		return "SET without a value", !x.HasValue
	}
	return "", false
}

// insertedRows reads num_affected_rows from an INSERT's result frame.
func insertedRows(f *dataframe.Frame) int64 {
	for _, rec := range f.Records() {
		if rec.NumRows() > 0 {
			if n, ok := dataframe.ValueAt(rec.Column(0), 0).(int64); ok {
				return n
			}
		}
	}
	return 0
}

func (s *Session) execute(ctx context.Context, st sqlparse.Statement) (*dataframe.Frame, error) {
	switch x := st.(type) {
	case *sqlparse.CreateTable:
		return s.execCreate(ctx, x)
	case *sqlparse.CreateView:
		if err := s.execCreateView(ctx, x); err != nil {
			return nil, err
		}
		return noColumns()
	case *sqlparse.DropView:
		if err := s.execDropView(x); err != nil {
			return nil, err
		}
		return noColumns()
	case *sqlparse.DropTable:
		cat, err := s.needCatalog()
		if err != nil {
			return nil, err
		}
		if err := s.dropManagedData(ctx, cat, nsOf(x.Table), x.Table.Name); err != nil {
			return nil, err
		}
		if err := cat.Drop(ctx, nsOf(x.Table), x.Table.Name, x.IfExists); err != nil {
			return nil, err
		}
		return noColumns()
	case *sqlparse.ShowTables:
		cat, err := s.needCatalog()
		if err != nil {
			return nil, err
		}
		tables, err := cat.List(ctx, x.Namespace)
		if err != nil {
			return nil, err
		}
		rows := make([][]any, 0, len(tables))
		for _, t := range tables {
			rows = append(rows, []any{t.Namespace, t.Name, false})
		}
		for _, v := range s.Views() {
			rows = append(rows, []any{"", v, true})
		}
		return jsonframe.FromValues([]string{"namespace", "tableName", "isTemporary"}, rows)
	case *sqlparse.ShowNamespaces:
		cat, err := s.needCatalog()
		if err != nil {
			return nil, err
		}
		spaces, err := cat.Namespaces(ctx)
		if err != nil {
			return nil, err
		}
		rows := make([][]any, len(spaces))
		for i, ns := range spaces {
			rows[i] = []any{ns}
		}
		return jsonframe.FromValues([]string{"namespace"}, rows)
	case *sqlparse.Describe:
		return s.execDescribe(ctx, x)
	case *sqlparse.Set:
		return s.execSet(x)
	case *sqlparse.Reset:
		if x.Key == "" {
			s.Reset()
		} else {
			s.Unset(x.Key)
		}
		return noColumns()
	case *sqlparse.Select:
		return s.execSelect(ctx, x)
	case *sqlparse.Insert:
		return s.execInsert(ctx, x)
	}
	return nil, fmt.Errorf("unsupported statement %T", st)
}

func (s *Session) needCatalog() (*Catalog, error) {
	if s.cat == nil {
		return nil, ErrNoCatalog
	}
	return s.cat, nil
}

func nsOf(t sqlparse.TableName) string {
	if t.Namespace == "" {
		return DefaultNamespace
	}
	return t.Namespace
}

func (s *Session) execCreate(ctx context.Context, x *sqlparse.CreateTable) (*dataframe.Frame, error) {
	cat, err := s.needCatalog()
	if err != nil {
		return nil, err
	}
	if x.Using != "" {
		return s.execCreateManaged(ctx, cat, x)
	}
	if x.Query != nil {
		return nil, fmt.Errorf("creating %s: CREATE TABLE … AS query needs USING parquet", tableRef(x.Table))
	}
	t := Table{
		Namespace:  nsOf(x.Table),
		Name:       x.Table.Name,
		External:   x.External,
		Location:   x.Location,
		Properties: map[string]string{},
	}
	for _, c := range x.Columns {
		t.Columns = append(t.Columns, Column{Name: c.Name, Type: c.Type})
	}
	for _, p := range x.Properties {
		t.Properties[p.Key] = p.Value
	}
	if err := cat.Create(ctx, t, x.IfNotExists); err != nil {
		return nil, err
	}
	return noColumns()
}

func (s *Session) execDescribe(ctx context.Context, x *sqlparse.Describe) (*dataframe.Frame, error) {
	cat, err := s.needCatalog()
	if err != nil {
		return nil, err
	}
	t, err := cat.Get(ctx, nsOf(x.Table), x.Table.Name)
	if err != nil {
		return nil, err
	}
	// A secret also hides inside other values (a URL with key=…).
	red := connectors.NewRedactor(t.Properties, s.Settings())
	rows := make([][]any, 0, len(t.Columns)+3+len(t.Properties))
	for _, c := range t.Columns {
		rows = append(rows, []any{c.Name, c.Type})
	}
	if len(t.Columns) == 0 {
		// A database table declares none: they are the database's
		// (docs/jdbc.md). One it cannot read shows its properties only.
		if r, err := s.resolve(ctx, tableRef(x.Table), nil); err == nil {
			if sr, ok := r.conn.(connectors.SchemaReader); ok {
				if fields, err := sr.ReadSchema(ctx, r.ds); err == nil {
					for _, f := range fields {
						rows = append(rows, []any{f.Name, f.Type})
					}
				}
			}
		}
	}
	rows = append(rows,
		[]any{"# Detailed Table Information", ""},
		[]any{"Type", t.Type},
		[]any{"Location", red.String(t.Location)},
	)
	keys := make([]string, 0, len(t.Properties))
	for k := range t.Properties {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		rows = append(rows, []any{k, red.String(connectors.RedactValue(k, t.Properties[k]))})
	}
	return jsonframe.FromValues([]string{"col_name", "data_type"}, rows)
}

// undefined is what SET k shows for a key that is not set, as Spark does.
const undefined = "<undefined>"

func (s *Session) execSet(x *sqlparse.Set) (*dataframe.Frame, error) {
	cols := []string{"key", "value"}
	switch {
	case !x.HasKey:
		all := s.Settings()
		keys := make([]string, 0, len(all))
		for k := range all {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		red := connectors.NewRedactor(all)
		rows := make([][]any, len(keys))
		for i, k := range keys {
			rows[i] = []any{k, red.String(connectors.RedactValue(k, all[k]))}
		}
		return jsonframe.FromValues(cols, rows)
	case !x.HasValue:
		v, ok := s.Get(x.Key)
		if !ok {
			v = undefined
		} else {
			v = connectors.NewRedactor(s.Settings()).String(connectors.RedactValue(x.Key, v))
		}
		return jsonframe.FromValues(cols, [][]any{{x.Key, v}})
	}
	if err := s.Set(x.Key, x.Value); err != nil {
		return nil, err
	}
	v := connectors.NewRedactor(s.Settings()).String(connectors.RedactValue(x.Key, x.Value))
	return jsonframe.FromValues(cols, [][]any{{x.Key, v}})
}

func tableRef(t sqlparse.TableName) string {
	if t.Namespace == "" {
		return t.Name
	}
	return t.Namespace + "." + t.Name
}

func (s *Session) execSelect(ctx context.Context, x *sqlparse.Select) (*dataframe.Frame, error) {
	if x.Explain {
		plan, release, err := s.compileQuery(ctx, x.Query)
		if err != nil {
			return nil, err
		}
		defer release()
		lines := strings.Split(strings.TrimRight(plan.Explain(), "\n"), "\n")
		rows := make([][]any, len(lines))
		for i, l := range lines {
			rows[i] = []any{l}
		}
		return jsonframe.FromValues([]string{"plan"}, rows)
	}
	return s.Query(ctx, x.Query)
}

func (s *Session) execInsert(ctx context.Context, x *sqlparse.Insert) (*dataframe.Frame, error) {
	target := tableRef(x.Table)
	r, err := s.resolve(ctx, target, nil)
	if err != nil {
		return nil, fmt.Errorf("writing %s: %w", target, err)
	}
	if o, ok := r.conn.(connectors.Overwriter); x.Overwrite && !(ok && o.Overwrites()) {
		return nil, fmt.Errorf("INSERT OVERWRITE %s: a %s table cannot replace its rows (INSERT INTO adds to them)", target, r.typ)
	}
	fields := r.ds.Fields
	if sr, ok := r.conn.(connectors.SchemaReader); ok && len(fields) == 0 && x.Query == nil {
		// A database table knows its columns: VALUES takes them from it.
		if fields, err = sr.ReadSchema(ctx, r.ds); err != nil {
			return nil, doing("writing", r.ds.Name, r.red.Error(err))
		}
	}
	var f *dataframe.Frame
	// The rows read are delivered once the write succeeds: only then do
	// incremental sources move their state (docs/incremental.md).
	d := &Delivery{OneWrite: true}
	if outer := deliveryFrom(ctx); outer != nil {
		d.FullRefresh = outer.FullRefresh
	}
	if x.Query != nil {
		if f, err = s.Query(WithDelivery(ctx, d), x.Query.Query); err != nil {
			return nil, err
		}
		// A table whose columns are its connector's fixed ones (a RESTAPI
		// table's payload) takes whole rows of another shape as they are.
		whole := sameFields(fields, defaultFields(r.conn, r.typ))
		if f, err = alignQuery(target, f, x.Columns, fields, whole); err != nil {
			return nil, err
		}
	} else if needsCasts(fields) || typedParams(x) {
		if f, err = s.valuesByCast(ctx, target, x, fields); err != nil {
			return nil, err
		}
	} else {
		zone, err := settingZone(s)
		if err != nil {
			return nil, err
		}
		if f, err = valuesFrame(target, x, fields, zone); err != nil {
			return nil, err
		}
	}
	defer f.Release()
	// INSERT INTO writes with the table's mode (append unless it says
	// merge); INSERT OVERWRITE replaces the table's rows whatever it says.
	res, err := s.write(WithDelivery(ctx, d), target, f, nil, x.Overwrite)
	if err != nil {
		return nil, err
	}
	if err := d.Commit(ctx); err != nil {
		return nil, fmt.Errorf("inserted %d rows into %s, but the incremental state was not stored (the next run reads them again): %w", res.Written, target, err)
	}
	return WriteCountsFrame(res)
}

// WriteCountsFrame is the one-row frame an INSERT answers with:
// num_affected_rows and num_inserted_rows, and num_updated_rows when the
// connector counts them (a database merge, docs/jdbc.md#writes).
func WriteCountsFrame(res connectors.WriteResult) (*dataframe.Frame, error) {
	if c := res.Counts; c != nil {
		return jsonframe.FromValues([]string{"num_affected_rows", "num_inserted_rows", "num_updated_rows"}, [][]any{{c.Affected, c.Inserted, c.Updated}})
	}
	return jsonframe.FromValues([]string{"num_affected_rows", "num_inserted_rows"}, [][]any{{res.Written, res.Written}})
}

// valuesFrame builds INSERT … VALUES rows. When the target declares its
// columns the frame has exactly those, in the table's order and typed by
// them: a column list may name them in any order, and the columns it leaves
// out are NULL, as Spark fills a column without a default. A target without
// declared columns (or a column list naming others) keeps the literals'
// own types. Text for a timestamp column is read in the session time zone.
func valuesFrame(target string, x *sqlparse.Insert, fields []connectors.Field, zone *time.Location) (*dataframe.Frame, error) {
	width := len(x.Rows[0])
	names := x.Columns
	// src[i] is the VALUES position feeding output column i (-1: NULL).
	var (
		outNames []string
		outTypes []string
		src      []int
	)
	switch {
	case len(names) == 0:
		if len(fields) != width {
			return nil, fmt.Errorf("inserting into %s: the table has %d columns (%s) but VALUES gives %d", target, len(fields), fieldList(fields), width)
		}
		for i, fd := range fields {
			outNames = append(outNames, fd.Name)
			outTypes = append(outTypes, fd.Type)
			src = append(src, i)
		}
	case len(fields) == 0:
		outNames = names
		outTypes = make([]string, width)
		for i := range names {
			src = append(src, i)
		}
	default:
		pos := map[string]int{}
		for i, n := range names {
			k := strings.ToLower(n)
			if _, dup := pos[k]; dup {
				return nil, fmt.Errorf("inserting into %s: column %s is listed twice", target, n)
			}
			pos[k] = i
		}
		for _, n := range names {
			found := false
			for _, fd := range fields {
				if strings.EqualFold(fd.Name, n) {
					found = true
					break
				}
			}
			if !found {
				return nil, fmt.Errorf("inserting into %s: no column %s (columns: %s)", target, n, fieldList(fields))
			}
		}
		for _, fd := range fields {
			outNames = append(outNames, fd.Name)
			outTypes = append(outTypes, fd.Type)
			i, ok := pos[strings.ToLower(fd.Name)]
			if !ok {
				i = -1
			}
			src = append(src, i)
		}
	}
	rows := make([][]any, len(x.Rows))
	for r, lits := range x.Rows {
		row := make([]any, len(outNames))
		for c, i := range src {
			if i < 0 {
				continue
			}
			v, err := coerce(lits[i], outTypes[c], zone)
			if err != nil {
				return nil, fmt.Errorf("inserting into %s: row %d, column %s: %w", target, r+1, outNames[c], err)
			}
			row[c] = v
		}
		rows[r] = row
	}
	f, err := typedValues(outNames, outTypes, rows)
	if err != nil {
		return nil, fmt.Errorf("inserting into %s: %w", target, err)
	}
	return f, nil
}

// typedValues builds the frame with the declared column types when they
// are all flat Spark types, so that a NULL-only or integer column keeps its
// declared type; otherwise it infers types from the values.
func typedValues(names, types []string, rows [][]any) (*dataframe.Frame, error) {
	cols := make([]dataframe.TypedColumn, len(names))
	for i, n := range names {
		if types[i] == "" {
			return jsonframe.FromValues(names, rows)
		}
		k, err := dataframe.ParseColumnKind(types[i])
		if err != nil {
			return jsonframe.FromValues(names, rows)
		}
		cols[i] = dataframe.TypedColumn{Name: n, Kind: k, Nullable: true}
	}
	b := dataframe.NewTypedBuilder(nil, cols, 0)
	defer b.Release()
	for _, row := range rows {
		for c, v := range row {
			if v == nil {
				b.AppendNull(c)
				continue
			}
			switch cols[c].Kind {
			case dataframe.KindString:
				b.AppendString(c, v.(string))
			case dataframe.KindLong:
				b.AppendLong(c, v.(int64))
			case dataframe.KindInteger:
				n := v.(int64)
				if n < math.MinInt32 || n > math.MaxInt32 {
					return nil, fmt.Errorf("column %s: %d is out of the integer range", names[c], n)
				}
				b.AppendInteger(c, int32(n))
			case dataframe.KindDouble:
				b.AppendDouble(c, v.(float64))
			case dataframe.KindBoolean:
				b.AppendBoolean(c, v.(bool))
			case dataframe.KindTimestamp:
				b.AppendTimestamp(c, v.(time.Time))
			}
		}
		if err := b.EndRow(); err != nil {
			return nil, err
		}
	}
	return b.Frame()
}

// alignQuery fits an INSERT … SELECT result to the target, as Spark
// inserts by position: the query's columns take the target's names (or the
// listed ones, which are then put in the table's order with NULL for the
// columns left out). A width that does not match, or a column whose type
// differs from the declared one, is an error (except into a string column
// and the numeric widenings Spark makes implicitly: integer → long, integer
// or long → double), so that data never lands under a column that says
// something else. Two cases keep the query's own names: a target without
// declared columns, and (whole) a target whose columns are its connector's
// fixed ones (a RESTAPI table's payload) given a query of another width,
// which the connector sends as whole rows. f is released on error and when
// replaced.
func alignQuery(target string, f *dataframe.Frame, listed []string, fields []connectors.Field, whole bool) (*dataframe.Frame, error) {
	fail := func(format string, args ...any) (*dataframe.Frame, error) {
		f.Release()
		return nil, fmt.Errorf("inserting into %s: "+format, append([]any{target}, args...)...)
	}
	replace := func(g *dataframe.Frame, err error) error {
		if err != nil {
			return err
		}
		f.Release()
		f = g
		return nil
	}
	if len(listed) > 0 && len(listed) != f.NumCols() {
		return fail("%d columns listed but the query gives %d", len(listed), f.NumCols())
	}
	names := append([]string(nil), listed...)
	if len(names) == 0 {
		if len(fields) == 0 || whole && len(fields) != f.NumCols() {
			return f, nil
		}
		if len(fields) != f.NumCols() {
			return fail("the table has %d columns (%s) but the query gives %d", len(fields), fieldList(fields), f.NumCols())
		}
		for _, fd := range fields {
			names = append(names, fd.Name)
		}
	}
	byName := map[string]connectors.Field{}
	for _, fd := range fields {
		byName[strings.ToLower(fd.Name)] = fd
	}
	seen := map[string]bool{}
	for i, n := range names {
		k := strings.ToLower(n)
		if seen[k] {
			return fail("column %s is listed twice", n)
		}
		seen[k] = true
		if len(fields) == 0 {
			continue
		}
		fd, ok := byName[k]
		if !ok {
			return fail("no column %s (columns: %s)", n, fieldList(fields))
		}
		got := sparktype.Name(f.Schema().Field(i).Type)
		if !assignable(got, fd.Type) {
			return fail("column %s is %s but the query's column %d (%s) is %s", fd.Name, fd.Type, i+1, f.Schema().Field(i).Name, got)
		}
		names[i] = fd.Name
	}
	if err := replace(dataframe.WithColumnNames(f, names)); err != nil {
		return fail("%w", err)
	}
	if len(fields) == 0 || len(listed) == 0 {
		return f, nil
	}
	// A column list: add NULL columns for the ones left out, then put
	// everything in the table's order.
	var consts []dataframe.Constant
	for _, fd := range fields {
		if seen[strings.ToLower(fd.Name)] {
			continue
		}
		k, err := dataframe.ParseColumnKind(fd.Type)
		if err != nil {
			return fail("column %s (%s) is left out of the column list and cannot be filled with NULL; list it", fd.Name, fd.Type)
		}
		consts = append(consts, dataframe.Constant{Name: fd.Name, Kind: k, Null: true})
	}
	if len(consts) > 0 {
		if err := replace(dataframe.WithConstants(nil, f, consts)); err != nil {
			return fail("%w", err)
		}
	}
	idx := make([]int, len(fields))
	cols := f.ColumnNames()
	for i, fd := range fields {
		for j, c := range cols {
			if c == fd.Name {
				idx[i] = j
				break
			}
		}
	}
	if err := replace(dataframe.KeepColumns(f, idx)); err != nil {
		return fail("%w", err)
	}
	return f, nil
}

func sameFields(a, b []connectors.Field) bool {
	if len(a) != len(b) || len(a) == 0 {
		return false
	}
	for i := range a {
		if !strings.EqualFold(a[i].Name, b[i].Name) || !strings.EqualFold(a[i].Type, b[i].Type) {
			return false
		}
	}
	return true
}

// assignable reports whether a query column of Spark type got may be
// written to a column declared want without a cast that changes values
// (sparktype.AssignableNames; see docs/inference.md#assignment). Any value
// goes into a string column: the connector renders it (a RESTAPI payload as
// JSON), as Spark's ANSI store assignment does.
func assignable(got, want string) bool { return sparktype.AssignableNames(got, want) }

func fieldList(fields []connectors.Field) string {
	parts := make([]string, len(fields))
	for i, f := range fields {
		parts[i] = f.Name + " " + f.Type
	}
	return strings.Join(parts, ", ")
}

// coerce turns a literal into a value of the column type typ ("" = keep the
// literal's own type), as Spark's implicit casts on INSERT do; text for a
// timestamp is a wall-clock time in the session time zone zone.
func coerce(lit *sqlparse.Literal, typ string, zone *time.Location) (any, error) {
	v := lit.Value
	if v == nil || typ == "" {
		return v, nil
	}
	switch strings.ToLower(typ) {
	case "string":
		switch x := v.(type) {
		case string:
			return x, nil
		case bool:
			if x {
				return "true", nil
			}
			return "false", nil
		default:
			return lit.Raw, nil
		}
	case "long", "integer", "short", "byte":
		if n, ok := v.(int64); ok {
			return n, nil
		}
	case "double", "float":
		switch x := v.(type) {
		case int64:
			return float64(x), nil
		case float64:
			return x, nil
		}
	case "boolean":
		if b, ok := v.(bool); ok {
			return b, nil
		}
	case "timestamp", "timestamp_ntz":
		if s, ok := v.(string); ok {
			if strings.EqualFold(typ, "timestamp_ntz") {
				zone = time.UTC // a wall-clock time as written
			}
			if us, ok := sparktype.ParseTimestampMicrosIn(s, zone); ok {
				return time.UnixMicro(us).UTC(), nil
			}
			return nil, fmt.Errorf("%s is not a timestamp", lit.Raw)
		}
	default:
		return nil, fmt.Errorf("%s cannot be written to a %s column with VALUES", lit.Raw, typ)
	}
	return nil, fmt.Errorf("%s is not a %s", lit.Raw, typ)
}
