package restapi

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/sluicedata/sluice/connectors"
	"github.com/sluicedata/sluice/dataframe"
)

var _ connectors.IncrementalReader = (*Connector)(nil)

// incremental is the typed form of the incremental.* properties.
type incremental struct {
	// Cursor is the dotted path of the cursor in each record. Defaults to
	// none (not incremental).
	Cursor string
	// Param is the query parameter carrying the last value. Required with Cursor.
	Param string
	// Initial is sent on the first run. Defaults to none (no parameter).
	Initial string
	// EndParam and End bound every request from above. Default to none.
	EndParam, End string
	// PrimaryKey is the dotted path of the key de-duplicating rows at the
	// last value. Defaults to none.
	PrimaryKey string
}

// parseIncremental reads and checks the incremental properties; a
// half-configured set is an error naming what is missing.
func parseIncremental(p connectors.Props) (*incremental, error) {
	in := &incremental{
		Cursor:     strings.TrimSpace(p[PropIncrementalCursor]),
		Param:      strings.TrimSpace(p[PropIncrementalParam]),
		Initial:    p[PropIncrementalInitial],
		EndParam:   strings.TrimSpace(p[PropIncrementalEndParam]),
		End:        p[PropIncrementalEnd],
		PrimaryKey: strings.TrimSpace(p[PropPrimaryKey]),
	}
	var errs []error
	if in.Cursor == "" {
		for _, k := range []string{PropIncrementalParam, PropIncrementalInitial, PropIncrementalEndParam, PropIncrementalEnd} {
			if _, ok := p[k]; ok {
				errs = append(errs, fmt.Errorf("property %s needs %s (the cursor field of each record)", k, PropIncrementalCursor))
			}
		}
		return in, connectors.JoinErrors(errs)
	}
	if in.Param == "" {
		errs = append(errs, fmt.Errorf("property %s needs %s (the query parameter that carries the last value)", PropIncrementalCursor, PropIncrementalParam))
	}
	if (in.EndParam == "") != (in.End == "") {
		errs = append(errs, fmt.Errorf("properties %s and %s go together; only one is set", PropIncrementalEndParam, PropIncrementalEnd))
	}
	if parse, err := p.Bool(PropParsePayload, false); err == nil && !parse {
		errs = append(errs, fmt.Errorf("property %s needs %s=true: the cursor is a field of the parsed records", PropIncrementalCursor, PropParsePayload))
	}
	return in, connectors.JoinErrors(errs)
}

// Incremental reports whether svc.restapi.incremental.cursor is set.
func (*Connector) Incremental(p connectors.Props) bool {
	return strings.TrimSpace(p[PropIncrementalCursor]) != ""
}

// ReadIncremental reads with the last value (or incremental.initial on the
// first run) in incremental.param, drops the rows the last run delivered,
// and returns the state to store once these rows are delivered.
func (c *Connector) ReadIncremental(ctx context.Context, ds *connectors.Dataset, prev *connectors.State) (*dataframe.Frame, *connectors.State, error) {
	red := connectors.NewRedactor(ds.Props)
	name := datasetName(ds)
	in, err := parseIncremental(ds.Props)
	if err == nil && in.Cursor == "" {
		err = fmt.Errorf("property %s is not set", PropIncrementalCursor)
	}
	if err != nil {
		return nil, nil, red.Error(fmt.Errorf("reading %s: %w", name, err))
	}
	if prev != nil && prev.Cursor != in.Cursor {
		// The session names the state file and how to reset it.
		return nil, nil, fmt.Errorf("reading %s: %w: it is the state of cursor %q, the table's %s is %q", name, connectors.ErrDamagedState, prev.Cursor, PropIncrementalCursor, in.Cursor)
	}
	// The parameters go on every request of the read, next_url and link
	// pages included (see docs/incremental.md#incremental-reads).
	opts := readOptionsFrom(ctx)
	opts.Query = append([]QueryParam(nil), opts.Query...)
	switch {
	case prev != nil && prev.LastValue != "":
		opts.Query = append(opts.Query, QueryParam{Name: in.Param, Value: prev.LastValue})
	case in.Initial != "":
		opts.Query = append(opts.Query, QueryParam{Name: in.Param, Value: in.Initial})
	}
	if in.EndParam != "" {
		opts.Query = append(opts.Query, QueryParam{Name: in.EndParam, Value: in.End})
	}
	ctx = WithReadOptions(ctx, opts)
	f, err := c.Read(ctx, ds)
	if err != nil {
		return nil, nil, err
	}
	out, next, err := connectors.ApplyIncremental(f, connectors.Incremental{
		Cursor: in.Cursor, CursorProperty: PropIncrementalCursor,
		Key: in.PrimaryKey, KeyProperty: PropPrimaryKey,
	}, prev, time.Now())
	if err != nil {
		f.Release()
		return nil, nil, red.Error(fmt.Errorf("reading %s: %w", name, err))
	}
	return out, next, nil
}
