package pipelines

import "strings"

// TableRef is a catalog table a step reads or writes.
type TableRef struct {
	Name string // ns.table as written
	Step *Step
}

// Tables lists the catalog tables the pipeline's read and write steps name,
// in file order, so a dry run can check that they exist before anything runs
// (see docs/pipelines.md).
func (p *Pipeline) Tables() []TableRef {
	var out []TableRef
	for _, s := range p.Steps {
		switch {
		case s.Read != nil && s.Read.Table != "":
			out = append(out, TableRef{Name: s.Read.Table, Step: s})
		case s.Write != nil && s.Write.Table != "":
			out = append(out, TableRef{Name: s.Write.Table, Step: s})
		case s.query != nil:
			for _, t := range s.query.Tables {
				if strings.Contains(t, ".") {
					out = append(out, TableRef{Name: t, Step: s})
				}
			}
		}
	}
	return out
}

// Label names the step in messages: its number, id and kind, and where it
// starts in the file.
func (r TableRef) Label() string { return r.Step.label() + " at " + r.Step.Pos.String() }
