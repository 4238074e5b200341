package notifications_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"
	"github.com/stretchr/testify/require"
	_ "modernc.org/sqlite"

	"github.com/sluicedata/sluice/catalog"
	"github.com/sluicedata/sluice/connectors"
	notifconn "github.com/sluicedata/sluice/connectors/notifications"
	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/notifications"
	"github.com/sluicedata/sluice/notifications/sqlstore"
	"github.com/sluicedata/sluice/notifications/storetest"
)

// fillThroughIntake starts the real sidecar service over a SQLite store and
// posts webhooks to its intake, as the provider would.
func fillThroughIntake(t *testing.T, bodies ...string) string {
	t.Helper()
	dsn := "sqlite:" + filepath.Join(t.TempDir(), "notifications.db")
	ctx := context.Background()
	st, err := sqlstore.Open(ctx, dsn)
	require.NoError(t, err)
	t.Cleanup(func() { _ = st.Close() })
	cfg := notifications.DefaultConfig()
	cfg.Addr = "127.0.0.1:0"
	cfg.ProcessingCron = "off"
	cfg.CleanupCron = "off"
	svc, err := notifications.New(cfg, st, notifications.WithLogger(slog.New(slog.DiscardHandler)))
	require.NoError(t, err)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = svc.Stop(ctx)
	})
	for _, b := range bodies {
		req := httptest.NewRequest("POST", "/webhook/notifications", strings.NewReader(b))
		req.Header.Set("Content-Type", "application/json")
		resp, err := svc.App().Test(req, -1)
		require.NoError(t, err)
		msg, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		require.Equal(t, 200, resp.StatusCode, string(msg))
	}
	return dsn
}

func webhook(token, object, createdOn string) string {
	m := map[string]any{"token": token, "type": "USERS.UPDATED", "createdOn": createdOn,
		"object": map[string]any{"token": object, "programToken": "prg-" + object}}
	b, _ := json.Marshal(m)
	return string(b)
}

func rows(t *testing.T, f *dataframe.Frame) []map[string]any {
	t.Helper()
	var out []map[string]any
	require.NoError(t, f.EachRowJSON(func(_ int64, obj []byte) error {
		var m map[string]any
		if err := json.Unmarshal(obj, &m); err != nil {
			return err
		}
		out = append(out, m)
		return nil
	}))
	return out
}

func read(t *testing.T, props connectors.Props) (*dataframe.Frame, error) {
	t.Helper()
	c, err := connectors.Lookup("NOTIFICATIONS")
	require.NoError(t, err)
	return c.Read(context.Background(), &connectors.Dataset{Name: "ops.notifications", Props: props})
}

