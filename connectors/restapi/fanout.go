package restapi

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"strings"
	"sync"

	"github.com/sluicedata/sluice/connectors"
	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/jsonframe"
)

var _ connectors.FanoutReader = (*Connector)(nil)

// fanout is the typed form of the fanout.* properties
// (see docs/incremental.md#fan-out).
type fanout struct {
	// From names the parent: a catalog table or a pipeline step id.
	From string
	// Column is the parent column (or dotted path) whose values fan out.
	Column string
	// Token is the property set to each value for a child read.
	Token string
	// Concurrency bounds the child reads at once. Defaults to 4.
	Concurrency int
	// Skip goes on past a failed child (fanout.on.error=skip). Defaults to false.
	Skip bool
}

// parseFanout reads the fanout properties; ok is false when fanout.from
// is not set. A partial set is an error naming what is missing.
func parseFanout(p connectors.Props) (*fanout, bool, error) {
	fo := &fanout{
		From:   strings.TrimSpace(p[PropFanoutFrom]),
		Column: strings.TrimSpace(p[PropFanoutColumn]),
		Token:  strings.TrimSpace(p[PropFanoutToken]),
	}
	if fo.From == "" {
		for _, k := range []string{PropFanoutColumn, PropFanoutToken, PropFanoutConcurrency, PropFanoutOnError} {
			if _, ok := p[k]; ok {
				return nil, false, fmt.Errorf("property %s needs %s (the parent table or pipeline step)", k, PropFanoutFrom)
			}
		}
		return nil, false, nil
	}
	var errs []error
	if fo.Column == "" {
		errs = append(errs, fmt.Errorf("property %s needs %s (the parent column whose values fan out)", PropFanoutFrom, PropFanoutColumn))
	}
	if fo.Token == "" {
		errs = append(errs, fmt.Errorf("property %s needs %s (the property each value is given to, used as a {token} in the URL)", PropFanoutFrom, PropFanoutToken))
	}
	n, err := Properties.Int(p, PropFanoutConcurrency)
	if err != nil {
		errs = append(errs, err)
	}
	fo.Concurrency = int(min(max(n, 1), 1024))
	mode, err := Properties.Enum(p, PropFanoutOnError)
	if err != nil {
		errs = append(errs, err)
	}
	fo.Skip = mode == "skip"
	if err := connectors.JoinErrors(errs); err != nil {
		return nil, false, err
	}
	return fo, true, nil
}

// FanoutFrom reports svc.restapi.fanout.from.
func (*Connector) FanoutFrom(p connectors.Props) (prop, from string, ok bool) {
	from = strings.TrimSpace(p[PropFanoutFrom])
	return PropFanoutFrom, from, from != ""
}

// ParentColumn is the column a fan-out adds to hold the parent value:
// `_parent_<column>` with dots as underscores.
func ParentColumn(column string) string {
	return "_parent_" + strings.ReplaceAll(column, ".", "_")
}

