package query

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/decimal128"
	"github.com/sluicedata/sluice/dataframe/scan"
)

// pushScans asks a ScanResolver for every table of the plan with what the
// query needs of it (see docs/sql.md#pushdown): the columns the plan reads,
// the conjuncts of the filter right above the scan that translate exactly
// into scan.Expr, and — when nothing between the scan and a LIMIT changes
// rows and every conjunct translated — the limit; under a top-N (a LIMIT
// over a sort of plain columns of the scan, through projections that only
// pick columns and the filter) the limit with the sort order. Whatever the
// table does not report as applied exactly stays above the scan, and the
// sort and the limit always stay. lim is the row limit that applies to n's
// rows (nil: none).
func pushScans(ctx context.Context, n lnode, sr ScanResolver, lim *int64) (lnode, error) {
	switch x := n.(type) {
	case *lLimit:
		var l *int64
		if x.n >= 0 {
			v := x.n + x.offset
			l = &v
			if srt, ok := x.in.(*lSort); ok && v > 0 {
				if in, ok, err := pushTopN(ctx, srt, sr, v); err != nil || ok {
					if err != nil {
						return nil, err
					}
					c := *x
					c.in = in
					return &c, nil
				}
			}
		}
		in, err := pushScans(ctx, x.in, sr, l)
		if err != nil {
			return nil, err
		}
		c := *x
		c.in = in
		return &c, nil
	case *lProject:
		in, err := pushScans(ctx, x.in, sr, lim)
		if err != nil {
			return nil, err
		}
		c := *x
		c.in = in
		return &c, nil
	case *lFilter:
		if s, ok := x.in.(*lScan); ok {
			return scanRequest(ctx, s, rexConjuncts(x.pred), lim, sr)
		}
	case *lScan:
		return scanRequest(ctx, x, nil, lim, sr)
	}
	ins := n.inputs()
	if len(ins) == 0 {
		return n, nil
	}
	nins := make([]lnode, len(ins))
	for i, in := range ins {
		p, err := pushScans(ctx, in, sr, nil)
		if err != nil {
			return nil, err
		}
		nins[i] = p
	}
	return n.withInputs(nins), nil
}

// pushTopN asks the scan under srt for its first lim rows in srt's order
// when srt's keys are columns of the scan: srt's input is the scan, under
// projections of plain columns and at most one filter (see
// docs/sql.md#pushdown). ok false: not that shape, nothing was asked.
func pushTopN(ctx context.Context, srt *lSort, sr ScanResolver, lim int64) (lnode, bool, error) {
	// Follow each key's column down to the scan.
	cols := make([]int, len(srt.keys))
	for i, k := range srt.keys {
		cols[i] = k.col
	}
	var projs []*lProject
	n := srt.in
	for {
		p, ok := n.(*lProject)
		if !ok {
			break
		}
		for i, c := range cols {
			rc, ok := p.exprs[c].(*rCol)
			if !ok {
				return nil, false, nil
			}
			cols[i] = rc.idx
		}
		projs = append(projs, p)
		n = p.in
	}
	var conj []rex
	f, isFilter := n.(*lFilter)
	if isFilter {
		conj = rexConjuncts(f.pred)
		n = f.in
	}
	s, ok := n.(*lScan)
	if !ok {
		return nil, false, nil
	}
	fs := s.fields()
	order := make([]scan.SortKey, len(srt.keys))
	for i, k := range srt.keys {
		order[i] = scan.SortKey{Column: fs[cols[i]].name, Desc: k.desc, NullsFirst: k.nullsFirst}
	}
	out, err := scanRequestOrder(ctx, s, conj, &lim, order, sr)
	if err != nil {
		return nil, false, err
	}
	for i := len(projs) - 1; i >= 0; i-- {
		c := *projs[i]
		c.in = out
		out = &c
	}
	c := *srt
	c.in = out
	return &c, true, nil
}

func scanRequest(ctx context.Context, s *lScan, conj []rex, lim *int64, sr ScanResolver) (lnode, error) {
	return scanRequestOrder(ctx, s, conj, lim, nil, sr)
}

