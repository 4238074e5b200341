package catalog_test

// Reading Spark's golden files (catalog/testdata/spark, see
// docs/sql.md#spark-compatibility): the `.sql.out` result files that
// SQLQueryTestSuite writes, the header directives of their `.sql` inputs,
// the known-failures baseline, and which area each file belongs to.

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/sluicedata/sluice/dataframe/sparktype"
)

const goldenDir = "testdata/spark"

// goldenCase is one `-- !query` block of a result file.
type goldenCase struct {
	Index  int // 0-based, as SQLQueryTestSuite numbers queries ("query #3")
	Query  string
	Schema string // `struct<…>` as Spark's catalogString prints it
	Output string // the rows, trailing whitespace trimmed as Spark's reader does
}

// IsError reports whether Spark refused the query: an empty schema with
// output is an exception class and its message (a command that succeeds
// has neither).
func (c goldenCase) IsError() bool { return c.Schema == "struct<>" && c.Output != "" }

// IsCommand reports whether the query succeeded without a result (DDL).
func (c goldenCase) IsCommand() bool { return c.Schema == "struct<>" && c.Output == "" }

// Rows is the expected output split into rows.
func (c goldenCase) Rows() []string {
	if c.Output == "" {
		return nil
	}
	return strings.Split(c.Output, "\n")
}

// parseGolden reads a `.sql.out` file: an optional header, then blocks of
// `-- !query`, the query, `-- !query schema`, the schema, `-- !query
// output`, the rows, separated by blank lines.
func parseGolden(text string) ([]goldenCase, error) {
	lines := strings.Split(text, "\n")
	var cases []goldenCase
	const (
		header = iota
		inQuery
		inSchema
		inOutput
	)
	state := header
	var q, s, o []string
	flush := func() {
		if state == header {
			return
		}
		cases = append(cases, goldenCase{
			Index:  len(cases),
			Query:  strings.TrimSpace(strings.Join(q, "\n")),
			Schema: strings.TrimSpace(strings.Join(s, "\n")),
			Output: strings.TrimRight(strings.Join(o, "\n"), " \t\n\r\f\v"),
		})
		q, s, o = nil, nil, nil
	}
	for n, line := range lines {
		switch line {
		case "-- !query":
			flush()
			state = inQuery
			continue
		case "-- !query schema":
			if state != inQuery {
				return nil, fmt.Errorf("line %d: schema outside a query block", n+1)
			}
			state = inSchema
			continue
		case "-- !query output":
			if state != inSchema {
				return nil, fmt.Errorf("line %d: output before the schema", n+1)
			}
			state = inOutput
			continue
		}
		switch state {
		case inQuery:
			q = append(q, line)
		case inSchema:
			s = append(s, line)
		case inOutput:
			o = append(o, line)
		}
	}
	if state == inQuery || state == inSchema {
		return nil, fmt.Errorf("the last query block is incomplete")
	}
	flush()
	return cases, nil
}

// inputDirectives are the header lines of a `.sql` input that configure
// how SQLQueryTestSuite runs the file.
type inputDirectives struct {
	Set []string // `--SET k=v` pairs: every query runs with them
}

func readDirectives(path string) (inputDirectives, error) {
	var d inputDirectives
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return d, nil
	}
	if err != nil {
		return d, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if rest, ok := strings.CutPrefix(line, "--SET "); ok {
			for _, kv := range strings.Split(rest, ",") {
				if kv = strings.TrimSpace(kv); kv != "" {
					d.Set = append(d.Set, kv)
				}
			}
		}
		// --CONFIG_DIM gives the same answers in every dimension, and
		// --IMPORT'ed queries are already in the result file.
	}
	return d, sc.Err()
}