func TestReadThroughIntake(t *testing.T) {
	t.Parallel()
	dsn := fillThroughIntake(t,
		webhook("wbh-1", "usr-a", "2024-05-01T10:00:00.000Z"),
		webhook("wbh-2", "stk-b", "2024-05-01T11:00:00Z"),
		webhook("wbh-3", "usr-a", "2024-05-01T12:00:00Z"), // supersedes wbh-1
		webhook("wbh-2", "stk-b", "2024-05-01T11:00:00Z"), // duplicate: discarded
		webhook("wbh-4", "xyz", "2024-05-01T09:00:00Z"),
	)
	f, err := read(t, connectors.Props{notifconn.PropStore: dsn})
	require.NoError(t, err)
	defer f.Release()
	require.Equal(t, `root
 |-- id: long (nullable = true)
 |-- webhookToken: string (nullable = true)
 |-- objectToken: string (nullable = true)
 |-- creationDate: timestamp (nullable = true)
 |-- receptionDate: timestamp (nullable = true)
 |-- notificationType: string (nullable = true)
 |-- status: string (nullable = true)
 |-- retryCounter: integer (nullable = true)
 |-- lastRetryDate: timestamp (nullable = true)
 |-- nextRetryDate: timestamp (nullable = true)
 |-- program: string (nullable = true)
 |-- source: string (nullable = true)
`, dataframe.SchemaString(f.Schema()))
	got := rows(t, f)
	require.Len(t, got, 4)
	type want struct{ token, object, created, typ, status string }
	for i, w := range []want{
		{"wbh-1", "usr-a", "2024-05-01T10:00:00.000Z", "USR", "OUTDATED"},
		{"wbh-2", "stk-b", "2024-05-01T11:00:00.000Z", "STK", "PENDING"},
		{"wbh-3", "usr-a", "2024-05-01T12:00:00.000Z", "USR", "PENDING"},
		{"wbh-4", "xyz", "2024-05-01T09:00:00.000Z", "UNK", "PENDING"},
	} {
		r := got[i]
		require.Equal(t, w.token, r["webhookToken"], i)
		require.Equal(t, w.object, r["objectToken"], i)
		require.Equal(t, w.created, r["creationDate"], i)
		require.Equal(t, w.typ, r["notificationType"], i)
		require.Equal(t, w.status, r["status"], i)
		require.Equal(t, "prg-"+w.object, r["program"], i)
		require.EqualValues(t, 0, r["retryCounter"], i)
		require.Nil(t, r["lastRetryDate"], i)
		require.Nil(t, r["nextRetryDate"], i)
		require.NotNil(t, r["receptionDate"], i)
		require.Equal(t, "notifications", r["source"], i)
		if i > 0 {
			require.Greater(t, r["id"].(float64), got[i-1]["id"].(float64), "id order")
		}
	}

	// A receptionDate range far in the past selects nothing.
	f2, err := read(t, connectors.Props{notifconn.PropStore: dsn, notifconn.PropTo: "2000-01-01T00:00:00"})
	require.NoError(t, err)
	defer f2.Release()
	require.Zero(t, f2.NumRows())
	require.Equal(t, 12, f2.NumCols())
}

func TestReadErrors(t *testing.T) {
	t.Parallel()
	missing := "sqlite:" + filepath.Join(t.TempDir(), "nope.db")
	tests := []struct {
		name  string
		props connectors.Props
		want  string
	}{
		{"no store", connectors.Props{}, "property svc.notifications.store is required"},
		{"missing file", connectors.Props{notifconn.PropStore: missing}, "does not exist"},
		{"bad scheme", connectors.Props{notifconn.PropStore: "mysql://x"}, "unsupported store DSN scheme"},
		{"bad from", connectors.Props{notifconn.PropStore: missing, notifconn.PropFrom: "yesterday"}, `svc.notifications.from: "yesterday" is not an ISO-8601 date-time`},
		{"from after to", connectors.Props{notifconn.PropStore: missing, notifconn.PropFrom: "2024-02-01", notifconn.PropTo: "2024-01-01"}, "is later than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := read(t, tt.props)
			require.ErrorContains(t, err, tt.want)
		})
	}
}

func TestWriteIsRefused(t *testing.T) {
	t.Parallel()
	c, err := connectors.Lookup("NOTIFICATIONS")
	require.NoError(t, err)
	_, isWriter := c.(connectors.Writer)
	require.False(t, isWriter, "the dataset is read-only")

	// Through a session, the write fails naming the dataset and why.
	sess := catalog.NewSession(nil)
	f := dataframe.Strings(nil, "payload", []string{"x"})
	defer f.Release()
	_, err = sess.Write(context.Background(), "ops_n", f, map[string]any{
		"ops_n.dataSetProperties": connectors.DataSetProperties{Type: "NOTIFICATIONS", Props: map[string]string{notifconn.PropStore: "sqlite:x.db"}},
	})
	require.ErrorIs(t, err, connectors.ErrNotWritable)
	require.ErrorContains(t, err, "ops_n")
}

