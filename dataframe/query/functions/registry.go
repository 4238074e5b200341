package functions

import (
	"regexp"
	"strings"

	"github.com/sluicedata/sluice/dataframe/query/fn"
)

// A function's whole registration — name, signature, result type, kernel,
// documentation and examples — is one fn.Scalar literal handed to def;
// docs/sql-functions.md is generated from them and every example runs as a
// test (catalog/functions_examples_test.go).

// Groups of Spark's built-in function list, in the order the docs list
// them.
const (
	gString      = "string"
	gDatetime    = "datetime"
	gMath        = "math"
	gBitwise     = "bitwise"
	gCollection  = "collection"
	gMap         = "map"
	gStruct      = "struct"
	gJSON        = "json"
	gCSV         = "csv"
	gURL         = "url"
	gHash        = "hash"
	gConditional = "conditional"
	gPredicate   = "predicate"
	gType        = "type"
	gMisc        = "misc"
)

// option adjusts a registration.
type option func(*entry)

type entry struct {
	aliases []string
	pretty  func(name string, args []string) string
}

// aliases registers the function under further names too; each alias is
// documented as one and runs the canonical name's examples under its own
// name.
func aliases(names ...string) option {
	return func(e *entry) { e.aliases = append(e.aliases, names...) }
}

// pretty sets how Spark names an unaliased call; p gets the name the call
// used (the canonical one or an alias) and the arguments' names.
func pretty(p func(name string, args []string) string) option {
	return func(e *entry) { e.pretty = p }
}

// def registers s under s.Name and its aliases.
func def(s fn.Scalar, opts ...option) {
	var e entry
	for _, o := range opts {
		o(&e)
	}
	for _, name := range append([]string{s.Name}, e.aliases...) {
		c := s
		c.Name = name
		if name != s.Name {
			c.AliasOf = s.Name
			c.Examples = renameExamples(s.Examples, s.Name, name)
		}
		if p := e.pretty; p != nil {
			called := name
			c.Pretty = func(args []string) string { return p(called, args) }
		}
		fn.Register(c)
	}
}

// renameExamples rewrites calls of from in the examples into calls of to.
func renameExamples(ex []fn.Example, from, to string) []fn.Example {
	re := regexp.MustCompile(`\b` + regexp.QuoteMeta(from) + `\(`)
	out := make([]fn.Example, len(ex))
	for i, e := range ex {
		out[i] = fn.Example{SQL: re.ReplaceAllString(e.SQL, to+"("), Result: e.Result}
	}
	return out
}

// ex pairs up SQL expressions with the results Spark prints for them.
func ex(sqlAndResult ...string) []fn.Example {
	if len(sqlAndResult)%2 != 0 {
		panic("functions: ex wants pairs")
	}
	out := make([]fn.Example, 0, len(sqlAndResult)/2)
	for i := 0; i < len(sqlAndResult); i += 2 {
		out = append(out, fn.Example{SQL: sqlAndResult[i], Result: sqlAndResult[i+1]})
	}
	return out
}

// callName is Spark's default name of a call: name(arg1, arg2, …).
func callName(name string, args []string) string {
	return name + "(" + strings.Join(args, ", ") + ")"
}

// withDefaults names a call of a function of total arguments whose last
// len(defaults) ones are optional the way Spark does: with the omitted
// arguments' default values filled in (`substr(s, 5, 2147483647)`).
func withDefaults(total int, defaults ...string) func(string, []string) string {
	first := total - len(defaults)
	return func(name string, args []string) string {
		full := append([]string(nil), args...)
		for k := len(args); k < total && k >= first; k++ {
			full = append(full, defaults[k-first])
		}
		return callName(name, full)
	}
}

// upperUnlessAlias is Spark's name for math functions: the canonical name
// upper-case (`ACOS(1)`), an alias as written (`ceiling(x)`).
func upperUnlessAlias(canonical string) func(string, []string) string {
	return func(name string, args []string) string {
		if name == canonical {
			name = strings.ToUpper(name)
		}
		return callName(name, args)
	}
}

// namedAs names every call name(args) after another function (dateadd →
// date_add).
func namedAs(other string) func(string, []string) string {
	return func(_ string, args []string) string { return callName(other, args) }
}

// firstArgOnly names a call after its first argument only: Spark's
// from_json/to_json keep their schema and options out of the name.
func firstArgOnly(name string, args []string) string {
	if len(args) > 1 {
		args = args[:1]
	}
	return callName(name, args)
}
