package jdbc

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// bound is a partition bound: a number, a date (days) or a timestamp (µs).
type bound struct {
	kind string // long, date or timestamp
	v    int64
}

// parseBound reads lower.bound / upper.bound: a number, `YYYY-MM-DD` or
// RFC 3339.
func parseBound(prop, s string) (bound, error) {
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return bound{"long", n}, nil
	}
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return bound{"date", t.Unix() / 86400}, nil
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return bound{"timestamp", t.UnixMicro()}, nil
	}
	return bound{}, fmt.Errorf("property %s: %q is not an integer, a YYYY-MM-DD date or an RFC 3339 timestamp", prop, s)
}

func (b bound) param() any {
	switch b.kind {
	case "date":
		return time.Unix(b.v*86400, 0).UTC()
	case "timestamp":
		return time.UnixMicro(b.v).UTC()
	}
	return b.v
}

// partitionWhere returns the predicates of Spark's column partitioning: n
// ranges of equal stride between the bounds, the first also taking NULLs
// and everything below, the last everything above; each row falls in
// exactly one. The bounds set the stride only.
func partitionWhere(d dialect, p *partitioning, col column, argBase int) ([]string, [][]any, error) {
	lo, _ := parseBound(PropLowerBound, p.Lower)
	hi, _ := parseBound(PropUpperBound, p.Upper)
	if col.Spark == "timestamp" {
		// A date bounds a timestamp column at its midnight (UTC), as
		// Spark parses a timestamp bound.
		for _, b := range []*bound{&lo, &hi} {
			if b.kind == "date" {
				*b = bound{"timestamp", b.v * 86400 * 1_000_000}
			}
		}
	}
	if lo.kind != hi.kind {
		return nil, nil, fmt.Errorf("properties %s and %s are not of one kind (%s, %s)", PropLowerBound, PropUpperBound, lo.kind, hi.kind)
	}
	switch {
	case lo.kind == "long" && !isNumeric(col.Spark):
		return nil, nil, fmt.Errorf("property %s: column %s is %s; numeric bounds need a numeric column", PropPartitionColumn, col.Name, col.Spark)
	case lo.kind == "date" && col.Spark != "date":
		return nil, nil, fmt.Errorf("property %s: column %s is %s; date bounds need a date column", PropPartitionColumn, col.Name, col.Spark)
	case lo.kind == "timestamp" && col.Spark != "timestamp":
		return nil, nil, fmt.Errorf("property %s: column %s is %s; timestamp bounds need a timestamp column", PropPartitionColumn, col.Name, col.Spark)
	}
	if lo.v > hi.v {
		return nil, nil, fmt.Errorf("property %s (%s) is above %s (%s)", PropLowerBound, p.Lower, PropUpperBound, p.Upper)
	}
	n := int64(p.N)
	if hi.v-lo.v < n && hi.v-lo.v > 0 {
		n = hi.v - lo.v // Spark: no more partitions than values in the range
	}
	if n <= 1 || lo.v == hi.v {
		return []string{""}, [][]any{nil}, nil
	}
	stride := hi.v/n - lo.v/n
	q := d.quote(col.Name)
	var where []string
	var args [][]any
	cur := lo.v
	for i := int64(0); i < n; i++ {
		var l, u *bound
		if i != 0 {
			l = &bound{lo.kind, cur}
		}
		cur += stride
		if i != n-1 {
			u = &bound{lo.kind, cur}
		}
		var parts []string
		var a []any
		if l != nil {
			parts = append(parts, fmt.Sprintf("%s >= %s", q, d.param(argBase+len(a)+1)))
			a = append(a, l.param())
		}
		if u != nil {
			parts = append(parts, fmt.Sprintf("%s < %s", q, d.param(argBase+len(a)+1)))
			a = append(a, u.param())
		}
		w := strings.Join(parts, " AND ")
		if l == nil {
			w = "(" + w + " OR " + q + " IS NULL)"
		}
		where = append(where, w)
		args = append(args, a)
	}
	return where, args, nil
}

func isNumeric(t string) bool {
	switch t {
	case "byte", "short", "integer", "long", "float", "double":
		return true
	}
	return strings.HasPrefix(t, "decimal")
}