func TestValidate(t *testing.T) {
	t.Parallel()
	v := notifconn.Connector{}
	require.ErrorContains(t, v.Validate(nil, connectors.Props{}), "svc.notifications.store is required")
	require.NoError(t, v.Validate(nil, connectors.Props{notifconn.PropStore: "sqlite:a.db"}))
	require.ErrorContains(t, v.Validate([]connectors.Field{{Name: "payload", Type: "string"}}, connectors.Props{notifconn.PropStore: "sqlite:a.db"}), "the columns are fixed")
	var fields []connectors.Field
	for _, c := range notifconn.Columns {
		fields = append(fields, connectors.Field{Name: c.Name, Type: c.Kind.String(), Nullable: true})
	}
	require.NoError(t, v.Validate(fields, connectors.Props{notifconn.PropStore: "sqlite:a.db"}))
	fields[0].Type = "string"
	require.ErrorContains(t, v.Validate(fields, connectors.Props{notifconn.PropStore: "sqlite:a.db"}), "column 1 is id string, want id long")
}

func TestReadPostgres(t *testing.T) {
	t.Parallel()
	dsn := storetest.PostgresDSN(t)
	// A record received at an odd moment, selected by a receptionDate range.
	at := time.Date(2900, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(time.Now().UnixNano()%(1<<40)) * time.Millisecond)
	st, err := sqlstore.Open(context.Background(), dsn, sqlstore.WithClock(func() time.Time { return at }))
	require.NoError(t, err)
	token := fmt.Sprintf("wbh-conn-%d", time.Now().UnixNano())
	_, err = st.Enqueue(context.Background(), &notifications.Record{WebhookToken: token, ObjectToken: "trm-1", CreationDate: at})
	require.NoError(t, err)
	t.Cleanup(func() {
		_ = st.Remove(context.Background(), token)
		_ = st.Close()
	})
	stamp := notifications.FormatDate(at)
	f, err := read(t, connectors.Props{notifconn.PropStore: dsn, notifconn.PropFrom: stamp, notifconn.PropTo: stamp})
	require.NoError(t, err)
	defer f.Release()
	got := rows(t, f)
	require.Len(t, got, 1)
	require.Equal(t, token, got[0]["webhookToken"])
	require.Equal(t, "TRM", got[0]["notificationType"])
	require.Equal(t, stamp, got[0]["receptionDate"])
}

// BenchmarkReadSQLite reads a store of 1M records; the store is filled once
// with direct inserts (the intake's rules are not what is measured).
func BenchmarkReadSQLite(b *testing.B) {
	const n = 1_000_000
	dsn := fillDirect(b, n)
	ctx := context.Background()
	c := notifconn.Connector{}
	ds := &connectors.Dataset{Name: "bench", Props: connectors.Props{notifconn.PropStore: dsn}}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		f, err := c.Read(ctx, ds)
		require.NoError(b, err)
		require.Equal(b, int64(n), f.NumRows())
		f.Release()
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

// fillDirect makes a SQLite store of n records, inserted directly (the
// intake's rules are not what is tested), and returns its DSN.
func fillDirect(tb testing.TB, n int) string {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), "bench.db")
	dsn := "sqlite:" + path
	ctx := context.Background()
	st, err := sqlstore.Open(ctx, dsn)
	require.NoError(tb, err)
	require.NoError(tb, st.Close())
	db, err := sql.Open("sqlite", path)
	require.NoError(tb, err)
	tx, err := db.Begin()
	require.NoError(tb, err)
	ins, err := tx.Prepare(`INSERT INTO notifications (webhook_token, object_token, notification_type, creation_date,
		reception_date, status, retry_counter, last_retry_date, next_retry_date, program) VALUES (?,?,?,?,?,?,?,?,?,?)`)
	require.NoError(tb, err)
	base := time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
	statuses := []string{"PENDING", "SUCCESS", "FAILED", "RETRYING", "OUTDATED"}
	for i := 0; i < n; i++ {
		var last any
		if i%3 == 0 {
			last = base + int64(i)
		}
		_, err := ins.Exec(fmt.Sprintf("wbh-%08d", i), fmt.Sprintf("usr-%06d", i%100000), "USR", base+int64(i), base+int64(i)+5,
			statuses[i%len(statuses)], i%5, last, nil, "prg-1")
		require.NoError(tb, err)
	}
	require.NoError(tb, ins.Close())
	require.NoError(tb, tx.Commit())
	require.NoError(tb, db.Close())
	return dsn
}

