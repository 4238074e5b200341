package sqlstore

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash/fnv"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sluicedata/sluice/notifications/queue"
)

// benchPayload is the size of a typical provider webhook body.
var benchPayload = []byte(`{"token":"wbh-00000000-0000-0000-0000-000000000000","type":"USERS.UPDATED.STATUS.ACTIVATED",` +
	`"createdOn":"2024-05-01T10:00:00.000","object":{"token":"usr-00000000-0000-0000-0000-000000000000",` +
	`"programToken":"prg-00000000-0000-0000-0000-000000000000","status":"ACTIVATED","clientUserId":"4242",` +
	`"profileType":"INDIVIDUAL","email":"someone@example.com","country":"US"}}`)

type benchTarget struct {
	name   string
	newDSN func(b *testing.B) string
}

func benchTargets(b *testing.B) []benchTarget {
	b.Helper()
	ts := []benchTarget{{"sqlite", func(b *testing.B) string {
		return "sqlite:" + b.TempDir() + "/bench.db"
	}}}
	if base := os.Getenv("SLUICE_TEST_POSTGRES_DSN"); base != "" {
		ts = append(ts, benchTarget{"postgres", func(b *testing.B) string {
			// The suite's helper wants a *testing.T; a benchmark makes its own schema.
			schema := fmt.Sprintf("sluice_bench_%d", time.Now().UnixNano())
			benchExec(b, base, `CREATE SCHEMA `+schema)
			b.Cleanup(func() { benchExec(b, base, `DROP SCHEMA `+schema+` CASCADE`) })
			sep := "?"
			if containsByte(base, '?') {
				sep = "&"
			}
			return base + sep + "search_path=" + schema
		}})
	}
	return ts
}

func containsByte(s string, c byte) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			return true
		}
	}
	return false
}

func benchExec(b *testing.B, dsn, sql string) {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, sql); err != nil {
		b.Fatal(err)
	}
}

func benchOpen(b *testing.B, dsn string, opts ...Option) queue.Store {
	b.Helper()
	s, err := Open(context.Background(), dsn, opts...)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = s.Close() })
	return s
}

// benchRecord makes a delivery with provider-like tokens: UUIDs, so index
// inserts land at random places as in production.
func benchRecord(seq int64) *queue.Record {
	return &queue.Record{
		WebhookToken: "wbh-" + benchUUID(seq, 1), ObjectToken: "usr-" + benchUUID(seq, 2), NotificationType: "USR",
		CreationDate: time.Now(), ReceptionDate: time.Now(), Program: "prg-1", Payload: benchPayload,
	}
}

func benchUUID(seq int64, salt uint64) string {
	h := fnv.New128a()
	var buf [16]byte
	binary.LittleEndian.PutUint64(buf[:8], uint64(seq))
	binary.LittleEndian.PutUint64(buf[8:], salt)
	_, _ = h.Write(buf[:])
	x := hex.EncodeToString(h.Sum(nil))
	return x[:8] + "-" + x[8:12] + "-" + x[12:16] + "-" + x[16:20] + "-" + x[20:]
}

func reportRate(b *testing.B, unit string) {
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), unit)
}

