package catalog

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/sluicedata/sluice/connectors"
	"github.com/sluicedata/sluice/dataframe"
)

// fanoutChainKey holds the datasets whose fan-out parents are being read,
// so that a cycle is an error instead of endless recursion.
type fanoutChainKey struct{}

// readFanout finds the parent of a fan-out — the frame passed under prop
// (a pipeline step's output), else the catalog table from — and lets the
// connector read the children (see docs/incremental.md#fan-out). Warnings
// go to the session's log output.
func (s *Session) readFanout(ctx context.Context, r *resolved, fr connectors.FanoutReader, prop, from string) (*dataframe.Frame, error) {
	parent := r.frames[prop]
	if parent == nil {
		chain, _ := ctx.Value(fanoutChainKey{}).([]string)
		chain = append(chain[:len(chain):len(chain)], strings.ToLower(r.ds.Name))
		if slices.Contains(chain, strings.ToLower(from)) {
			return nil, fmt.Errorf("%s=%s: fan-out cycle (%s → %s)", prop, from, strings.Join(chain, " → "), from)
		}
		// The parent is read for its values only: no incremental state of
		// its own moves with the children's delivery.
		pctx := context.WithValue(WithDelivery(ctx, nil), fanoutChainKey{}, chain)
		var err error
		parent, err = s.Read(pctx, from, nil)
		if err != nil {
			return nil, fmt.Errorf("fan-out parent %s (%s): %w", from, prop, err)
		}
		defer parent.Release()
		// The connector may need the parent's properties: a RESTAPI child
		// whose host comes from the values gets the parent URL's origin
		// (docs/restapi.md#origins).
		if pr, err := s.resolve(pctx, from, nil); err == nil {
			ctx = connectors.WithFanoutParent(ctx, pr.ds)
		}
	}
	return fr.ReadFanout(ctx, r.ds, parent, &redactingWriter{s: s, red: r.red})
}
