package query

import (
	"context"
	"time"

	"github.com/apache/arrow/go/v17/arrow/memory"
)

// CompileUnrewritten plans q without the rewrites (no filter pushdown, no
// pruning, no scan requests) and without fused operators: the tests compare
// its answers with Compile's.
func CompileUnrewritten(ctx context.Context, q Query, r Resolver) (p *Plan, err error) {
	defer recoverError(&err)
	a := &analyzer{ctx: ctx, r: r, now: time.Unix(1700000000, 0).UTC(), zone: time.UTC}
	out, err := a.analyze(q)
	if err != nil {
		return nil, err
	}
	root, err := (&physPlanner{plain: true}).build(out.n)
	if err != nil {
		return nil, err
	}
	return &Plan{root: root, logical: out.n, opts: Options{Mem: memory.DefaultAllocator, Now: a.now, SortMemory: DefaultSortMemory}}, nil
}

// SparkMurmur3Bytes is count_min_sketch's hash of bytes, for the tests to
// compare with SQL's hash().
var SparkMurmur3Bytes = sparkMurmur3Bytes
