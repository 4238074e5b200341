package restapi

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/sluicedata/sluice/connectors"
	"github.com/sluicedata/sluice/dataframe"
)

// errStop ends the row walk after a failed row; the failure itself is in
// the result.
var errStop = errors.New("stop")

// Write sends one request per row, in order, with the method of
// svc.restapi.write.mode and Content-Type application/json. The body is the
// row's `payload` text when svc.restapi.use.payload=true, else the row as a
// JSON object (nested columns as JSON values). The first failed row stops
// the write; the result holds every attempted row's status.
func (*Connector) Write(ctx context.Context, ds *connectors.Dataset, f *dataframe.Frame) (connectors.WriteResult, error) {
	red := connectors.NewRedactor(ds.Props)
	name := datasetName(ds)
	res := connectors.WriteResult{Rows: f.NumRows()}
	cfg, err := parseConfig(ds.Props)
	if err != nil {
		return res, red.Error(fmt.Errorf("writing %s: %w", name, err))
	}
	u, err := ResolveURL(ds.Props)
	if err != nil {
		return res, red.Error(fmt.Errorf("writing %s: %w", name, err))
	}
	var payloads []string
	var valid []bool
	if cfg.UsePayload {
		if !hasColumn(f, PayloadColumn) {
			return res, fmt.Errorf("writing %s: %s=true needs a %s column; the frame has (%s)",
				name, PropUsePayload, PayloadColumn, strings.Join(f.ColumnNames(), ", "))
		}
		if payloads, valid, err = f.StringValues(PayloadColumn); err != nil {
			return res, fmt.Errorf("writing %s: %s=true: %w", name, PropUsePayload, err)
		}
	}
	opts := readOptionsFrom(ctx)
	lim := opts.Limiter
	if lim == nil {
		if lim, err = NewLimiter(ds.Props); err != nil {
			return res, red.Error(fmt.Errorf("writing %s: %w", name, err))
		}
	}
	cl := newClient(cfg, ds, red, u, clientOptions{lim: lim, tls: opts.TLSConfig})
	defer cl.close()

	var failure error
	send := func(row int64, body []byte) error {
		var err error
		status := 0
		if cerr := ctx.Err(); cerr != nil {
			err = cerr
		} else {
			var a answer
			a, err = cl.do(ctx, cfg.WriteMode, u, body)
			status = a.status
		}
		res.Results = append(res.Results, connectors.RowResult{Row: row, Status: status, Err: err})
		if err != nil {
			failure = err
			return errStop
		}
		res.Written++
		return nil
	}
	if cfg.UsePayload {
		for i, p := range payloads {
			if !valid[i] {
				err := fmt.Errorf("the %s is null", PayloadColumn)
				res.Results = append(res.Results, connectors.RowResult{Row: int64(i), Err: err})
				failure = err
				break
			}
			if send(int64(i), []byte(p)) != nil {
				break
			}
		}
	} else {
		// obj is reused by EachRowJSON after send returns; send is done with it by then.
		err := f.EachRowJSON(func(row int64, obj []byte) error { return send(row, obj) })
		if err != nil && !errors.Is(err, errStop) {
			return res, red.Error(fmt.Errorf("writing %s: wrote %d of %d rows; encoding row %d: %w", name, res.Written, res.Rows, res.Written+1, err))
		}
	}
	if failure != nil {
		return res, red.Error(fmt.Errorf("writing %s: wrote %d of %d rows; row %d failed: %w", name, res.Written, res.Rows, res.Written+1, failure))
	}
	return res, nil
}

func hasColumn(f *dataframe.Frame, name string) bool {
	for _, c := range f.ColumnNames() {
		if c == name {
			return true
		}
	}
	return false
}
