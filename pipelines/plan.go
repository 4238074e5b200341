package pipelines

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/sluicedata/sluice/connectors"
)

// WritePlan prints what Run would do, without doing it (`sluice run
// --dry-run`): the settings (overrides are the CLI's --set, which win), then
// the steps in run order with their inputs. Secret values print as ***.
func WritePlan(w io.Writer, p *Pipeline, overrides map[string]string) error {
	if p.order == nil {
		if err := Validate(p); err != nil {
			return err
		}
	}
	settings := map[string]string{}
	var keys []string
	for _, s := range p.Settings {
		if _, dup := settings[s.Key]; !dup {
			keys = append(keys, s.Key)
		}
		settings[s.Key] = s.Value
	}
	for _, k := range sortedKeys(overrides) {
		if _, dup := settings[k]; !dup {
			keys = append(keys, k)
		}
		settings[k] = overrides[k]
	}
	sets := []map[string]string{settings}
	for _, s := range p.Steps {
		if s.Read != nil {
			sets = append(sets, s.Read.Properties)
		}
		if s.Write != nil {
			sets = append(sets, s.Write.Properties)
		}
	}
	red := connectors.NewRedactor(sets...)
	show := func(k, v string) string { return red.String(connectors.RedactValue(k, v)) }

	var b strings.Builder
	fmt.Fprintf(&b, "pipeline %s: %d steps\n", p.Name, len(p.Steps))
	if p.Catalog != "" {
		fmt.Fprintf(&b, "catalog: %s\n", p.Catalog)
	}
	if len(keys) > 0 {
		b.WriteString("settings:\n")
		for _, k := range keys {
			fmt.Fprintf(&b, "  %s = %s\n", k, show(k, settings[k]))
		}
	}
	b.WriteString("steps, in run order:\n")
	width := 0
	for _, s := range p.order {
		width = max(width, len(s.ID))
	}
	for i, s := range p.order {
		desc := describeStep(s, show)
		if len(s.inputs) > 0 && s.Kind != KindSQL {
			desc += "  <- " + s.inputs[0]
		}
		fmt.Fprintf(&b, "  %d. %-*s  %-7s  %s\n", i+1, width, s.ID, s.Kind, desc)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func describeStep(s *Step, show func(k, v string) string) string {
	props := func(order []string, m map[string]string) string {
		if len(order) == 0 {
			return ""
		}
		parts := make([]string, len(order))
		for i, k := range order {
			parts[i] = k + "=" + show(k, m[k])
		}
		return " (" + strings.Join(parts, ", ") + ")"
	}
	switch s.Kind {
	case KindRead:
		if s.Read.Table != "" {
			return "table " + s.Read.Table + props(s.Read.PropertyOrder, s.Read.Properties)
		}
		return "inline " + s.Read.Type + " dataset" + props(s.Read.PropertyOrder, s.Read.Properties)
	case KindSQL:
		return oneLine(s.SQL.Query)
	case KindSelect:
		parts := make([]string, len(s.Select.Columns))
		for i, c := range s.Select.Columns {
			parts[i] = c.Path
			if c.Alias != "" {
				parts[i] += " AS " + c.Alias
			}
		}
		return strings.Join(parts, ", ")
	case KindFilter:
		return oneLine(s.Filter.Expr)
	case KindExplode:
		return s.Explode.Path
	case KindFlatten:
		return "struct columns to dotted columns"
	case KindRename:
		parts := make([]string, len(s.Rename.Pairs))
		for i, p := range s.Rename.Pairs {
			parts[i] = p.From + " -> " + p.To
		}
		return strings.Join(parts, ", ")
	case KindLimit:
		return fmt.Sprint(s.Limit.N)
	case KindAggregate:
		parts := append([]string(nil), s.Transform.GroupBy...)
		for _, a := range s.Transform.Aggregates {
			parts = append(parts, a.Name+" = "+oneLine(a.Expr))
		}
		return strings.Join(parts, ", ")
	case KindSort:
		return strings.Join(s.Transform.Sort, ", ")
	case KindJoin:
		return s.Transform.How + " join " + s.Transform.With + " on " + oneLine(s.Transform.On)
	case KindDistinct:
		return "distinct rows"
	case KindWithColumns:
		parts := make([]string, len(s.Transform.Columns))
		for i, c := range s.Transform.Columns {
			parts[i] = c.Name + " = " + oneLine(c.Expr)
		}
		return strings.Join(parts, ", ")
	case KindWrite:
		w := s.Write
		switch {
		case w.Table != "":
			return "table " + w.Table + props(w.PropertyOrder, w.Properties)
		case w.Type != "":
			return "inline " + w.Type + " dataset" + props(w.PropertyOrder, w.Properties)
		}
		d := w.Format + " file " + w.File
		if len(w.PartitionBy) > 0 {
			d = "parquet directory " + w.File + " partitioned by " + strings.Join(w.PartitionBy, ", ")
		}
		if w.Format == "parquet" {
			c := w.Compression
			if c == "" {
				c = "snappy"
			}
			d += " (" + c + ")"
		}
		if w.Mode == "merge" {
			d += ", merged on " + strings.Join(w.Key, ", ")
		}
		return d
	}
	return ""
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
