package queue

import (
	"encoding/json"
	"errors"
	"fmt"
)

// IntakeError is a webhook body the intake refuses (400); Msg says what
// is wrong and where, never quoting a secret.
type IntakeError struct{ Msg string }

func (e *IntakeError) Error() string { return e.Msg }

// DescribeJSONError says what a JSON decoding error found, and where.
func DescribeJSONError(err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("%s at byte offset %d", se.Error(), se.Offset)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		if te.Field != "" {
			return fmt.Sprintf("field %q must not be a JSON %s", te.Field, te.Value)
		}
		return fmt.Sprintf("want a JSON object, got a JSON %s", te.Value)
	}
	return err.Error()
}

// TruncateText cuts s to n bytes, marking the cut with "…".
func TruncateText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
