package query

import (
	"errors"
	"fmt"
	"github.com/sluicedata/sluice/internal/suggest"
)

// ErrNotSupported marks a construct outside the dialect (docs/sql.md).
var ErrNotSupported = errors.New("not supported")

// Error is a mistake in a query at a position of its text: an unknown
// column, table or function, a type error, or a construct that is not
// supported. Pos is zero for queries built in Go.
type Error struct {
	Pos Pos
	Msg string
	// Err is what the error wraps: ErrNotSupported, the error of a
	// function or a cast, or nil.
	Err error
}

func (e *Error) Error() string {
	if e.Pos.Line == 0 {
		return e.Msg
	}
	return e.Pos.String() + ": " + e.Msg
}

func (e *Error) Unwrap() error { return e.Err }

// errorf is an Error at pos; a %w argument is wrapped (errors.Is and
// errors.As see it), as fmt.Errorf wraps it.
func errorf(pos Pos, format string, args ...any) *Error {
	w := fmt.Errorf(format, args...)
	return &Error{Pos: pos, Msg: w.Error(), Err: wrapped(w)}
}

// wrapped is what an error made by fmt.Errorf wraps: nil without %w, the
// error itself (which unwraps to them) with several.
func wrapped(w error) error {
	if u := errors.Unwrap(w); u != nil {
		return u
	}
	if _, multi := w.(interface{ Unwrap() []error }); multi {
		return w
	}
	return nil
}

func unsupported(pos Pos, what string) *Error {
	return &Error{Pos: pos, Msg: what + " is not supported", Err: ErrNotSupported}
}

// didYouMean is " (did you mean x?)" for the closest candidate, or "".
func didYouMean(name string, candidates []string) string {
	if c, ok := suggest.Closest(name, candidates); ok {
		return " (did you mean " + c + "?)"
	}
	return ""
}
