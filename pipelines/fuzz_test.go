package pipelines

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse checks that no input makes Parse panic and that every failure
// is a positioned *Error.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("examples/*.yaml")
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(string(b))
		}
	}
	for _, s := range []string{
		"",
		"name: a\nsteps:\n  - read: a.b\n  - limit: 3\n",
		"name: a\nsteps:\n  - id: x\n    from: x\n    limit: 1\n",
		"name: a\nsteps:\n  - read: {type: X, properties: {p: ${V}}}\n",
		"name: &n a\nsteps: [{read: *n}]\n",
		"name: a\nsteps:\n  - sql: SELECT `x FROM y\n",
		"name: a\nsteps:\n  - read: a.b\n  - write: {file: o, partition_by: [k]}\n",
	} {
		f.Add(s)
	}
	getenv := func(k string) string {
		if k == "SET" {
			return "value"
		}
		return ""
	}
	f.Fuzz(func(t *testing.T, src string) {
		p, err := Parse("f.yaml", []byte(src), getenv)
		if err != nil {
			var pe *Error
			if !errors.As(err, &pe) {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		if len(p.Order()) != len(p.Steps) {
			t.Fatalf("run order has %d steps, file has %d", len(p.Order()), len(p.Steps))
		}
	})
}

// FuzzParseQuery checks that SQL and filter text never panic the step
// parsers and that syntax errors carry a position.
func FuzzParseQuery(f *testing.F) {
	for _, s := range []string{
		"SELECT * FROM t",
		"select a.b as x, `c d` FROM ns.t WHERE (a >= 1.5e3 OR b IS NOT NULL) AND NOT c = 'it''s' LIMIT 3;",
		"SELECT a FROM t WHERE a = -1 -- comment",
		"SELECT a FROM t WHERE a ! 1",
		"SELECT",
		"a = 1 AND b IS NULL",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		for _, parse := range []func(string) error{
			func(s string) error { _, err := parseQuery(s); return err },
			func(s string) error { _, err := parseFilter(s); return err },
		} {
			err := parse(src)
			var qe *queryError
			if err != nil && (!errors.As(err, &qe) || qe.Line < 0 || (qe.Line > 0 && qe.Column < 1)) {
				t.Fatalf("%q: error without a position: %v", src, err)
			}
		}
	})
}
