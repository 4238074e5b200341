package sqlstore

import (
	"context"
	"crypto/rand"
	"database/sql"
	"database/sql/driver"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/sluicedata/sluice/notifications/queue"
	"modernc.org/sqlite" // registers the "sqlite" database/sql driver
)

// sqliteStore keeps records in one SQLite file in WAL mode. Every write goes
// through one connection (wdb) whose transactions BEGIN IMMEDIATE, so writers
// of several processes sharing the file serialise on SQLite's write lock
// (waiting up to the busy timeout); reads use a small pool (rdb).
type sqliteStore struct {
	path   string
	o      options
	wdb    *sql.DB
	rdb    *sql.DB
	cdb    *sql.DB // the background checkpointer's connection
	cpStop chan struct{}
	cpDone chan struct{}
	w      *writer
	holder string

	stCheck, stDup, stSupersede, stInsert, stInsertNew  *sql.Stmt
	stClaim, stFinish, stFinishOwn, stLedger, stAttempt *sql.Stmt

	qw *writer // the quarantine's group-commit writer

	lockSeq atomic.Uint64

	claims claimBook[int64] // claimed_until in ms
	leases heldLocks[*sqliteLease]
}

const sqliteName = "sqlite store"

const sqliteCols = `id, webhook_token, object_token, notification_type, creation_date, reception_date,
	status, retry_counter, last_retry_date, next_retry_date, program, payload, last_error, source`

const sqliteInsertCols = `webhook_token, object_token, notification_type, creation_date, reception_date,
	status, retry_counter, last_retry_date, next_retry_date, program, payload, source`

// The roles of a store's SQLite connections.
const (
	roleWriter = iota
	roleReader
	roleCheckpointer
)

// sqliteDSN builds the driver DSN: pragmas run on every new connection.
func sqliteDSN(path string, o options, role int) string {
	q := url.Values{}
	q.Set("_busy_timeout", strconv.FormatInt(o.busyTimeout.Milliseconds(), 10))
	q.Set("_journal_mode", "WAL")
	q.Set("_synchronous", o.synchronous)
	// Checkpoints run in the background (checkpointLoop), off the commit
	// path; this is only the backstop should they fall behind (≈ 80 MiB).
	q.Add("_pragma", "wal_autocheckpoint(20000)")
	// Attempts are deleted with their record (ON DELETE CASCADE).
	q.Add("_pragma", "foreign_keys(1)")
	switch role {
	case roleWriter:
		// The writer touches index pages all over (tokens are random): keep
		// them in memory rather than re-reading them through the OS.
		q.Add("_pragma", "cache_size(-65536)") // 64 MiB
		q.Set("_txlock", "immediate")
	case roleReader:
		q.Add("_pragma", "cache_size(-16384)") // 16 MiB
		q.Set("_query_only", "1")
	}
	return (&url.URL{Scheme: "file", Path: path}).String() + "?" + q.Encode()
}