// peakAllocator is a checked allocator that remembers the most bytes it
// held at once.
type peakAllocator struct {
	*memory.CheckedAllocator
	mu   sync.Mutex
	peak int
}

func (a *peakAllocator) Allocate(n int) []byte {
	b := a.CheckedAllocator.Allocate(n)
	a.mu.Lock()
	a.peak = max(a.peak, a.CurrentAlloc())
	a.mu.Unlock()
	return b
}

func (a *peakAllocator) Reallocate(n int, b []byte) []byte {
	b = a.CheckedAllocator.Reallocate(n, b)
	a.mu.Lock()
	a.peak = max(a.peak, a.CurrentAlloc())
	a.mu.Unlock()
	return b
}

func TestStreamStoreInPages(t *testing.T) {
	t.Parallel()
	const n = 60_000
	dsn := fillDirect(t, n)
	ctx := context.Background()
	store, err := sqlstore.Open(ctx, dsn)
	require.NoError(t, err)
	defer store.Close()

	mem := &peakAllocator{CheckedAllocator: memory.NewCheckedAllocator(memory.NewGoAllocator())}
	st := notifconn.StreamStore(ctx, store, notifications.Range{}, mem)
	var rows, next int64
	var whole int64
	for st.Next() {
		rec := st.Record()
		require.LessOrEqual(t, rec.NumRows(), int64(notifconn.BatchRows))
		ids := rec.Column(0).(*array.Int64)
		for i := 0; i < ids.Len(); i++ {
			next++
			require.Equal(t, next, ids.Value(i), "records in id order")
		}
		rows += rec.NumRows()
		for _, c := range rec.Columns() {
			for _, b := range c.Data().Buffers() {
				if b != nil {
					whole += int64(b.Len())
				}
			}
		}
	}
	require.NoError(t, st.Err())
	st.Release()
	require.Equal(t, int64(n), rows)
	// A page and a batch or two at a time, not the whole dataset.
	t.Logf("peak %d bytes; the dataset is %d bytes in batches", mem.peak, whole)
	require.Less(t, int64(mem.peak), whole/3)
	mem.AssertSize(t, 0)

	// Released after one batch: the scan stops, nothing leaks, and the
	// store is still usable.
	mem = &peakAllocator{CheckedAllocator: memory.NewCheckedAllocator(memory.NewGoAllocator())}
	st = notifconn.StreamStore(ctx, store, notifications.Range{}, mem)
	require.True(t, st.Next())
	st.Release()
	mem.AssertSize(t, 0)
	require.NoError(t, store.Ping(ctx))
}

func TestReadStreamClosesTheStore(t *testing.T) {
	t.Parallel()
	dsn := fillDirect(t, 20_000)
	c := notifconn.Connector{}
	ds := &connectors.Dataset{Name: "n", Props: connectors.Props{notifconn.PropStore: dsn}}
	for _, stopAfter := range []int{1, -1} {
		st, err := c.ReadStream(context.Background(), ds)
		require.NoError(t, err)
		batches := 0
		for st.Next() {
			batches++
			if batches == stopAfter {
				break
			}
		}
		require.NoError(t, st.Err())
		st.Release()
		require.Zero(t, openFiles(t, strings.TrimPrefix(dsn, "sqlite:")), "the store is closed")
		if stopAfter < 0 {
			require.Equal(t, (20_000+notifconn.BatchRows-1)/notifconn.BatchRows, batches)
		}
	}
	// The same rows through Read.
	f, err := c.Read(context.Background(), ds)
	require.NoError(t, err)
	require.Equal(t, int64(20_000), f.NumRows())
	f.Release()
}

// openFiles counts this process's open files whose path starts with path
// (the database and its -wal and -shm files).
func openFiles(t *testing.T, path string) int {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd to count open files")
	}
	n := 0
	for _, fd := range fds {
		if target, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name())); err == nil && strings.HasPrefix(target, path) {
			n++
		}
	}
	return n
}
