package pipelines

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/sluicedata/sluice/connectors/parquet"
	"github.com/sluicedata/sluice/dataframe/query"
	"github.com/sluicedata/sluice/internal/propref"
	"github.com/sluicedata/sluice/internal/suggest"
)

// Pos is a 1-based line and column in the pipeline file.
type Pos struct {
	Line, Column int
}

func (p Pos) String() string {
	if p.Column <= 0 {
		return fmt.Sprintf("line %d", p.Line)
	}
	return fmt.Sprintf("line %d, column %d", p.Line, p.Column)
}

// Error is a problem found in a pipeline file, at a position when one is
// known. Every parsing and validation error is one.
type Error struct {
	File string // may be empty
	Pos  Pos    // zero when the error is not about one place
	Msg  string
	Err  error // the error the message wraps, or nil
}

// Unwrap is the error e wraps.
func (e *Error) Unwrap() error { return e.Err }

func (e *Error) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		b.WriteString(": ")
	}
	if e.Pos.Line > 0 {
		b.WriteString(e.Pos.String())
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// ErrInvalid is wrapped by every *Error so callers can test for a bad
// pipeline with errors.Is.
var ErrInvalid = errors.New("invalid pipeline")

func (e *Error) Is(target error) bool { return target == ErrInvalid }

// Kind is a step kind: the one key that says what a step does.
type Kind string

// The step kinds.
const (
	KindRead    Kind = "read"
	KindSQL     Kind = "sql"
	KindSelect  Kind = "select"
	KindFilter  Kind = "filter"
	KindExplode Kind = "explode"
	KindFlatten Kind = "flatten"
	KindRename  Kind = "rename"
	KindLimit   Kind = "limit"
	KindWrite   Kind = "write"

	KindAggregate   Kind = "aggregate"
	KindSort        Kind = "sort"
	KindJoin        Kind = "join"
	KindDistinct    Kind = "distinct"
	KindWithColumns Kind = "with_columns"
)

// Kinds lists the step kinds in the order the documentation gives them.
var Kinds = []Kind{KindRead, KindSQL, KindSelect, KindFilter, KindExplode, KindFlatten, KindRename, KindLimit,
	KindAggregate, KindSort, KindJoin, KindDistinct, KindWithColumns, KindWrite}

// Pipeline is a parsed pipeline file.
type Pipeline struct {
	// Name names the pipeline in progress lines and errors. Required.
	Name string
	// Catalog is the catalog directory for table reads and writes; the CLI's
	// --catalog wins over it. Defaults to empty (the CLI's default catalog).
	Catalog string
	// Settings are session settings (svc.*) applied before the first step,
	// in file order. Defaults to none.
	Settings []Setting
	// Steps in file order. At least one.
	Steps []*Step
	// File is the path the pipeline was read from, for error messages.
	File string

	order []*Step // run order, set by Validate
}

// Setting is one session setting of the pipeline.
type Setting struct {
	Key, Value string
	Pos        Pos
}

// Step is one step of a pipeline. Exactly one of the kind fields is set,
// matching Kind.
type Step struct {
	// ID names the step for `from:` and SQL; when the file gives none it is
	// `step_<n>` (n counts steps from 1).
	ID string
	// ExplicitID reports whether the file gave the id.
	ExplicitID bool
	// From is the id of the step whose output this step takes. Defaults to
	// the previous step in the file (none for the first step and for reads).
	From string
	// Kind is the step kind.
	Kind Kind
	// Index is the step's 0-based place in the file.
	Index int
	// Pos is where the step starts in the file.
	Pos Pos
	// FromPos is where `from:` is, when given.
	FromPos Pos

	Read    *ReadStep
	SQL     *SQLStep
	Select  *SelectStep
	Filter  *FilterStep
	Explode *ExplodeStep
	Flatten *FlattenStep
	Rename  *RenameStep
	Limit   *LimitStep
	Write   *WriteStep
	// Transform is set for aggregate, sort, join, distinct and with_columns.
	Transform *TransformStep

	inputs []string    // resolved by Validate
	query  *Query      // parsed sql
	where  query.Query // the filter's query over its input `_`
}

// ReadStep reads a dataset: a catalog table, or an inline dataset given by
// its connector type and properties (USER provider mode).
type ReadStep struct {
	// Table is a catalog table name (`ns.t`). Either Table or Type is set.
	Table string
	// Type is the connector type of an inline dataset (RESTAPI, PARQUET, …).
	Type string
	// Properties are the inline dataset's properties, or runtime properties
	// of a table read. Defaults to none.
	Properties map[string]string
	// PropertyOrder keeps the file order of Properties for the plan.
	PropertyOrder []string
}

// SQLStep runs a SELECT over earlier steps and catalog tables.
type SQLStep struct {
	Query string
	Pos   Pos // where the query's value starts in the file
}

// Projection is one selected path and its output name.
type Projection struct {
	Path  string
	Alias string // empty: the path's last segment
}

// SelectStep keeps the given paths, in order.
type SelectStep struct {
	Columns []Projection
}

// FilterStep keeps the rows for which a SQL WHERE expression is true.
type FilterStep struct {
	Expr string
	Pos  Pos
}

// ExplodeStep makes one row per element of an array column, the other
// columns kept beside it (Spark's explode); a flatten step after it turns
// struct elements' fields into columns (docs/pipelines.md#explode).
type ExplodeStep struct {
	Path string
}

// FlattenStep turns struct columns into dotted top-level columns.
type FlattenStep struct{}

// RenameStep renames top-level columns.
type RenameStep struct {
	Pairs []RenamePair
}

// RenamePair is one old → new column name.
type RenamePair struct {
	From, To string
	Pos      Pos
}

// LimitStep keeps the first N rows.
type LimitStep struct {
	N int64
}

// WriteStep writes its input to a file or a dataset; its output is its input.
type WriteStep struct {
	// File is an output path; the format comes from Format or its extension.
	File string
	// Format is parquet, ndjson, csv or arrow. Defaults to the extension of File.
	Format string
	// PartitionBy lists the columns of a Hive-partitioned Parquet output
	// (`File` is then a directory: File/key=value/part-N.parquet).
	PartitionBy []string
	// Compression is the Parquet codec. Defaults to snappy.
	Compression string
	// Mode is overwrite or merge for a file (Parquet only: rows replace
	// the stored rows with the same Key; see
	// docs/incremental.md#merge-writes), and append, overwrite or merge for
	// a table, where it sets the connector's svc.<type>.mode (and Key its
	// svc.<type>.merge.key: docs/jdbc.md#writes). Defaults to overwrite for
	// files and to the table's own mode.
	Mode string
	// Key lists the key columns of a merge. Required with merge.
	Key []string
	// Table is a catalog table to write through its connector.
	Table string
	// Type is the connector type of an inline dataset (USER provider mode).
	Type string
	// Properties are the inline dataset's properties, or runtime properties
	// of a table write. Defaults to none.
	Properties    map[string]string
	PropertyOrder []string
}

// Parse reads a pipeline from YAML text. name is used in error messages (a
// file path, or empty). Environment references `${VAR}` and `${VAR:default}`
// in values are replaced through getenv (os.Getenv when nil); `$${` is a
// literal `${`. Decoding is strict: unknown keys, wrong types and missing
// fields are errors with their line and column. Parse also validates the
// pipeline (see Validate).
func Parse(name string, data []byte, getenv func(string) string) (*Pipeline, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	d := &decoder{file: name, getenv: getenv}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		perr := d.yamlError(err)
		if strings.Contains(err.Error(), "expected ',' or '}'") && strings.Contains(string(data), "${") {
			// The closing brace of ${VAR} ends a flow mapping {…} early.
			perr.Msg += ` (inside {…}, quote values that use ${VAR}: "${VAR}")`
		}
		return nil, perr
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil, &Error{File: name, Msg: "empty pipeline file (want name and steps)"}
	}
	p, err := d.pipeline(doc.Content[0])
	if err != nil {
		return nil, err
	}
	p.File = name
	if err := Validate(p); err != nil {
		return nil, err
	}
	return p, nil
}

