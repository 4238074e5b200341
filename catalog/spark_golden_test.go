package catalog_test

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/catalog"
	"github.com/sluicedata/sluice/catalog/sqlparse"
	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/sparktype"
)

var updateGoldenBaseline = flag.Bool("update-golden-baseline", false,
	"rewrite testdata/spark/known_failures.txt, status.md and FAILURES.md from this run of TestSparkGolden")

// sparkTestTimeZone is the time zone Spark's SQLQueryTestSuite runs in
// (its JVM default and session time zone): the golden files print
// timestamps there.
const sparkTestTimeZone = "America/Los_Angeles"

// caseTimeout bounds one query; the corpus is small tables only.
const caseTimeout = 20 * time.Second

// caseResult is what one golden case gave.
type caseResult struct {
	File    string
	Area    string
	Case    goldenCase
	Outcome string // "pass", "fail" or "skip"
	Reason  string // why it failed or was skipped (see docs/sql.md#spark-compatibility)
	Err     string // Sluice's error, if it refused the query
	Panic   string // the panic value and where it happened
	// What Sluice answered, for the failure report.
	Schema      string
	Rows        []string
	SparkNames  []string // Spark's column names when only the names differ
	SluiceNames []string
	SparkTypes  []string // Spark's column types when only the types differ
	SluiceTypes []string
}

func (r caseResult) ID() string { return caseID(r.File, r.Case.Index) }

// TestSparkGolden runs Spark 3.5's golden SQL test files (testdata/spark,
// see docs/sql.md#spark-compatibility) through a fresh Session per file
// and compares column names, types and rows with what Spark recorded. A
// case that fails and is not in known_failures.txt, or that panics
// without being listed as a panic, fails the test; a listed case that now
// passes is reported. -update-golden-baseline rewrites the list, the
// per-area status and the failure report.
func TestSparkGolden(t *testing.T) {
	rels, err := goldenFiles()
	require.NoError(t, err)
	require.NotEmpty(t, rels, "no golden files under %s/results", goldenDir)
	known, err := readKnownFailures()
	require.NoError(t, err)

	var mu sync.Mutex
	var all []caseResult
	t.Run("file", func(t *testing.T) {
		for _, rel := range rels {
			t.Run(rel, func(t *testing.T) {
				t.Parallel()
				results := runGoldenFile(t, rel)
				if !*updateGoldenBaseline {
					checkAgainstBaseline(t, results, known)
				}
				mu.Lock()
				all = append(all, results...)
				mu.Unlock()
			})
		}
	})
	sort.Slice(all, func(i, j int) bool {
		if all[i].File != all[j].File {
			return all[i].File < all[j].File
		}
		return all[i].Case.Index < all[j].Case.Index
	})

	seen := map[string]bool{}
	var fixed []string
	for _, r := range all {
		seen[r.ID()] = true
		if _, listed := known[r.ID()]; listed && r.Outcome != "fail" {
			fixed = append(fixed, r.ID())
		}
	}
	var stale []string
	for id := range known {
		if !seen[id] {
			stale = append(stale, id)
		}
	}
	sort.Strings(stale)
	status := renderStatus(all)
	t.Logf("Spark golden cases by area:\n%s", status)
	if len(fixed) > 0 {
		t.Logf("%d listed known failures now pass or are skipped (rerun with -update-golden-baseline to drop them): %s",
			len(fixed), strings.Join(fixed, " "))
	}
	if len(stale) > 0 {
		t.Logf("%d entries of %s name no case: %s", len(stale), knownFailuresFile, strings.Join(stale, " "))
	}
	if *updateGoldenBaseline {
		require.NoError(t, writeGoldenFile(knownFailuresFile, renderKnownFailures(all)))
		require.NoError(t, writeGoldenFile("status.md", renderStatusFile(all, status)))
		require.NoError(t, writeGoldenFile("FAILURES.md", renderFailures(all)))
	}
}

// checkAgainstBaseline fails t for every case that fails without being a
// known failure, and for a panic not listed as one.
func checkAgainstBaseline(t *testing.T, results []caseResult, known map[string]knownFailure) {
	t.Helper()
	for _, r := range results {
		if r.Outcome != "fail" {
			continue
		}
		k, listed := known[r.ID()]
		switch {
		case !listed:
			t.Errorf("%s (%s): regression, not in %s\n%s", r.ID(), r.Reason, knownFailuresFile, describeFailure(r))
		case r.Reason == "panic" && k.Reason != "panic":
			t.Errorf("%s: panics (listed as %s)\n%s", r.ID(), k.Reason, describeFailure(r))
		}
	}
}