// BenchmarkEnqueueParallel measures intake throughput with 32 goroutines per
// CPU sending unique deliveries. "store" is Enqueue (rules + group commit);
// "bare-insert" is a plain single-row INSERT committed per request (what a
// naive store does); "bare-writer" is the draining writer with plain INSERTs
// and no rules (the ceiling of group commit). On Postgres "per-request"
// forces the one-statement-per-delivery form at every batch size (one
// writer), and "store-N-writer(s)" sets the number of parallel writers
// (the default is 4).
func BenchmarkEnqueueParallel(b *testing.B) {
	for _, tg := range benchTargets(b) {
		b.Run(tg.name+"/store", func(b *testing.B) {
			s := benchOpen(b, tg.newDSN(b))
			benchEnqueue(b, s)
		})
		if tg.name == "postgres" {
			b.Run(tg.name+"/store-1-writer", func(b *testing.B) {
				benchEnqueue(b, benchOpen(b, tg.newDSN(b), WithPostgresWriters(1)))
			})
			b.Run(tg.name+"/store-2-writers", func(b *testing.B) {
				benchEnqueue(b, benchOpen(b, tg.newDSN(b), WithPostgresWriters(2)))
			})
		}
		if tg.name == "postgres" {
			b.Run(tg.name+"/per-request", func(b *testing.B) {
				s := benchOpen(b, tg.newDSN(b)).(*pgStore)
				w := newWriter("per-request", s.applyBatchPerRequest, 1024, 8192, 1, pgBatchTimeout, defaultOptions().logger)
				defer w.close()
				var seq atomic.Int64
				b.SetParallelism(32)
				b.ResetTimer()
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						r, _ := prepareIntake(benchRecord(seq.Add(1)), time.Now())
						if res, err := w.submit(context.Background(), r); err != nil || res.Outcome != queue.Stored {
							b.Error(err, res.Outcome)
							return
						}
					}
				})
				reportRate(b, "notifications/s")
			})
		}
		b.Run(tg.name+"/bare-insert", func(b *testing.B) {
			s := benchOpen(b, tg.newDSN(b))
			insert := bareInsert(s)
			var seq atomic.Int64
			b.SetParallelism(32)
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if err := insert(context.Background(), benchRecord(seq.Add(1))); err != nil {
						b.Error(err)
						return
					}
				}
			})
			reportRate(b, "notifications/s")
		})
		b.Run(tg.name+"/bare-writer", func(b *testing.B) {
			s := benchOpen(b, tg.newDSN(b))
			w := newWriter("bare", bareBatch(s), 1024, 8192, 1, 0, defaultOptions().logger)
			defer w.close()
			var seq atomic.Int64
			b.SetParallelism(32)
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					r, _ := prepareIntake(benchRecord(seq.Add(1)), time.Now())
					if _, err := w.submit(context.Background(), r); err != nil {
						b.Error(err)
						return
					}
				}
			})
			reportRate(b, "notifications/s")
		})
	}
}

// benchEnqueue runs Enqueue from 32 goroutines per CPU, unique deliveries.
func benchEnqueue(b *testing.B, s queue.Store) {
	var seq atomic.Int64
	b.SetParallelism(32)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			res, err := s.Enqueue(context.Background(), benchRecord(seq.Add(1)))
			if err != nil || res.Outcome != queue.Stored {
				b.Error(err, res.Outcome)
				return
			}
		}
	})
	reportRate(b, "notifications/s")
	var w *writer
	switch s := s.(type) {
	case *sqliteStore:
		w = s.w
	case *pgStore:
		w = s.w
	}
	if n := w.batches.Load(); n > 0 {
		b.ReportMetric(float64(w.requests.Load())/float64(n), "deliveries/batch")
	}
}