func openSQLite(ctx context.Context, path string, o options) (_ queue.Store, err error) {
	if path == "" {
		return nil, errors.New("sqlstore: sqlite DSN has no path (want sqlite:<path>)")
	}
	if path == ":memory:" || strings.HasPrefix(path, "file::memory:") {
		return nil, errors.New("sqlstore: sqlite in memory is not durable; give a file path")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("sqlstore: sqlite path %s: %w", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return nil, fmt.Errorf("sqlstore: creating the directory of %s: %w", path, storeErr("mkdir", err))
	}
	s := &sqliteStore{
		path:   path,
		o:      o,
		holder: holderID(),
	}
	defer func() {
		if err != nil {
			s.closeDBs()
		}
	}()
	if s.wdb, err = sql.Open("sqlite", sqliteDSN(abs, o, roleWriter)); err != nil {
		return nil, fmt.Errorf("sqlstore: opening %s: %w", path, err)
	}
	s.wdb.SetMaxOpenConns(1)
	s.wdb.SetMaxIdleConns(1)
	s.wdb.SetConnMaxLifetime(0)
	s.wdb.SetConnMaxIdleTime(0)
	if err := s.migrateRetrying(ctx); err != nil {
		return nil, fmt.Errorf("sqlstore: migrating %s: %w", path, err)
	}
	if s.rdb, err = sql.Open("sqlite", sqliteDSN(abs, o, roleReader)); err != nil {
		return nil, fmt.Errorf("sqlstore: opening %s: %w", path, err)
	}
	s.rdb.SetMaxOpenConns(o.readers)
	s.rdb.SetMaxIdleConns(o.readers)
	if err := s.rdb.PingContext(ctx); err != nil {
		return nil, fmt.Errorf("sqlstore: opening %s: %w", path, storeErr("ping", err))
	}
	for _, p := range []struct {
		st  **sql.Stmt
		sql string
	}{
		// One probe of the object index answers the obsolete and supersede
		// rules; the duplicate rule is the INSERT's own unique-index check
		// (stInsertNew), so the common delivery costs one index probe and
		// the INSERT. stDup is only asked when the delivery is obsolete
		// (a duplicate takes precedence).
		// The first column is the newest later record's token (the
		// obsolete rule's winner, for the discard ledger), NULL when none.
		{&s.stCheck, `SELECT
			(SELECT webhook_token FROM notifications WHERE source = ?4 AND object_token = ?1 AND notification_type = ?2
				AND creation_date > ?3 ORDER BY creation_date DESC, id DESC LIMIT 1),
			EXISTS (SELECT 1 FROM notifications WHERE source = ?4 AND object_token = ?1 AND notification_type = ?2
				AND creation_date < ?3 AND status IN ('PENDING', 'RETRYING'))`},
		{&s.stDup, `SELECT EXISTS (SELECT 1 FROM notifications WHERE webhook_token = ?)`},
		{&s.stSupersede, `UPDATE notifications SET status = 'OUTDATED', claimed_until = NULL
			WHERE source = ?4 AND object_token = ?1 AND notification_type = ?2 AND creation_date < ?3
			AND status IN ('PENDING', 'RETRYING')`},
		{&s.stInsert, `INSERT INTO notifications (` + sqliteInsertCols + `)
			VALUES (?, ?, ?, ?, ?, 'PENDING', 0, NULL, NULL, ?, ?, ?)`},
		{&s.stInsertNew, `INSERT INTO notifications (` + sqliteInsertCols + `)
			VALUES (?, ?, ?, ?, ?, 'PENDING', 0, NULL, NULL, ?, ?, ?)
			ON CONFLICT (webhook_token) DO NOTHING`},
		{&s.stClaim, sqliteClaim},
		{&s.stFinish, sqliteFinish},
		// Only the claim this store made: after its lease expired another
		// sidecar may have claimed the record again.
		{&s.stFinishOwn, sqliteFinish + ` AND claimed_until = ?7`},
		{&s.stLedger, sqliteLedger},
		{&s.stAttempt, sqliteAttempt},
	} {
		if *p.st, err = s.wdb.PrepareContext(ctx, p.sql); err != nil {
			return nil, fmt.Errorf("sqlstore: preparing statements on %s: %w", path, storeErr("prepare", err))
		}
	}
	if s.cdb, err = sql.Open("sqlite", sqliteDSN(abs, o, roleCheckpointer)); err != nil {
		return nil, fmt.Errorf("sqlstore: opening %s: %w", path, err)
	}
	s.cdb.SetMaxOpenConns(1)
	s.cpStop, s.cpDone = make(chan struct{}), make(chan struct{})
	go s.checkpointLoop()
	s.w = newWriter(sqliteName, s.applyBatch, o.maxBatch, o.queueSize, 1, 0, o.logger)
	s.qw = newWriter(sqliteName+" quarantine", s.applyQuarantine, o.maxBatch, o.queueSize, 1, 0, o.logger)
	return s, nil
}

// walRestartFrames is the WAL length (≈ 16 MiB of 4 KiB pages) from which
// the checkpointer also makes the writer start the WAL over (see
// checkpointLoop).
const walRestartFrames = 4096

// checkpointLoop keeps the WAL short without stalling intake. SQLite starts
// the WAL over from its first frame only when a write transaction begins
// with every frame already copied into the database file; under steady
// intake a checkpoint on another connection never gets there (the writer
// appends while it copies), the WAL grows to the autocheckpoint backstop and
// one commit then pays a long checkpoint and fsync (≈ 10–20 ms at 25,000
// deliveries/s). So each tick copies the bulk with a PASSIVE checkpoint on
// the checkpointer's own connection, which never blocks the writer, and,
// once the WAL is long, a second PASSIVE checkpoint on the writer's
// connection: database/sql hands it that connection between two of the
// writer's transactions, it copies only the frames appended meanwhile, and
// the next commit restarts the WAL, overwriting blocks the file already has
// instead of growing it. It ticks every options.checkpointEvery (250 ms).
func (s *sqliteStore) checkpointLoop() {
	defer close(s.cpDone)
	t := time.NewTicker(s.o.checkpointEvery)
	defer t.Stop()
	for {
		select {
		case <-s.cpStop:
			return
		case <-t.C:
		}
		if err := s.checkpointTick(); err != nil {
			s.o.logger.Warn("WAL checkpoint failed", slog.String("store", s.path), slog.String("error", err.Error()))
		}
	}
}

// checkpointTick is one tick of checkpointLoop. The pass on the writer's
// connection runs only when the first one copied every frame it found:
// what is left is then what the writer appended meanwhile. When a reader's
// snapshot held the first pass back, the second would be held back too, or,
// had the reader just finished, would copy the whole backlog while intake
// waits for the connection.
func (s *sqliteStore) checkpointTick() error {
	frames, copied, err := s.checkpoint(s.cdb)
	if err == nil && frames >= walRestartFrames && copied == frames {
		_, _, err = s.checkpoint(s.wdb)
	}
	return err
}

// checkpoint runs a PASSIVE checkpoint on db and returns the WAL's length
// in frames and how many of them are now copied into the database file.
func (s *sqliteStore) checkpoint(db *sql.DB) (frames, copied int, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var busy int
	err = db.QueryRowContext(ctx, `PRAGMA wal_checkpoint(PASSIVE)`).Scan(&busy, &frames, &copied)
	return frames, copied, err
}

func holderID() string {
	host, _ := os.Hostname()
	var b [6]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("%s/%d/%s", host, os.Getpid(), hex.EncodeToString(b[:]))
}

// migrateRetrying is migrate, tried again while the file answers
// SQLITE_BUSY, within the busy timeout: a new file's first connections
// switch it to WAL, and that switch answers SQLITE_BUSY at once, without
// the busy handler, while another process's connection holds the file
// (sidecars starting together on one new file).
func (s *sqliteStore) migrateRetrying(ctx context.Context) error {
	deadline := time.Now().Add(s.o.busyTimeout)
	for {
		err := s.migrate(ctx)
		var se *sqlite.Error
		if err == nil || !errors.As(err, &se) || se.Code()&0xff != sqliteBusy || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// sqliteBusy is SQLITE_BUSY, the primary result code of a locked file.
const sqliteBusy = 5

// migrate applies each pending migration in its own BEGIN IMMEDIATE
// transaction: sidecars starting together take turns, and the later ones
// find the version recorded and skip it.
func (s *sqliteStore) migrate(ctx context.Context) error {
	ms, err := loadMigrations("sqlite")
	if err != nil {
		return err
	}
	if _, err := s.wdb.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)`); err != nil {
		return storeErr("creating schema_migrations", err)
	}
	var have int
	if err := s.wdb.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`).Scan(&have); err != nil {
		return storeErr("reading schema_migrations", err)
	}
	if have > latestVersion(ms) {
		return newerSchemaErr(have, latestVersion(ms))
	}
	for _, m := range ms {
		if m.version <= have {
			continue
		}
		if err := s.applyMigration(ctx, m); err != nil {
			return fmt.Errorf("migration %s: %w", m.name, err)
		}
	}
	return nil
}

func (s *sqliteStore) applyMigration(ctx context.Context, m migration) error {
	tx, err := s.wdb.BeginTx(ctx, nil)
	if err != nil {
		return storeErr("begin", err)
	}
	defer tx.Rollback() //nolint:errcheck // no-op after Commit
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM schema_migrations WHERE version = ?`, m.version).Scan(&n); err != nil {
		return storeErr("reading schema_migrations", err)
	}
	if n > 0 {
		return nil // another process applied it meanwhile
	}
	if _, err := tx.ExecContext(ctx, m.sql); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)`,
		m.version, ms(time.Now())); err != nil {
		return storeErr("recording the version", err)
	}
	return storeErr("commit", tx.Commit())
}

