package catalog

import (
	"context"
	"fmt"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"strings"

	"github.com/sluicedata/sluice/catalog/sqlparse"
	"github.com/sluicedata/sluice/connectors"
	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/query"
	"github.com/sluicedata/sluice/dataframe/sparktype"
)

// Managed tables: CREATE TABLE t (cols) USING parquet [AS query], as in
// Spark, is a table Sluice stores itself — a PARQUET dataset in a
// directory of part files next to the table's catalog entry (or at its
// LOCATION), which INSERT INTO appends to and DROP TABLE removes (see
// docs/catalog.md#managed-tables).

// managedFormats are the USING formats a managed table without LOCATION
// may name; Sluice stores each in Parquet (docs/sql.md#statements).
var managedFormats = map[string]bool{"parquet": true, "json": true, "csv": true, "orc": true, "avro": true, "text": true, "delta": true}

// managedDir is where a managed table's files live when it has no
// LOCATION.
func (s *Session) managedDir(cat *Catalog, ns, name string) string {
	return filepath.Join(cat.Dir(), strings.ToLower(ns), strings.ToLower(name)+".parquet") + string(filepath.Separator)
}

func (s *Session) execCreateManaged(ctx context.Context, cat *Catalog, x *sqlparse.CreateTable) (*dataframe.Frame, error) {
	name := tableRef(x.Table)
	if !strings.EqualFold(x.Using, "parquet") {
		// Sluice keeps every managed table in Parquet: a table whose files
		// it owns may say another format (USING json, as Spark's tests
		// do), but at a LOCATION the files would not be what it says.
		if !managedFormats[strings.ToLower(x.Using)] {
			return nil, fmt.Errorf("creating %s: USING %s is not supported (USING parquet is)", name, x.Using)
		}
		if x.Location != "" {
			return nil, fmt.Errorf("creating %s: USING %s with LOCATION is not supported: Sluice stores managed tables as Parquet (use USING parquet)", name, x.Using)
		}
	}
	for _, p := range x.Properties {
		if strings.HasPrefix(p.Key, "svc.storage.") || strings.HasPrefix(p.Key, "svc.parquet.path") {
			return nil, fmt.Errorf("creating %s: USING parquet stores the table itself; %s is not for it", name, p.Key)
		}
	}
	ns := nsOf(x.Table)
	if _, err := cat.Get(ctx, ns, x.Table.Name); err == nil {
		if x.IfNotExists {
			return noColumns()
		}
		return nil, fmt.Errorf("creating %s: the table already exists", name)
	}
	var rows *dataframe.Frame
	if x.Query != nil {
		f, err := s.Query(ctx, x.Query.Query)
		if err != nil {
			return nil, err
		}
		defer f.Release()
		rows = f
	}
	var fields []dataframe.Field
	t := Table{Namespace: ns, Name: x.Table.Name, Properties: map[string]string{}}
	switch {
	case rows != nil && len(x.Columns) > 0:
		return nil, fmt.Errorf("creating %s: a column list and AS query do not go together", name)
	case rows != nil:
		fields = rows.Schema().Fields()
		for _, f := range fields {
			t.Columns = append(t.Columns, Column{Name: f.Name, Type: sparktype.Name(f.Type)})
		}
	case len(x.Columns) == 0:
		return nil, fmt.Errorf("creating %s: USING %s needs a column list or AS query", name, x.Using)
	default:
		for _, c := range x.Columns {
			dt, err := sparktype.ParseType(c.Type)
			if err != nil {
				return nil, fmt.Errorf("creating %s: column %s: %w", name, c.Name, err)
			}
			fields = append(fields, dataframe.Field{Name: c.Name, Type: dt, Nullable: true})
			t.Columns = append(t.Columns, Column{Name: c.Name, Type: c.Type})
		}
	}
	dir := x.Location
	if dir == "" {
		dir = s.managedDir(cat, ns, x.Table.Name)
	} else if !strings.HasSuffix(dir, "/") {
		dir += "/"
	}
	t.Location = dir
	t.Properties["svc.storage.type"] = "PARQUET"
	t.Properties["svc.parquet.path"] = dir
	t.Properties["svc.parquet.mode"] = "append"
	if !strings.EqualFold(x.Using, "parquet") {
		t.Properties["provider"] = strings.ToLower(x.Using) // as written; stored as Parquet
	}
	if err := cat.Create(ctx, t, false); err != nil {
		return nil, err
	}
	// The first part file: the rows of AS query, or none — a read of the
	// new table gives its columns and no rows.
	if rows == nil {
		rows = dataframe.Empty(dataframe.NewSchema(fields))
	}
	if _, err := s.Write(ctx, name, rows, nil); err != nil {
		_ = cat.Drop(ctx, ns, x.Table.Name, true)
		return nil, fmt.Errorf("creating %s: %w", name, err)
	}
	return noColumns()
}

