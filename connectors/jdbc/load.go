package jdbc

import (
	"fmt"

	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/cells"
)

// rowSource walks the rows of a bulk load's batches and turns each into
// the Go values of its columns (see converter); the dialect encodes them.
type rowSource struct {
	cols  []loadColumn
	convs []*converter
	recs  []dataframe.Record
	total int64

	rec    int // index in recs
	cur    []cells.Column
	i, n   int   // row in the current batch
	row    int64 // 1-based row within the load
	column string
	vals   []any
	err    error
}

func newRowSource(cols []loadColumn, recs []dataframe.Record) (*rowSource, error) {
	s := &rowSource{cols: cols, recs: recs, vals: make([]any, len(cols)), rec: -1}
	for _, r := range recs {
		s.total += r.NumRows()
	}
	s.convs = make([]*converter, len(cols))
	if len(recs) == 0 {
		return s, nil
	}
	schema := recs[0].Schema()
	for i, lc := range cols {
		if lc.Src < 0 {
			continue
		}
		cv, err := newConverter(schema.Field(lc.Src).Type, lc.Target)
		if err != nil {
			return nil, err
		}
		s.convs[i] = cv
	}
	return s, nil
}

// Next moves to the next row.
func (s *rowSource) Next() bool {
	for s.i+1 >= s.n {
		s.rec++
		if s.rec >= len(s.recs) {
			return false
		}
		s.cur = cells.Columns(s.recs[s.rec])
		s.i, s.n = -1, int(s.recs[s.rec].NumRows())
	}
	s.i++
	s.row++
	return true
}

// values converts the current row; a value its column cannot take is an
// error naming the column (the caller adds the row).
func (s *rowSource) values() ([]any, error) {
	for j, lc := range s.cols {
		s.column = lc.Name
		if lc.Src < 0 {
			s.vals[j] = lc.seqBase + s.row
			continue
		}
		v, err := s.convs[j].value(s.cur[lc.Src], s.i)
		if err != nil {
			s.err = &loadRowError{Row: s.row, Column: lc.Name, Err: err, local: true}
			return nil, s.err
		}
		s.vals[j] = v
	}
	return s.vals, nil
}

// Err is the error that stopped the walk.
func (s *rowSource) Err() error { return s.err }

// loadRowError is a row a bulk load refused. Row is 1-based within the
// load until the writer makes it the frame's row.
type loadRowError struct {
	Row    int64
	Column string
	Err    error
	local  bool // found by Sluice before the database saw the row
}

func (e *loadRowError) Error() string {
	return fmt.Sprintf("row %d, column %s: %v", e.Row, e.Column, e.Err)
}
func (e *loadRowError) Unwrap() error { return e.Err }