// applyBatch is the group-commit transaction: the rules per request, in
// arrival order, so later requests see what earlier ones stored.
func (s *sqliteStore) applyBatch(ctx context.Context, reqs []*intakeReq) ([]queue.EnqueueResult, error) {
	tx, err := s.wdb.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback() //nolint:errcheck // no-op after Commit
	check := tx.StmtContext(ctx, s.stCheck)
	supersede := tx.StmtContext(ctx, s.stSupersede)
	insert := tx.StmtContext(ctx, s.stInsertNew)
	var dupQ, ledger *sql.Stmt // prepared on the transaction only when needed
	// The discard ledger rides in the batch's transaction: no commit of
	// its own (docs/records-api.md#discard-ledger).
	discard := func(r *queue.Record, res *queue.EnqueueResult, reason, winner string) error {
		res.Winner = winner
		if ledger == nil {
			ledger = tx.StmtContext(ctx, s.stLedger)
		}
		_, err := ledger.ExecContext(ctx, r.WebhookToken, reason, winner, ms(r.ReceptionDate), r.Source)
		return err
	}
	res := make([]queue.EnqueueResult, len(reqs))
	for i, q := range reqs {
		r := q.rec
		cd := ms(r.CreationDate)
		// A delivery without an object token is related to no other: it is
		// never obsolete and supersedes nothing.
		var winner sql.NullString
		var live bool
		if r.ObjectToken != "" {
			if err := check.QueryRowContext(ctx, r.ObjectToken, r.NotificationType, cd, r.Source).Scan(&winner, &live); err != nil {
				return nil, err
			}
		}
		if winner.Valid {
			if dupQ == nil {
				dupQ = tx.StmtContext(ctx, s.stDup)
			}
			var dup bool
			if err := dupQ.QueryRowContext(ctx, r.WebhookToken).Scan(&dup); err != nil {
				return nil, err
			}
			res[i].Outcome = queue.DiscardedObsolete
			reason := queue.ReasonObsolete
			if dup {
				res[i].Outcome = queue.DiscardedDuplicate
				reason, winner.String = queue.ReasonDuplicate, r.WebhookToken
			}
			if err := discard(r, &res[i], reason, winner.String); err != nil {
				return nil, err
			}
			continue
		}
		// No row inserted: the token is stored already (a duplicate), and
		// nothing was written. Exec, not RETURNING: a query costs more.
		ir, err := insert.ExecContext(ctx, r.WebhookToken, r.ObjectToken, r.NotificationType, cd,
			ms(r.ReceptionDate), r.Program, nullBlob(r.Payload), r.Source)
		if err != nil {
			return nil, err
		}
		ins, err := ir.RowsAffected()
		if err != nil {
			return nil, err
		}
		if ins == 0 {
			res[i].Outcome = queue.DiscardedDuplicate
			if err := discard(r, &res[i], queue.ReasonDuplicate, r.WebhookToken); err != nil {
				return nil, err
			}
			continue
		}
		id, err := ir.LastInsertId()
		if err != nil {
			return nil, err
		}
		// After the INSERT: the new record's creation_date is not below
		// cd, so the UPDATE leaves it alone, as if it ran first.
		var n int64
		if live {
			sr, err := supersede.ExecContext(ctx, r.ObjectToken, r.NotificationType, cd, r.Source)
			if err != nil {
				return nil, err
			}
			if n, err = sr.RowsAffected(); err != nil {
				return nil, err
			}
		}
		res[i] = queue.EnqueueResult{Outcome: queue.Stored, ID: id, Outdated: int(n)}
	}
	if err := tx.Commit(); err != nil {
		return nil, err
	}
	return res, nil
}

func nullBlob(b []byte) any {
	if len(b) == 0 {
		return nil
	}
	return b
}

