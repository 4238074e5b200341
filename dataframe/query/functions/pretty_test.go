package functions_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/dataframe/query/fn"
)

// TestSparkColumnNames checks the names Spark 3.5 gives unaliased calls
// (its ExpressionsSchemaSuite output, sql-expression-schema.md): the
// arguments arrive rendered, the function supplies the rest.
func TestSparkColumnNames(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		call string // name|arg|arg…
		want string
	}{
		{"acos|1", "ACOS(1)"}, {"ceil|-0.1", "CEIL(-0.1)"}, {"ceiling|-0.1", "ceiling(-0.1)"}, {"floor|-0.1", "FLOOR(-0.1)"},
		{"e", "E()"}, {"pi", "PI()"}, {"power|2|3", "POWER(2, 3)"}, {"pow|2|3", "pow(2, 3)"}, {"signum|40", "SIGNUM(40)"},
		{"sign|40", "sign(40)"}, {"log|10|100", "LOG(10, 100)"}, {"log|10", "LOG(E(), 10)"}, {"ln|1", "ln(1)"}, {"log10|10", "LOG10(10)"},
		{"hypot|3|4", "HYPOT(3, 4)"}, {"atan2|0|0", "ATAN2(0, 0)"}, {"degrees|3.141592653589793", "DEGREES(3.141592653589793)"},
		{"cbrt|27.0", "CBRT(27.0)"}, {"rint|12.3456", "rint(12.3456)"}, {"cot|1", "COT(1)"}, {"sqrt|4", "SQRT(4)"},
		{"abs|-1", "abs(-1)"}, {"round|2.5", "round(2.5, 0)"}, {"round|2.5|0", "round(2.5, 0)"}, {"bround|2.5", "bround(2.5, 0)"},
		{"substr|Spark SQL|5", "substr(Spark SQL, 5, 2147483647)"}, {"substring|Spark SQL|5", "substring(Spark SQL, 5, 2147483647)"},
		{"substr|Spark SQL|5|1", "substr(Spark SQL, 5, 1)"},
		{"locate|bar|foobarbar", "locate(bar, foobarbar, 1)"}, {"position|bar|foobarbar", "position(bar, foobarbar, 1)"},
		{"split|oneAtwoBthreeC|[ABC]", "split(oneAtwoBthreeC, [ABC], -1)"},
		{"regexp_replace|100-200|(\\d+)|num", "regexp_replace(100-200, (\\d+), num, 1)"},
		{"regexp_extract|100-200|(\\d+)", "regexp_extract(100-200, (\\d+), 1)"},
		{"regexp_instr|\\abc|^\\\\abc$", "regexp_instr(\\abc, ^\\\\abc$, 0)"},
		{"months_between|1997-02-28 10:30:00|1996-10-30", "months_between(1997-02-28 10:30:00, 1996-10-30, true)"},
		{"mask|abcd-EFGH-8765-4321", "mask(abcd-EFGH-8765-4321, X, x, n, NULL)"},
		{"sentences|Hi there! Good morning.", "sentences(Hi there! Good morning., , )"},
		{"unix_timestamp", "unix_timestamp(current_timestamp(), yyyy-MM-dd HH:mm:ss)"},
		{"unix_timestamp|2016-04-08", "unix_timestamp(2016-04-08, yyyy-MM-dd HH:mm:ss)"},
		{"to_unix_timestamp|2016-04-08|yyyy-MM-dd", "to_unix_timestamp(2016-04-08, yyyy-MM-dd)"},
		{"from_unixtime|0", "from_unixtime(0, yyyy-MM-dd HH:mm:ss)"},
		{`from_json|{"a":1, "b":0.8}|a INT, b DOUBLE`, `from_json({"a":1, "b":0.8})`},
		{"to_json|named_struct(a, 1, b, 2)", "to_json(named_struct(a, 1, b, 2))"},
		{"from_csv|1, 0.8|a INT, b DOUBLE", "from_csv(1, 0.8)"},
		{"dateadd|2016-07-30|1", "date_add(2016-07-30, 1)"}, {"date_add|2016-07-30|1", "date_add(2016-07-30, 1)"},
		{"date_part|YEAR|TIMESTAMP '2019-08-12 01:00:00.123456'", "date_part(YEAR, TIMESTAMP '2019-08-12 01:00:00.123456')"},
		{"datepart|YEAR|TIMESTAMP '2019-08-12 01:00:00.123456'", "datepart(YEAR FROM TIMESTAMP '2019-08-12 01:00:00.123456')"},
		{"curdate", "current_date()"}, {"current_date", "current_date()"}, {"random", "rand()"}, {"rand", "rand()"},
		{"to_varchar|454|999", "to_char(454, 999)"}, {"to_char|454|999", "to_char(454, 999)"},
		{"if|(1 < 2)|a|b", "(IF((1 < 2), a, b))"}, {"isnull|1", "(1 IS NULL)"}, {"isnotnull|1", "(1 IS NOT NULL)"},
		{"positive|1", "(+ 1)"}, {"negative|1", "negative(1)"}, {"like|Spark|_park", "Spark LIKE _park"}, {"ilike|Spark|_Park", "ilike(Spark, _Park)"},
		{"rlike|a|b", "RLIKE(a, b)"}, {"regexp|a|b", "REGEXP(a, b)"}, {"regexp_like|a|b", "REGEXP_LIKE(a, b)"},
		{"assert_true|(0 < 1)", "assert_true((0 < 1), '(0 < 1)' is not true!)"},
		{"overlay|Spark SQL|_|6", "overlay(Spark SQL, _, 6, -1)"},
		{"str_to_map|a:1,b:2,c:3", "str_to_map(a:1,b:2,c:3, ,, :)"},
		{"lpad|hi|5", "lpad(hi, 5,  )"}, {"lpad|hi|5|??", "lpad(hi, 5, ??)"},
		{"div|3|2", "(3 div 2)"}, {"struct|1|2|3", "struct(1, 2, 3)"}, {"int|1", "1"}, {"date|2020-01-01", "2020-01-01"},
		{"trim|SL|SSparkSQLS", "TRIM(BOTH SL FROM SSparkSQLS)"}, {"trim|    SparkSQL   ", "trim(    SparkSQL   )"},
		{"ltrim|SL|SSparkSQLS", "TRIM(LEADING SL FROM SSparkSQLS)"}, {"rtrim|SL|SSparkSQLS", "TRIM(TRAILING SL FROM SSparkSQLS)"},
		{"sort_array|array(b, d)", "sort_array(array(b, d), true)"}, {"nvl|NULL|array(2)", "nvl(NULL, array(2))"},
		{"ifnull|NULL|array(2)", "ifnull(NULL, array(2))"}, {"coalesce|NULL|1|NULL", "coalesce(NULL, 1, NULL)"},
		{"convert_timezone|Europe/Brussels|ts", "convert_timezone(current_timezone(), Europe/Brussels, ts)"},
		{"array_sort|array(5, 6, 1)", "array_sort(array(5, 6, 1), lambdafunction((IF(((namedlambdavariable() IS NULL) AND " +
			"(namedlambdavariable() IS NULL)), 0, (IF((namedlambdavariable() IS NULL), 1, (IF((namedlambdavariable() IS NULL), -1, " +
			"(IF((namedlambdavariable() < namedlambdavariable()), -1, (IF((namedlambdavariable() > namedlambdavariable()), 1, 0)))))))))), " +
			"namedlambdavariable(), namedlambdavariable()))"},
		{"upper|SparkSql", "upper(SparkSql)"}, {"ucase|SparkSql", "ucase(SparkSql)"}, {"cardinality|array(b)", "cardinality(array(b))"},
	} {
		parts := strings.Split(c.call, "|")
		s, ok := fn.Lookup(parts[0])
		require.True(t, ok, parts[0])
		args := parts[1:]
		got := parts[0] + "(" + strings.Join(args, ", ") + ")"
		if s.Pretty != nil {
			got = s.Pretty(args)
		}
		require.Equal(t, c.want, got, c.call)
	}
}
