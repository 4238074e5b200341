package query

import (
	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/sluicedata/sluice/dataframe"
)

// setOpOp is INTERSECT or EXCEPT [ALL]: the right side is read and its
// distinct rows counted (NULLs equal, as in Spark's set operations), then
// the left side streams through. INTERSECT keeps a left row the right has
// (ALL: as many times as both have it), EXCEPT one it has not (ALL: the
// left's copies beyond the right's count); without ALL each row once.
type setOpOp struct {
	left, right op
	intersect   bool
	all         bool
	schema      *arrow.Schema
	e           *env

	built   bool
	g       *grouper
	rgroups int32   // groups 0…rgroups-1 are the right side's rows
	count   []int64 // per right group, the copies left to match
	emitted []bool  // per group, already yielded (without ALL)
}

func (o *setOpOp) buildSide() error {
	o.built = true
	types := make([]arrow.DataType, o.schema.NumFields())
	for i, f := range o.schema.Fields() {
		types[i] = f.Type
	}
	o.g = newGrouper(o.e.mem, types)
	for {
		rec, err := o.right.next()
		if err != nil {
			return err
		}
		if rec == nil {
			break
		}
		gids, err := o.g.ids(rec.Columns(), int(rec.NumRows()))
		rec.Release()
		if err != nil {
			return err
		}
		o.count = growTo(o.count, int(o.g.n))
		for _, g := range gids {
			o.count[g]++
		}
	}
	o.rgroups = o.g.n
	return nil
}

func (o *setOpOp) next() (arrow.Record, error) {
	if !o.built {
		if err := o.buildSide(); err != nil {
			return nil, err
		}
	}
	for {
		rec, err := o.left.next()
		if err != nil || rec == nil {
			return nil, err
		}
		out, err := o.filter(rec)
		rec.Release()
		if err != nil || out != nil {
			return out, err
		}
	}
}

func (o *setOpOp) filter(rec arrow.Record) (arrow.Record, error) {
	n := int(rec.NumRows())
	gids, err := o.g.ids(rec.Columns(), n)
	if err != nil {
		return nil, err
	}
	o.emitted = growTo(o.emitted, int(o.g.n))
	var keep []int64
	for i, g := range gids {
		inRight := g < o.rgroups
		var yes bool
		switch {
		case o.all && o.intersect:
			if yes = inRight && o.count[g] > 0; yes {
				o.count[g]--
			}
		case o.all:
			if inRight && o.count[g] > 0 {
				o.count[g]--
			} else {
				yes = true
			}
		default:
			yes = inRight == o.intersect && !o.emitted[g]
			if yes {
				o.emitted[g] = true
			}
		}
		if yes {
			keep = append(keep, int64(i))
		}
	}
	if len(keep) == 0 {
		return nil, nil
	}
	if len(keep) == n {
		return array.NewRecord(o.schema, rec.Columns(), rec.NumRows()), nil
	}
	t, err := dataframe.TakeRecord(o.e.mem, rec, keep)
	if err != nil {
		return nil, err
	}
	defer t.Release()
	return array.NewRecord(o.schema, t.Columns(), t.NumRows()), nil
}

func (o *setOpOp) close() {
	o.left.close()
	o.right.close()
	if o.g != nil {
		o.g.release()
		o.g = nil
	}
}