// ParseFile reads and parses the pipeline file at path.
func ParseFile(path string, getenv func(string) string) (*Pipeline, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading pipeline: %w", err)
	}
	return Parse(path, data, getenv)
}

type decoder struct {
	file   string
	getenv func(string) string
}

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// yamlParserProblems are the problems yaml.v3's parser (not its scanner)
// reports; it numbers their lines from 0, so they need one added.
var yamlParserProblems = []string{
	"did not find expected ',' or ']'", "did not find expected ',' or '}'", "did not find expected '-' indicator",
	"did not find expected <document start>", "did not find expected <stream-start>", "did not find expected key",
	"did not find expected node content", "found duplicate %TAG directive", "found duplicate %YAML directive",
	"found incompatible YAML document", "found undefined tag handle",
}

func (d *decoder) yamlError(err error) *Error {
	msg := err.Error()
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		if contains(yamlParserProblems, m[2]) {
			line++
		}
		return &Error{File: d.file, Pos: Pos{Line: line}, Msg: "invalid YAML: " + m[2]}
	}
	return &Error{File: d.file, Msg: "invalid YAML: " + strings.TrimPrefix(msg, "yaml: ")}
}

func (d *decoder) errf(n *yaml.Node, format string, args ...any) error {
	return &Error{File: d.file, Pos: posOf(n), Msg: fmt.Sprintf(format, args...)}
}