// dropManagedData removes the files of a managed table stored in its
// default place (a LOCATION given at CREATE stays).
func (s *Session) dropManagedData(ctx context.Context, cat *Catalog, ns, name string) error {
	t, err := cat.Get(ctx, ns, name)
	if err != nil {
		return nil // Drop reports the missing table
	}
	dir := s.managedDir(cat, ns, name)
	if t.Properties["svc.parquet.path"] != dir {
		return nil
	}
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("dropping %s.%s: removing its files: %w", ns, name, err)
	}
	return nil
}

// needsCasts says whether a table declares a column type INSERT … VALUES
// cannot fill from its literals directly (decimal, date, nested types):
// those rows go through a query that casts each value to its column's type.
func needsCasts(fields []connectors.Field) bool {
	for _, f := range fields {
		switch strings.ToLower(f.Type) {
		case "string", "long", "integer", "short", "byte", "double", "float", "boolean", "timestamp", "timestamp_ntz", "":
		default:
			return true
		}
	}
	return false
}

// typedParams reports whether VALUES holds a ? parameter of a type the
// literal path does not take (timestamp, binary, decimal, byte, short,
// float): those rows go through the query engine, as typed.
func typedParams(x *sqlparse.Insert) bool {
	for _, row := range x.Rows {
		for _, l := range row {
			if l.Param != nil && !simpleParam(l.Param) {
				return true
			}
		}
	}
	return false
}

// valuesByCast builds INSERT … VALUES rows as SELECT CAST(col AS type), …
// FROM VALUES (…): Spark's casts to the declared types, a column left out
// of a column list NULL.
func (s *Session) valuesByCast(ctx context.Context, target string, x *sqlparse.Insert, fields []connectors.Field) (*dataframe.Frame, error) {
	width := len(x.Rows[0])
	names := x.Columns
	if len(fields) == 0 {
		// A table without declared columns: the values keep their own
		// types (typed ? parameters), under the listed names.
		if len(names) == 0 {
			return nil, fmt.Errorf("inserting into %s: the table has 0 columns () but VALUES gives %d", target, width)
		}
		for _, n := range names {
			fields = append(fields, connectors.Field{Name: n})
		}
	}
	if len(names) == 0 {
		if len(fields) != width {
			return nil, fmt.Errorf("inserting into %s: the table has %d columns (%s) but VALUES gives %d", target, len(fields), fieldList(fields), width)
		}
		for _, f := range fields {
			names = append(names, f.Name)
		}
	}
	pos := map[string]int{}
	for i, n := range names {
		pos[strings.ToLower(n)] = i
	}
	v := &query.ValuesRef{}
	for _, row := range x.Rows {
		var exprs []query.Expr
		for _, lit := range row {
			e, err := queryLiteral(lit)
			if err != nil {
				return nil, fmt.Errorf("inserting into %s: %w", target, err)
			}
			exprs = append(exprs, e)
		}
		v.Rows = append(v.Rows, exprs)
	}
	sel := &query.Select{From: v}
	for _, f := range fields {
		var dt dataframe.DataType
		if f.Type != "" {
			var err error
			if dt, err = sparktype.ParseType(f.Type); err != nil {
				return nil, fmt.Errorf("inserting into %s: column %s: %w", target, f.Name, err)
			}
		}
		var e query.Expr = &query.Literal{Raw: "NULL"}
		if i, ok := pos[strings.ToLower(f.Name)]; ok {
			e = &query.Column{Path: []string{fmt.Sprintf("col%d", i+1)}}
		} else if len(x.Columns) == 0 {
			return nil, fmt.Errorf("inserting into %s: no column %s (columns: %s)", target, f.Name, fieldList(fields))
		}
		if f.Type != "" {
			e = &query.Cast{X: e, To: dt, TypeName: f.Type}
		}
		sel.Items = append(sel.Items, query.SelectItem{Expr: e, Alias: f.Name})
	}
	for n := range pos {
		found := false
		for _, f := range fields {
			found = found || strings.EqualFold(f.Name, n)
		}
		if !found {
			return nil, fmt.Errorf("inserting into %s: no column %s (columns: %s)", target, n, fieldList(fields))
		}
	}
	// Spark's store assignment casts as ANSI mode does: a value beyond an
	// integer column's range is an error (the cast wraps it), and so is
	// one the cast makes NULL — beyond a decimal's precision, text that
	// is not a number (docs/catalog.md#managed-tables, docs/jdbc.md#writes).
	for r, row := range x.Rows {
		for _, f := range fields {
			i, ok := pos[strings.ToLower(f.Name)]
			if !ok || f.Type == "" || row[i].Param != nil || row[i].Value == nil {
				continue
			}
			if err := integerFits(row[i], f.Type); err != nil {
				return nil, fmt.Errorf("inserting into %s: row %d, column %s: %w", target, r+1, f.Name, err)
			}
		}
	}
	out, err := s.Query(ctx, sel)
	if err != nil {
		return nil, err
	}
	if err := castsKept(target, x, fields, pos, out); err != nil {
		out.Release()
		return nil, err
	}
	return out, nil
}

