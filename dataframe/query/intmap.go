package query

// intMap maps int64 keys to group ids: an open-addressing hash table with
// linear probing, without the boxing and the generic hashing of a Go map
// (see docs/sql.md#performance). Ids are ≥ 0.
type intMap struct {
	keys  []int64
	ids   []int32 // id+1; 0 marks an empty slot
	mask  uint64
	shift uint
	n     int
	// dense, when set, maps key-lo to id (-1 none) for keys in a small
	// range: a join's build side of keys 1…n is one array read per probe.
	dense []int32
	lo    int64
	// hashed: the keys proved too spread for a dense array; grouping
	// stays with the hash table.
	hashed bool
}

// denseGroupSpan is the widest key range (hi-lo+1) a grouping keeps in a
// dense array (256 KiB of ids): small integer keys — codes, days, ranks —
// then cost one array read per row instead of a probe.
const denseGroupSpan = 1 << 16

func newIntMap() *intMap {
	m := &intMap{}
	m.resize(1 << 10)
	return m
}

func (m *intMap) resize(size int) {
	keys, ids := m.keys, m.ids
	m.keys, m.ids = make([]int64, size), make([]int32, size)
	m.mask = uint64(size - 1)
	m.shift = uint(64 - bitsLen(size-1))
	for i, id := range ids {
		if id != 0 {
			m.insertNew(keys[i], id)
		}
	}
}

func bitsLen(x int) int {
	n := 0
	for x > 0 {
		n++
		x >>= 1
	}
	return n
}

func (m *intMap) slot(k int64) uint64 {
	return (uint64(k) * 0x9E3779B97F4A7C15) >> m.shift
}

func (m *intMap) insertNew(k int64, id1 int32) {
	for s := m.slot(k); ; s = (s + 1) & m.mask {
		if m.ids[s] == 0 {
			m.keys[s], m.ids[s] = k, id1
			return
		}
	}
}

// get returns k's id, or -1.
func (m *intMap) get(k int64) int32 {
	if m.dense != nil {
		if d := uint64(k - m.lo); d < uint64(len(m.dense)) {
			return m.dense[d]
		}
		return -1
	}
	for s := m.slot(k); ; s = (s + 1) & m.mask {
		id := m.ids[s]
		if id == 0 {
			return -1
		}
		if m.keys[s] == k {
			return id - 1
		}
	}
}

// getOrAdd returns k's id, giving it next when it has none (added true).
func (m *intMap) getOrAdd(k int64, next int32) (id int32, added bool) {
	if m.dense != nil || (m.n == 0 && !m.hashed) {
		if m.growDense(k, k) {
			d := &m.dense[k-m.lo]
			if *d >= 0 {
				return *d, false
			}
			*d = next
			m.n++
			return next, true
		}
	}
	for s := m.slot(k); ; s = (s + 1) & m.mask {
		id := m.ids[s]
		if id == 0 {
			m.keys[s], m.ids[s] = k, next+1
			m.n++
			if 2*m.n > len(m.ids) {
				m.resize(2 * len(m.ids))
			}
			return next, true
		}
		if m.keys[s] == k {
			return id - 1, false
		}
	}
}

// growDense makes the dense array cover lo…hi besides the keys it holds
// (the map holding none yet, or holding them densely) and says true, or,
// when the span would pass denseGroupSpan, moves the keys into the hash
// table for good and says false.
func (m *intMap) growDense(lo, hi int64) bool {
	if m.hashed {
		return false
	}
	if m.dense != nil {
		top := m.lo + int64(len(m.dense)) - 1
		if lo >= m.lo && hi <= top {
			return true
		}
		lo, hi = min(lo, m.lo), max(hi, top)
	}
	if uint64(hi)-uint64(lo) >= denseGroupSpan {
		m.hashed = true
		if m.dense != nil {
			dense, base := m.dense, m.lo
			m.dense = nil
			size := 1 << 10
			for size < 2*m.n+2 {
				size *= 2
			}
			m.resize(size)
			for i, id := range dense {
				if id >= 0 {
					m.insertNew(base+int64(i), id+1)
				}
			}
		}
		return false
	}
	dense := make([]int32, uint64(hi)-uint64(lo)+1)
	for i := range dense {
		dense[i] = -1
	}
	if m.dense != nil {
		copy(dense[m.lo-lo:], m.dense)
	}
	m.dense, m.lo = dense, lo
	m.keys, m.ids = nil, nil
	return true
}

// freeze turns the map into a dense array when its keys span a range at
// most four times their number; it is then read-only.
func (m *intMap) freeze() {
	if m.n == 0 || m.dense != nil {
		return
	}
	lo, hi := int64(0), int64(0)
	first := true
	for i, id := range m.ids {
		if id == 0 {
			continue
		}
		k := m.keys[i]
		if first || k < lo {
			lo = k
		}
		if first || k > hi {
			hi = k
		}
		first = false
	}
	span := uint64(hi - lo)
	if span >= uint64(4*m.n+1024) {
		return
	}
	dense := make([]int32, span+1)
	for i := range dense {
		dense[i] = -1
	}
	for i, id := range m.ids {
		if id != 0 {
			dense[m.keys[i]-lo] = id - 1
		}
	}
	m.dense, m.lo = dense, lo
	m.keys, m.ids = nil, nil
}

// denseBatch gives the ids of a batch of keys (no NULLs) through the dense
// array when their range lets it cover them, calling add for each key met
// first; false leaves gids to the caller.
func (m *intMap) denseBatch(v []int64, gids []int32, add func(i int) int32) bool {
	if m.hashed || (m.dense == nil && m.n > 0) {
		return false
	}
	lo, hi := v[0], v[0]
	for _, k := range v[1:] {
		lo, hi = min(lo, k), max(hi, k)
	}
	if !m.growDense(lo, hi) {
		return false
	}
	dense, base := m.dense, m.lo
	for i, k := range v {
		d := &dense[k-base]
		if *d < 0 {
			*d = add(i)
			m.n++
		}
		gids[i] = *d
	}
	return true
}