// scanRequestOrder reads s under a request; order, with lim, is a top-N's
// order (nil: the limit is of rows in any order).
func scanRequestOrder(ctx context.Context, s *lScan, conj []rex, lim *int64, order []scan.SortKey, sr ScanResolver) (lnode, error) {
	fs := s.fields()
	req := scan.Request{}
	if s.cols != nil {
		for _, f := range fs {
			req.Columns = append(req.Columns, f.name)
		}
	}
	var sent []rex // the conjuncts in req.Filters, in order
	var kept []rex // the ones that did not translate
	for _, c := range conj {
		if e, ok := toScanExpr(c, fs); ok {
			req.Filters = append(req.Filters, e)
			sent = append(sent, c)
		} else {
			kept = append(kept, c)
		}
	}
	if lim != nil && *lim > 0 && len(kept) == 0 {
		req.Limit = *lim
		req.Order = order
	}
	read := func(req scan.Request) (ScannedTable, error) {
		st, err := sr.ScanTable(ctx, s.path, req)
		if err != nil {
			var qe *Error
			if errors.As(err, &qe) {
				return nil, err
			}
			return nil, fmt.Errorf("reading %s: %w", s.name, err)
		}
		return st, nil
	}
	st, err := read(req)
	if err != nil {
		return nil, err
	}
	applied := st.Applied()
	if len(req.Order) > 0 && applied.Limit && !applied.Order {
		// A reader that cut the rows without sorting them first (one
		// written before scan.Request.Order) lost rows the top-N needs:
		// read again without the limit.
		req.Limit, req.Order = 0, nil
		if st, err = read(req); err != nil {
			return nil, err
		}
		applied = st.Applied()
	}
	for i, c := range sent {
		if i >= len(applied.Filters) || !applied.Filters[i] {
			kept = append(kept, c)
		}
	}
	out := *s
	out.table, out.req, out.applied = st, &req, applied
	return filterAbove(&out, kept), nil
}

// toScanExpr translates a filter over a scan's columns into scan.Expr when
// it means exactly the same: columns (through casts that keep every value),
// literals, comparisons, IN, IS [NOT] NULL, AND, OR, NOT.
func toScanExpr(e rex, fs []field) (scan.Expr, bool) {
	switch x := e.(type) {
	case *rCol:
		return scan.Column{Name: fs[x.idx].name}, true
	case *rCast:
		if c, ok := x.x.(*rCol); ok && exactWidening(c.t, x.to) {
			return scan.Column{Name: fs[c.idx].name}, true
		}
	case *rLit:
		l, ok := scanLiteral(x)
		return l, ok
	case *rCmp:
		l, ok1 := toScanExpr(x.l, fs)
		r, ok2 := toScanExpr(x.r, fs)
		if !ok1 || !ok2 {
			return nil, false
		}
		op := x.op
		if op == "!=" {
			op = "<>"
		}
		return scan.Compare{Op: op, Left: l, Right: r}, true
	case *rIn:
		v, ok := toScanExpr(x.x, fs)
		if !ok {
			return nil, false
		}
		in := scan.In{Expr: v}
		for _, item := range x.list {
			lit, isLit := item.(*rLit)
			if !isLit {
				return nil, false
			}
			l, ok := scanLiteral(lit)
			if !ok {
				return nil, false
			}
			in.List = append(in.List, l)
		}
		return in, true
	case *rIsNull:
		v, ok := toScanExpr(x.x, fs)
		return scan.IsNull{Expr: v, Not: x.not}, ok
	case *rLogic:
		l, ok1 := toScanExpr(x.l, fs)
		r, ok2 := toScanExpr(x.r, fs)
		if !ok1 || !ok2 {
			return nil, false
		}
		if x.and {
			return scan.And{Left: l, Right: r}, true
		}
		return scan.Or{Left: l, Right: r}, true
	case *rNot:
		if in, ok := x.x.(*rIn); ok {
			if t, ok := toScanExpr(in, fs); ok {
				s := t.(scan.In)
				s.Not = true
				return s, true
			}
			return nil, false
		}
		v, ok := toScanExpr(x.x, fs)
		return scan.Not{Expr: v}, ok
	}
	return nil, false
}

// exactWidening says whether every value of from is the same value in to
// (an integer in a wider integer, a small integer or float in a double).
func exactWidening(from, to arrow.DataType) bool {
	switch {
	case isIntegral(from) && isIntegral(to):
		return numRank(from) <= numRank(to)
	case to.ID() == arrow.FLOAT64:
		return numRank(from) >= 1 && numRank(from) <= 3 || from.ID() == arrow.FLOAT32
	}
	return false
}

func scanLiteral(x *rLit) (scan.Literal, bool) {
	t := typeName(x.t)
	switch v := x.v.(type) {
	case nil:
		return scan.Literal{Type: t}, true
	case bool, int64, float64, string, []byte:
		return scan.Literal{Value: v, Type: t}, true
	case int8:
		return scan.Literal{Value: int64(v), Type: t}, true
	case int16:
		return scan.Literal{Value: int64(v), Type: t}, true
	case int32:
		return scan.Literal{Value: int64(v), Type: t}, true
	case float32:
		return scan.Literal{Value: float64(v), Type: t}, true
	case time.Time:
		return scan.Literal{Value: v, Type: t}, true
	case decimal128.Num:
		d, ok := x.t.(*arrow.Decimal128Type)
		if !ok {
			return scan.Literal{}, false
		}
		return scan.Literal{Value: v.ToString(d.Scale), Type: t}, true
	}
	return scan.Literal{}, false
}