// sparkDefaults are Spark 3.5's defaults of the settings the corpus
// changes, lower-cased. A setting at its default is in scope; any other
// value changes semantics outside Sluice's, and the queries it applies to
// are skipped (counted apart, with the setting as the reason).
var sparkDefaults = map[string]string{
	"spark.sql.ansi.enabled":                                                            "false",
	"spark.sql.ansi.strictindexoperator":                                                "true",
	"spark.sql.legacy.allowparameterlesscount":                                          "false",
	"spark.sql.legacy.allowstarwithsingletableidentifierincount":                        "false",
	"spark.sql.decimaloperations.allowprecisionloss":                                    "true",
	"spark.sql.legacy.integergroupingid":                                                "false",
	"spark.sql.legacy.groupingidwithappendedusergroupby":                                "false",
	"spark.sql.legacy.cteprecedencepolicy":                                              "corrected",
	"spark.sql.legacy.timeparserpolicy":                                                 "corrected",
	"spark.sql.legacy.setopsprecedence.enabled":                                         "false",
	"spark.sql.legacy.sizeofnull":                                                       "true",
	"spark.sql.legacy.parsenullpartitionspecasstringliteral":                            "false",
	"spark.sql.optimizer.excludedrules":                                                 "",
	"spark.sql.codegen.wholestage":                                                      "true",
	"spark.sql.codegen.factorymode":                                                     "fallback",
	"spark.sql.adaptive.enabled":                                                        "true",
	"spark.sql.crossjoin.enabled":                                                       "true",
	"spark.sql.parser.quotedregexcolumnnames":                                           "false",
	"spark.sql.optimizenullawareantijoin":                                               "true",
	"spark.sql.legacy.interval.enabled":                                                 "false",
	"spark.sql.legacy.allownegativescaleofdecimal":                                      "false",
	"spark.sql.legacy.typecoercion.datetimetostring.enabled":                            "false",
	"spark.sql.legacy.storeanalyzedplanforview":                                         "false",
	"spark.sql.legacy.usecurrentconfigsforview":                                         "false",
	"spark.sql.legacy.integraldivide.returnbigint":                                      "false",
	"spark.sql.legacy.charvarcharasstring":                                              "false",
	"spark.sql.legacy.nullinemptylistbehavior":                                          "false",
	"spark.sql.legacy.allowhashonmaptype":                                               "false",
	"spark.sql.legacy.respectnullabilityintextdatasetconversion":                        "false",
	"spark.sql.mapkeydeduppolicy":                                                       "exception",
	"spark.sql.legacy.groupingidwithappendedusergroupby.enabled":                        "false",
	"spark.sql.legacy.scalarsubqueryallowgroupbynonequalitycorrelatedpredicate":         "false",
	"spark.sql.optimizer.decorrelateexistssubquerylegacyincorrectcounthandling.enabled": "false",
	"spark.sql.optimizer.decorrelatesubquerylegacyincorrectcounthandling.enabled":       "false",
}

// harmless settings change nothing the corpus compares (plans, caching,
// join strategies); the session time zone is one Sluice is told about.
var harmlessSettings = []string{
	"spark.sql.autobroadcastjointhreshold",
	"spark.sql.join.",
	"spark.sql.adaptive.",
	"spark.sql.codegen.",
	"spark.sql.shuffle.partitions",
	"spark.sql.optimizer.",
	"spark.sql.cbo.",
	"spark.sql.preferSortMergeJoin",
	"spark.sql.subquery.",
	"spark.sql.execution.",
	"spark.sql.inmemorycolumnarstorage.",
	"spark.sql.session.timezone",
	"spark.sql.optimizenullawareantijoin",
	"spark.sql.leafnodedefaultparallelism",
}

// outOfScopeSetting returns a reason when setting key to value takes
// Spark outside the defaults Sluice implements, or "".
func outOfScopeSetting(key, value string) string {
	k := strings.ToLower(strings.TrimSpace(key))
	v := strings.ToLower(strings.Trim(strings.TrimSpace(value), "'\""))
	// A legacy switch changes answers wherever it lives (some sit under
	// harmless-looking prefixes such as spark.sql.optimizer.): it is in
	// scope only at its default.
	if strings.Contains(k, "legacy") {
		if dv, ok := sparkDefaults[k]; ok && dv == v {
			return ""
		}
		return "config: " + key + "=" + value
	}
	for _, h := range harmlessSettings {
		if strings.HasPrefix(k, strings.ToLower(h)) {
			return ""
		}
	}
	for dk, dv := range sparkDefaults {
		if strings.ToLower(dk) == k {
			if strings.ToLower(dv) == v {
				return ""
			}
			return "config: " + key + "=" + value
		}
	}
	return "config: " + key + "=" + value
}

var setStatement = regexp.MustCompile(`(?is)^set\s+([^\s=]+)\s*=\s*(.*)$`)

var resetStatement = regexp.MustCompile(`(?is)^reset(?:\s+(\S+))?\s*$`)

// parseReset reads a `reset` or `reset k` query: all is true when every
// setting goes back to its default; ok is false for anything else.
func parseReset(q string) (key string, all, ok bool) {
	m := resetStatement.FindStringSubmatch(strings.TrimSpace(q))
	if m == nil {
		return "", false, false
	}
	return m[1], m[1] == "", true
}

// parseSet reads a `set k=v` query; ok is false for anything else.
func parseSet(q string) (key, value string, ok bool) {
	m := setStatement.FindStringSubmatch(strings.TrimSpace(q))
	if m == nil {
		return "", "", false
	}
	return m[1], strings.TrimSpace(m[2]), true
}

