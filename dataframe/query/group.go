package query

import (
	"encoding/binary"
	"math"
	"strings"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"
	"github.com/sluicedata/sluice/dataframe"
)

// grouper numbers the distinct key tuples it sees (0, 1, 2, … in order of
// first appearance) and keeps each group's key values. NULL is a key value
// like any other, as in GROUP BY, DISTINCT and the hash join's build side
// (which skips NULL keys itself).
type grouper struct {
	mem   memory.Allocator
	types []arrow.DataType
	ints  *intMap
	strs  map[string]int32
	gen   map[string]int32
	null  int32 // the group of the NULL key in the one-column maps; -1 none
	n     int32
	// keys holds, per key column, chunks of the key values of new groups.
	keys [][]arrow.Array
	buf  []byte
}

func newGrouper(mem memory.Allocator, types []arrow.DataType) *grouper {
	g := &grouper{mem: mem, types: types, null: -1, keys: make([][]arrow.Array, len(types))}
	switch {
	case len(types) == 1 && intKey(types[0]):
		g.ints = newIntMap()
	case len(types) == 1 && types[0].ID() == arrow.STRING:
		g.strs = make(map[string]int32)
	default:
		g.gen = make(map[string]int32)
	}
	return g
}

func intKey(dt arrow.DataType) bool {
	switch dt.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.DATE32, arrow.TIMESTAMP, arrow.BOOL, arrow.DURATION, arrow.INTERVAL_MONTHS:
		return true
	}
	return false
}

// intsOf reads an integer-like column as int64 values.
func intsOf(a arrow.Array) func(i int) int64 {
	switch a.DataType().ID() {
	case arrow.INT8:
		v := fixedValues[int8](a)
		return func(i int) int64 { return int64(v[i]) }
	case arrow.INT16:
		v := fixedValues[int16](a)
		return func(i int) int64 { return int64(v[i]) }
	case arrow.INT32, arrow.DATE32, arrow.INTERVAL_MONTHS:
		v := fixedValues[int32](a)
		return func(i int) int64 { return int64(v[i]) }
	case arrow.BOOL:
		b := a.(*array.Boolean)
		return func(i int) int64 {
			if b.Value(i) {
				return 1
			}
			return 0
		}
	}
	v := fixedValues[int64](a)
	return func(i int) int64 { return v[i] }
}

// ids returns the group of every row of the key columns, creating groups
// for new keys.
func (g *grouper) ids(keys []arrow.Array, n int) ([]int32, error) {
	gids := make([]int32, n)
	var fresh []int64
	newGroup := func(i int) int32 {
		fresh = append(fresh, int64(i))
		g.n++
		return g.n - 1
	}
	switch {
	case g.ints != nil:
		a := keys[0]
		if id := a.DataType().ID(); id == arrow.INT64 || id == arrow.TIMESTAMP || id == arrow.DURATION {
			v := fixedValues[int64](a)
			nulls := a.NullN() > 0
			if !nulls && n > 0 && g.ints.denseBatch(v[:n], gids, newGroup) {
				break
			}
			for i := 0; i < n; i++ {
				if nulls && a.IsNull(i) {
					if g.null < 0 {
						g.null = newGroup(i)
					}
					gids[i] = g.null
					continue
				}
				id, added := g.ints.getOrAdd(v[i], g.n)
				if added {
					newGroup(i)
				}
				gids[i] = id
			}
			break
		}
		get := intsOf(a)
		for i := 0; i < n; i++ {
			if a.IsNull(i) {
				if g.null < 0 {
					g.null = newGroup(i)
				}
				gids[i] = g.null
				continue
			}
			id, added := g.ints.getOrAdd(get(i), g.n)
			if added {
				newGroup(i)
			}
			gids[i] = id
		}
	case g.strs != nil:
		a := keys[0].(*array.String)
		for i := 0; i < n; i++ {
			if a.IsNull(i) {
				if g.null < 0 {
					g.null = newGroup(i)
				}
				gids[i] = g.null
				continue
			}
			s := a.Value(i)
			id, ok := g.strs[s]
			if !ok {
				id = newGroup(i)
				g.strs[strings.Clone(s)] = id
			}
			gids[i] = id
		}
	default:
		enc := keyEncoders(keys)
		for i := 0; i < n; i++ {
			b := g.buf[:0]
			for _, e := range enc {
				b = e(b, i)
			}
			g.buf = b
			id, ok := g.gen[string(b)]
			if !ok {
				id = newGroup(i)
				g.gen[string(b)] = id
			}
			gids[i] = id
		}
	}
	if len(fresh) > 0 {
		for k, a := range keys {
			t, err := dataframe.Take(g.mem, a, fresh)
			if err != nil {
				return nil, err
			}
			g.keys[k] = append(g.keys[k], t)
		}
	}
	return gids, nil
}