func describeFailure(r caseResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "query:\n%s\n", indent(r.Case.Query))
	switch {
	case r.Panic != "":
		fmt.Fprintf(&b, "panic: %s\n", r.Panic)
	case r.Err != "":
		fmt.Fprintf(&b, "Sluice: %s\n", r.Err)
	case r.Case.IsError():
		fmt.Fprintf(&b, "Spark refuses it:\n%s\nSluice answered %s with %d rows\n", indent(firstLines(r.Case.Output, 3)), r.Schema, len(r.Rows))
	default:
		fmt.Fprintf(&b, "Spark:  %s\n%s\nSluice: %s\n%s\n", r.Case.Schema, indent(firstLines(r.Case.Output, 10)),
			r.Schema, indent(firstLines(strings.Join(r.Rows, "\n"), 10)))
	}
	return b.String()
}

func indent(s string) string { return "    " + strings.ReplaceAll(s, "\n", "\n    ") }

func firstLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = append(lines[:n], fmt.Sprintf("… %d more", len(lines)-n))
	}
	return strings.Join(lines, "\n")
}

func writeGoldenFile(name, content string) error {
	return os.WriteFile(filepath.Join(goldenDir, name), []byte(content), 0o644)
}

// runGoldenFile runs every case of one result file in order through one
// session: views and tables made by earlier queries are there for later
// ones, as in Spark's runner.
func runGoldenFile(t *testing.T, rel string) []caseResult {
	data, err := os.ReadFile(filepath.Join(goldenDir, "results", rel+".sql.out"))
	require.NoError(t, err)
	cases, err := parseGolden(string(data))
	require.NoError(t, err, rel)
	dirs, err := readDirectives(filepath.Join(goldenDir, "inputs", rel+".sql"))
	require.NoError(t, err, rel)

	fileSkip := ""
	for _, kv := range dirs.Set {
		k, v, _ := strings.Cut(kv, "=")
		if reason := outOfScopeSetting(k, v); reason != "" {
			fileSkip = reason
			break
		}
	}
	cat, err := catalog.Open(t.TempDir())
	require.NoError(t, err)
	s := catalog.NewSession(cat)
	s.SetLogOutput(io.Discard)
	require.NoError(t, s.Set("spark.sql.session.timeZone", sparkTestTimeZone))

	active := map[string]string{} // settings out of Sluice's scope now in force
	area := areaOf(rel)
	results := make([]caseResult, 0, len(cases))
	for _, c := range cases {
		r := caseResult{File: rel, Area: area, Case: c}
		if fileSkip != "" {
			r.Outcome, r.Reason = "skip", fileSkip
			results = append(results, r)
			continue
		}
		if k, v, ok := parseSet(c.Query); ok {
			key := strings.ToLower(k)
			if reason := outOfScopeSetting(k, v); reason != "" {
				active[key] = reason
				r.Outcome, r.Reason = "skip", reason
				results = append(results, r)
				continue
			}
			delete(active, key)
		} else if k, all, ok := parseReset(c.Query); ok {
			if all {
				clear(active)
			} else {
				delete(active, strings.ToLower(k))
			}
		}
		if len(active) > 0 {
			keys := make([]string, 0, len(active))
			for k := range active {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			r.Outcome, r.Reason = "skip", active[keys[0]]
			results = append(results, r)
			continue
		}
		runGoldenCase(s, &r)
		results = append(results, r)
	}
	return results
}

// runGoldenCase runs one query and fills in the outcome. A panic in the
// engine is recovered and recorded: a query must never crash the process.
func runGoldenCase(s *catalog.Session, r *caseResult) {
	c := r.Case
	ctx, cancel := context.WithTimeout(context.Background(), caseTimeout)
	defer cancel()
	var f *dataframe.Frame
	var err error
	func() {
		defer func() {
			if p := recover(); p != nil {
				r.Panic = fmt.Sprintf("%v at %s", p, panicSite(debug.Stack()))
			}
		}()
		f, err = s.ExecuteBatch(ctx, c.Query)
	}()
	if f != nil {
		defer f.Release()
	}
	fail := func(reason string) { r.Outcome, r.Reason = "fail", reason }
	switch {
	case r.Panic != "":
		fail("panic")
		return
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		fail("timeout")
		return
	case c.IsError():
		if err != nil {
			r.Outcome = "pass"
		} else {
			fail("error-expected")
			r.Schema = sparkSchemaString(f.Schema())
			r.Rows = hiveRows(f, sessionZone(s))
		}
		return
	case err != nil:
		r.Err = err.Error()
		fail(classifyError(err))
		return
	case c.IsCommand():
		r.Outcome = "pass"
		return
	}

	loc := sessionZone(s)
	r.Schema = sparkSchemaString(f.Schema())
	r.Rows = hiveRows(f, loc)
	var reasons []string
	if r.Schema != c.Schema {
		reasons = append(reasons, diagnoseSchema(r, f.Schema()))
	}
	expRows := c.Rows()
	ordered := hasTopLevelOrderBy(c.Query) || !lexSorted(expRows)
	if !sameRows(expRows, r.Rows, ordered) {
		reason := "values"
		if loc != time.UTC && sameRows(expRows, hiveRows(f, time.UTC), ordered) {
			reason = "timezone"
		}
		reasons = append(reasons, reason)
	}
	if len(reasons) == 0 {
		r.Outcome = "pass"
		return
	}
	fail(strings.Join(reasons, "+"))
}

// sameRows compares rows as Spark's runner does: the output text with
// trailing whitespace trimmed, sorted first unless the order is part of
// the answer.
func sameRows(want, got []string, ordered bool) bool {
	if !ordered {
		want, got = sortRows(want), sortRows(got)
	}
	trim := func(rows []string) string { return strings.TrimRight(strings.Join(rows, "\n"), " \t\n\r\f\v") }
	return trim(want) == trim(got)
}

// sessionZone is the time zone timestamps print in: the session's
// spark.sql.session.timeZone, else the zone Spark's runner uses.
func sessionZone(s *catalog.Session) *time.Location {
	name, ok := s.Get("spark.sql.session.timeZone")
	if !ok {
		name = sparkTestTimeZone
	}
	loc, err := time.LoadLocation(strings.Trim(name, "'\""))
	if err != nil {
		return time.UTC
	}
	return loc
}

// diagnoseSchema says whether only the names ("names"), only the types
// ("types") or more ("schema") differ, and keeps the differing columns.
func diagnoseSchema(r *caseResult, s *arrow.Schema) string {
	fields := s.Fields()
	if len(fields) == 0 {
		return "schema"
	}
	names := make([]string, len(fields))
	types := make([]string, len(fields))
	namePat := make([]string, len(fields))
	typePat := make([]string, len(fields))
	for i, f := range fields {
		names[i], types[i] = f.Name, sparktype.CatalogString(f.Type)
		namePat[i] = "(.*):" + regexp.QuoteMeta(types[i])
		typePat[i] = regexp.QuoteMeta(names[i]) + ":(.*)"
	}
	if m := regexp.MustCompile(`^struct<` + strings.Join(namePat, ",") + `>$`).FindStringSubmatch(r.Case.Schema); m != nil {
		r.SparkNames, r.SluiceNames = m[1:], names
		return "names"
	}
	if m := regexp.MustCompile(`^struct<` + strings.Join(typePat, ",") + `>$`).FindStringSubmatch(r.Case.Schema); m != nil {
		r.SparkTypes, r.SluiceTypes = m[1:], types
		return "types"
	}
	return "schema"
}

// classifyError names the kind of refusal: a construct Sluice says it
// does not support, another syntax error, an unknown function, or else.
func classifyError(err error) string {
	msg := err.Error()
	switch {
	case strings.Contains(msg, "not supported"):
		return "unsupported"
	case errors.Is(err, sqlparse.ErrSyntax):
		return "parse"
	case strings.Contains(msg, "unknown function"):
		return "function"
	}
	return "error"
}

// panicSite is the first stack frame outside the runtime and, when that
// is in a dependency, the first one in Sluice's own code.
func panicSite(stack []byte) string {
	lines := strings.Split(string(stack), "\n")
	var first string
	for i := 0; i+1 < len(lines); i++ {
		fn := strings.TrimSpace(lines[i])
		if strings.HasPrefix(fn, "panic(") || strings.HasPrefix(fn, "runtime") || strings.HasPrefix(fn, "goroutine ") ||
			strings.Contains(fn, "catalog_test.") || !strings.Contains(fn, "(") {
			continue
		}
		if j := strings.LastIndex(fn, "("); j > 0 {
			fn = fn[:j] // the arguments
		}
		file := strings.Fields(strings.TrimSpace(lines[i+1]))[0]
		if parts := strings.Split(file, "/"); len(parts) > 2 {
			file = strings.Join(parts[len(parts)-2:], "/")
		}
		at := fn + " " + file
		if strings.HasPrefix(fn, "github.com/sluicedata/sluice/") {
			if first == "" {
				return at
			}
			return first + " (from " + at + ")"
		}
		if first == "" {
			first = at
		}
	}
	if first == "" {
		return "unknown"
	}
	return first
}
