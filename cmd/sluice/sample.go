package main

import (
	"flag"
	"fmt"

	"github.com/sluicedata/sluice/dataframe"
)

// sampleFlags are --sample-rows N and --strict: infer a JSON schema from the
// first N records (see docs/inference.md#sampling).
type sampleFlags struct {
	rows   int
	strict bool
}

func (o *sampleFlags) register(fs *flag.FlagSet) {
	fs.IntVar(&o.rows, "sample-rows", 0, "infer the JSON schema from the first `N` records only; later values that do not fit become null (0: all records)")
	fs.BoolVar(&o.strict, "strict", false, "with --sample-rows: fail on the first value that does not fit the sampled schema")
}

func (o *sampleFlags) validate() error {
	if o.rows < 0 {
		return usagef("--sample-rows must be ≥ 0, got %d", o.rows)
	}
	if o.strict && o.rows == 0 {
		return usagef("--strict applies with --sample-rows N only")
	}
	return nil
}

// note is the summary of what a sampled read dropped, "" when nothing.
func (o *sampleFlags) note(st *dataframe.ReadStats) string {
	if o.rows == 0 || st == nil || st.Misfits == 0 {
		return ""
	}
	word := "values"
	if st.Misfits == 1 {
		word = "value"
	}
	return fmt.Sprintf("%d %s did not fit the schema sampled from the first %d records and became null (first: %s)", st.Misfits, word, o.rows, st.First)
}