// keyEncoders is keyEncoder of each key column.
func keyEncoders(keys []arrow.Array) []func(b []byte, i int) []byte {
	enc := make([]func(b []byte, i int) []byte, len(keys))
	for k, a := range keys {
		enc[k] = keyEncoder(a)
	}
	return enc
}

// keyEncoder appends a self-delimiting encoding of element i of a: equal
// values (and NULLs) encode alike, different ones differently.
func keyEncoder(a arrow.Array) func(b []byte, i int) []byte {
	null := func(b []byte, i int) ([]byte, bool) {
		if isNullAt(a, i) {
			return append(b, 0), true
		}
		return append(b, 1), false
	}
	switch {
	case intKey(a.DataType()):
		get := intsOf(a)
		return func(b []byte, i int) []byte {
			b, isNull := null(b, i)
			if isNull {
				return b
			}
			return binary.LittleEndian.AppendUint64(b, uint64(get(i)))
		}
	case a.DataType().ID() == arrow.FLOAT64:
		v := fixedValues[float64](a)
		return func(b []byte, i int) []byte {
			b, isNull := null(b, i)
			if isNull {
				return b
			}
			f := v[i]
			if f == 0 {
				f = 0 // -0.0 groups with 0.0
			}
			if f != f {
				f = math.NaN()
			}
			return binary.LittleEndian.AppendUint64(b, math.Float64bits(f))
		}
	case a.DataType().ID() == arrow.STRING:
		s := a.(*array.String)
		return func(b []byte, i int) []byte {
			b, isNull := null(b, i)
			if isNull {
				return b
			}
			v := s.Value(i)
			b = binary.AppendUvarint(b, uint64(len(v)))
			return append(b, v...)
		}
	}
	return func(b []byte, i int) []byte {
		b, isNull := null(b, i)
		if isNull {
			return b
		}
		j := dataframe.AppendJSONValue(nil, a, i)
		b = binary.AppendUvarint(b, uint64(len(j)))
		return append(b, j...)
	}
}

// keyArrays returns the key values of every group, in group order.
func (g *grouper) keyArrays() ([]arrow.Array, error) {
	out := make([]arrow.Array, len(g.keys))
	for k, chunks := range g.keys {
		a, err := concatArrays(g.mem, g.types[k], chunks)
		if err != nil {
			for _, x := range out[:k] {
				x.Release()
			}
			return nil, err
		}
		out[k] = a
	}
	return out, nil
}

func (g *grouper) release() {
	for _, chunks := range g.keys {
		for _, c := range chunks {
			c.Release()
		}
	}
	g.keys = nil
}

// lookup returns the group of every row of keys, -1 for a key never seen
// or containing a NULL (joins never match NULL keys).
func (g *grouper) lookup(keys []arrow.Array, n int, dst []int32) []int32 {
	out := dst[:0]
	if cap(out) < n {
		out = make([]int32, n)
	}
	out = out[:n]
	anyNull := func(i int) bool {
		for _, k := range keys {
			if k.IsNull(i) {
				return true
			}
		}
		return false
	}
	switch {
	case g.ints != nil:
		a := keys[0]
		nulls := a.NullN() > 0
		if id := a.DataType().ID(); id == arrow.INT64 || id == arrow.TIMESTAMP || id == arrow.DURATION {
			v := fixedValues[int64](a)
			for i := 0; i < n; i++ {
				out[i] = g.ints.get(v[i])
			}
		} else {
			get := intsOf(a)
			for i := 0; i < n; i++ {
				out[i] = g.ints.get(get(i))
			}
		}
		if nulls {
			for i := 0; i < n; i++ {
				if a.IsNull(i) {
					out[i] = -1
				}
			}
		}
	case g.strs != nil:
		a := keys[0].(*array.String)
		for i := 0; i < n; i++ {
			id, ok := g.strs[a.Value(i)]
			if !ok || a.IsNull(i) {
				id = -1
			}
			out[i] = id
		}
	default:
		enc := keyEncoders(keys)
		for i := 0; i < n; i++ {
			if anyNull(i) {
				out[i] = -1
				continue
			}
			b := g.buf[:0]
			for _, e := range enc {
				b = e(b, i)
			}
			g.buf = b
			id, ok := g.gen[string(b)]
			if !ok {
				id = -1
			}
			out[i] = id
		}
	}
	return out
}
