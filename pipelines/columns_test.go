package pipelines_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/connectors"
	"github.com/sluicedata/sluice/pipelines"
)

// declared is a catalog of table columns for CheckColumns.
func declared(tables map[string]string) pipelines.DeclaredColumns {
	return func(_ context.Context, name string) ([]connectors.Field, error) {
		cols, ok := tables[name]
		if !ok {
			return nil, fmt.Errorf("table not found: %s", name)
		}
		var out []connectors.Field
		for _, c := range strings.Split(cols, ";") {
			if c == "" {
				continue
			}
			n, typ, _ := strings.Cut(c, " ")
			out = append(out, connectors.Field{Name: n, Type: typ, Nullable: true})
		}
		return out, nil
	}
}

var hrTables = declared(map[string]string{
	"hr.employees":   "id long;name string;dept long;salary double;address struct<city:string,zip:string>;skills array<string>",
	"hr.departments": "dept_id long;title string",
	"lake.raw":       "",
})

func checkColumns(t *testing.T, src string) ([]string, error) {
	t.Helper()
	p, err := pipelines.Parse("p.yaml", []byte(src), nil)
	require.NoError(t, err)
	return pipelines.CheckColumns(context.Background(), p, hrTables)
}

func TestCheckColumnsFindsUnknownColumns(t *testing.T) {
	t.Parallel()
	notes, err := checkColumns(t, `
name: cols
steps:
  - id: emp
    read: hr.employees
  - id: depts
    read: hr.departments
  - id: raw
    read: lake.raw
  - from: emp
    filter: salry > 10
  - from: emp
    join: {with: depts, on: emp.dept = depts.dept_idd}
  - from: emp
    select: [id, nmae, address.city]
  - from: emp
    select: [address.cty]
  - from: emp
    explode: skils
  - from: emp
    aggregate: {group_by: [dept], aggregates: {n: count(*), top: max(salray)}}
  - from: emp
    sort: [salery desc]
  - from: emp
    with_columns: {pay: salary * 12, town: adress.city}
  - from: emp
    rename: {nam: full_name}
  - sql: SELECT e.name, d.titl FROM emp e JOIN depts d ON e.dept = d.dept_id
  - from: raw
    filter: anything = 1
  - id: ok
    from: emp
    explode: skills
  - from: ok
    with_columns: {skill: upper(skills)}
  - filter: skil <> 'go'
`)
	require.Error(t, err)
	msg := err.Error()
	for _, want := range []string{
		`p.yaml: line 10, column 5: step 4 (filter): line 1, column 1: unknown column salry (did you mean salary?)`,
		`step 5 (join): line 1, column 12: unknown column depts.dept_idd (did you mean dept_id?)`,
		`step 6 (select): unknown column "nmae" (did you mean "name"?)`,
		`step 7 (select): column path "address.cty": struct "address" has no field "cty"`,
		`step 8 (explode): unknown column "skils" (did you mean "skills"?)`,
		`step 9 (aggregate): line 1, column 5: unknown column salray (did you mean salary?)`,
		`step 10 (sort): line 1, column 1: unknown column salery (did you mean salary?)`,
		`step 11 (with_columns): line 1, column 1: unknown column adress.city`,
		`step 12 (rename): rename: unknown column "nam" (did you mean "name"?)`,
		`step 13 (sql): line 1, column 16: unknown column d.titl (did you mean title?)`,
		`step 17 (filter): line 1, column 1: unknown column skil (did you mean skill?)`,
	} {
		require.Contains(t, msg, want)
	}
	require.Equal(t, 11, strings.Count(msg, "\n")+1, msg)
	require.NotContains(t, msg, "anything", "the steps after a table without declared columns are not checked")
	require.Equal(t, []string{
		"checked against the declared columns of hr.employees, hr.departments",
		`step 3 "raw" (read) reads lake.raw, which declares no columns: the steps that use its columns are not checked`,
	}, notes)
}

func TestCheckColumnsPassesAGoodPipeline(t *testing.T) {
	t.Parallel()
	notes, err := checkColumns(t, `
name: good
steps:
  - id: emp
    read: hr.employees
  - id: depts
    read: hr.departments
  - from: emp
    join: {with: depts, on: emp.dept = depts.dept_id, how: left}
  - select: [name, salary, address, skills, title]
  - with_columns: {yearly: salary * 12}
  - filter: yearly > 1000 AND address.city = 'Paris'
  - explode: skills
  - flatten: {}
  - select: [name, title, skills, address.zip AS zip]
  - rename: {title: department}
  - aggregate: {group_by: [department], aggregates: {people: count(*), skills: collect_set(skills)}}
  - sort: [people desc]
  - limit: 10
  - sql: SELECT department, people FROM step_13 WHERE people > 1
  - write: {file: out.parquet}
`)
	require.NoError(t, err)
	require.Equal(t, []string{"checked against the declared columns of hr.employees, hr.departments"}, notes)
}
