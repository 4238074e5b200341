package query

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/sluicedata/sluice/dataframe"
)

// Table is a named input of a query: a schema known at planning time and a
// record-batch stream opened at run time (as often as the query reads it).
type Table interface {
	Schema() *arrow.Schema
	Open(ctx context.Context) (array.RecordReader, error)
}

// Resolver finds the table a query names (`ns.t`, `t`, a pipeline step id).
// Its error for an unknown name should say so with a did-you-mean; the
// planner adds the position.
type Resolver interface {
	Table(ctx context.Context, name []string) (Table, error)
}

// FrameTable makes a Table of a materialised frame. The frame must outlive
// the query.
func FrameTable(f *dataframe.Frame) Table { return frameTable{f} }

type frameTable struct{ f *dataframe.Frame }

func (t frameTable) Schema() *arrow.Schema { return t.f.Schema() }
func (t frameTable) Open(context.Context) (array.RecordReader, error) {
	return array.NewRecordReader(t.f.Schema(), t.f.Records())
}

// Tables resolves names from a map (keys lower-case, dotted for
// namespaces): the Go API and pipelines name frames this way.
type Tables map[string]Table

// Table implements Resolver.
func (m Tables) Table(_ context.Context, name []string) (Table, error) {
	key := strings.ToLower(strings.Join(name, "."))
	if t, ok := m[key]; ok {
		return t, nil
	}
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	return nil, &Error{Msg: fmt.Sprintf("unknown table %s%s", strings.Join(name, "."), didYouMean(key, names))}
}
