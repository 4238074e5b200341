package query

import (
	"strings"

	"github.com/apache/arrow/go/v17/arrow"
)

// scol is one column a name may resolve to: the output column of the same
// position of the plan the scope belongs to.
type scol struct {
	quals []string // the table names and aliases that may qualify it
	name  string
	typ   arrow.DataType
	// hidden columns are not part of an unqualified `*`: a USING or
	// NATURAL join's per-side key columns, ORDER BY helper columns.
	hidden bool
	// qualOnly columns resolve only by a qualified name (t2.k of a USING
	// join, where k alone is the merged key).
	qualOnly bool
	// ord is the column's place among its table's columns where the
	// scope reorders them (a USING join puts the keys first); `t.*` lists
	// a table's columns in that order.
	ord int
}

// scope is the columns an expression over a plan may name, in the plan's
// output order.
type scope struct{ cols []scol }

func (s *scope) names() []string {
	out := make([]string, 0, len(s.cols))
	for _, c := range s.cols {
		if !c.hidden {
			out = append(out, c.name)
		}
	}
	return out
}

func (s *scope) types() []arrow.DataType {
	out := make([]arrow.DataType, len(s.cols))
	for i, c := range s.cols {
		out[i] = c.typ
	}
	return out
}

// requalified is the scope with every column under the qualifiers quals
// (a subquery's or CTE's alias), hidden columns dropped from view.
func (s *scope) requalified(quals []string) *scope {
	out := &scope{cols: make([]scol, len(s.cols))}
	for i, c := range s.cols {
		c.quals = quals
		c.qualOnly = false
		c.ord = i
		out.cols[i] = c
	}
	return out
}

// resolve finds the column a path starts with: qualified (`t.a`,
// `ns.t.a`) first, then bare. It returns the column and the struct fields
// after it.
func (s *scope) resolve(path []string, pos Pos) (int, []string, error) {
	for k := min(2, len(path)-1); k >= 1; k-- {
		qual := strings.Join(path[:k], ".")
		found := -1
		for i, c := range s.cols {
			if strings.EqualFold(c.name, path[k]) && hasQual(c.quals, qual) {
				if found >= 0 {
					return 0, nil, errorf(pos, "column %s is ambiguous", strings.Join(path[:k+1], "."))
				}
				found = i
			}
		}
		if found >= 0 {
			return found, path[k+1:], nil
		}
	}
	found := -1
	for i, c := range s.cols {
		if c.qualOnly || !strings.EqualFold(c.name, path[0]) {
			continue
		}
		if found >= 0 {
			return 0, nil, errorf(pos, "column %s is ambiguous (it is in %s and %s); qualify it", path[0], qualName(s.cols[found]), qualName(c))
		}
		found = i
	}
	if found < 0 {
		return 0, nil, errorf(pos, "unknown column %s%s", strings.Join(path, "."), didYouMean(path[len(path)-1], s.names()))
	}
	return found, path[1:], nil
}

// has says whether the bare or qualified name path resolves (to anything,
// ambiguous included).
func (s *scope) has(path []string) bool {
	_, _, err := s.resolve(path, Pos{})
	if err == nil {
		return true
	}
	return strings.Contains(err.Error(), "ambiguous")
}

func qualName(c scol) string {
	if len(c.quals) > 0 {
		return c.quals[0] + "." + c.name
	}
	return c.name
}

func hasQual(quals []string, q string) bool {
	for _, x := range quals {
		if strings.EqualFold(x, q) {
			return true
		}
	}
	return false
}
