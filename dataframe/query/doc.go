// Package query is Sluice's one SQL executor: `sluice sql`,
// Session.ExecuteBatch, the pipeline steps and catalog.SQLFrames all run a
// query (the syntax tree the parser in catalog/sqlparse produces, or one built in
// Go) through it, with Spark 3.5's answers (ANSI mode off).
//
// # How a query runs
//
// Compile takes a query through four phases, each in its own files, each
// handing the next a finished product — no phase calls back into an
// earlier one:
//
//  1. Analysis (analyze*.go), as Spark's Analyzer: the query's names
//     resolve against the tables, CTEs and views it reads (Resolver,
//     ViewResolver) into a logical plan (logical.go) whose expressions are
//     resolved (rex.go): every column bound to a position of its input,
//     every type known, Spark's implicit casts explicit (types.go), every
//     constant folded, and every output column named — its alias, or the
//     name Spark generates (`count(1)`, `(a + b)`, `CAST(1.23 AS INT)`).
//     A SELECT block is analysed phase by phase in the order its clauses
//     apply (analyze_select.go). Every mistake a user can make is found
//     here, with its position.
//  2. Rewrites (rewrite.go, pushdown.go): filters move down (into join
//     sides and conditions, below projections and aggregates), unused
//     columns are pruned, and a ScanResolver's tables are asked for only
//     what the query needs (scan.Request: columns, filters, a limit) — what
//     a table does not apply exactly stays in the plan.
//  3. Physical planning (physical.go): each logical node becomes an
//     operator, and each expression is compiled once into a closure over
//     Arrow arrays (compile.go). Some nodes fuse: a LIMIT over a sort is a
//     top-N, which over a projection of a LateTable reads its sort keys
//     first (late.go); an aggregate over an inner join keyed by build-side
//     columns groups the build rows once.
//  4. Execution: Plan.Run opens the operators (ops.go, join.go, agg.go,
//     sort.go, setop.go) and pulls record batches through them; Plan.Frame
//     collects them. A panic anywhere becomes an error.
//
// New kinds of query fit the same path: a new logical node (an analysis
// phase creates it, the physical planner gives it an operator) and, where
// needed, a new rex. Window functions are one: the select list collects
// `f(…) OVER (…)` calls as rWin placeholders (window_analyze.go), the
// block's plan puts one lWindow per window between HAVING and the
// projection (window.go), a rewrite turns `WHERE rn = 1` over a row
// number into a per-key top-1 (topone.go), and the operator sorts with
// the external sort that spills (extsort.go, window_exec.go). Grouping
// sets are another: an lExpand below the aggregate and grouping() as
// bits of its id (grouping.go).
// Subqueries and lambdas: a subquery is an rSubquery whose sub-expressions
// are the outer values it reads (subquery_analyze.go); the first rewrite
// turns what it can into semi, anti and left joins (decorrelate.go) and the
// rest run once per distinct outer tuple (subquery.go). A lambda is an
// rLambda of rLambdaVars, an argument of a higher-order function (hof.go)
// compiled to run over whole batches.
//
// What streams and what is held in memory is in
// docs/sql.md#execution-and-memory.
//
//	plan, err := query.Compile(ctx, q, query.Tables{"emp": query.FrameTable(emp)}, query.Options{})
//	f, err := plan.Frame(ctx)
package query
