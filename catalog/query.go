package catalog

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/query"
	_ "github.com/sluicedata/sluice/dataframe/query/functions" // the scalar SQL functions
)

// Query runs a parsed query (docs/sql.md#select) over the session's tables
// on the query engine and returns its rows.
func (s *Session) Query(ctx context.Context, q query.Query) (*dataframe.Frame, error) {
	plan, release, err := s.compileQuery(ctx, q)
	if err != nil {
		return nil, err
	}
	defer release()
	return plan.Frame(ctx)
}

// compileQuery plans q, reading the tables it names through the session;
// release drops them once the plan has run.
func (s *Session) compileQuery(ctx context.Context, q query.Query) (*query.Plan, func(), error) {
	r := &sessionTables{s: s}
	opts := query.Options{}
	if v, ok := s.Get(query.SortLimitSetting); ok {
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil || n <= 0 {
			return nil, nil, fmt.Errorf("setting %s=%q: want a number of bytes", query.SortLimitSetting, v)
		}
		opts.SortMemory = n
	}
	plan, err := query.Compile(ctx, q, r, opts)
	if err != nil {
		r.release()
		return nil, nil, err
	}
	return plan, r.release, nil
}

// sessionTables resolves a query's table names with Session.Read.
type sessionTables struct {
	s      *Session
	frames []*dataframe.Frame
}

func (r *sessionTables) Table(ctx context.Context, name []string) (query.Table, error) {
	f, err := r.s.Read(ctx, strings.Join(name, "."), nil)
	if err != nil {
		return nil, err
	}
	r.frames = append(r.frames, f)
	return query.FrameTable(f), nil
}

func (r *sessionTables) release() {
	for _, f := range r.frames {
		f.Release()
	}
	r.frames = nil
}
