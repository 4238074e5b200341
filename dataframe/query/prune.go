package query

import (
	"context"
	"strings"

	"github.com/sluicedata/sluice/dataframe/scan"
)

// ColumnsResolver is a Resolver that can read fewer columns: need says
// whether a top-level column may be used by the query. The planner asks it
// only when it can tell (no `*` in the query), and plans again with every
// column when the pruned plan fails, so that errors (did-you-mean) see the
// whole table.
type ColumnsResolver interface {
	Resolver
	TableColumns(ctx context.Context, name []string, need []string) (Table, error)
}

// neededColumns lists every name a column reference of q (and of the
// views it names) may use — each segment of each path: `t.a.b` may be
// column t, a or b — or nil when q has a `*` and needs everything.
func neededColumns(q Query, r Resolver) []string {
	seen := map[string]bool{}
	star := false
	vr, _ := r.(ViewResolver)
	views := map[string]bool{}
	var walkQ func(q Query)
	var walkS func(s Source)
	addExpr := func(e Expr) {
		visit(e, func(x Expr) bool {
			switch c := x.(type) {
			case *Column:
				for _, p := range c.Path {
					seen[strings.ToLower(p)] = true
				}
			case *Star:
				star = true
			}
			return true
		})
		for _, sq := range subqueriesOf(e) {
			walkQ(sq)
		}
	}
	walkS = func(s Source) {
		switch x := s.(type) {
		case *TableRef:
			key := strings.ToLower(strings.Join(x.Name, "."))
			if vr != nil && !views[key] {
				if vq, _, ok := vr.View(x.Name); ok {
					views[key] = true
					walkQ(vq)
				}
			}
		case *SubqueryRef:
			walkQ(x.Query)
		case *JoinRef:
			walkS(x.L)
			walkS(x.R)
			addExpr(x.On)
			for _, u := range x.Using {
				seen[strings.ToLower(u)] = true
			}
			if x.Natural {
				star = true
			}
		case *LateralView:
			walkS(x.Input)
			addExpr(x.Gen)
		case *ValuesRef:
			for _, row := range x.Rows {
				for _, e := range row {
					addExpr(e)
				}
			}
		}
	}
	walkQ = func(q Query) {
		switch x := q.(type) {
		case *Select:
			for _, c := range x.With {
				walkQ(c.Query)
			}
			for _, it := range x.Items {
				addExpr(it.Expr)
			}
			if x.From != nil {
				walkS(x.From)
			}
			addExpr(x.Where)
			addExpr(x.Having)
			for _, g := range x.GroupBy {
				addExpr(g)
			}
			for _, o := range x.OrderBy {
				addExpr(o.Expr)
			}
			for _, w := range x.Windows {
				visitWindow(w.Spec, func(e Expr) bool { addExpr(e); return false })
			}
		case *SetOp:
			for _, c := range x.With {
				walkQ(c.Query)
			}
			walkQ(x.L)
			walkQ(x.R)
			for _, o := range x.OrderBy {
				addExpr(o.Expr)
			}
		}
	}
	walkQ(q)
	if star {
		return nil
	}
	out := make([]string, 0, len(seen))
	for k := range seen {
		out = append(out, k)
	}
	return out
}

// pruning wraps a ColumnsResolver so that every table is read with the
// query's columns only.
type pruning struct {
	r    ColumnsResolver
	need []string
}

func (p pruning) Table(ctx context.Context, name []string) (Table, error) {
	return p.r.TableColumns(ctx, name, p.need)
}

// View forwards to the wrapped resolver's views.
func (p pruning) View(name []string) (Query, []string, bool) {
	if vr, ok := p.r.(ViewResolver); ok {
		return vr.View(name)
	}
	return nil, nil, false
}

// ScanResolver is a Resolver whose tables can do part of a query's work
// themselves: the planner asks it for each base table with a scan.Request
// (the columns used, the WHERE conjuncts over that table alone, a limit
// when nothing between the scan and the LIMIT changes the rows) and applies
// above the scan whatever the table did not apply exactly (see
// docs/sql.md#pushdown). The analysis asks Table first, for the schema
// only: the Table it returns is not opened, so it should not read data
// until Open; ScanTable then gives the read the query runs.
type ScanResolver interface {
	Resolver
	ScanTable(ctx context.Context, name []string, req scan.Request) (ScannedTable, error)
}

// ScannedTable is a table read under a scan.Request.
type ScannedTable interface {
	Table
	// Applied says which parts of the request the rows Open gives honour.
	Applied() scan.Applied
}
