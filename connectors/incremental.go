package connectors

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/sluicedata/sluice/dataframe"
)

// State is where an incremental dataset's last delivered read ended; the
// catalog stores it beside the table (see docs/incremental.md#state-files).
type State struct {
	// Cursor is the dotted path of the cursor field in each record.
	Cursor string `json:"cursor"`
	// LastValue is the largest cursor value delivered, as its text.
	LastValue string `json:"last_value"`
	// KeysAtLastValue are the primary keys (as text) of the delivered rows
	// whose cursor equals LastValue; empty without a primary key.
	KeysAtLastValue []string `json:"keys_at_last_value"`
	// UpdatedAt is when the state was computed.
	UpdatedAt time.Time `json:"updated_at"`
}

// ErrDamagedState is returned (wrapped) when a stored State cannot be the
// dataset's: null, not an object, empty, without a cursor or a last value,
// or the state of another cursor. The session names the state file and
// `sluice state reset`; a read never starts over silently
// (docs/incremental.md#state-files).
var ErrDamagedState = errors.New("damaged incremental state")

// IncrementalReader is implemented by connectors that read only what is
// new since a stored State. The session calls ReadIncremental instead of
// Read when Incremental says the dataset is configured for it.
type IncrementalReader interface {
	// Incremental reports whether the properties ask for incremental reads.
	Incremental(p Props) bool
	// ReadIncremental reads the rows after prev (nil: the first run, or a
	// full refresh) and returns them with the state to store once the
	// caller delivered them (nil: nothing to store).
	ReadIncremental(ctx context.Context, ds *Dataset, prev *State) (*dataframe.Frame, *State, error)
}

// CompareValues orders two cursor values: as numbers when both parse as
// numbers, as instants when both parse as RFC 3339, else as strings. It
// returns -1, 0 or +1.
func CompareValues(a, b string) int {
	a, b = strings.TrimSpace(a), strings.TrimSpace(b)
	if x, ok := parseNumber(a); ok {
		if y, ok := parseNumber(b); ok {
			return x.Cmp(y)
		}
	}
	if x, err := time.Parse(time.RFC3339Nano, a); err == nil {
		if y, err := time.Parse(time.RFC3339Nano, b); err == nil {
			return x.Compare(y)
		}
	}
	return strings.Compare(a, b)
}

var decimalNumber = regexp.MustCompile(`^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$`)

// parseNumber parses decimal text exactly (no float rounding between two
// 19-digit ids).
func parseNumber(s string) (*big.Rat, bool) {
	if !decimalNumber.MatchString(s) {
		return nil, false // not 0x1F, 1_000 or 1/2, which big.Rat would take
	}
	r, ok := new(big.Rat).SetString(s)
	return r, ok
}

// ValueText is a cell value as the text a state stores: strings as they
// are, numbers as JSON writes them, instants in RFC 3339. ok is false for
// null.
func ValueText(v any) (string, bool) {
	switch x := v.(type) {
	case nil:
		return "", false
	case string:
		return x, true
	case int64:
		return strconv.FormatInt(x, 10), true
	case int32:
		return strconv.FormatInt(int64(x), 10), true
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64), true
	case bool:
		return strconv.FormatBool(x), true
	case time.Time:
		return x.UTC().Format(time.RFC3339Nano), true
	}
	return fmt.Sprint(v), true
}

// Incremental is what ApplyIncremental needs to know of a dataset.
type Incremental struct {
	// Cursor is the dotted path of the cursor in each row. Required.
	Cursor string
	// CursorProperty names the property Cursor came from, for errors.
	CursorProperty string
	// Key is the dotted path of the primary key. Defaults to none (no
	// de-duplication).
	Key string
	// KeyProperty names the property Key came from, for errors.
	KeyProperty string
}