func posOf(n *yaml.Node) Pos {
	if n == nil {
		return Pos{}
	}
	return Pos{Line: n.Line, Column: n.Column}
}

func resolve(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return "null"
		}
		return fmt.Sprintf("%q", n.Value)
	}
	return "nothing"
}

// field is one key/value of a mapping.
type field struct {
	key   string
	keyN  *yaml.Node
	value *yaml.Node
}

// mapping returns the fields of a mapping node, rejecting duplicate keys and
// any key not in allowed (when allowed is non-nil). what names the mapping
// in messages.
func (d *decoder) mapping(n *yaml.Node, what string, allowed []string) ([]field, error) {
	n = resolve(n)
	if n.Kind != yaml.MappingNode {
		return nil, d.errf(n, "%s: want a mapping, got %s", what, kindName(n))
	}
	seen := map[string]bool{}
	fields := make([]field, 0, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := resolve(n.Content[i]), resolve(n.Content[i+1])
		if k.Kind != yaml.ScalarNode {
			return nil, d.errf(k, "%s: keys must be strings, got %s", what, kindName(k))
		}
		if k.Value == "<<" {
			return nil, d.errf(k, "%s: merge keys (<<) are not supported", what)
		}
		if seen[k.Value] {
			return nil, d.errf(k, "%s: duplicate key %q", what, k.Value)
		}
		seen[k.Value] = true
		if allowed != nil && !contains(allowed, k.Value) {
			return nil, d.errf(k, "%s: unknown key %q (want one of: %s)", what, k.Value, strings.Join(allowed, ", "))
		}
		fields = append(fields, field{key: k.Value, keyN: k, value: v})
	}
	return fields, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// str decodes a scalar as text, interpolating environment references.
// Numbers and booleans are accepted as their text.
func (d *decoder) str(n *yaml.Node, what string) (string, error) {
	if err := d.scalar(n, what); err != nil {
		return "", err
	}
	return d.interpolate(resolve(n), what)
}

// scalar checks that n (or what it aliases) is a text, number or boolean.
func (d *decoder) scalar(n *yaml.Node, what string) error {
	n = resolve(n)
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		return d.errf(n, "%s: want a string, got %s", what, kindName(n))
	}
	if n.Tag == "!!binary" {
		return d.errf(n, "%s: want a string, got binary data", what)
	}
	return nil
}

