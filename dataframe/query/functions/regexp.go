package functions

import (
	"fmt"
	"regexp"
	"unicode/utf8"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"

	"github.com/sluicedata/sluice/dataframe/query/fn"
)

// Regular-expression functions (string and predicate groups): see
// docs/sql-functions.md#regular-expressions. Patterns are Java's syntax
// as javaRegexp compiles it.

const reDifference = "A few Java-only constructs are refused: class intersections (`[a-z&&[^aeiou]]`), " +
	"`\\p{Alpha}`-style class names, the flags `(?d)` and `(?u)`; `(?U)` makes quantifiers lazy. " +
	"See [Regular expressions](#regular-expressions)."

func init() {
	def(fn.Scalar{Name: "regexp_extract", Group: gString, Signature: "regexp_extract(str, regexp[, idx])", Returns: "string",
		Bind: bindRegexpExtract,
		Doc: "Group `idx` (default 1; 0 is the whole match) of the first match of `regexp` in `str`; `''` when nothing matches " +
			"or the group took no part. A group index beyond the pattern's groups is an error.",
		Differences: reDifference,
		Examples:    ex(`regexp_extract('100-200', '(\\d+)-(\\d+)', 1)`, "100", `regexp_extract('100-200', '(\\d+)-(\\d+)', 2)`, "200")},
		pretty(withDefaults(3, "1")))
	def(fn.Scalar{Name: "regexp_extract_all", Group: gString, Signature: "regexp_extract_all(str, regexp[, idx])", Returns: "array<string>",
		Bind:        bindRegexpExtractAll,
		Doc:         "Group `idx` (default 1) of every match of `regexp` in `str`.",
		Differences: reDifference,
		Examples: ex(`regexp_extract_all('100-200, 300-400', '(\\d+)-(\\d+)', 1)`, `["100","300"]`,
			`regexp_extract_all('100-200, 300-400', '(\\d+)-(\\d+)', 2)`, `["200","400"]`)},
		pretty(withDefaults(3, "1")))
	def(fn.Scalar{Name: "regexp_replace", Group: gString, Signature: "regexp_replace(str, regexp, rep[, position])", Returns: "string",
		Bind: bindRegexpReplace,
		Doc: "`str` with every match of `regexp` from character `position` (default 1) on replaced by `rep`, which refers to groups " +
			"as Java does (`$1`, `${name}`; `\\$` is a dollar).",
		Differences: reDifference,
		Examples:    ex(`regexp_replace('100-200', '(\\d+)', 'num')`, "num-num", `regexp_replace('100-200', '(\\d+)-(\\d+)', '$2-$1')`, "200-100")},
		pretty(withDefaults(4, "1")))
	def(fn.Scalar{Name: "regexp_count", Group: gString, Signature: "regexp_count(str, regexp)", Returns: "int",
		Bind:        bindRegexpCount,
		Doc:         "The number of matches of `regexp` in `str`.",
		Differences: reDifference,
		Examples: ex("regexp_count('Steven Jones and Stephen Smith are the best players', 'Ste(v|ph)en')", "2",
			"regexp_count('abcdefghijklmnopqrstuvwxyz', '[a-z]{3}')", "8")})
	def(fn.Scalar{Name: "regexp_instr", Group: gString, Signature: "regexp_instr(str, regexp[, idx])", Returns: "int",
		Bind:        bindRegexpInstr,
		Doc:         "The 1-based position of the first match of `regexp` in `str`; 0 when there is none.",
		Differences: reDifference,
		Examples:    ex("regexp_instr('user@spark.apache.org', '@[^.]*')", "5", "regexp_instr('abc', 'x')", "0")},
		pretty(withDefaults(3, "0")))
	def(fn.Scalar{Name: "regexp_substr", Group: gString, Signature: "regexp_substr(str, regexp)", Returns: "string",
		Bind:        bindRegexpSubstr,
		Doc:         "The first match of `regexp` in `str`; NULL when there is none (or it is empty).",
		Differences: reDifference,
		Examples: ex("regexp_substr('Steven Jones and Stephen Smith are the best players', 'Ste(v|ph)en')", "Steven",
			"regexp_substr('Steven Jones and Stephen Smith are the best players', 'Jeck')", "NULL")})
	def(fn.Scalar{Name: "rlike", Group: gPredicate, Signature: "rlike(str, regexp)", Returns: "boolean",
		Bind:        bindRlike,
		Doc:         "Whether `regexp` matches somewhere in `str`. `str RLIKE regexp` and `str REGEXP regexp` are the same in SQL syntax.",
		Differences: reDifference,
		Examples:    ex("rlike('Spark SQL', 'S.L')", "true", "rlike('Spark', '^s')", "false", "rlike('Spark', '(?i)^s')", "true")},
		aliases("regexp", "regexp_like"), pretty(func(name string, args []string) string {
			return callName(upperASCII(name), args)
		}))
	def(fn.Scalar{Name: "like", Group: gPredicate, Signature: "like(str, pattern[, escape])", Returns: "boolean", Bind: bindLike(false),
		Doc: "Whether `str` matches the SQL pattern: `%` any run of characters, `_` any one; `escape` (default `\\`) quotes " +
			"the next `%`, `_` or itself. `str LIKE pattern [ESCAPE c]` is the same in SQL syntax.",
		Examples: ex("like('Spark', '_park')", "true", "like('Spark', 'sp%')", "false", "like('50%', '50!%', '!')", "true")},
		pretty(func(_ string, args []string) string {
			s := args[0] + " LIKE " + args[1]
			if len(args) == 3 && args[2] != `\` {
				s += " ESCAPE '" + args[2] + "'"
			}
			return s
		}))
	def(fn.Scalar{Name: "ilike", Group: gPredicate, Signature: "ilike(str, pattern[, escape])", Returns: "boolean", Bind: bindLike(true),
		Doc:      "`like` ignoring case. `str ILIKE pattern` is the same in SQL syntax.",
		Examples: ex("ilike('Spark', '_Park')", "true", "ilike('Spark', 'SP%')", "true")})
}

func upperASCII(s string) string {
	b := []byte(s)
	for k, c := range b {
		if 'a' <= c && c <= 'z' {
			b[k] = c - 32
		}
	}
	return string(b)
}

// bindRegexpPerRow binds a function of (str, regexp[, int]) whose value
// for a row, given the compiled pattern, f computes.
func bindRegexpPerRow[T any](kinds string, out arrow.DataType, f func(re *javaRegexp, r row) (T, bool, error)) bindFunc {
	return func(args []fn.Arg) (fn.Bound, error) {
		in, err := signature(args, kinds)
		if err != nil {
			return fn.Bound{}, err
		}
		cache, err := newCache(args, 1, "", compileRegex)
		if err != nil {
			return fn.Bound{}, err
		}
		return fn.Bound{Type: out, Args: in, Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
			rc := cache.forEval()
			return rowsOfErr(ctx, out, a, n, func(r row) (T, bool, error) {
				re, err := rc.at(a, r.i)
				if err != nil {
					var zero T
					return zero, false, err
				}
				return f(re, r)
			})
		}}, nil
	}
}

var bindRegexpCount = bindRegexpPerRow("ss", int32Type, func(re *javaRegexp, r row) (int32, bool, error) {
	n, err := re.countAll(r.str(0, ""))
	return int32(n), true, err
})

var bindRegexpInstr = bindRegexpPerRow("ss|i", int32Type, func(re *javaRegexp, r row) (int32, bool, error) {
	s := r.str(0, "")
	m, err := re.first(s)
	if m == nil || err != nil {
		return 0, true, err
	}
	return int32(utf8.RuneCountInString(s[:m[0]]) + 1), true, nil
})

var bindRegexpSubstr = bindRegexpPerRow("ss", stringType, func(re *javaRegexp, r row) (string, bool, error) {
	s := r.str(0, "")
	m, err := re.first(s)
	if m == nil || err != nil {
		return "", false, err
	}
	return s[m[0]:m[1]], m[1] > m[0], nil
})

var bindRlike = bindRegexpPerRow("ss", boolType, func(re *javaRegexp, r row) (bool, bool, error) {
	ok, err := re.MatchString(r.str(0, ""))
	return ok, true, err
})

// bindExtractArgs checks the arguments of regexp_extract and
// regexp_extract_all (str, regexp[, idx]) and compiles a constant pattern
// once, refusing a constant group index the pattern does not have.
func bindExtractArgs(args []fn.Arg) ([]arrow.DataType, *cache[*javaRegexp], error) {
	in, err := signature(args, "ss|i")
	if err != nil {
		return nil, nil, err
	}
	cache, err := newCache(args, 1, "", compileRegex)
	if err != nil {
		return nil, nil, err
	}
	if cache.hasFixed && len(args) == 3 {
		if idx, null, ok := constInt(args[2]); ok && !null {
			if err := checkGroup(cache.fixed, idx); err != nil {
				return nil, nil, err
			}
		}
	}
	return in, cache, nil
}

func bindRegexpExtractAll(args []fn.Arg) (fn.Bound, error) {
	in, cache, err := bindExtractArgs(args)
	if err != nil {
		return fn.Bound{}, err
	}
	return fn.Bound{Type: arrow.ListOf(stringType), Args: in, Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
		rc := cache.forEval()
		b := array.NewListBuilder(ctx.Mem, stringType)
		defer b.Release()
		vb := b.ValueBuilder().(*array.StringBuilder)
		for i := 0; i < n; i++ {
			if anyNull(a, i) {
				b.AppendNull()
				continue
			}
			r := row{a: a, i: i}
			re, err := rc.at(a, i)
			if err != nil {
				return nil, err
			}
			idx := r.int(2, 1)
			if err := checkGroup(re, idx); err != nil {
				return nil, err
			}
			s := r.str(0, "")
			b.Append(true)
			err = re.findAll(s, func(m []int) bool {
				if m[2*idx] < 0 {
					vb.Append("")
				} else {
					vb.Append(s[m[2*idx]:m[2*idx+1]])
				}
				return true
			})
			if err != nil {
				return nil, err
			}
		}
		return b.NewArray(), nil
	}}, nil
}

// bindLike is like and ilike as functions; the escape is a one-character
// literal.
func bindLike(fold bool) bindFunc {
	return func(args []fn.Arg) (fn.Bound, error) {
		in, err := signature(args, "ss|s")
		if err != nil {
			return fn.Bound{}, err
		}
		esc := '\\'
		if len(args) == 3 {
			e, null, ok := constString(args[2])
			if !ok || null || utf8.RuneCountInString(e) != 1 {
				return fn.Bound{}, fmt.Errorf("argument 3 must be a one-character string literal")
			}
			esc, _ = utf8.DecodeRuneInString(e)
			in[2] = nil
		}
		cache, err := newCache(args, 1, "", func(p string) (*regexp.Regexp, error) {
			return fn.LikeRegexp(p, esc, fold)
		})
		if err != nil {
			return fn.Bound{}, err
		}
		return fn.Bound{Type: boolType, Args: in, Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
			rc := cache.forEval()
			var bad error
			out := rowsOf(ctx, boolType, a[:2], n, func(r row) (bool, bool) {
				re, err := rc.at(a, r.i)
				if err != nil {
					bad = err
					return false, false
				}
				return re.MatchString(r.str(0, "")), true
			})
			if bad != nil {
				out.Release()
				return nil, bad
			}
			return out, nil
		}}, nil
	}
}
