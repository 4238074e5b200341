package sqlstore

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/notifications/queue"
	"github.com/sluicedata/sluice/notifications/storetest"
)

// openStore opens a store for the conformance suite.
func openStore(ctx context.Context, dsn string, o storetest.Options) (queue.Store, error) {
	var opts []Option
	if o.Clock != nil {
		opts = append(opts, WithClock(o.Clock))
	}
	if o.ClaimLease > 0 {
		opts = append(opts, WithClaimLease(o.ClaimLease))
	}
	if o.LockLease > 0 {
		opts = append(opts, WithLockLease(o.LockLease))
	}
	return Open(ctx, dsn, opts...)
}

// openAt opens the store at dsn for a test and closes it after.
func openAt(t *testing.T, dsn string, opts ...Option) queue.Store {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := Open(ctx, dsn, opts...)
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// batches are a store's ways to commit one batch of deliveries.
func batches(s queue.Store) []storetest.BatchFunc {
	var applies []applyFunc
	switch s := s.(type) {
	case *sqliteStore:
		applies = []applyFunc{s.applyBatch}
	case *pgStore:
		applies = []applyFunc{s.applyBatchSet, s.applyBatchPerRequest}
	}
	out := make([]storetest.BatchFunc, len(applies))
	for i, apply := range applies {
		out[i] = func(ctx context.Context, now time.Time, recs []*queue.Record) ([]queue.EnqueueResult, error) {
			reqs := make([]*intakeReq, len(recs))
			for j, r := range recs {
				pr, err := prepareIntake(r, now)
				if err != nil {
					return nil, err
				}
				reqs[j] = &intakeReq{ctx: context.Background(), rec: pr}
			}
			return apply(ctx, reqs)
		}
	}
	return out
}

// firstMigration is the SQL of a dialect's migration 1.
func firstMigration(dialect string) string {
	ms, err := loadMigrations(dialect)
	if err != nil || len(ms) < 2 {
		panic("sqlstore: migrations missing")
	}
	return ms[0].sql
}
