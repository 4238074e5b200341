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
	Err error // ErrNotSupported, or nil
}

func (e *Error) Error() string {
	if e.Pos.Line == 0 {
		return e.Msg
	}
	return e.Pos.String() + ": " + e.Msg
}

func (e *Error) Unwrap() error { return e.Err }

func errorf(pos Pos, format string, args ...any) *Error {
	return &Error{Pos: pos, Msg: fmt.Sprintf(format, args...)}
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
