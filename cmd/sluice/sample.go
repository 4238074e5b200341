package main

import (
	"flag"
	"fmt"
	"strings"

	"github.com/sluicedata/sluice/dataframe/jsonframe"
)

// sampleFlags are the JSON read flags: --sample-rows N and --strict infer
// the schema from the first N records (see docs/inference.md#sampling),
// --mode says what a malformed record does (#malformed-records).
type sampleFlags struct {
	rows   int
	strict bool
	mode   string
}

func (o *sampleFlags) register(fs *flag.FlagSet) {
	fs.IntVar(&o.rows, "sample-rows", 0, "infer the JSON schema from the first `N` records only; later values that do not fit become null (0: all records)")
	fs.BoolVar(&o.strict, "strict", false, "with --sample-rows: fail on the first value that does not fit the sampled schema")
	fs.StringVar(&o.mode, "mode", "FAILFAST", "malformed JSON records: FAILFAST (fail), PERMISSIVE (keep the text in _corrupt_record) or DROPMALFORMED (leave out)")
}

func (o *sampleFlags) validate() error {
	if o.rows < 0 {
		return usagef("--sample-rows must be ≥ 0, got %d", o.rows)
	}
	if o.strict && o.rows == 0 {
		return usagef("--strict applies with --sample-rows N only")
	}
	o.mode = strings.ToUpper(o.mode)
	switch o.mode {
	case jsonframe.ModeFailFast:
	case jsonframe.ModePermissive, jsonframe.ModeDropMalformed:
		if o.rows > 0 {
			return usagef("--mode %s does not combine with --sample-rows", o.mode)
		}
	default:
		return usagef("--mode %q: want FAILFAST, PERMISSIVE or DROPMALFORMED", o.mode)
	}
	return nil
}

func (o *sampleFlags) settings() jsonframe.ReadSettings {
	rs := jsonframe.ReadSettings{SampleRows: o.rows, Strict: o.strict}
	if o.mode != jsonframe.ModeFailFast {
		rs.Mode = o.mode
	}
	return rs
}

// note is the summary of what a sampled or lenient read dropped, "" when
// nothing.
func (o *sampleFlags) note(st *jsonframe.ReadStats) string {
	if st == nil {
		return ""
	}
	var parts []string
	if o.rows > 0 && st.Misfits > 0 {
		parts = append(parts, fmt.Sprintf("%d %s did not fit the schema sampled from the first %d records and became null (first: %s)",
			st.Misfits, plural(st.Misfits, "value"), o.rows, st.First))
	}
	if st.Malformed > 0 {
		what := "kept in _corrupt_record"
		if o.mode == jsonframe.ModeDropMalformed {
			what = "left out"
		}
		parts = append(parts, fmt.Sprintf("%d malformed %s %s", st.Malformed, plural(st.Malformed, "record"), what))
	}
	return strings.Join(parts, "; ")
}

func plural(n int64, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}
