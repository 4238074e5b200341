package catalog

import (
	"database/sql/driver"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/sluicedata/sluice/dataframe/query"
	"github.com/sluicedata/sluice/dataframe/sparktype"
)

// Parameters: the args of ExecuteBatch, Exec and SQLFrames are the values
// of the text's ? placeholders, in order, bound as typed literals into the
// parsed statement — never pasted into the SQL text, so a value cannot
// change what the statement does (docs/go-api.md#parameters).

// Decimal is a decimal number written as text ("12.50", "-3", "1.5e-3"),
// passed as a ? argument: it binds as decimal(p,s) with the digits written,
// as Spark types the literal 12.50BD. Go has no decimal type of its own;
// use Decimal(d.String()) for one from a decimal library.
type Decimal string

var decimalText = regexp.MustCompile(`^[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$`)

// bindArgs turns Go values into the typed literals of the ? placeholders.
func bindArgs(args []any) ([]*query.Literal, error) {
	if len(args) == 0 {
		return nil, nil
	}
	out := make([]*query.Literal, len(args))
	for i, a := range args {
		lit, err := bindArg(a)
		if err != nil {
			return nil, fmt.Errorf("argument %d: %w", i+1, err)
		}
		out[i] = lit
	}
	return out, nil
}

var errArgType = errors.New("unsupported Go type")

// bindArg types one Go value as Spark types the literal of the same value:
//
//	nil, a nil pointer     NULL
//	bool                   boolean
//	int8, int16            tinyint (byte), smallint (short)
//	int32, uint16          int
//	int64, uint32          bigint (long)
//	int, uint, uint64      int when it fits, else bigint, else decimal(20,0) — as the number's text
//	uint8                  smallint
//	float32, float64       float, double (NaN and infinities included)
//	string                 string
//	[]byte                 binary (nil: NULL)
//	time.Time              timestamp (the instant, at the precision of a TIMESTAMP literal)
//	Decimal                decimal(p,s)
//
// A driver.Valuer (sql.NullString, …) binds as the value it returns, a
// pointer as what it points to, and a named type as its underlying kind.
func bindArg(a any) (*query.Literal, error) {
	if v, ok := a.(driver.Valuer); ok {
		if rv := reflect.ValueOf(a); rv.Kind() == reflect.Pointer && rv.IsNil() {
			return nullLiteral(), nil
		}
		dv, err := v.Value()
		if err != nil {
			return nil, fmt.Errorf("%T.Value: %w", a, err)
		}
		if _, again := dv.(driver.Valuer); again {
			return nil, fmt.Errorf("%T.Value returned another driver.Valuer (%T)", a, dv)
		}
		return bindArg(dv)
	}
	switch v := a.(type) {
	case nil:
		return nullLiteral(), nil
	case bool:
		return &query.Literal{Value: v, Type: sparktype.BooleanType, Raw: strconv.FormatBool(v)}, nil
	case string:
		return &query.Literal{Value: v, Type: sparktype.StringType, Raw: "'" + strings.ReplaceAll(v, "'", `\'`) + "'"}, nil
	case []byte:
		if v == nil {
			return nullLiteral(), nil
		}
		h := strings.ToUpper(hex.EncodeToString(v))
		lit, err := query.BinaryLiteral(h)
		if err != nil {
			return nil, err
		}
		lit.Raw = "X'" + h + "'"
		return lit, nil
	case time.Time:
		text := v.UTC().Format("2006-01-02 15:04:05.999999")
		lit, err := query.TimestampLiteral(text)
		if err != nil || v.Year() < 1 || v.Year() > 9999 {
			return nil, fmt.Errorf("time.Time %s is outside Spark's timestamps (years 1 to 9999)", v.UTC().Format(time.RFC3339Nano))
		}
		lit.Raw = "TIMESTAMP '" + text + "'"
		return lit, nil
	case Decimal:
		s := strings.TrimSpace(string(v))
		if !decimalText.MatchString(s) {
			return nil, fmt.Errorf("catalog.Decimal %q is not a decimal number (digits, an optional point and exponent)", string(v))
		}
		return numberLiteral(s, "BD")
	case int8:
		return numberLiteral(strconv.FormatInt(int64(v), 10), "Y")
	case int16:
		return numberLiteral(strconv.FormatInt(int64(v), 10), "S")
	case int32:
		return numberLiteral(strconv.FormatInt(int64(v), 10), "")
	case int64:
		return numberLiteral(strconv.FormatInt(v, 10), "L")
	case int:
		return numberLiteral(strconv.FormatInt(int64(v), 10), "")
	case uint8:
		return numberLiteral(strconv.FormatUint(uint64(v), 10), "S")
	case uint16:
		return numberLiteral(strconv.FormatUint(uint64(v), 10), "")
	case uint32:
		return numberLiteral(strconv.FormatUint(uint64(v), 10), "L")
	case uint:
		return numberLiteral(strconv.FormatUint(uint64(v), 10), "")
	case uint64:
		return numberLiteral(strconv.FormatUint(v, 10), "")
	case float32:
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return &query.Literal{Value: v, Type: sparktype.FloatType, Raw: strconv.FormatFloat(float64(v), 'g', -1, 32)}, nil
		}
		return numberLiteral(strconv.FormatFloat(float64(v), 'g', -1, 32), "F")
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return &query.Literal{Value: v, Type: sparktype.DoubleType, Raw: strconv.FormatFloat(v, 'g', -1, 64)}, nil
		}
		return numberLiteral(strconv.FormatFloat(v, 'g', -1, 64), "D")
	}
	// A pointer, or a named type of a supported kind.
	rv := reflect.ValueOf(a)
	switch rv.Kind() {
	case reflect.Pointer:
		if rv.IsNil() {
			return nullLiteral(), nil
		}
		return bindArg(rv.Elem().Interface())
	case reflect.Bool:
		return bindArg(rv.Bool())
	case reflect.String:
		return bindArg(rv.String())
	case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Int:
		return bindArg(rv.Convert(reflect.TypeOf(int64(0))).Interface().(int64))
	case reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uint:
		return bindArg(rv.Uint())
	case reflect.Float32, reflect.Float64:
		return bindArg(rv.Float())
	case reflect.Slice:
		if rv.Type().Elem().Kind() == reflect.Uint8 {
			return bindArg(rv.Bytes())
		}
	}
	return nil, fmt.Errorf("%w %T (want nil, bool, an integer, a float, string, []byte, time.Time, catalog.Decimal, a pointer to one, or a driver.Valuer)", errArgType, a)
}

func nullLiteral() *query.Literal {
	return &query.Literal{Value: nil, Type: sparktype.NullType, Raw: "NULL"}
}

// numberLiteral types a number's text with Spark's literal suffix (Y, S,
// L, F, D, BD; none: int, bigint or decimal by size); its name is the
// number as written.
func numberLiteral(text, suffix string) (*query.Literal, error) {
	lit, err := query.NumberLiteral(text + suffix)
	if err != nil {
		return nil, err
	}
	lit.Raw = text
	return lit, nil
}

// simpleParam reports whether a bound VALUES parameter has one of the Go
// values an INSERT's literals take directly (string, long, double,
// boolean, NULL); the others go through the query engine's casts.
func simpleParam(l *query.Literal) bool {
	switch l.Value.(type) {
	case nil, string, bool, int32, int64, float64:
		return true
	}
	return false
}
