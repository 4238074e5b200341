package jsonframe

import (
	"context"
	"fmt"

	"github.com/apache/arrow/go/v17/arrow"

	"github.com/sluicedata/sluice/dataframe/sparktype"
	"github.com/sluicedata/sluice/internal/jsontext"
)

// Misfit is a value that did not fit the schema inferred from a sample
// (Options.SampleRows): it became null, or, with Strict, failed the
// read.
type Misfit struct {
	Field  string // dotted path of the column: "a.b", "items.element.id"; "" for a field the sample did not see (Value names it)
	Type   string // the column's Spark type
	Value  string // the value's JSON text, cut to 60 bytes
	Offset int64  // 0-based byte offset of the value in the input
	Line   int    // 1-based line, for JSON lines
	Doc    int    // 0-based document, for several documents
}

func (m *Misfit) String() string {
	where := fmt.Sprintf("at byte offset %d", m.Offset)
	if m.Line > 0 {
		where = fmt.Sprintf("on line %d (byte offset %d)", m.Line, m.Offset)
	} else if m.Doc > 0 {
		where += fmt.Sprintf(" in document %d", m.Doc)
	}
	if m.Type == "" {
		return fmt.Sprintf("record %s: field %q is not in the sampled schema", where, m.Field)
	}
	return fmt.Sprintf("record %s: field %q: value %s does not fit %s", where, m.Field, m.Value, m.Type)
}

// MisfitError is a value that did not fit the sampled schema in a Strict
// read.
type MisfitError struct {
	Misfit
	SampleRows int // the sample size the schema came from
	Count      int64
}

func (e *MisfitError) Error() string {
	s := fmt.Sprintf("dataframe: %s inferred from the first %d records", e.Misfit.String(), e.SampleRows)
	if e.Count > 1 {
		s += fmt.Sprintf(" (%d values did not fit)", e.Count)
	}
	return s
}

// ReadStats reports on a JSON read (Options.Stats).
type ReadStats struct {
	// Misfits counts the values that did not fit the schema inferred from a
	// sample and became null (or were dropped, for fields the sample did
	// not see). Always 0 without SampleRows.
	Misfits int64
	// First is the first of them, nil when there were none.
	First *Misfit
	// Malformed counts the records that were not valid JSON or not
	// objects, kept as corrupt records or dropped (Options.Mode).
	Malformed int64
}

// misfit notes that the value at pos..end did not fit n and became null.
func (s *scanner) misfit(n *buildNode, pos, end int) {
	s.misfits++
	if s.firstMisfit != nil {
		return
	}
	m := &Misfit{Field: n.path, Offset: s.Base + int64(pos), Doc: s.Doc}
	if n.path == "" {
		m.Field = "value"
	}
	m.Type = sparktype.Name(n.b.Type())
	m.Value = cutText(s.Data, pos, end)
	s.firstMisfit = m
}

// unknownField notes a field the sampled schema lacks, dropped from the
// record at pos.
func (s *scanner) unknownField(n *buildNode, key []byte, pos int) {
	s.misfits++
	if s.firstMisfit != nil {
		return
	}
	s.firstMisfit = &Misfit{Field: joinPath(n.path, string(key)), Offset: s.Base + int64(pos), Doc: s.Doc}
}

func cutText(d []byte, pos, end int) string {
	if end < pos {
		end = pos
	}
	if end-pos > 60 {
		return string(d[pos:pos+57]) + "..."
	}
	return string(d[pos:end])
}

// add counts a part's misfits; parts come in input order, so the first
// one seen stays first.
func (st *ReadStats) add(n int64, first *Misfit) {
	st.Misfits += n
	if st.First == nil && first != nil {
		st.First = first
	}
}

// check completes the first misfit's position and, in a Strict read, turns
// it into the error.
func (st *ReadStats) check(opts Options, spans []docSpan, lines bool) error {
	if st.First == nil {
		return nil
	}
	if lines && len(spans) == 1 {
		st.First.Line = jsontext.LineOf(spans[0].data, st.First.Offset)
	}
	if opts.Strict {
		return &MisfitError{Misfit: *st.First, SampleRows: opts.SampleRows, Count: st.Misfits}
	}
	return nil
}

type settingsKey struct{}

// ReadSettings are the JSON read settings a command hands to the
// connectors it calls (`sluice read --sample-rows N --strict --mode M`), as
// the Options fields of the same names.
type ReadSettings struct {
	SampleRows int
	Strict     bool
	Mode       string
}

type settings struct {
	ReadSettings
	stats *ReadStats
}

// WithReadSettings returns a context that asks the JSON reads made under
// it by connectors (a RESTAPI read) to apply rs; the returned ReadStats
// collects what they counted. Zero settings return ctx unchanged.
func WithReadSettings(ctx context.Context, rs ReadSettings) (context.Context, *ReadStats) {
	stats := &ReadStats{}
	if rs == (ReadSettings{}) {
		return ctx, stats
	}
	return context.WithValue(ctx, settingsKey{}, &settings{ReadSettings: rs, stats: stats}), stats
}

// ReadSettingsFrom sets opts.SampleRows, Strict, Mode and Stats from a
// context made by WithReadSettings; other contexts leave opts as they are.
func ReadSettingsFrom(ctx context.Context, opts Options) Options {
	if s, ok := ctx.Value(settingsKey{}).(*settings); ok {
		opts.SampleRows, opts.Strict, opts.Mode, opts.Stats = s.SampleRows, s.Strict, s.Mode, s.stats
	}
	return opts
}

// withCorruptField adds a string field named name in Spark's field order,
// unless the schema has one already (Spark's withCorruptField).
func withCorruptField(schema *arrow.Schema, name string) *arrow.Schema {
	if len(schema.FieldIndices(name)) > 0 {
		return schema
	}
	fields := append(schema.Fields(), arrow.Field{Name: name, Type: arrow.BinaryTypes.String, Nullable: true})
	sparktype.SortFields(fields)
	return arrow.NewSchema(fields, nil)
}
