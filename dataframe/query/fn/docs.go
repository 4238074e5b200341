package fn

import (
	"fmt"
	"sort"
	"strings"
)

// groupTitles are the headings of docs/sql-functions.md, in its order.
var groupTitles = []struct{ group, title string }{
	{"string", "String functions"},
	{"datetime", "Date-time functions"},
	{"math", "Math functions"},
	{"bitwise", "Bitwise functions"},
	{"collection", "Collection functions"},
	{"map", "Map functions"},
	{"struct", "Struct functions"},
	{"json", "JSON functions"},
	{"csv", "CSV functions"},
	{"url", "URL functions"},
	{"hash", "Hash functions"},
	{"conditional", "Conditional functions"},
	{"predicate", "Predicate functions"},
	{"type", "Type functions"},
	{"lambda", "Higher-order functions"},
	{"misc", "Miscellaneous functions"},
}

// FunctionsMarkdown renders the registry as the function reference of
// docs/sql-functions.md: a section per group, a row per function with its
// signature, aliases, result type, description, differences from Spark
// and examples. The docs page holds it between marker comments; a test
// keeps them equal.
func FunctionsMarkdown() string {
	mu.RLock()
	defer mu.RUnlock()
	byGroup := map[string][]Scalar{}
	aliases := map[string][]string{}
	for _, s := range registry {
		if s.AliasOf != "" {
			aliases[s.AliasOf] = append(aliases[s.AliasOf], s.Name)
			continue
		}
		byGroup[s.Group] = append(byGroup[s.Group], s)
	}
	var b strings.Builder
	known := map[string]bool{}
	for _, g := range groupTitles {
		known[g.group] = true
	}
	for g := range byGroup {
		if !known[g] {
			panic(fmt.Sprintf("fn: group %q has no title in docs", g))
		}
	}
	for _, g := range groupTitles {
		fns := byGroup[g.group]
		if len(fns) == 0 {
			continue
		}
		sort.Slice(fns, func(i, j int) bool { return fns[i].Name < fns[j].Name })
		fmt.Fprintf(&b, "\n## %s\n\n| function | returns | description | examples |\n|---|---|---|---|\n", g.title)
		for _, s := range fns {
			sig := "`" + cell(s.Signature) + "`"
			if al := aliases[s.Name]; len(al) > 0 {
				sort.Strings(al)
				sig += "<br>also " + "`" + strings.Join(al, "`, `") + "`"
			}
			doc := cell(s.Doc)
			if s.Differences != "" {
				doc += "<br>**Differs from Spark:** " + cell(s.Differences)
			}
			var exs []string
			for _, e := range s.Examples {
				exs = append(exs, "`"+cell(e.SQL)+"` → "+resultCell(e.Result))
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", sig, cell(s.Returns), doc, strings.Join(exs, "<br>"))
		}
	}
	return b.String()
}

// cell escapes text for a Markdown table cell.
func cell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}

// resultCell shows a result as Spark prints it, quoted when blanks at its
// ends (or its emptiness) would otherwise be invisible.
func resultCell(r string) string {
	if r == "" || strings.TrimSpace(r) != r {
		return "`'" + cell(r) + "'`"
	}
	return "`" + cell(r) + "`"
}