// ReadFanout reads one child per distinct non-null value of the parent's
// fanout.column (each fully paginated, at most fanout.concurrency at once)
// and stacks their rows in parent order with the value in
// `_parent_<column>`. A failed child stops the read naming the value,
// unless fanout.on.error=skip, which warns and goes on.
func (c *Connector) ReadFanout(ctx context.Context, ds *connectors.Dataset, parent *dataframe.Frame, warn io.Writer) (*dataframe.Frame, error) {
	red := connectors.NewRedactor(ds.Props)
	name := datasetName(ds)
	fo, ok, err := parseFanout(ds.Props)
	if err == nil && !ok {
		err = fmt.Errorf("property %s is not set", PropFanoutFrom)
	}
	if err != nil {
		return nil, red.Error(fmt.Errorf("reading %s: %w", name, err))
	}
	values, err := distinctValues(parent, fo.Column)
	if err != nil {
		return nil, fmt.Errorf("reading %s: fan-out from %s: %s %q: %w", name, fo.From, PropFanoutColumn, fo.Column, err)
	}
	base := ds.Props.Clone()
	for _, k := range base.WithPrefix(PropPrefix + "fanout.") {
		delete(base, k)
	}

	// One limiter for every child: svc.restapi.rate.limit paces the whole
	// fan-out, not each child (docs/incremental.md#fan-out); one connection
	// pool, so children reuse connections (and TLS sessions); one origin
	// for the credentials, fixed by the table, never by the parent's
	// values (docs/restapi.md#origins).
	opts := readOptionsFrom(ctx)
	if opts.Limiter == nil {
		if opts.Limiter, err = NewLimiter(base); err != nil {
			return nil, red.Error(fmt.Errorf("reading %s: %w", name, err))
		}
	}
	if opts.pool == nil {
		opts.pool = newTransport(opts.TLSConfig)
		defer opts.pool.CloseIdleConnections()
	}
	og := childOrigin(ctx, base, fo.Token)
	opts.childOrigin = &og
	ctx = WithReadOptions(ctx, opts)

	results := make([]*dataframe.Frame, len(values))
	errs := make([]error, len(values))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	sem := make(chan struct{}, fo.Concurrency)
	var wg sync.WaitGroup
	var failOnce sync.Once
	var firstErr error
	col := ParentColumn(fo.Column)
loop:
	for i, v := range values {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			break loop
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			f, err := c.readChild(ctx, ds, base, fo, col, v)
			if err != nil {
				errs[i] = err
				if !fo.Skip {
					failOnce.Do(func() {
						firstErr = red.Error(fmt.Errorf("reading %s: fan-out child %s=%s: %w", name, fo.Column, v, err))
						cancel()
					})
				}
				return
			}
			results[i] = f
		}()
	}
	wg.Wait()
	defer func() {
		for _, f := range results {
			if f != nil {
				f.Release()
			}
		}
	}()
	if firstErr != nil {
		return nil, firstErr
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("reading %s: %w", name, err)
	}
	skipped := 0
	frames := make([]*dataframe.Frame, 0, len(results))
	for i, f := range results {
		if errs[i] != nil {
			skipped++
			if warn != nil {
				fmt.Fprintf(warn, "sluice: warning: skipped %s=%s: %s\n", fo.Column, values[i], red.String(errs[i].Error()))
			}
			continue
		}
		if f != nil && f.NumRows() > 0 {
			frames = append(frames, f)
		}
	}
	if skipped > 0 && warn != nil {
		fmt.Fprintf(warn, "sluice: warning: skipped %d of %d parent values\n", skipped, len(values))
	}
	if len(frames) == 0 {
		return jsonframe.FromValues(nil, nil)
	}
	out, err := dataframe.Concat(frames...)
	if err != nil {
		return nil, fmt.Errorf("reading %s: stacking the fan-out children: %w", name, err)
	}
	return out, nil
}

// fanoutProbe stands for a fan-out value while the child URL's origin is
// found: a host name that never resolves.
const fanoutProbe = "sluice-fanout-value.invalid"

// childOrigin is the origin of a fan-out's child requests: that of the
// child URL template with its fan-out token unresolved, or, where the
// origin itself comes from the token, that of the parent table's URL; ""
// when there is none (then only svc.restapi.allowed.origins get requests).
func childOrigin(ctx context.Context, base connectors.Props, token string) origin {
	probe := base.Clone()
	probe[token] = fanoutProbe
	if u, err := ResolveURL(probe); err == nil {
		if pu, err := url.Parse(u); err == nil && !strings.Contains(strings.ToLower(pu.Host), fanoutProbe) {
			return originOf(pu)
		}
	}
	if parent := connectors.FanoutParentFrom(ctx); parent != nil {
		if u, err := ResolveURL(parent.Props); err == nil {
			if pu, err := url.Parse(u); err == nil {
				return originOf(pu)
			}
		}
	}
	return ""
}

// readChild reads the dataset with the token property set to value and
// adds the parent column.
func (c *Connector) readChild(ctx context.Context, ds *connectors.Dataset, base connectors.Props, fo *fanout, col, value string) (*dataframe.Frame, error) {
	child := *ds
	child.Props = base.Clone()
	child.Props[fo.Token] = value
	f, err := c.Read(ctx, &child)
	if err != nil {
		return nil, err
	}
	if f.NumRows() == 0 {
		return f, nil
	}
	g, err := dataframe.WithConstants(nil, f, []dataframe.Constant{{Name: col, Kind: dataframe.KindString, Value: value}})
	f.Release()
	return g, err
}

// distinctValues are the distinct non-null values at path in parent, in
// order of first appearance, as text; a path through an array gives each
// element.
func distinctValues(parent *dataframe.Frame, path string) ([]string, error) {
	seen := map[string]bool{}
	var out []string
	var add func(v any)
	add = func(v any) {
		if list, ok := v.([]any); ok {
			for _, e := range list {
				add(e)
			}
			return
		}
		if t, ok := connectors.ValueText(v); ok && !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	g, err := dataframe.Filter(parent, func(r *dataframe.Row) (bool, error) {
		v, err := r.Get(path)
		if err != nil {
			return false, err
		}
		add(v)
		return false, nil
	})
	if err != nil {
		return nil, err
	}
	g.Release()
	return out, nil
}