// bareInsert is one INSERT, committed on its own.
func bareInsert(s queue.Store) func(context.Context, *queue.Record) error {
	switch s := s.(type) {
	case *sqliteStore:
		return func(ctx context.Context, r *queue.Record) error {
			r, _ = prepareIntake(r, time.Now())
			r.Status = queue.StatusPending
			_, err := s.wdb.ExecContext(ctx, `INSERT INTO notifications (`+sqliteInsertCols+`)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, sqliteArgs(r)...)
			return err
		}
	case *pgStore:
		return func(ctx context.Context, r *queue.Record) error {
			r, _ = prepareIntake(r, time.Now())
			_, err := s.pool.Exec(ctx, pgInsert, pgArgs(r)...)
			return err
		}
	}
	panic("unknown store")
}

// bareBatch commits a batch of plain INSERTs in one transaction.
func bareBatch(s queue.Store) applyFunc {
	switch s := s.(type) {
	case *sqliteStore:
		return func(ctx context.Context, reqs []*intakeReq) ([]queue.EnqueueResult, error) {
			tx, err := s.wdb.BeginTx(ctx, nil)
			if err != nil {
				return nil, err
			}
			defer tx.Rollback() //nolint:errcheck // no-op after Commit
			insert := tx.StmtContext(ctx, s.stInsert)
			res := make([]queue.EnqueueResult, len(reqs))
			for i, q := range reqs {
				r := q.rec
				ir, err := insert.ExecContext(ctx, r.WebhookToken, r.ObjectToken, r.NotificationType, ms(r.CreationDate),
					ms(r.ReceptionDate), r.Program, nullBlob(r.Payload))
				if err != nil {
					return nil, err
				}
				res[i].ID, _ = ir.LastInsertId()
			}
			return res, tx.Commit()
		}
	case *pgStore:
		return func(ctx context.Context, reqs []*intakeReq) ([]queue.EnqueueResult, error) {
			tx, err := s.pool.Begin(ctx)
			if err != nil {
				return nil, err
			}
			defer tx.Rollback(context.Background()) //nolint:errcheck // no-op after Commit
			batch := &pgx.Batch{}
			for _, q := range reqs {
				batch.Queue(pgInsert, pgArgs(q.rec)...)
			}
			if err := tx.SendBatch(ctx, batch).Close(); err != nil {
				return nil, err
			}
			return make([]queue.EnqueueResult, len(reqs)), tx.Commit(ctx)
		}
	}
	panic("unknown store")
}

// BenchmarkClaimFinish measures the processing job's store work: claim a
// batch of 100, finish each record as SUCCESS.
func BenchmarkClaimFinish(b *testing.B) {
	for _, tg := range benchTargets(b) {
		b.Run(tg.name, func(b *testing.B) {
			s := benchOpen(b, tg.newDSN(b))
			var seq atomic.Int64
			b.SetParallelism(32)
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if _, err := s.Enqueue(context.Background(), benchRecord(seq.Add(1))); err != nil {
						b.Error(err)
						return
					}
				}
			})
			ctx := context.Background()
			b.ResetTimer()
			done := 0
			for done < b.N {
				recs, err := s.Claim(ctx, time.Now(), 100)
				if err != nil {
					b.Fatal(err)
				}
				if len(recs) == 0 {
					b.Fatalf("nothing to claim after %d of %d", done, b.N)
				}
				for i := range recs {
					recs[i].Status = queue.StatusSuccess
					if ok, err := s.Finish(ctx, &recs[i]); err != nil || !ok {
						b.Fatal(ok, err)
					}
				}
				done += len(recs)
			}
			b.StopTimer()
			b.ReportMetric(float64(done)/b.Elapsed().Seconds(), "records/s")
		})
	}
}

// BenchmarkPostgresBatch compares the two ways to apply the rules to one
// batch on Postgres, by batch size: set-based (two round trips, a handful
// of statements) and per-request (one round trip, one statement each).
func BenchmarkPostgresBatch(b *testing.B) {
	var tg *benchTarget
	for _, t := range benchTargets(b) {
		if t.name == "postgres" {
			tg = &t
		}
	}
	if tg == nil {
		b.Skip("SLUICE_TEST_POSTGRES_DSN is not set")
	}
	s := benchOpen(b, tg.newDSN(b)).(*pgStore)
	var seq atomic.Int64
	for _, size := range []int{1, 16, 64, 256, 1024} {
		for _, v := range []struct {
			name  string
			apply applyFunc
		}{{"set-based", s.applyBatchSet}, {"per-request", s.applyBatchPerRequest}} {
			b.Run(fmt.Sprintf("%s/%d", v.name, size), func(b *testing.B) {
				reqs := make([]*intakeReq, size)
				for i := 0; i < b.N; i++ {
					for j := range reqs {
						r, _ := prepareIntake(benchRecord(seq.Add(1)), time.Now())
						reqs[j] = &intakeReq{ctx: context.Background(), rec: r}
					}
					if _, err := v.apply(context.Background(), reqs); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.N*size)/b.Elapsed().Seconds(), "notifications/s")
			})
		}
	}
}

// BenchmarkScan measures the dataset export path: Scan over all records of
// a 200,000-record store, and over a narrow reception range of it.
func BenchmarkScan(b *testing.B) {
	const n = 200_000
	fill := map[string]string{
		"sqlite": `WITH RECURSIVE g(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM g WHERE x < 200000)
			INSERT INTO notifications (webhook_token, object_token, notification_type, creation_date, reception_date,
				status, program, payload)
			SELECT 'wbh-' || x, 'usr-' || x, 'USR', 1714557600000 + x, 1714557600000 + x, 'SUCCESS', 'prg-1',
				CAST('{"token":"wbh-' || x || '","type":"USERS.UPDATED"}' AS BLOB) FROM g`,
		"postgres": `INSERT INTO notifications (webhook_token, object_token, notification_type, creation_date,
				reception_date, status, program, payload)
			SELECT 'wbh-' || x, 'usr-' || x, 'USR', to_timestamp(1714557600 + x / 1000.0), to_timestamp(1714557600 + x / 1000.0),
				'SUCCESS', 'prg-1', convert_to('{"token":"wbh-' || x || '","type":"USERS.UPDATED"}', 'UTF8')
			FROM generate_series(1, 200000) x`,
	}
	for _, tg := range benchTargets(b) {
		dsn := tg.newDSN(b)
		s := benchOpen(b, dsn)
		switch st := s.(type) {
		case *sqliteStore:
			if _, err := st.wdb.Exec(fill["sqlite"]); err != nil {
				b.Fatal(err)
			}
		case *pgStore:
			if _, err := st.pool.Exec(context.Background(), fill["postgres"]); err != nil {
				b.Fatal(err)
			}
		}
		base := time.UnixMilli(1714557600000).UTC()
		from, to := base.Add(100*time.Second), base.Add(101*time.Second) // 1,000 records near the end
		for _, c := range []struct {
			name string
			r    queue.Range
			want int
		}{{"all", queue.Range{}, n}, {"narrow", queue.Range{From: &from, To: &to}, 1001}} {
			b.Run(tg.name+"/"+c.name, func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					count := 0
					if err := s.Scan(context.Background(), c.r, func(*queue.Record) error { count++; return nil }); err != nil {
						b.Fatal(err)
					}
					if count != c.want {
						b.Fatalf("scanned %d records, want %d", count, c.want)
					}
				}
				b.ReportMetric(float64(b.N*c.want)/b.Elapsed().Seconds(), "records/s")
			})
		}
	}
}

// BenchmarkStats measures what /metrics asks of the store with a backlog of
// 200,000 PENDING records among 400,000.
func BenchmarkStats(b *testing.B) {
	fill := map[string]string{
		"sqlite": `WITH RECURSIVE g(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM g WHERE x < 400000)
			INSERT INTO notifications (webhook_token, object_token, notification_type, creation_date, reception_date,
				status, program)
			SELECT 'wbh-' || x, 'usr-' || x, 'USR', 1714557600000 + x, 1714557600000 + x,
				CASE WHEN x % 2 = 0 THEN 'PENDING' ELSE 'SUCCESS' END, 'prg-1' FROM g`,
		"postgres": `INSERT INTO notifications (webhook_token, object_token, notification_type, creation_date,
				reception_date, status, program)
			SELECT 'wbh-' || x, 'usr-' || x, 'USR', to_timestamp(1714557600 + x / 1000.0), to_timestamp(1714557600 + x / 1000.0),
				CASE WHEN x % 2 = 0 THEN 'PENDING' ELSE 'SUCCESS' END, 'prg-1'
			FROM generate_series(1, 400000) x`,
	}
	for _, tg := range benchTargets(b) {
		s := benchOpen(b, tg.newDSN(b))
		switch st := s.(type) {
		case *sqliteStore:
			if _, err := st.wdb.Exec(fill["sqlite"]); err != nil {
				b.Fatal(err)
			}
		case *pgStore:
			if _, err := st.pool.Exec(context.Background(), fill["postgres"]); err != nil {
				b.Fatal(err)
			}
		}
		b.Run(tg.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				st, err := s.Stats(context.Background())
				if err != nil {
					b.Fatal(err)
				}
				if st.ByStatus[queue.StatusPending] != 200_000 || st.OldestPending == nil {
					b.Fatalf("stats %+v", st)
				}
			}
		})
	}
}