func nullMS(t *time.Time) any {
	if t == nil {
		return nil
	}
	return ms(*t)
}

type rowScanner interface{ Scan(dest ...any) error }

func scanSQLite(sc rowScanner) (queue.Record, error) {
	var (
		r        queue.Record
		cd, rd   int64
		lrd, nrd sql.NullInt64
		status   string
		lastErr  sql.NullString
	)
	if err := sc.Scan(&r.ID, &r.WebhookToken, &r.ObjectToken, &r.NotificationType, &cd, &rd,
		&status, &r.RetryCounter, &lrd, &nrd, &r.Program, &r.Payload, &lastErr, &r.Source); err != nil {
		return r, err
	}
	r.LastError = lastErr.String
	r.CreationDate, r.ReceptionDate = fromMS(cd), fromMS(rd)
	r.Status = queue.Status(status)
	if lrd.Valid {
		t := fromMS(lrd.Int64)
		r.LastRetryDate = &t
	}
	if nrd.Valid {
		t := fromMS(nrd.Int64)
		r.NextRetryDate = &t
	}
	return r, nil
}

func collectSQLite(rows *sql.Rows) ([]queue.Record, error) {
	defer rows.Close()
	var out []queue.Record
	for rows.Next() {
		r, err := scanSQLite(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

func (s *sqliteStore) Enqueue(ctx context.Context, rec *queue.Record) (queue.EnqueueResult, error) {
	return enqueueVia(ctx, s.w, s.o.clock(), rec)
}

// Lock takes a lease row; a goroutine renews it until unlock and cancels
// the held context when the lease is lost (see queue.Store.Lock).
func (s *sqliteStore) Lock(ctx context.Context, job string) (context.Context, func(), error) {
	if job == "" {
		return nil, nil, invalidf("lock: empty job name")
	}
	holder := s.holder + "/" + strconv.FormatUint(s.lockSeq.Add(1), 10)
	now := s.o.clock()
	expires := now.Add(s.o.lockLease)
	res, err := s.wdb.ExecContext(ctx, `INSERT INTO job_leases (job, holder, expires_at) VALUES (?1, ?2, ?3)
		ON CONFLICT (job) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
		WHERE job_leases.expires_at <= ?4`, job, holder, ms(expires), ms(now))
	if err != nil {
		return nil, nil, storeErr(fmt.Sprintf("%s: lock %s", sqliteName, job), err)
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return nil, nil, fmt.Errorf("%s: lock %s: %w", sqliteName, job, queue.ErrLocked)
	}
	l := &sqliteLease{s: s, holder: holder, expires: expires}
	var held context.Context
	l.jobLock, held = newJobLock(ctx, sqliteName, job)
	if !s.leases.add(l) {
		l.abandon(l.release)
		return nil, nil, fmt.Errorf("%s: lock %s: %w", sqliteName, job, errClosed)
	}
	go l.watch(s.o.lockLease/3, l.renew)
	return held, l.unlock, nil
}

type sqliteLease struct {
	*jobLock
	s       *sqliteStore
	holder  string
	expires time.Time // of the last renewal that committed (the store's clock)
}

// renew moves the lease's expiry forward (every third of the lease). The
// lease is lost when another holder has taken the row (this one's expired
// meanwhile: a stalled process, a clock jump) or when renewing keeps
// failing until the lease has expired.
func (l *sqliteLease) renew() error {
	now := l.s.o.clock()
	ctx, cancel := context.WithTimeout(context.Background(), l.s.o.lockLease/3)
	res, err := l.s.wdb.ExecContext(ctx, `UPDATE job_leases SET expires_at = ? WHERE job = ? AND holder = ?`,
		ms(now.Add(l.s.o.lockLease)), l.job, l.holder)
	cancel()
	if err != nil {
		if now.Before(l.expires) {
			l.s.o.logger.Warn("renewing a job lease failed; retrying", slog.String("job", l.job), slog.String("error", err.Error()))
			return nil
		}
		// Another holder may have the lock by now.
		return fmt.Errorf("the lease expired while renewing it failed: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return errors.New("another holder took the lease after it expired")
	}
	l.expires = now.Add(l.s.o.lockLease)
	return nil
}

func (l *sqliteLease) unlock() {
	l.end(func() {
		l.s.leases.remove(l)
		l.release()
	})
}

// closed releases the lease of a store being closed: its job loses it.
func (l *sqliteLease) closed() {
	l.lose(errStoreClosed)
	l.unlock()
}

func (l *sqliteLease) release() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := l.s.wdb.ExecContext(ctx, `DELETE FROM job_leases WHERE job = ? AND holder = ?`, l.job, l.holder); err != nil {
		l.s.o.logger.Warn("releasing a job lease failed; it expires by itself",
			slog.String("job", l.job), slog.String("error", err.Error()))
	}
}

func (s *sqliteStore) Claim(ctx context.Context, now time.Time, limit int) ([]queue.Record, error) {
	if err := checkLimit(limit); err != nil {
		return nil, err
	}
	clock := s.o.clock()
	until := ms(clock.Add(s.o.claimLease))
	var recs []queue.Record
	err := s.outcome(ctx, func(tx *sql.Tx) error {
		rows, err := tx.StmtContext(ctx, s.stClaim).QueryContext(ctx, until, ms(now), ms(clock), limit)
		if err != nil {
			return err
		}
		recs, err = collectSQLite(rows)
		return err
	})
	if err != nil {
		return nil, storeErr(sqliteName+": claim", err)
	}
	sortClaimed(recs)
	// Claims ended a whole lease ago will not be finished by this store.
	forget := until - 2*s.o.claimLease.Milliseconds()
	s.claims.remember(recs, until, func(u int64) bool { return u < forget })
	return recs, nil
}

// sqliteClaim leases the oldest eligible records. Records without a retry
// date (fresh deliveries, and RETRYING ones a manager left without one) are
// read in creationDate order straight off the queue index, so a claim costs
// the same with a backlog of millions; only records with a retry date (few)
// are sorted.
const sqliteClaim = `UPDATE notifications SET claimed_until = ?1 WHERE id IN (
	SELECT id FROM (
		SELECT id, creation_date FROM (
			SELECT id, creation_date FROM notifications INDEXED BY notifications_queue
			WHERE status = 'PENDING' AND next_retry_date IS NULL
			AND (claimed_until IS NULL OR claimed_until <= ?3)
			ORDER BY status, next_retry_date, creation_date, id LIMIT ?4)
		UNION ALL
		SELECT id, creation_date FROM (
			SELECT id, creation_date FROM notifications INDEXED BY notifications_queue
			WHERE status = 'RETRYING' AND next_retry_date IS NULL
			AND (claimed_until IS NULL OR claimed_until <= ?3)
			ORDER BY status, next_retry_date, creation_date, id LIMIT ?4)
		UNION ALL
		SELECT id, creation_date FROM (
			SELECT id, creation_date FROM notifications
			WHERE status IN ('PENDING', 'RETRYING') AND next_retry_date <= ?2
			AND (claimed_until IS NULL OR claimed_until <= ?3)
			ORDER BY creation_date, id LIMIT ?4))
	ORDER BY creation_date, id LIMIT ?4)
RETURNING ` + sqliteCols

const sqliteFinish = `UPDATE notifications SET status = ?1, retry_counter = ?2, last_retry_date = ?3,
	next_retry_date = ?4, claimed_until = NULL, last_error = ?6
	WHERE id = ?5 AND status IN ('PENDING', 'RETRYING') AND claimed_until IS NOT NULL`

// sortClaimed orders a claimed batch; RETURNING promises no order.
func sortClaimed(recs []queue.Record) {
	sort.Slice(recs, func(i, j int) bool {
		if !recs[i].CreationDate.Equal(recs[j].CreationDate) {
			return recs[i].CreationDate.Before(recs[j].CreationDate)
		}
		return recs[i].ID < recs[j].ID
	})
}

func (s *sqliteStore) Finish(ctx context.Context, rec *queue.Record) (bool, error) {
	if rec == nil || rec.ID == 0 {
		return false, invalidf("finish: record without id (pass a record from Claim)")
	}
	if !rec.Status.Valid() {
		return false, invalidf("finish %s: invalid status %q", rec.WebhookToken, rec.Status)
	}
	st := s.stFinish
	lastErr := finishLastError(rec)
	args := []any{string(rec.Status), rec.RetryCounter, nullMS(rec.LastRetryDate), nullMS(rec.NextRetryDate), rec.ID, lastErr}
	if until, ok := s.claims.take(rec.ID); ok {
		st = s.stFinishOwn
		args = append(args, until)
	}
	var n int64
	err := s.outcome(ctx, func(tx *sql.Tx) error {
		res, err := tx.StmtContext(ctx, st).ExecContext(ctx, args...)
		if err != nil {
			return err
		}
		if n, err = res.RowsAffected(); err != nil || n != 1 || rec.Attempt == nil {
			return err
		}
		a := rec.Attempt
		_, err = tx.StmtContext(ctx, s.stAttempt).ExecContext(ctx, rec.ID, ms(a.At), a.Outcome, nullInt(a.HTTPStatus),
			a.DurationMS, nullText(a.Error))
		return err
	})
	if err != nil {
		return false, storeErr(sqliteName+": finish", err)
	}
	return n == 1, nil
}

// outcome runs a Claim or Finish write on the writer connection, with
// synchronous=NORMAL unless WithDurableOutcomes: the commit reaches the OS
// (it survives kill -9) without waiting for the disk, and the next FULL
// commit (any Enqueue) flushes it along. Intake and management writes always
// keep the configured level.
func (s *sqliteStore) outcome(ctx context.Context, fn func(*sql.Tx) error) error {
	// The connection is pinned because the pragma cannot change inside a
	// transaction and must not leak to the intake writer's commits.
	conn, err := s.wdb.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	run := func() error {
		tx, err := conn.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer tx.Rollback() //nolint:errcheck // no-op after Commit
		if err := fn(tx); err != nil {
			return err
		}
		return tx.Commit()
	}
	if s.o.durableOut || s.o.synchronous == "OFF" || s.o.synchronous == "NORMAL" {
		return run()
	}
	if _, err := conn.ExecContext(ctx, `PRAGMA synchronous = NORMAL`); err != nil {
		return err
	}
	ferr := run()
	if _, err := conn.ExecContext(context.Background(), `PRAGMA synchronous = `+s.o.synchronous); err != nil {
		// Never leave the intake's connection relaxed: drop it.
		_ = conn.Raw(func(any) error { return driver.ErrBadConn })
		return errors.Join(ferr, err)
	}
	return ferr
}

// deleteChunk bounds each delete transaction so intake is not held up by a
// large cleanup.
const deleteChunk = 5000

// With byReception, each chunk walks the reception index from its start:
// the rows a chunk skips (records kept) are not read again and again
// through another index.
func (s *sqliteStore) deleteWhere(ctx context.Context, op string, byReception bool, where string, args ...any) (int64, error) {
	from := `notifications`
	if byReception {
		from += ` INDEXED BY notifications_reception`
	}
	q := `DELETE FROM notifications WHERE id IN (SELECT id FROM ` + from + ` WHERE ` + where +
		` LIMIT ` + strconv.Itoa(deleteChunk) + `)`
	return s.deleteChunks(ctx, op, q, args...)
}

// deleteChunks runs q, a DELETE of at most deleteChunk rows, until it
// deletes fewer.
func (s *sqliteStore) deleteChunks(ctx context.Context, op, q string, args ...any) (int64, error) {
	var total int64
	for {
		res, err := s.wdb.ExecContext(ctx, q, args...)
		if err != nil {
			return total, storeErr(sqliteName+": "+op, err)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return total, storeErr(sqliteName+": "+op, err)
		}
		total += n
		if n < deleteChunk {
			return total, nil
		}
	}
}

func (s *sqliteStore) Cleanup(ctx context.Context, cutoff time.Time) (int64, error) {
	// Strictly before the cutoff: a record at cutoff-0.5ms is stored as the
	// millisecond below, so compare with the cutoff rounded up.
	return s.deleteWhere(ctx, "cleanup", true, `status IN ('SUCCESS', 'FAILED', 'OUTDATED') AND reception_date < ?`,
		ceilMS(cutoff))
}

// ceilMS rounds up to the next millisecond: an inclusive lower bound with
// sub-millisecond digits must not match the millisecond below it.
func ceilMS(t time.Time) int64 {
	m := t.UnixMilli()
	if time.UnixMilli(m).Before(t) {
		m++
	}
	return m
}

// sqliteRange renders an inclusive receptionDate range.
func sqliteRange(r queue.Range) (string, []any) {
	var conds []string
	var args []any
	if r.From != nil {
		conds = append(conds, "reception_date >= ?")
		args = append(args, ceilMS(*r.From))
	}
	if r.To != nil {
		conds = append(conds, "reception_date <= ?")
		args = append(args, r.To.UnixMilli())
	}
	if len(conds) == 0 {
		return "1 = 1", nil
	}
	return strings.Join(conds, " AND "), args
}

func (s *sqliteStore) List(ctx context.Context, r queue.Range) ([]queue.Record, error) {
	where, args := sqliteRange(r)
	return s.selectRecords(ctx, "list", `WHERE `+where+` ORDER BY reception_date, id`, args...)
}

// selectRecords reads the records a query tail (WHERE … ORDER BY …)
// selects, on the read pool.
func (s *sqliteStore) selectRecords(ctx context.Context, op, tail string, args ...any) ([]queue.Record, error) {
	rows, err := s.rdb.QueryContext(ctx, `SELECT `+sqliteCols+` FROM notifications `+tail, args...)
	if err != nil {
		return nil, storeErr(sqliteName+": "+op, err)
	}
	recs, err := collectSQLite(rows)
	if err != nil {
		return nil, storeErr(sqliteName+": "+op, err)
	}
	return recs, nil
}

// Scan reads keyset pages by id, so memory stays bounded by one page and no
// read transaction stays open while fn runs.
func (s *sqliteStore) Scan(ctx context.Context, r queue.Range, fn func(*queue.Record) error) error {
	where, args := sqliteRange(r)
	// With date bounds, the reception index first narrows the ids to walk:
	// a narrow range of a large table does not read the whole table.
	after, last := int64(0), int64(math.MaxInt64)
	if r.From != nil || r.To != nil {
		var lo, hi sql.NullInt64
		if err := s.rdb.QueryRowContext(ctx, `SELECT min(id), max(id) FROM notifications WHERE `+where, args...).Scan(&lo, &hi); err != nil {
			return storeErr(sqliteName+": scan", err)
		}
		if !lo.Valid {
			return nil
		}
		after, last = lo.Int64-1, hi.Int64
	}
	q := `SELECT ` + sqliteCols + ` FROM notifications WHERE id > ? AND id <= ? AND ` + where +
		` ORDER BY id LIMIT ` + strconv.Itoa(scanPage)
	return scanPages(after, func(after int64) ([]queue.Record, error) {
		rows, err := s.rdb.QueryContext(ctx, q, append([]any{after, last}, args...)...)
		if err != nil {
			return nil, storeErr(sqliteName+": scan", err)
		}
		page, err := collectSQLite(rows)
		if err != nil {
			return nil, storeErr(sqliteName+": scan", err)
		}
		return page, nil
	}, fn)
}

func (s *sqliteStore) Delete(ctx context.Context, r queue.Range) (int64, error) {
	where, args := sqliteRange(r)
	return s.deleteWhere(ctx, "delete", r.From != nil || r.To != nil, where, args...)
}

func (s *sqliteStore) Get(ctx context.Context, token string) (queue.Record, error) {
	r, err := scanSQLite(s.rdb.QueryRowContext(ctx, `SELECT `+sqliteCols+` FROM notifications WHERE webhook_token = ?`, token))
	if errors.Is(err, sql.ErrNoRows) {
		return r, fmt.Errorf("%s: get %s: %w", sqliteName, token, queue.ErrNotFound)
	}
	if err != nil {
		return r, storeErr(sqliteName+": get", err)
	}
	return r, nil
}

func failedWhere(f queue.FailedFilter) (string, []any) {
	where := `status IN ('FAILED', 'RETRYING')`
	var args []any
	if f.Source != "" {
		where += ` AND source = ?`
		args = append(args, f.Source)
	}
	if f.Type != "" {
		where += ` AND notification_type = ?`
		args = append(args, f.Type)
	}
	if f.Target != "" {
		where += ` AND object_token = ?`
		args = append(args, f.Target)
	}
	return where, args
}

func checkPage(offset, limit int) error {
	if offset < 0 {
		return invalidf("list failed: negative offset %d", offset)
	}
	if limit < 1 {
		return invalidf("list failed: limit %d: want at least 1", limit)
	}
	return nil
}

func (s *sqliteStore) ListFailed(ctx context.Context, f queue.FailedFilter, offset, limit int) ([]queue.Record, int64, error) {
	if err := checkPage(offset, limit); err != nil {
		return nil, 0, err
	}
	where, args := failedWhere(f)
	tx, err := s.rdb.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, 0, storeErr(sqliteName+": list failed", err)
	}
	defer tx.Rollback() //nolint:errcheck // read-only
	var total int64
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM notifications WHERE `+where, args...).Scan(&total); err != nil {
		return nil, 0, storeErr(sqliteName+": list failed", err)
	}
	rows, err := tx.QueryContext(ctx, `SELECT `+sqliteCols+` FROM notifications WHERE `+where+
		` ORDER BY creation_date DESC, id DESC LIMIT ? OFFSET ?`, append(args, limit, offset)...)
	if err != nil {
		return nil, 0, storeErr(sqliteName+": list failed", err)
	}
	recs, err := collectSQLite(rows)
	if err != nil {
		return nil, 0, storeErr(sqliteName+": list failed", err)
	}
	return recs, total, nil
}

func (s *sqliteStore) Insert(ctx context.Context, rec *queue.Record) error {
	r, err := prepareStored(rec, s.o.clock())
	if err != nil {
		return fmt.Errorf("insert: %w", err)
	}
	err = s.wdb.QueryRowContext(ctx, `INSERT INTO notifications (`+sqliteInsertCols+`)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (webhook_token) DO NOTHING RETURNING id`,
		sqliteArgs(&r)...).Scan(&r.ID)
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("%s: insert %s: %w", sqliteName, r.WebhookToken, queue.ErrExists)
	}
	if err != nil {
		return storeErr(sqliteName+": insert", err)
	}
	*rec = r
	return nil
}

func sqliteArgs(r *queue.Record) []any {
	return []any{r.WebhookToken, r.ObjectToken, r.NotificationType, ms(r.CreationDate), ms(r.ReceptionDate),
		string(r.Status), r.RetryCounter, nullMS(r.LastRetryDate), nullMS(r.NextRetryDate), r.Program, nullBlob(r.Payload), r.Source}
}

func (s *sqliteStore) Update(ctx context.Context, token string, p queue.Patch) (queue.Record, error) {
	tx, err := s.wdb.BeginTx(ctx, nil)
	if err != nil {
		return queue.Record{}, storeErr(sqliteName+": update", err)
	}
	defer tx.Rollback() //nolint:errcheck // no-op after Commit
	r, err := scanSQLite(tx.QueryRowContext(ctx, `SELECT `+sqliteCols+` FROM notifications WHERE webhook_token = ?`, token))
	if errors.Is(err, sql.ErrNoRows) {
		return r, fmt.Errorf("%s: update %s: %w", sqliteName, token, queue.ErrNotFound)
	}
	if err != nil {
		return r, storeErr(sqliteName+": update", err)
	}
	if err := applyPatch(&r, p); err != nil {
		return queue.Record{}, err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE notifications SET notification_type = ?, object_token = ?, program = ?,
		retry_counter = ?, creation_date = ? WHERE id = ?`,
		r.NotificationType, r.ObjectToken, r.Program, r.RetryCounter, ms(r.CreationDate), r.ID); err != nil {
		return queue.Record{}, storeErr(sqliteName+": update", err)
	}
	if err := tx.Commit(); err != nil {
		return queue.Record{}, storeErr(sqliteName+": update", err)
	}
	return r, nil
}

// ReplaceFailed keeps the id, payload and (unless a new one is given) the
// receptionDate of a record whose token is already FAILED or RETRYING, so a
// replaced record can still be processed from its stored body.
func (s *sqliteStore) ReplaceFailed(ctx context.Context, recs []queue.Record) error {
	list, err := checkReplace(recs, s.o.clock())
	if err != nil {
		return err
	}
	tx, err := s.wdb.BeginTx(ctx, nil)
	if err != nil {
		return storeErr(sqliteName+": replace failed", err)
	}
	defer tx.Rollback() //nolint:errcheck // no-op after Commit
	existing := make(map[string]int64)
	rows, err := tx.QueryContext(ctx, `SELECT id, webhook_token FROM notifications WHERE status IN ('FAILED', 'RETRYING')`)
	if err != nil {
		return storeErr(sqliteName+": replace failed", err)
	}
	for rows.Next() {
		var id int64
		var tok string
		if err := rows.Scan(&id, &tok); err != nil {
			rows.Close()
			return storeErr(sqliteName+": replace failed", err)
		}
		existing[tok] = id
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return storeErr(sqliteName+": replace failed", err)
	}
	for i := range list {
		if _, ok := existing[list[i].WebhookToken]; ok {
			continue
		}
		var status string
		err := tx.QueryRowContext(ctx, `SELECT status FROM notifications WHERE webhook_token = ?`, list[i].WebhookToken).Scan(&status)
		if err == nil {
			return fmt.Errorf("%s: replace failed: token %s is %s: %w", sqliteName, list[i].WebhookToken, status, queue.ErrConflict)
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return storeErr(sqliteName+": replace failed", err)
		}
	}
	keep := make(map[string]struct{}, len(list))
	for i := range list {
		keep[list[i].WebhookToken] = struct{}{}
	}
	for tok, id := range existing {
		if _, ok := keep[tok]; ok {
			continue
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM notifications WHERE id = ?`, id); err != nil {
			return storeErr(sqliteName+": replace failed", err)
		}
	}
	for i := range list {
		r := &list[i]
		if id, ok := existing[r.WebhookToken]; ok {
			keepReception := recs[i].ReceptionDate.IsZero()
			if _, err := tx.ExecContext(ctx, `UPDATE notifications SET object_token = ?, notification_type = ?,
				creation_date = ?, reception_date = CASE WHEN ? THEN reception_date ELSE ? END, status = ?,
				retry_counter = ?, last_retry_date = ?, next_retry_date = ?, program = ?,
				payload = COALESCE(?, payload), claimed_until = NULL, source = ? WHERE id = ?`,
				r.ObjectToken, r.NotificationType, ms(r.CreationDate), keepReception, ms(r.ReceptionDate),
				string(r.Status), r.RetryCounter, nullMS(r.LastRetryDate), nullMS(r.NextRetryDate), r.Program,
				nullBlob(r.Payload), r.Source, id); err != nil {
				return storeErr(sqliteName+": replace failed", err)
			}
			continue
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO notifications (`+sqliteInsertCols+`)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, sqliteArgs(r)...); err != nil {
			return storeErr(sqliteName+": replace failed", err)
		}
	}
	return storeErr(sqliteName+": replace failed", tx.Commit())
}

func (s *sqliteStore) Remove(ctx context.Context, token string) error {
	res, err := s.wdb.ExecContext(ctx, `DELETE FROM notifications WHERE webhook_token = ?`, token)
	if err != nil {
		return storeErr(sqliteName+": remove", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return storeErr(sqliteName+": remove", err)
	}
	if n == 0 {
		return fmt.Errorf("%s: remove %s: %w", sqliteName, token, queue.ErrNotFound)
	}
	return nil
}

func (s *sqliteStore) Requeue(ctx context.Context, token string) (queue.Record, error) {
	r, err := scanSQLite(s.wdb.QueryRowContext(ctx, `UPDATE notifications SET status = 'PENDING', retry_counter = 0,
		last_retry_date = NULL, next_retry_date = NULL, claimed_until = NULL
		WHERE webhook_token = ? RETURNING `+sqliteCols, token))
	if errors.Is(err, sql.ErrNoRows) {
		return r, fmt.Errorf("%s: requeue %s: %w", sqliteName, token, queue.ErrNotFound)
	}
	if err != nil {
		return r, storeErr(sqliteName+": requeue", err)
	}
	return r, nil
}

func (s *sqliteStore) Stats(ctx context.Context) (queue.Stats, error) {
	st := emptyStats()
	tx, err := s.rdb.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return st, storeErr(sqliteName+": stats", err)
	}
	defer tx.Rollback() //nolint:errcheck // read-only
	rows, err := tx.QueryContext(ctx, `SELECT source, status, COUNT(*) FROM notifications GROUP BY source, status`)
	if err != nil {
		return st, storeErr(sqliteName+": stats", err)
	}
	for rows.Next() {
		var source, status string
		var n int64
		if err := rows.Scan(&source, &status, &n); err != nil {
			rows.Close()
			return st, storeErr(sqliteName+": stats", err)
		}
		st.Add(source, queue.Status(status), n)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return st, storeErr(sqliteName+": stats", err)
	}
	var oldest sql.NullInt64
	err = tx.QueryRowContext(ctx, `SELECT reception_date FROM notifications INDEXED BY notifications_pending_reception
		WHERE status = 'PENDING' ORDER BY reception_date LIMIT 1`).Scan(&oldest)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return st, storeErr(sqliteName+": stats", err)
	}
	if oldest.Valid {
		t := fromMS(oldest.Int64)
		st.OldestPending = &t
	}
	return st, nil
}

func (s *sqliteStore) Ping(ctx context.Context) error {
	var one int
	if err := s.rdb.QueryRowContext(ctx, `SELECT 1 FROM schema_migrations LIMIT 1`).Scan(&one); err != nil {
		return storeErr(sqliteName+": ping", err)
	}
	return nil
}

// Close commits every queued Enqueue, releases held job leases and closes
// the database.
func (s *sqliteStore) Close() error {
	leases, first := s.leases.close()
	if !first {
		return nil
	}
	s.w.close()
	s.qw.close()
	for _, l := range leases {
		l.closed()
	}
	close(s.cpStop)
	<-s.cpDone
	return s.closeDBs()
}

func (s *sqliteStore) closeDBs() error {
	var errs []error
	for _, st := range []*sql.Stmt{s.stCheck, s.stDup, s.stSupersede, s.stInsert, s.stInsertNew, s.stClaim, s.stFinish, s.stFinishOwn,
		s.stLedger, s.stAttempt} {
		if st != nil {
			errs = append(errs, st.Close())
		}
	}
	for _, db := range []*sql.DB{s.cdb, s.rdb, s.wdb} {
		if db != nil {
			errs = append(errs, db.Close())
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("%s: closing %s: %w", sqliteName, s.path, err)
	}
	return nil
}