// integerFits checks a number literal written to an integer column of
// type typ: its whole part (a cast drops the fraction) must be in range.
func integerFits(lit *sqlparse.Literal, typ string) error {
	var lo, hi int64
	switch strings.ToLower(typ) {
	case "byte", "tinyint":
		lo, hi = math.MinInt8, math.MaxInt8
	case "short", "smallint":
		lo, hi = math.MinInt16, math.MaxInt16
	case "integer", "int":
		lo, hi = math.MinInt32, math.MaxInt32
	case "long", "bigint":
		lo, hi = math.MinInt64, math.MaxInt64
	default:
		return nil
	}
	if _, ok := lit.Value.(string); ok {
		return nil // text: the cast's NULL tells (castsKept)
	}
	r, ok := new(big.Rat).SetString(strings.TrimRight(lit.Raw, "lLsSyYdDfF"))
	if !ok {
		return nil
	}
	whole := new(big.Int).Quo(r.Num(), r.Denom())
	if whole.Cmp(big.NewInt(lo)) < 0 || whole.Cmp(big.NewInt(hi)) > 0 {
		return fmt.Errorf("%s is out of the %s range", lit.Raw, typ)
	}
	return nil
}

// castsKept fails when the cast of a non-NULL literal gave NULL: the value
// does not fit its column's type.
func castsKept(target string, x *sqlparse.Insert, fields []connectors.Field, pos map[string]int, f *dataframe.Frame) error {
	row := 0
	for _, rec := range f.Records() {
		for j := 0; j < int(rec.NumRows()); j, row = j+1, row+1 {
			for c, fd := range fields {
				i, ok := pos[strings.ToLower(fd.Name)]
				if !ok || row >= len(x.Rows) || !rec.Column(c).IsNull(j) {
					continue
				}
				lit := x.Rows[row][i]
				if lit.Param != nil || lit.Value == nil {
					continue
				}
				if _, text := lit.Value.(string); text {
					return fmt.Errorf("inserting into %s: row %d, column %s: %s is not a %s", target, row+1, fd.Name, lit.Raw, fd.Type)
				}
				return fmt.Errorf("inserting into %s: row %d, column %s: %s does not fit %s", target, row+1, fd.Name, lit.Raw, fd.Type)
			}
		}
	}
	return nil
}

// queryLiteral is an INSERT literal as the query engine types it (a
// number's text as Spark types it: 1.5 is a decimal).
func queryLiteral(l *sqlparse.Literal) (query.Expr, error) {
	if l.Param != nil {
		return l.Param, nil
	}
	switch v := l.Value.(type) {
	case nil:
		return &query.Literal{Raw: "NULL"}, nil
	case string:
		return &query.Literal{Value: v, Type: sparktype.StringType, Raw: l.Raw}, nil
	case bool:
		return &query.Literal{Value: v, Type: sparktype.BooleanType, Raw: l.Raw}, nil
	}
	return query.NumberLiteral(l.Raw)
}
