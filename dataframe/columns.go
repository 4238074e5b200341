package dataframe

import "context"

type columnsKey struct{}

// WithColumns tells the readers under ctx that only the named top-level
// columns are needed (a query's projection). It is a hint: a reader that
// can skip columns (Parquet) reads those only, others read everything.
func WithColumns(ctx context.Context, cols []string) context.Context {
	return context.WithValue(ctx, columnsKey{}, cols)
}

// ColumnsFrom is the column hint of ctx, or nil for all columns.
func ColumnsFrom(ctx context.Context) []string {
	cols, _ := ctx.Value(columnsKey{}).([]string)
	return cols
}
