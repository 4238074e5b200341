package sqlparse

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/dataframe/query"
	"github.com/sluicedata/sluice/dataframe/sparktype"
)

func TestLexParam(t *testing.T) {
	t.Parallel()
	var kinds []Kind
	lx := newLexer("? '?' \"?\" `?` -- ?\n /* ? */ ?")
	for tok := lx.next(); tok.Kind != EOF; tok = lx.next() {
		kinds = append(kinds, tok.Kind)
	}
	require.Equal(t, []Kind{Param, String, String, QuotedID, Param}, kinds)
}

func strLit(v string) *query.Literal {
	return &query.Literal{Value: v, Type: sparktype.StringType, Raw: "'" + v + "'"}
}

func TestParseParams(t *testing.T) {
	t.Parallel()
	n := &query.Literal{Value: int32(7), Type: sparktype.IntegerType, Raw: "7"}
	stmts, err := ParseParams("CREATE TABLE a.t LOCATION ? TBLPROPERTIES ('k' = ?);\nINSERT INTO a.t VALUES (?, '?');\nSELECT x FROM a.t WHERE x = ?",
		[]*query.Literal{strLit("/data/it's"), strLit("v"), n, strLit("w")})
	require.NoError(t, err)
	require.Len(t, stmts, 3)
	ct := stmts[0].(*CreateTable)
	require.Equal(t, "/data/it's", ct.Location)
	require.Equal(t, []Property{{Key: "k", Value: "v", Pos: ct.Properties[0].Pos}}, ct.Properties)
	ins := stmts[1].(*Insert)
	require.Equal(t, int64(7), ins.Rows[0][0].Value, "a VALUES parameter's Go value")
	require.Same(t, n.Type, ins.Rows[0][0].Param.Type)
	require.Equal(t, Pos{Offset: 77, Line: 2, Col: 25}, ins.Rows[0][0].Pos)
	require.Nil(t, ins.Rows[0][1].Param)
	require.Equal(t, "?", ins.Rows[0][1].Value)
	where := stmts[2].(*Select).Query.(*query.Select).Where.(*query.Binary)
	lit := where.R.(*query.Literal)
	require.Equal(t, "w", lit.Value)
	require.Equal(t, 3, lit.Pos.Line)
	require.Equal(t, 29, lit.Pos.Col)

	// Counts that differ, and a ? where no value may stand.
	_, err = ParseParams("SELECT ?, ?", []*query.Literal{n})
	require.EqualError(t, err, "statement 1, line 1, column 11: parameter 2 (?) has no value: 1 argument given")
	_, err = ParseParams("SELECT ?", []*query.Literal{n, n})
	require.EqualError(t, err, "argument 2 has no ? placeholder: 2 arguments given, the text has 1 placeholder")
	_, err = ParseParams("SET k = ?", []*query.Literal{n})
	require.EqualError(t, err, "argument 1 has no ? placeholder: 1 argument given, the text has 0 placeholders", "SET takes its value as raw text")
	_, err = ParseParams("DROP TABLE ?", []*query.Literal{n})
	require.EqualError(t, err, `statement 1, line 1, column 12: expected a table name (ns.table), found "?"`)
	_, err = ParseParams("CREATE TABLE a.t LOCATION ?", []*query.Literal{{Value: 1.5, Type: sparktype.DoubleType, Raw: "1.5"}})
	require.EqualError(t, err, "statement 1, line 1, column 27: parameter 1 (?) for LOCATION: want a string, a boolean or an integer, found a double value")
}