// ApplyIncremental drops from f the rows already delivered (cursor equal to
// prev's last value and key among its keys) and computes the state after
// delivering the rest. f is released when replaced. A row without a cursor
// value is kept and moves nothing. The state is nil when no value was ever
// seen.
func ApplyIncremental(f *dataframe.Frame, in Incremental, prev *State, now time.Time) (*dataframe.Frame, *State, error) {
	if f.NumRows() == 0 {
		return f, carry(prev, in.Cursor, now), nil
	}
	var seen map[string]bool
	if prev != nil && in.Key != "" {
		seen = make(map[string]bool, len(prev.KeysAtLastValue))
		for _, k := range prev.KeysAtLastValue {
			seen[k] = true
		}
	}
	last, hasLast := "", false
	if prev != nil && prev.LastValue != "" {
		last, hasLast = prev.LastValue, true
	}
	var keys []string
	if hasLast {
		keys = append(keys, prev.KeysAtLastValue...)
	}
	keySet := map[string]bool{}
	for _, k := range keys {
		keySet[k] = true
	}
	g, err := dataframe.Filter(f, func(r *dataframe.Row) (bool, error) {
		cv, err := r.Get(in.Cursor)
		if err != nil {
			return false, fmt.Errorf("%s %q: %w", in.CursorProperty, in.Cursor, err)
		}
		cur, ok := ValueText(cv)
		if !ok {
			return true, nil
		}
		key, hasKey := "", false
		if in.Key != "" {
			kv, err := r.Get(in.Key)
			if err != nil {
				return false, fmt.Errorf("%s %q: %w", in.KeyProperty, in.Key, err)
			}
			key, hasKey = ValueText(kv)
		}
		cmp := 1
		if hasLast {
			cmp = CompareValues(cur, last)
		}
		if cmp == 0 && hasKey && seen[key] {
			return false, nil // re-sent by an inclusive `since`
		}
		switch {
		case cmp > 0:
			last, hasLast = cur, true
			keys, keySet = keys[:0], map[string]bool{}
			fallthrough
		case cmp == 0:
			if hasKey && !keySet[key] {
				keySet[key] = true
				keys = append(keys, key)
			}
		}
		return true, nil
	})
	if err != nil {
		return nil, nil, err
	}
	f.Release()
	if !hasLast {
		return g, nil, nil
	}
	st := &State{Cursor: in.Cursor, LastValue: last, KeysAtLastValue: keys, UpdatedAt: now.UTC()}
	if st.KeysAtLastValue == nil {
		st.KeysAtLastValue = []string{}
	}
	return g, st, nil
}

// carry is prev restamped (nothing new was read), or nil.
func carry(prev *State, cursor string, now time.Time) *State {
	if prev == nil || prev.LastValue == "" {
		return nil
	}
	c := *prev
	c.Cursor = cursor
	c.KeysAtLastValue = append([]string{}, prev.KeysAtLastValue...)
	c.UpdatedAt = now.UTC()
	return &c
}

// FanoutReader is implemented by connectors that read one child dataset
// per value of a parent dataset's column (see docs/incremental.md#fan-out).
// The session finds the parent (a catalog table, or a frame a pipeline
// step passed under the property) and calls ReadFanout.
type FanoutReader interface {
	// FanoutFrom returns the property that names the parent and its value;
	// ok is false when the dataset is not a fan-out.
	FanoutFrom(p Props) (prop, from string, ok bool)
	// ReadFanout reads the children of parent's values. Warnings (skipped
	// children) go to warn, one line each.
	ReadFanout(ctx context.Context, ds *Dataset, parent *dataframe.Frame, warn io.Writer) (*dataframe.Frame, error)
}

type fanoutParentKey struct{}

// WithFanoutParent returns ctx carrying the dataset a fan-out's parent
// values were read from (a catalog table), for a FanoutReader that needs
// its properties: a RESTAPI child whose URL takes its origin from the
// values sends credentials only to the parent's origin
// (docs/restapi.md#origins).
func WithFanoutParent(ctx context.Context, parent *Dataset) context.Context {
	return context.WithValue(ctx, fanoutParentKey{}, parent)
}

// FanoutParentFrom is the parent dataset of WithFanoutParent, or nil (a
// pipeline step's frame has none).
func FanoutParentFrom(ctx context.Context) *Dataset {
	d, _ := ctx.Value(fanoutParentKey{}).(*Dataset)
	return d
}