// nonEmpty is str that rejects an empty value.
func (d *decoder) nonEmpty(n *yaml.Node, what string) (string, error) {
	s, err := d.str(n, what)
	if err != nil {
		return "", err
	}
	if strings.TrimSpace(s) == "" {
		return "", d.errf(n, "%s: must not be empty", what)
	}
	return s, nil
}

func (d *decoder) integer(n *yaml.Node, what string) (int64, error) {
	n = resolve(n)
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" || n.Tag == "!!bool" || n.Tag == "!!float" {
		return 0, d.errf(n, "%s: want an integer, got %s", what, kindName(n))
	}
	s, err := d.interpolate(n, what)
	if err != nil {
		return 0, err
	}
	v, err := strconv.ParseInt(strings.TrimSpace(s), 0, 64)
	if err != nil {
		return 0, d.errf(n, "%s: want an integer, got %q", what, s)
	}
	return v, nil
}

func (d *decoder) strList(n *yaml.Node, what string) ([]string, error) {
	n = resolve(n)
	if n.Kind == yaml.ScalarNode && n.Tag != "!!null" {
		s, err := d.nonEmpty(n, what)
		if err != nil {
			return nil, err
		}
		return []string{s}, nil
	}
	if n.Kind != yaml.SequenceNode {
		return nil, d.errf(n, "%s: want a list of strings, got %s", what, kindName(n))
	}
	out := make([]string, 0, len(n.Content))
	for _, c := range n.Content {
		s, err := d.nonEmpty(c, what)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// props decodes a mapping of property names to scalar values.
func (d *decoder) props(n *yaml.Node, what string) (map[string]string, []string, error) {
	fields, err := d.mapping(n, what, nil)
	if err != nil {
		return nil, nil, err
	}
	m := make(map[string]string, len(fields))
	order := make([]string, 0, len(fields))
	for _, f := range fields {
		if strings.TrimSpace(f.key) == "" {
			return nil, nil, d.errf(f.keyN, "%s: empty property name", what)
		}
		// A property value is reference syntax: `$${` stays as written.
		if err := d.scalar(f.value, what+"."+f.key); err != nil {
			return nil, nil, err
		}
		v, err := d.expand(resolve(f.value), what+"."+f.key, propref.Escape)
		if err != nil {
			return nil, nil, err
		}
		m[f.key] = v
		order = append(order, f.key)
	}
	return m, order, nil
}

// interpolate replaces ${VAR} and ${VAR:default} in a scalar's value and
// writes `$${` as `${`. The secret references ${env:…} and ${file:…} are
// left as written: the session resolves them at each read or write
// (docs/catalog.md#secret-references).
func (d *decoder) interpolate(n *yaml.Node, what string) (string, error) {
	return d.expand(n, what, func(s string) string { return s })
}

// expand is interpolate with literal text and variables' values passed
// through quote: propref.Escape for a property value, which the session
// reads as reference syntax again, so that `$${` and a `${` in a variable's
// value stay literal there.
func (d *decoder) expand(n *yaml.Node, what string, quote func(string) string) (string, error) {
	s := n.Value
	if !strings.Contains(s, "${") {
		return s, nil
	}
	var b strings.Builder
	err := propref.Scan(s, func(text string) { b.WriteString(quote(text)) }, func(ref string) error {
		if strings.HasPrefix(ref, "env:") || strings.HasPrefix(ref, "file:") {
			b.WriteString("${" + ref + "}")
			return nil
		}
		name, def, hasDef := strings.Cut(ref, ":")
		if !envName.MatchString(name) {
			return d.errf(n, "%s: ${%s}: %q is not an environment variable name", what, ref, name)
		}
		v := d.getenv(name)
		if v == "" {
			if !hasDef {
				return d.errf(n, "%s: environment variable %s is not set (give a default with ${%s:default})", what, name, name)
			}
			v = def
		}
		b.WriteString(quote(v))
		return nil
	})
	if errors.Is(err, propref.ErrUnclosed) {
		return "", d.errf(n, "%s: unterminated ${ in %q", what, n.Value)
	}
	if err != nil {
		return "", err
	}
	return b.String(), nil
}

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

var identifier = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

func (d *decoder) pipeline(n *yaml.Node) (*Pipeline, error) {
	n = resolve(n)
	fields, err := d.mapping(n, "pipeline", []string{"name", "catalog", "settings", "steps"})
	if err != nil {
		return nil, err
	}
	p := &Pipeline{}
	var stepsN *yaml.Node
	for _, f := range fields {
		switch f.key {
		case "name":
			if p.Name, err = d.nonEmpty(f.value, "name"); err != nil {
				return nil, err
			}
		case "catalog":
			if p.Catalog, err = d.nonEmpty(f.value, "catalog"); err != nil {
				return nil, err
			}
		case "settings":
			sf, err := d.mapping(f.value, "settings", nil)
			if err != nil {
				return nil, err
			}
			for _, s := range sf {
				v, err := d.str(s.value, "settings."+s.key)
				if err != nil {
					return nil, err
				}
				p.Settings = append(p.Settings, Setting{Key: s.key, Value: v, Pos: posOf(s.keyN)})
			}
		case "steps":
			stepsN = f.value
		}
	}
	if p.Name == "" {
		return nil, d.errf(n, "pipeline: missing required key \"name\"")
	}
	if stepsN == nil {
		return nil, d.errf(n, "pipeline: missing required key \"steps\"")
	}
	stepsN = resolve(stepsN)
	if stepsN.Kind != yaml.SequenceNode {
		return nil, d.errf(stepsN, "steps: want a list of steps, got %s", kindName(stepsN))
	}
	if len(stepsN.Content) == 0 {
		return nil, d.errf(stepsN, "steps: a pipeline needs at least one step")
	}
	for i, sn := range stepsN.Content {
		s, err := d.step(sn, i)
		if err != nil {
			return nil, err
		}
		p.Steps = append(p.Steps, s)
	}
	return p, nil
}

func kindList() string {
	names := make([]string, len(Kinds))
	for i, k := range Kinds {
		names[i] = string(k)
	}
	return strings.Join(names, ", ")
}

func (d *decoder) step(n *yaml.Node, index int) (*Step, error) {
	n = resolve(n)
	what := fmt.Sprintf("step %d", index+1)
	fields, err := d.mapping(n, what, nil)
	if err != nil {
		return nil, err
	}
	s := &Step{Index: index, Pos: posOf(n)}
	var kindF *field
	for i := range fields {
		f := &fields[i]
		switch f.key {
		case "id":
			id, err := d.nonEmpty(f.value, what+": id")
			if err != nil {
				return nil, err
			}
			if !identifier.MatchString(id) {
				return nil, d.errf(f.value, "%s: id %q: want letters, digits and _ (not starting with a digit)", what, id)
			}
			s.ID, s.ExplicitID = id, true
		case "from":
			if s.From, err = d.nonEmpty(f.value, what+": from"); err != nil {
				return nil, err
			}
			s.FromPos = posOf(f.value)
		default:
			if !contains(kindStrings(), f.key) {
				return nil, d.errf(f.keyN, "%s: unknown step kind %q%s (want one of: %s)", what, f.key, suggest.Phrase(f.key, kindStrings()), kindList())
			}
			if kindF != nil {
				return nil, d.errf(f.keyN, "%s: has two kinds, %q and %q (one kind per step)", what, kindF.key, f.key)
			}
			kindF = f
		}
	}
	if kindF == nil {
		return nil, d.errf(n, "%s: missing the step kind (one of: %s)", what, kindList())
	}
	if !s.ExplicitID {
		s.ID = fmt.Sprintf("step_%d", index+1)
	}
	s.Kind = Kind(kindF.key)
	what = fmt.Sprintf("step %d (%s)", index+1, s.Kind)
	v := kindF.value
	switch s.Kind {
	case KindRead:
		s.Read, err = d.readStep(v, what)
	case KindSQL:
		var q string
		q, err = d.nonEmpty(v, what)
		rv := resolve(v)
		s.SQL = &SQLStep{Query: q, Pos: posOf(rv)}
	case KindSelect:
		s.Select, err = d.selectStep(v, what)
	case KindFilter:
		var e string
		e, err = d.nonEmpty(v, what)
		s.Filter = &FilterStep{Expr: e, Pos: posOf(resolve(v))}
	case KindExplode:
		s.Explode, err = d.explodeStep(v, what)
	case KindFlatten:
		s.Flatten, err = d.flattenStep(v, what)
	case KindRename:
		s.Rename, err = d.renameStep(v, what)
	case KindLimit:
		var lim int64
		lim, err = d.integer(v, what)
		if err == nil && lim < 0 {
			err = d.errf(v, "%s: %d is negative", what, lim)
		}
		s.Limit = &LimitStep{N: lim}
	case KindWrite:
		s.Write, err = d.writeStep(v, what)
	case KindAggregate, KindSort, KindJoin, KindDistinct, KindWithColumns:
		s.Transform, err = d.transformStep(s.Kind, v, what)
	}
	if err != nil {
		return nil, err
	}
	return s, nil
}

func kindStrings() []string {
	out := make([]string, len(Kinds))
	for i, k := range Kinds {
		out[i] = string(k)
	}
	return out
}

func (d *decoder) readStep(n *yaml.Node, what string) (*ReadStep, error) {
	n = resolve(n)
	r := &ReadStep{}
	if n.Kind == yaml.ScalarNode {
		t, err := d.nonEmpty(n, what+": table")
		if err != nil {
			return nil, err
		}
		r.Table = t
		return r, nil
	}
	fields, err := d.mapping(n, what, []string{"table", "type", "properties"})
	if err != nil {
		return nil, err
	}
	for _, f := range fields {
		switch f.key {
		case "table":
			r.Table, err = d.nonEmpty(f.value, what+": table")
		case "type":
			r.Type, err = d.nonEmpty(f.value, what+": type")
		case "properties":
			r.Properties, r.PropertyOrder, err = d.props(f.value, what+": properties")
		}
		if err != nil {
			return nil, err
		}
	}
	switch {
	case r.Table == "" && r.Type == "":
		return nil, d.errf(n, "%s: missing \"table\" (a catalog table) or \"type\" (an inline dataset)", what)
	case r.Table != "" && r.Type != "":
		return nil, d.errf(n, "%s: give \"table\" or \"type\", not both", what)
	}
	return r, nil
}

func (d *decoder) selectStep(n *yaml.Node, what string) (*SelectStep, error) {
	n = resolve(n)
	if n.Kind != yaml.SequenceNode {
		return nil, d.errf(n, "%s: want a list of paths, got %s", what, kindName(n))
	}
	if len(n.Content) == 0 {
		return nil, d.errf(n, "%s: select at least one path", what)
	}
	st := &SelectStep{}
	for _, c := range n.Content {
		c = resolve(c)
		var p Projection
		if c.Kind == yaml.MappingNode {
			fields, err := d.mapping(c, what, []string{"path", "as"})
			if err != nil {
				return nil, err
			}
			for _, f := range fields {
				switch f.key {
				case "path":
					p.Path, err = d.nonEmpty(f.value, what+": path")
				case "as":
					p.Alias, err = d.nonEmpty(f.value, what+": as")
				}
				if err != nil {
					return nil, err
				}
			}
			if p.Path == "" {
				return nil, d.errf(c, "%s: missing required key \"path\"", what)
			}
		} else {
			s, err := d.nonEmpty(c, what)
			if err != nil {
				return nil, err
			}
			p = splitAlias(s)
		}
		if !validPath(p.Path) {
			return nil, d.errf(c, "%s: %q is not a column path (name or dotted.path)", what, p.Path)
		}
		st.Columns = append(st.Columns, p)
	}
	return st, nil
}

// splitAlias understands "path AS alias" (any case) in the short form.
func splitAlias(s string) Projection {
	f := strings.Fields(s)
	if len(f) == 3 && strings.EqualFold(f[1], "as") {
		return Projection{Path: f[0], Alias: f[2]}
	}
	return Projection{Path: strings.TrimSpace(s)}
}

func validPath(p string) bool {
	if p == "" || strings.ContainsAny(p, " \t\n") {
		return false
	}
	for _, seg := range strings.Split(p, ".") {
		if seg == "" {
			return false
		}
	}
	return true
}

func (d *decoder) explodeStep(n *yaml.Node, what string) (*ExplodeStep, error) {
	n = resolve(n)
	e := &ExplodeStep{}
	var err error
	if n.Kind == yaml.MappingNode {
		fields, err := d.mapping(n, what, []string{"path"})
		if err != nil {
			return nil, err
		}
		for _, f := range fields {
			if e.Path, err = d.nonEmpty(f.value, what+": path"); err != nil {
				return nil, err
			}
		}
		if e.Path == "" {
			return nil, d.errf(n, "%s: missing required key \"path\"", what)
		}
	} else if e.Path, err = d.nonEmpty(n, what); err != nil {
		return nil, err
	}
	if !validPath(e.Path) {
		return nil, d.errf(n, "%s: %q is not a column path", what, e.Path)
	}
	return e, nil
}

func (d *decoder) flattenStep(n *yaml.Node, what string) (*FlattenStep, error) {
	n = resolve(n)
	switch {
	case n.Kind == yaml.ScalarNode && n.Tag == "!!null":
	case n.Kind == yaml.ScalarNode && n.Tag == "!!bool" && n.Value == "true":
	case n.Kind == yaml.MappingNode && len(n.Content) == 0:
	default:
		return nil, d.errf(n, "%s: takes no options (write `flatten: {}`), got %s", what, kindName(n))
	}
	return &FlattenStep{}, nil
}

func (d *decoder) renameStep(n *yaml.Node, what string) (*RenameStep, error) {
	fields, err := d.mapping(n, what, nil)
	if err != nil {
		return nil, err
	}
	if len(fields) == 0 {
		return nil, d.errf(n, "%s: rename at least one column (old: new)", what)
	}
	r := &RenameStep{}
	for _, f := range fields {
		to, err := d.nonEmpty(f.value, what+": "+f.key)
		if err != nil {
			return nil, err
		}
		r.Pairs = append(r.Pairs, RenamePair{From: f.key, To: to, Pos: posOf(f.keyN)})
	}
	return r, nil
}

// Output formats of a write step.
var fileFormats = []string{"parquet", "ndjson", "csv", "arrow"}

func (d *decoder) writeStep(n *yaml.Node, what string) (*WriteStep, error) {
	n = resolve(n)
	w := &WriteStep{}
	if n.Kind == yaml.ScalarNode {
		f, err := d.nonEmpty(n, what+": file")
		if err != nil {
			return nil, err
		}
		w.File = f
	} else {
		fields, err := d.mapping(n, what, []string{"file", "format", "partition_by", "compression", "mode", "key", "table", "type", "properties"})
		if err != nil {
			return nil, err
		}
		for _, f := range fields {
			switch f.key {
			case "file":
				w.File, err = d.nonEmpty(f.value, what+": file")
			case "format":
				w.Format, err = d.nonEmpty(f.value, what+": format")
				if err == nil {
					w.Format = strings.ToLower(w.Format)
					if !contains(fileFormats, w.Format) {
						err = d.errf(f.value, "%s: format %q: want one of %s", what, w.Format, strings.Join(fileFormats, ", "))
					}
				}
			case "partition_by":
				w.PartitionBy, err = d.strList(f.value, what+": partition_by")
			case "compression":
				w.Compression, err = d.nonEmpty(f.value, what+": compression")
				if err == nil {
					w.Compression = strings.ToLower(w.Compression)
					if w.Compression == "uncompressed" {
						w.Compression = "none"
					}
					if !contains(parquet.Compressions, w.Compression) {
						err = d.errf(f.value, "%s: compression %q: want one of %s", what, w.Compression, strings.Join(parquet.Compressions, ", "))
					}
				}
			case "mode":
				w.Mode, err = d.nonEmpty(f.value, what+": mode")
				if err == nil {
					w.Mode = strings.ToLower(w.Mode)
					if w.Mode != "overwrite" && w.Mode != "merge" && w.Mode != "append" {
						err = d.errf(f.value, "%s: mode %q: want overwrite, merge or append (tables)", what, w.Mode)
					}
				}
			case "key":
				w.Key, err = d.strList(f.value, what+": key")
			case "table":
				w.Table, err = d.nonEmpty(f.value, what+": table")
			case "type":
				w.Type, err = d.nonEmpty(f.value, what+": type")
			case "properties":
				w.Properties, w.PropertyOrder, err = d.props(f.value, what+": properties")
			}
			if err != nil {
				return nil, err
			}
		}
	}
	set := 0
	for _, s := range []string{w.File, w.Table, w.Type} {
		if s != "" {
			set++
		}
	}
	switch {
	case set == 0:
		return nil, d.errf(n, "%s: missing \"file\", \"table\" or \"type\" (where to write)", what)
	case set > 1:
		return nil, d.errf(n, "%s: give one of \"file\", \"table\" or \"type\"", what)
	}
	if w.File == "" {
		if w.Format != "" || len(w.PartitionBy) > 0 || w.Compression != "" {
			return nil, d.errf(n, "%s: format, partition_by and compression apply to file outputs only", what)
		}
		// A table's mode and key become its connector's svc.<type>.mode
		// and svc.<type>.merge.key (docs/pipelines.md#write).
		switch {
		case w.Mode == "merge" && len(w.Key) == 0:
			return nil, d.errf(n, "%s: mode merge needs key (the list of key columns)", what)
		case w.Mode != "merge" && len(w.Key) > 0:
			return nil, d.errf(n, "%s: key applies to mode merge", what)
		}
		return w, nil
	}
	if w.Mode == "append" {
		return nil, d.errf(n, "%s: mode append applies to table outputs (a file is overwritten or merged)", what)
	}
	if len(w.Properties) > 0 {
		return nil, d.errf(n, "%s: properties apply to table and type outputs only", what)
	}
	if w.Format == "" {
		if w.Format = formatOf(w.File); w.Format == "" && len(w.PartitionBy) > 0 {
			w.Format = "parquet" // a partitioned output is a directory: no extension needed
		} else if w.Format == "" {
			return nil, d.errf(n, "%s: cannot tell the format of %q from its extension (give format: %s)", what, w.File, strings.Join(fileFormats, " | "))
		}
	}
	if len(w.PartitionBy) > 0 && w.Format != "parquet" {
		return nil, d.errf(n, "%s: partition_by needs format parquet, not %s", what, w.Format)
	}
	if w.Compression != "" && w.Format != "parquet" {
		return nil, d.errf(n, "%s: compression applies to parquet only", what)
	}
	switch {
	case w.Mode == "merge" && len(w.Key) == 0:
		return nil, d.errf(n, "%s: mode merge needs key (the list of key columns)", what)
	case w.Mode != "merge" && len(w.Key) > 0:
		return nil, d.errf(n, "%s: key applies to mode merge", what)
	case w.Mode == "merge" && w.Format != "parquet":
		return nil, d.errf(n, "%s: mode merge needs format parquet, not %s", what, w.Format)
	}
	return w, nil
}

// formatOf maps a file extension to an output format; "" when unknown.
func formatOf(path string) string {
	l := strings.ToLower(path)
	switch {
	case strings.HasSuffix(l, ".parquet"):
		return "parquet"
	case strings.HasSuffix(l, ".ndjson"), strings.HasSuffix(l, ".jsonl"):
		return "ndjson"
	case strings.HasSuffix(l, ".csv"):
		return "csv"
	case strings.HasSuffix(l, ".arrow"):
		return "arrow"
	}
	return ""
}
