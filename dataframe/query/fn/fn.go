// Package fn is the registry of scalar SQL functions that the query
// executor (package dataframe/query) calls, and the cast both of them use.
//
// A function is bound once per call site — argument types (and literal
// values) known, result type decided, per-site state such as a compiled
// pattern prepared — and the bound function is then evaluated once per
// record batch over whole Arrow arrays. Aggregates and generators
// (count, sum, explode, …) are not here: the executor implements them.
//
// Semantics are Spark SQL 3.x's with spark.sql.ansi.enabled=false: see
// docs/sql.md#functions.
//
//	fn.Register(fn.Scalar{Name: "upper", Bind: bindUpper})
//	s, ok := fn.Lookup("UPPER") // case-insensitive
package fn

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/memory"
)

// Arg describes one argument at a call site, before any batch is seen.
type Arg struct {
	// Type is the argument's type. A NULL literal has type arrow.Null.
	Type arrow.DataType
	// Const is true when the argument is a literal (after constant folding
	// by the planner); Value then holds it.
	Const bool
	// Value is the literal's value when Const: nil (NULL), bool, int32,
	// int64, float64, string, []byte, time.Time (timestamp/date, UTC), or
	// decimal128.Num for decimals. Unset when not Const.
	Value any
	// Name is the column's name when the argument is a bare column
	// reference (`t.a` gives "a"), else "". struct(a, b) and arrays_zip
	// name their fields after it, as Spark does (col1, col2… otherwise).
	Name string
}

// Ctx is what an evaluation needs besides its arguments.
type Ctx struct {
	// Mem allocates the result. Never nil.
	Mem memory.Allocator
	// Now is the start of the statement, in UTC: current_timestamp() is the
	// same for every row of a query, as in Spark.
	Now time.Time
	// Zone is the session time zone (spark.sql.session.timeZone): a
	// timestamp is an instant, and the zone is where its wall-clock time is
	// read and shown — text without a zone parses there, a timestamp casts
	// to a string or a date there, hour() and date_format see its time
	// there (docs/sql.md#time-zone). nil is UTC.
	Zone *time.Location
}

// Loc is the session time zone, UTC when Zone is nil.
func (c *Ctx) Loc() *time.Location {
	if c == nil || c.Zone == nil {
		return time.UTC
	}
	return c.Zone
}

// Cast is Cast in the session time zone, allocating from c.Mem.
func (c *Ctx) Cast(arr arrow.Array, to arrow.DataType) (arrow.Array, error) {
	return castIn(c.Mem, arr, to, c.Loc())
}

// Bound is a function bound to one call site.
type Bound struct {
	// Type is the result type.
	Type arrow.DataType
	// Args, when not nil, has one entry per argument: the type the executor
	// casts that argument to (with Cast) before Eval, or nil to pass it as
	// it is. This is how a function asks for Spark's implicit casts of its
	// inputs (upper(123) sees the string "123").
	Args []arrow.DataType
	// Eval computes the result for n rows. Every element of args has
	// length n (the executor broadcasts literals), and has the type asked
	// for in Args. The result must have length n and type Type; Eval owns
	// nothing it did not create, and the caller releases the result.
	Eval func(ctx *Ctx, args []arrow.Array, n int) (arrow.Array, error)
}

// Scalar is a scalar SQL function: one value out per row in.
type Scalar struct {
	// Name is the lower-case SQL name.
	Name string
	// Bind checks the arguments and returns the bound function. Its error
	// names the argument that is wrong and why ("argument 2 must be an
	// integer, got string"); the executor adds the call's text and position.
	Bind func(args []Arg) (Bound, error)
	// Pretty renders the name Spark generates for an unaliased call from
	// the generated names of its arguments (Spark's prettyName and sql,
	// e.g. `substring(s, 1, 2)`, `date_add(d, 1)`, `trim(BOTH FROM s)`).
	// Nil means Name(arg1, arg2, …).
	Pretty func(args []string) string

	// The rest documents the function: docs/sql-functions.md is generated
	// from it and its examples are run as tests.

	// Group is the group of Spark's built-in function list the function
	// belongs to: string, datetime, math, collection, map, struct, json,
	// hash, conditional, type, lambda, misc.
	Group string
	// Signature is the call as the docs print it: `substring(str, pos[, len])`.
	Signature string
	// Doc says what it returns and when it is NULL, in a sentence or two.
	Doc string
	// Examples are calls with their results, as Spark's documentation gives
	// them.
	Examples []Example
	// Differences says where Sluice's answer differs from Spark's; empty
	// when it does not.
	Differences string
	// Returns is the result type as the docs print it: `string`, `type of
	// x`, `decimal(p-s+1, 0) for decimal(p,s)`.
	Returns string
	// AliasOf is the name of the function this one is another name for
	// (lcase → lower); the docs list it there. Empty for a canonical name.
	AliasOf string
	// Nondeterministic functions (rand, uuid, shuffle) give a new value per
	// row and per run: the executor must not fold a call of one over
	// literal arguments into a constant.
	Nondeterministic bool
}

// Example is one documented call: SQL is an expression (`upper('abc')`),
// Result the value `SELECT <SQL>` prints (`ABC`, `NULL`, `[1,2]`).
type Example struct {
	SQL    string
	Result string
}

var (
	mu       sync.RWMutex
	registry = map[string]Scalar{}
)

// Register makes s callable from SQL under s.Name. It panics if the name is
// empty, not lower-case, taken, or Bind is nil (as database/sql.Register
// does for drivers).
func Register(s Scalar) {
	if s.Name == "" || s.Name != strings.ToLower(s.Name) {
		panic(fmt.Sprintf("fn: Register: name %q must be non-empty and lower-case", s.Name))
	}
	if s.Bind == nil {
		panic(fmt.Sprintf("fn: Register: %s has no Bind", s.Name))
	}
	mu.Lock()
	defer mu.Unlock()
	if _, dup := registry[s.Name]; dup {
		panic(fmt.Sprintf("fn: Register called twice for %s", s.Name))
	}
	registry[s.Name] = s
}

// Lookup finds a function by name, case-insensitively.
func Lookup(name string) (Scalar, bool) {
	mu.RLock()
	defer mu.RUnlock()
	s, ok := registry[strings.ToLower(name)]
	return s, ok
}

// Names lists the registered functions, sorted.
func Names() []string {
	mu.RLock()
	defer mu.RUnlock()
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