// hasTopLevelOrderBy reports whether q ends in an ORDER BY outside any
// parentheses: Spark's runner then keeps the rows in the order it gave them
// (SQLQueryTestSuite.isSorted finds the Sort at the top of the plan).
// Strings, back-quoted names and comments are skipped.
func hasTopLevelOrderBy(q string) bool {
	depth := 0
	var words []string
	word := strings.Builder{}
	endWord := func() {
		if word.Len() > 0 {
			if depth == 0 {
				words = append(words, strings.ToUpper(word.String()))
			}
			word.Reset()
		}
	}
	for i := 0; i < len(q); i++ {
		c := q[i]
		switch {
		case c == '\'' || c == '"' || c == '`':
			endWord()
			for i++; i < len(q) && q[i] != c; i++ {
				if q[i] == '\\' && c != '`' {
					i++
				}
			}
		case c == '-' && i+1 < len(q) && q[i+1] == '-':
			endWord()
			for i < len(q) && q[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < len(q) && q[i+1] == '*':
			endWord()
			if j := strings.Index(q[i+2:], "*/"); j >= 0 {
				i += j + 3
			} else {
				i = len(q)
			}
		case c == '(':
			endWord()
			depth++
		case c == ')':
			endWord()
			depth--
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9':
			word.WriteByte(c)
		default:
			endWord()
		}
	}
	endWord()
	for i := 0; i+1 < len(words); i++ {
		if words[i] == "ORDER" && words[i+1] == "BY" {
			return true
		}
	}
	return false
}

// lexSorted reports whether rows are in the order Spark's runner sorts
// unordered results in (Java String order).
func lexSorted(rows []string) bool {
	for i := 1; i < len(rows); i++ {
		if sparktype.Compare(rows[i-1], rows[i]) > 0 {
			return false
		}
	}
	return true
}

func sortRows(rows []string) []string {
	out := append([]string(nil), rows...)
	sort.SliceStable(out, func(i, j int) bool { return sparktype.Compare(out[i], out[j]) < 0 })
	return out
}

// areas groups the corpus for the per-area report; the first matching
// prefix of a file's path (relative to results/) wins.
var areas = []struct{ prefix, area string }{
	{"literals", "literals"},
	{"inline-table", "relations"},
	{"table-aliases", "relations"},
	{"columnresolution", "relations"},
	{"null-handling", "nulls"},
	{"null-propagation", "nulls"},
	{"cte", "cte"},
	{"natural-join", "joins"},
	{"using-join", "joins"},
	{"join-empty-relation", "joins"},
	{"outer-join", "joins"},
	{"cross-join", "joins"},
	{"inner-join", "joins"},
	{"left-semi-join", "joins"},
	{"except", "set-operations"},
	{"intersect", "set-operations"},
	{"union", "set-operations"},
	{"subquery/", "subqueries"},
	{"window", "window"},
	{"grouping", "grouping"},
	{"group-", "grouping"},
	{"having", "grouping"},
	{"count", "aggregates"},
	{"percentiles", "aggregates"},
	{"like", "predicates"},
	{"ilike", "predicates"},
	{"predicate-functions", "predicates"},
	{"string-functions", "functions: string"},
	{"regexp-functions", "functions: string"},
	{"date", "functions: date/time"},
	{"timestamp", "functions: date/time"},
	{"math", "functions: math"},
	{"bitwise", "functions: math"},
	{"array", "functions: collection"},
	{"map", "functions: collection"},
	{"struct", "functions: collection"},
	{"higher-order-functions", "functions: collection"},
	{"json-functions", "functions: json"},
	{"conditional-functions", "functions: conditional"},
	{"decimalArithmeticOperations", "decimal arithmetic"},
	{"typeCoercion/", "type coercion"},
}

func areaOf(rel string) string {
	for _, a := range areas {
		if strings.HasPrefix(rel, a.prefix) {
			return a.area
		}
	}
	return "other"
}

// goldenFiles lists the result files, relative to results/ and without
// the `.sql.out` suffix, sorted.
func goldenFiles() ([]string, error) {
	root := filepath.Join(goldenDir, "results")
	var rels []string
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !strings.HasSuffix(p, ".sql.out") {
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		rels = append(rels, strings.TrimSuffix(filepath.ToSlash(rel), ".sql.out"))
		return nil
	})
	sort.Strings(rels)
	return rels, err
}

// knownFailure is one line of known_failures.txt: `file:index reason`.
type knownFailure struct {
	Reason string
}

const knownFailuresFile = "known_failures.txt"

func readKnownFailures() (map[string]knownFailure, error) {
	known := map[string]knownFailure{}
	data, err := os.ReadFile(filepath.Join(goldenDir, knownFailuresFile))
	if os.IsNotExist(err) {
		return known, nil
	}
	if err != nil {
		return nil, err
	}
	for n, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		id, reason, _ := strings.Cut(line, " ")
		file, idx, ok := strings.Cut(id, ":")
		if _, err := strconv.Atoi(idx); !ok || err != nil || file == "" {
			return nil, fmt.Errorf("%s line %d: want `file:index reason`, got %q", knownFailuresFile, n+1, line)
		}
		known[id] = knownFailure{Reason: strings.TrimSpace(reason)}
	}
	return known, nil
}

func caseID(rel string, idx int) string { return rel + ":" + strconv.Itoa(idx) }
