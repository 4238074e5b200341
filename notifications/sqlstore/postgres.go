package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"math"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sluicedata/sluice/notifications/queue"
)

// pgStore keeps records in Postgres, in the schema the connection's
// search_path selects. Sidecars on many hosts may share it: intake rules are
// serialised per object with transaction advisory locks, job locks are
// session advisory locks on a held connection, and Claim uses
// FOR UPDATE SKIP LOCKED with a claim lease.
type pgStore struct {
	pool *pgxpool.Pool
	// ipool serves the intake writers, with sequential scans disabled: see
	// openPostgres.
	ipool *pgxpool.Pool
	// opool serves Claim and Finish: synchronous_commit=off unless
	// WithDurableOutcomes (see there).
	opool  *pgxpool.Pool
	o      options
	w      *writer
	qw     *writer // the quarantine's group-commit writer
	schema string
	where  string // redacted DSN, for error messages

	claims claimBook[time.Time]
	locks  heldLocks[*pgLock]
}

const pgName = "postgres store"

const pgCols = `id, webhook_token, object_token, notification_type, creation_date, reception_date,
	status, retry_counter, last_retry_date, next_retry_date, program, payload, last_error, source`

const pgInsertCols = `webhook_token, object_token, notification_type, creation_date, reception_date,
	status, retry_counter, last_retry_date, next_retry_date, program, payload, source`

// pgEnqueue applies the intake rules to one delivery in one statement (a
// delivery without an object token is related to no other). The
// sub-statements share a snapshot, so the update of superseded records is
// tied to the insert actually happening (ON CONFLICT covers a concurrent
// identical delivery from another sidecar). obs is the newest later
// record's token (the obsolete rule's winner); a discard is written to the
// ledger in the same statement (docs/records-api.md#discard-ledger).
const pgEnqueue = `WITH
dup AS (SELECT EXISTS (SELECT 1 FROM notifications WHERE webhook_token = $1) AS v),
obs AS (SELECT (SELECT webhook_token FROM notifications
	WHERE $2 <> '' AND source = $8 AND object_token = $2 AND notification_type = $3 AND creation_date > $4
	ORDER BY creation_date DESC, id DESC LIMIT 1) AS w),
ins AS (
	INSERT INTO notifications (webhook_token, object_token, notification_type, creation_date, reception_date,
		status, retry_counter, program, payload, source)
	SELECT $1, $2, $3, $4, $5, 'PENDING', 0, $6, $7, $8
	WHERE NOT (SELECT v FROM dup) AND (SELECT w FROM obs) IS NULL
	ON CONFLICT (webhook_token) DO NOTHING
	RETURNING id),
led AS (
	INSERT INTO discard_ledger (token, reason, winner, at, source)
	SELECT $1, CASE WHEN d.v THEN 'duplicate' ELSE 'obsolete' END, CASE WHEN d.v THEN $1 ELSE o.w END, $5, $8
	FROM dup d, obs o WHERE d.v OR o.w IS NOT NULL
	ON CONFLICT (token) DO UPDATE SET reason = excluded.reason, winner = excluded.winner, at = excluded.at,
		source = excluded.source
	RETURNING 1),
upd AS (
	UPDATE notifications SET status = 'OUTDATED', claimed_until = NULL
	WHERE $2 <> '' AND source = $8 AND object_token = $2 AND notification_type = $3 AND creation_date < $4
	AND status IN ('PENDING', 'RETRYING') AND EXISTS (SELECT 1 FROM ins)
	RETURNING 1)
SELECT (SELECT v FROM dup), (SELECT w FROM obs), (SELECT id FROM ins), (SELECT count(*) FROM upd), (SELECT count(*) FROM led)`

func openPostgres(ctx context.Context, dsn string, o options) (_ queue.Store, err error) {
	where := redactDSN(dsn)
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		// pgx redacts the password in its parse errors.
		return nil, fmt.Errorf("sqlstore: parsing the postgres DSN: %w", err)
	}
	cfg.MaxConns = int32(o.readers + 3) // + two job locks and a spare
	s := &pgStore{
		o:     o,
		where: where,
	}
	if s.pool, err = pgxpool.NewWithConfig(ctx, cfg); err != nil {
		return nil, fmt.Errorf("sqlstore: connecting to %s: %w", where, storeErr("connect", err))
	}
	defer func() {
		if err != nil {
			s.pool.Close()
		}
	}()
	// Every intake statement is a key lookup. pgx prepares statements, and
	// after five executions Postgres may keep a generic plan costed on the
	// table as it was then: made on a fresh, small table it seq-scans, and
	// stays until the next ANALYZE while the table grows by thousands of
	// rows a second (46 ms for a token check at 20,000 rows, against
	// 0.2 ms through the unique index). Without sequential scans every plan
	// uses the indexes whatever the table's size when it was made.
	icfg := cfg.Copy()
	icfg.MaxConns = int32(o.pgWriters)
	icfg.ConnConfig.RuntimeParams["enable_seqscan"] = "off"
	if s.ipool, err = pgxpool.NewWithConfig(ctx, icfg); err != nil {
		return nil, fmt.Errorf("sqlstore: connecting to %s: %w", where, storeErr("connect", err))
	}
	defer func() {
		if err != nil {
			s.ipool.Close()
		}
	}()
	ocfg := cfg.Copy()
	ocfg.MaxConns = 4
	// Claim must walk the queue index in order and Finish the primary key;
	// without fresh statistics (a first burst) the planner would rather
	// sort every PENDING record for each claim.
	ocfg.ConnConfig.RuntimeParams["enable_seqscan"] = "off"
	ocfg.ConnConfig.RuntimeParams["enable_bitmapscan"] = "off"
	if !o.durableOut {
		ocfg.ConnConfig.RuntimeParams["synchronous_commit"] = "off"
	}
	if s.opool, err = pgxpool.NewWithConfig(ctx, ocfg); err != nil {
		return nil, fmt.Errorf("sqlstore: connecting to %s: %w", where, storeErr("connect", err))
	}
	defer func() {
		if err != nil {
			s.opool.Close()
		}
	}()
	var schema *string
	if err := s.pool.QueryRow(ctx, `SELECT current_schema()`).Scan(&schema); err != nil {
		return nil, fmt.Errorf("sqlstore: connecting to %s: %w", where, storeErr("connect", err))
	}
	if schema == nil {
		return nil, fmt.Errorf("sqlstore: %s: the search_path names no existing schema", where)
	}
	s.schema = *schema
	if err := s.migrate(ctx); err != nil {
		return nil, fmt.Errorf("sqlstore: migrating %s (schema %s): %w", where, s.schema, err)
	}
	s.w = newWriter(pgName, s.applyBatch, o.maxBatch, o.queueSize, o.pgWriters, pgBatchTimeout, o.logger)
	s.qw = newWriter(pgName+" quarantine", s.applyQuarantine, o.maxBatch, o.queueSize, 1, pgBatchTimeout, o.logger)
	return s, nil
}

// lockKey maps a name to an advisory lock key; the schema is part of it so
// that deployments in different schemas of one database do not collide.
func (s *pgStore) lockKey(kind, name string) int64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte("sluice\x00" + kind + "\x00" + s.schema + "\x00" + name))
	return int64(h.Sum64())
}

// migrate applies pending migrations under a session advisory lock, each in
// its own transaction, so concurrently starting sidecars migrate once.
func (s *pgStore) migrate(ctx context.Context) error {
	ms, err := loadMigrations("postgres")
	if err != nil {
		return err
	}
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return storeErr("acquire", err)
	}
	defer conn.Release()
	key := s.lockKey("migrate", "")
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock($1)`, key); err != nil {
		return storeErr("taking the migration lock", err)
	}
	defer func() {
		uctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if _, err := conn.Exec(uctx, `SELECT pg_advisory_unlock($1)`, key); err != nil {
			_ = conn.Conn().Close(uctx) // closing the session releases the lock
		}
	}()
	if _, err := conn.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`); err != nil {
		return storeErr("creating schema_migrations", err)
	}
	var have int
	if err := conn.QueryRow(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`).Scan(&have); err != nil {
		return storeErr("reading schema_migrations", err)
	}
	if have > latestVersion(ms) {
		return newerSchemaErr(have, latestVersion(ms))
	}
	for _, m := range ms {
		if m.version <= have {
			continue
		}
		err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, m.sql); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, `INSERT INTO schema_migrations (version) VALUES ($1)`, m.version)
			return err
		})
		if err != nil {
			return fmt.Errorf("migration %s: %w", m.name, err)
		}
	}
	return nil
}

// objectLocks returns the transaction advisory lock keys serialising the
// intake rules per object and type across sidecars, sorted so that two
// sidecars never wait on each other in opposite orders.
func (s *pgStore) objectLocks(reqs []*intakeReq) []int64 {
	keys := make([]int64, 0, len(reqs))
	for _, q := range reqs {
		keys = append(keys, s.lockKey("object", q.rec.Source+"\x00"+q.rec.NotificationType+"\x00"+q.rec.ObjectToken))
	}
	slices.Sort(keys)
	return slices.Compact(keys)
}

const pgLockObjects = `SELECT count(*) FROM (SELECT pg_advisory_xact_lock(k) FROM unnest($1::bigint[]) AS u(k)) l`

// objKey identifies the records the obsolete and supersede rules compare.
type objKey struct{ source, object, typ string }

// errInsertRace reports that a token planned as new was stored by another
// sidecar meanwhile; the batch's transaction is rolled back and the writer
// retries it one delivery at a time, where the late one is a duplicate.
var errInsertRace = errors.New("a webhook token was stored concurrently by another sidecar")

// withConn runs fn on a pooled connection. The batch functions send BEGIN
// and COMMIT inside their pipelines, saving two round trips a batch; after a
// failure the transaction is rolled back, and a connection still inside one
// is destroyed by the pool on release.
func (s *pgStore) withConn(ctx context.Context, fn func(*pgxpool.Conn) error) error {
	conn, err := s.ipool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	err = fn(conn)
	if err != nil && !conn.Conn().IsClosed() && conn.Conn().PgConn().TxStatus() != 'I' {
		rctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_, _ = conn.Exec(rctx, `ROLLBACK`)
		cancel()
	}
	return err
}

// commitResult checks the COMMIT at the end of a pipeline: Postgres
// answers ROLLBACK to a COMMIT of a failed transaction.
func commitResult(br pgx.BatchResults) error {
	tag, err := br.Exec()
	if err != nil {
		return err
	}
	if tag.String() != "COMMIT" {
		return fmt.Errorf("transaction not committed (%s)", tag.String())
	}
	return nil
}

// perRequestMax is the batch size up to which the per-request form is used:
// for a handful of deliveries its single round trip beats the set-based
// form's two; beyond, the set-based form's fewer statements win
// (BenchmarkPostgresBatch).
const perRequestMax = 4

// applyBatch commits a group of deliveries.
func (s *pgStore) applyBatch(ctx context.Context, reqs []*intakeReq) ([]queue.EnqueueResult, error) {
	if len(reqs) <= perRequestMax {
		return s.applyBatchPerRequest(ctx, reqs)
	}
	return s.applyBatchSet(ctx, reqs)
}

// applyBatchSet is the set-based group commit: two pipelined round trips for
// the whole batch, whatever its size. Under the per-object locks it reads
// what the rules need (which tokens exist; per object and type the latest
// creationDate and the live records), applies the rules in arrival order in
// memory — exactly as if each delivery ran alone — and writes the result
// with one multi-row INSERT and one UPDATE.
func (s *pgStore) applyBatchSet(ctx context.Context, reqs []*intakeReq) ([]queue.EnqueueResult, error) {
	tokens := make([]string, len(reqs))
	keyIndex := make(map[objKey]int)
	var srcs, objs, typs []string
	for i, q := range reqs {
		tokens[i] = q.rec.WebhookToken
		k := objKey{q.rec.Source, q.rec.ObjectToken, q.rec.NotificationType}
		if _, ok := keyIndex[k]; !ok {
			keyIndex[k] = len(objs)
			srcs, objs, typs = append(srcs, k.source), append(objs, k.object), append(typs, k.typ)
		}
	}
	var res []queue.EnqueueResult
	err := s.withConn(ctx, func(conn *pgxpool.Conn) error {
		b := &pgx.Batch{}
		b.Queue(`BEGIN`)
		b.Queue(pgLockObjects, s.objectLocks(reqs))
		b.Queue(`SELECT webhook_token FROM notifications WHERE webhook_token = ANY($1)`, tokens)
		// Per key the newest record: its creationDate for the obsolete
		// rule, its token for the ledger.
		b.Queue(`SELECT k.s, k.o, k.t, l.creation_date, l.webhook_token
			FROM unnest($1::text[], $2::text[], $3::text[]) AS k(s, o, t)
			CROSS JOIN LATERAL (SELECT creation_date, webhook_token FROM notifications n
				WHERE n.source = k.s AND n.object_token = k.o AND n.notification_type = k.t
				ORDER BY creation_date DESC, id DESC LIMIT 1) l`, srcs, objs, typs)
		// LATERAL (OFFSET 0 keeps it from being flattened into a join): one
		// object-index lookup per key, whatever the statistics say.
		b.Queue(`SELECT n.id, k.s, k.o, k.t, n.creation_date
			FROM unnest($1::text[], $2::text[], $3::text[]) AS k(s, o, t)
			CROSS JOIN LATERAL (SELECT id, creation_date FROM notifications x
				WHERE x.source = k.s AND x.object_token = k.o AND x.notification_type = k.t
				AND x.status IN ('PENDING', 'RETRYING') OFFSET 0) n`, srcs, objs, typs)
		st := newRuleState()
		err := func() error {
			br := conn.SendBatch(ctx, b)
			defer br.Close()
			if _, err := br.Exec(); err != nil {
				return err
			}
			var nlocks int64
			if err := br.QueryRow().Scan(&nlocks); err != nil {
				return err
			}
			rows, _ := br.Query()
			var tok string
			if _, err := pgx.ForEachRow(rows, []any{&tok}, func() error { st.tokens[tok] = true; return nil }); err != nil {
				return err
			}
			var k objKey
			var latest time.Time
			var latestTok string
			rows, _ = br.Query()
			if _, err := pgx.ForEachRow(rows, []any{&k.source, &k.object, &k.typ, &latest, &latestTok}, func() error {
				ks := st.key(k)
				ks.latest, ks.latestToken, ks.hasLatest = latest, latestTok, true
				return nil
			}); err != nil {
				return err
			}
			var id int64
			var created time.Time
			rows, _ = br.Query()
			if _, err := pgx.ForEachRow(rows, []any{&id, &k.source, &k.object, &k.typ, &created}, func() error {
				ks := st.key(k)
				ks.live = append(ks.live, liveRec{id: id, created: created, batch: -1})
				return nil
			}); err != nil {
				return err
			}
			return br.Close()
		}()
		if err != nil {
			return err
		}

		var plan batchPlan
		res, plan = st.apply(reqs)
		n := len(plan.insert)
		var (
			toks, objs, typs   = make([]string, n), make([]string, n), make([]string, n)
			statuses, programs = make([]string, n), make([]string, n)
			sources            = make([]string, n)
			created, received  = make([]time.Time, n), make([]time.Time, n)
			payloads           = make([][]byte, n)
		)
		for j, i := range plan.insert {
			r := reqs[i].rec
			toks[j], objs[j], typs[j], programs[j] = r.WebhookToken, r.ObjectToken, r.NotificationType, r.Program
			created[j], received[j], payloads[j] = r.CreationDate, r.ReceptionDate, nullBytes(r.Payload)
			statuses[j], sources[j] = string(plan.status[i]), r.Source
		}
		b = &pgx.Batch{}
		b.Queue(`INSERT INTO notifications (webhook_token, object_token, notification_type, creation_date,
			reception_date, status, program, payload, source)
			SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::timestamptz[], $5::timestamptz[],
				$6::text[], $7::text[], $8::bytea[], $9::text[])
			RETURNING id, webhook_token`, toks, objs, typs, created, received, statuses, programs, payloads, sources)
		if len(plan.outdate) > 0 {
			b.Queue(`UPDATE notifications SET status = 'OUTDATED', claimed_until = NULL WHERE id = ANY($1)`, plan.outdate)
		}
		// The discard ledger rides in the batch's transaction.
		led := discardsOf(reqs, res)
		if len(led) > 0 {
			lt, lr, lw, la := make([]string, len(led)), make([]string, len(led)), make([]string, len(led)), make([]time.Time, len(led))
			ls := make([]string, len(led))
			for j, e := range led {
				lt[j], lr[j], lw[j], la[j], ls[j] = e.token, e.reason, e.winner, e.at, e.source
			}
			b.Queue(`INSERT INTO discard_ledger (token, reason, winner, at, source)
				SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::timestamptz[], $5::text[])
				ON CONFLICT (token) DO UPDATE SET reason = excluded.reason, winner = excluded.winner, at = excluded.at,
					source = excluded.source`,
				lt, lr, lw, la, ls)
		}
		b.Queue(`COMMIT`)
		ids := make(map[string]int64, n)
		br := conn.SendBatch(ctx, b)
		defer br.Close()
		rows, _ := br.Query()
		var id int64
		var tok string
		// No ON CONFLICT here: COMMIT is already in the pipeline, so a token
		// stored meanwhile by another sidecar must abort the whole
		// transaction (COMMIT then answers ROLLBACK) before the one-by-one
		// retry, or the retry would report this batch's own records as
		// duplicates.
		if _, err := pgx.ForEachRow(rows, []any{&id, &tok}, func() error { ids[tok] = id; return nil }); err != nil {
			var pe *pgconn.PgError
			if errors.As(err, &pe) && pe.Code == "23505" {
				return errInsertRace
			}
			return err
		}
		if len(ids) != n {
			return errInsertRace
		}
		if len(plan.outdate) > 0 {
			if _, err := br.Exec(); err != nil {
				return err
			}
		}
		if len(led) > 0 {
			if _, err := br.Exec(); err != nil {
				return err
			}
		}
		if err := commitResult(br); err != nil {
			return err
		}
		for _, i := range plan.insert {
			res[i].ID = ids[reqs[i].rec.WebhookToken]
		}
		return br.Close()
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// applyBatchPerRequest is the per-request group commit: one rules
// statement per delivery, the whole transaction in one pipelined round trip.
func (s *pgStore) applyBatchPerRequest(ctx context.Context, reqs []*intakeReq) ([]queue.EnqueueResult, error) {
	res := make([]queue.EnqueueResult, len(reqs))
	err := s.withConn(ctx, func(conn *pgxpool.Conn) error {
		b := &pgx.Batch{}
		b.Queue(`BEGIN`)
		b.Queue(pgLockObjects, s.objectLocks(reqs))
		for _, q := range reqs {
			r := q.rec
			b.Queue(pgEnqueue, r.WebhookToken, r.ObjectToken, r.NotificationType, r.CreationDate, r.ReceptionDate,
				r.Program, nullBytes(r.Payload), r.Source)
		}
		b.Queue(`COMMIT`)
		br := conn.SendBatch(ctx, b)
		defer br.Close()
		if _, err := br.Exec(); err != nil {
			return err
		}
		var nlocks int64
		if err := br.QueryRow().Scan(&nlocks); err != nil {
			return err
		}
		for i := range reqs {
			var dup bool
			var winner *string
			var id *int64
			var outdated, ledgered int64
			if err := br.QueryRow().Scan(&dup, &winner, &id, &outdated, &ledgered); err != nil {
				return err
			}
			switch {
			case id != nil:
				res[i] = queue.EnqueueResult{Outcome: queue.Stored, ID: *id, Outdated: int(outdated)}
			case winner != nil && !dup:
				res[i] = queue.EnqueueResult{Outcome: queue.DiscardedObsolete, Winner: *winner}
			default: // stored before, or by another sidecar just now
				res[i] = queue.EnqueueResult{Outcome: queue.DiscardedDuplicate, Winner: reqs[i].rec.WebhookToken}
			}
		}
		if err := commitResult(br); err != nil {
			return err
		}
		return br.Close()
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

func nullBytes(b []byte) []byte {
	if len(b) == 0 {
		return nil
	}
	return b
}

func scanPG(row pgx.Row) (queue.Record, error) {
	var (
		r      queue.Record
		status string
	)
	var lastErr *string
	if err := row.Scan(&r.ID, &r.WebhookToken, &r.ObjectToken, &r.NotificationType, &r.CreationDate,
		&r.ReceptionDate, &status, &r.RetryCounter, &r.LastRetryDate, &r.NextRetryDate, &r.Program, &r.Payload, &lastErr,
		&r.Source); err != nil {
		return r, err
	}
	if lastErr != nil {
		r.LastError = *lastErr
	}
	r.Status = queue.Status(status)
	r.CreationDate, r.ReceptionDate = r.CreationDate.UTC(), r.ReceptionDate.UTC()
	if r.LastRetryDate != nil {
		t := r.LastRetryDate.UTC()
		r.LastRetryDate = &t
	}
	if r.NextRetryDate != nil {
		t := r.NextRetryDate.UTC()
		r.NextRetryDate = &t
	}
	return r, nil
}

func collectPG(rows pgx.Rows) ([]queue.Record, error) {
	defer rows.Close()
	var out []queue.Record
	for rows.Next() {
		r, err := scanPG(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

func (s *pgStore) Enqueue(ctx context.Context, rec *queue.Record) (queue.EnqueueResult, error) {
	return enqueueVia(ctx, s.w, s.o.clock(), rec)
}

type pgLock struct {
	*jobLock
	s    *pgStore
	conn *pgxpool.Conn
	key  int64
}

// Lock takes a session advisory lock on a connection held until unlock: a
// crashed holder's session ends and frees the lock. A goroutine checks the
// session every third of the lock lease and cancels the held context when
// it has ended (see queue.Store.Lock).
func (s *pgStore) Lock(ctx context.Context, job string) (context.Context, func(), error) {
	if job == "" {
		return nil, nil, invalidf("lock: empty job name")
	}
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return nil, nil, storeErr(fmt.Sprintf("%s: lock %s", pgName, job), err)
	}
	key := s.lockKey("job", job)
	var ok bool
	if err := conn.QueryRow(ctx, `SELECT pg_try_advisory_lock($1)`, key).Scan(&ok); err != nil {
		conn.Release()
		return nil, nil, storeErr(fmt.Sprintf("%s: lock %s", pgName, job), err)
	}
	if !ok {
		conn.Release()
		return nil, nil, fmt.Errorf("%s: lock %s: %w", pgName, job, queue.ErrLocked)
	}
	l := &pgLock{s: s, conn: conn, key: key}
	var held context.Context
	l.jobLock, held = newJobLock(ctx, pgName, job)
	if !s.locks.add(l) {
		l.abandon(l.release)
		return nil, nil, fmt.Errorf("%s: lock %s: %w", pgName, job, errClosed)
	}
	go l.watch(s.o.lockLease/3, l.check)
	return held, l.unlock, nil
}

// check asks the session holding the lock whether it is still there: the
// lock lives as long as the session, so a session that ended (terminated,
// its connection broken) means another sidecar may hold the lock now.
func (l *pgLock) check() error {
	ctx, cancel := context.WithTimeout(context.Background(), l.s.o.lockLease/3)
	_, err := l.conn.Exec(ctx, `SELECT 1`)
	cancel()
	if err == nil {
		return nil
	}
	// Closing the connection ends the session if it still runs, so the
	// lock is certainly free for another holder.
	cctx, ccancel := context.WithTimeout(context.Background(), 5*time.Second)
	_ = l.conn.Conn().Close(cctx)
	ccancel()
	return fmt.Errorf("the session holding the lock ended: %w", err)
}

func (l *pgLock) unlock() {
	l.end(func() {
		l.s.locks.remove(l)
		l.release()
	})
}

// closed releases the lock of a store being closed: its job loses it.
func (l *pgLock) closed() {
	l.lose(errStoreClosed)
	l.unlock()
}

func (l *pgLock) release() {
	if l.conn.Conn().IsClosed() {
		l.conn.Release() // the pool drops a closed connection
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var ok bool
	if err := l.conn.QueryRow(ctx, `SELECT pg_advisory_unlock($1)`, l.key).Scan(&ok); err != nil || !ok {
		// Ending the session is the other way to free the lock.
		l.s.o.logger.Warn("advisory unlock failed; closing its connection", slog.String("job", l.job))
		_ = l.conn.Conn().Close(ctx)
	}
	l.conn.Release()
}

func (s *pgStore) Claim(ctx context.Context, now time.Time, limit int) ([]queue.Record, error) {
	if err := checkLimit(limit); err != nil {
		return nil, err
	}
	clock := queue.Truncate(s.o.clock())
	until := queue.Truncate(clock.Add(s.o.claimLease))
	rows, err := s.opool.Query(ctx, pgClaim, now, clock, limit, until)
	if err != nil {
		return nil, storeErr(pgName+": claim", err)
	}
	recs, err := collectPG(rows)
	if err != nil {
		return nil, storeErr(pgName+": claim", err)
	}
	sortClaimed(recs)
	// Claims ended a whole lease ago will not be finished by this store.
	forget := clock.Add(-s.o.claimLease)
	s.claims.remember(recs, until, func(u time.Time) bool { return u.Before(forget) })
	return recs, nil
}

// pgClaim leases the oldest eligible records, skipping rows another
// sidecar is claiming. Records without a retry date (fresh deliveries, and
// RETRYING ones a manager left without one) come in creationDate order straight off the queue index (the ORDER BY spells the
// index's columns: Postgres does not infer the order from IS NULL), so a
// claim costs the same with a backlog of millions; only records with a retry
// date are sorted.
var pgClaim = `WITH
fresh AS (
	SELECT id, creation_date FROM notifications
	WHERE status = 'PENDING' AND next_retry_date IS NULL
	AND (claimed_until IS NULL OR claimed_until <= $2)
	ORDER BY status, next_retry_date, creation_date LIMIT $3
	FOR UPDATE SKIP LOCKED),
undated AS (
	SELECT id, creation_date FROM notifications
	WHERE status = 'RETRYING' AND next_retry_date IS NULL
	AND (claimed_until IS NULL OR claimed_until <= $2)
	ORDER BY status, next_retry_date, creation_date LIMIT $3
	FOR UPDATE SKIP LOCKED),
due AS (
	SELECT id, creation_date FROM notifications
	WHERE status IN ('PENDING', 'RETRYING') AND next_retry_date <= $1
	AND (claimed_until IS NULL OR claimed_until <= $2)
	ORDER BY creation_date LIMIT $3
	FOR UPDATE SKIP LOCKED),
c AS (
	SELECT id FROM (SELECT * FROM fresh UNION ALL SELECT * FROM undated UNION ALL SELECT * FROM due) u
	ORDER BY creation_date, id LIMIT $3)
UPDATE notifications n SET claimed_until = $4 FROM c WHERE n.id = c.id
RETURNING ` + prefixed("n.", pgCols)

func prefixed(p, cols string) string {
	out := p
	for i := 0; i < len(cols); i++ {
		out += string(cols[i])
		if cols[i] == ',' {
			for i+1 < len(cols) && (cols[i+1] == ' ' || cols[i+1] == '\n' || cols[i+1] == '\t') {
				i++
			}
			out += " " + p
		}
	}
	return out
}

func (s *pgStore) Finish(ctx context.Context, rec *queue.Record) (bool, error) {
	if rec == nil || rec.ID == 0 {
		return false, invalidf("finish: record without id (pass a record from Claim)")
	}
	if !rec.Status.Valid() {
		return false, invalidf("finish %s: invalid status %q", rec.WebhookToken, rec.Status)
	}
	q := `UPDATE notifications SET status = $1, retry_counter = $2, last_retry_date = $3, next_retry_date = $4,
		claimed_until = NULL, last_error = $6
		WHERE id = $5 AND status IN ('PENDING', 'RETRYING') AND claimed_until IS NOT NULL`
	args := []any{string(rec.Status), rec.RetryCounter, truncPtr(rec.LastRetryDate), truncPtr(rec.NextRetryDate), rec.ID,
		finishLastError(rec)}
	if until, ok := s.claims.take(rec.ID); ok {
		// Only the claim this store made: after its lease expired another
		// sidecar may have claimed the record again.
		args = append(args, until)
		q += fmt.Sprintf(` AND claimed_until = $%d`, len(args))
	}
	if a := rec.Attempt; a != nil {
		// The attempt is appended in the same statement, only when the
		// outcome was saved.
		n := len(args)
		q = fmt.Sprintf(`WITH f AS (%s RETURNING id)
			INSERT INTO notification_attempts (notification_id, attempt, at, outcome, http_status, duration_ms, error)
			SELECT f.id, COALESCE((SELECT max(attempt) FROM notification_attempts WHERE notification_id = f.id), 0) + 1,
				$%d, $%d, $%d, $%d, $%d FROM f`, q, n+1, n+2, n+3, n+4, n+5)
		args = append(args, queue.Truncate(a.At), a.Outcome, nullInt(a.HTTPStatus), a.DurationMS, nullText(a.Error))
	}
	tag, err := s.opool.Exec(ctx, q, args...)
	if err != nil {
		return false, storeErr(pgName+": finish", err)
	}
	return tag.RowsAffected() == 1, nil
}

func (s *pgStore) Cleanup(ctx context.Context, cutoff time.Time) (int64, error) {
	tag, err := s.pool.Exec(ctx, `DELETE FROM notifications
		WHERE status IN ('SUCCESS', 'FAILED', 'OUTDATED') AND reception_date < $1`, fromMS(ceilMS(cutoff)))
	if err != nil {
		return 0, storeErr(pgName+": cleanup", err)
	}
	return tag.RowsAffected(), nil
}

// pgRange renders an inclusive receptionDate range from parameter $first.
func pgRange(r queue.Range, first int) (string, []any) {
	where := "TRUE"
	var args []any
	if r.From != nil {
		args = append(args, fromMS(ceilMS(*r.From)))
		where += fmt.Sprintf(" AND reception_date >= $%d", first+len(args)-1)
	}
	if r.To != nil {
		args = append(args, fromMS(r.To.UnixMilli()))
		where += fmt.Sprintf(" AND reception_date <= $%d", first+len(args)-1)
	}
	return where, args
}

func (s *pgStore) List(ctx context.Context, r queue.Range) ([]queue.Record, error) {
	where, args := pgRange(r, 1)
	return s.selectRecords(ctx, "list", `WHERE `+where+` ORDER BY reception_date, id`, args...)
}

// selectRecords reads the records a query tail (WHERE … ORDER BY …)
// selects.
func (s *pgStore) selectRecords(ctx context.Context, op, tail string, args ...any) ([]queue.Record, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+pgCols+` FROM notifications `+tail, args...)
	if err != nil {
		return nil, storeErr(pgName+": "+op, err)
	}
	recs, err := collectPG(rows)
	if err != nil {
		return nil, storeErr(pgName+": "+op, err)
	}
	return recs, nil
}

// Scan reads keyset pages by id: bounded memory, no transaction held open
// while fn runs.
func (s *pgStore) Scan(ctx context.Context, r queue.Range, fn func(*queue.Record) error) error {
	// With date bounds, the reception index first narrows the ids to walk:
	// a narrow range of a large table does not read the whole table.
	after, last := int64(0), int64(math.MaxInt64)
	if r.From != nil || r.To != nil {
		where, args := pgRange(r, 1)
		var lo, hi *int64
		err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
			// The reception index is the way to a bounded range, even before
			// the planner has statistics of a fresh burst.
			if _, err := tx.Exec(ctx, `SET LOCAL enable_seqscan = off`); err != nil {
				return err
			}
			// OFFSET 0 keeps min/max from walking the primary key instead.
			return tx.QueryRow(ctx, `SELECT min(id), max(id) FROM (SELECT id FROM notifications WHERE `+where+
				` OFFSET 0) r`, args...).Scan(&lo, &hi)
		})
		if err != nil {
			return storeErr(pgName+": scan", err)
		}
		if lo == nil {
			return nil
		}
		after, last = *lo-1, *hi
	}
	where, args := pgRange(r, 3)
	q := fmt.Sprintf(`SELECT %s FROM notifications WHERE id > $1 AND id <= $2 AND %s ORDER BY id LIMIT %d`, pgCols, where, scanPage)
	return scanPages(after, func(after int64) (page []queue.Record, err error) {
		err = pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
			// Walk the primary key in order: without fresh statistics (a
			// burst of inserts) the planner would rather sort the whole
			// remaining range for every page.
			if _, err := tx.Exec(ctx, `SET LOCAL enable_sort = off`); err != nil {
				return err
			}
			rows, err := tx.Query(ctx, q, append([]any{after, last}, args...)...)
			if err != nil {
				return err
			}
			page, err = collectPG(rows)
			return err
		})
		if err != nil {
			return nil, storeErr(pgName+": scan", err)
		}
		return page, nil
	}, fn)
}

func (s *pgStore) Delete(ctx context.Context, r queue.Range) (int64, error) {
	where, args := pgRange(r, 1)
	tag, err := s.pool.Exec(ctx, `DELETE FROM notifications WHERE `+where, args...)
	if err != nil {
		return 0, storeErr(pgName+": delete", err)
	}
	return tag.RowsAffected(), nil
}

func (s *pgStore) Get(ctx context.Context, token string) (queue.Record, error) {
	r, err := scanPG(s.pool.QueryRow(ctx, `SELECT `+pgCols+` FROM notifications WHERE webhook_token = $1`, token))
	if errors.Is(err, pgx.ErrNoRows) {
		return r, fmt.Errorf("%s: get %s: %w", pgName, token, queue.ErrNotFound)
	}
	if err != nil {
		return r, storeErr(pgName+": get", err)
	}
	return r, nil
}

func (s *pgStore) ListFailed(ctx context.Context, f queue.FailedFilter, offset, limit int) ([]queue.Record, int64, error) {
	if err := checkPage(offset, limit); err != nil {
		return nil, 0, err
	}
	where := `status IN ('FAILED', 'RETRYING')`
	var args []any
	if f.Source != "" {
		args = append(args, f.Source)
		where += fmt.Sprintf(` AND source = $%d`, len(args))
	}
	if f.Type != "" {
		args = append(args, f.Type)
		where += fmt.Sprintf(` AND notification_type = $%d`, len(args))
	}
	if f.Target != "" {
		args = append(args, f.Target)
		where += fmt.Sprintf(` AND object_token = $%d`, len(args))
	}
	var (
		recs  []queue.Record
		total int64
	)
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM notifications WHERE `+where, args...).Scan(&total); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, fmt.Sprintf(`SELECT %s FROM notifications WHERE %s
			ORDER BY creation_date DESC, id DESC LIMIT $%d OFFSET $%d`, pgCols, where, len(args)+1, len(args)+2),
			append(args, limit, offset)...)
		if err != nil {
			return err
		}
		recs, err = collectPG(rows)
		return err
	})
	if err != nil {
		return nil, 0, storeErr(pgName+": list failed", err)
	}
	return recs, total, nil
}

func pgArgs(r *queue.Record) []any {
	return []any{r.WebhookToken, r.ObjectToken, r.NotificationType, r.CreationDate, r.ReceptionDate,
		string(r.Status), r.RetryCounter, r.LastRetryDate, r.NextRetryDate, r.Program, nullBytes(r.Payload), r.Source}
}

const pgInsert = `INSERT INTO notifications (` + pgInsertCols + `)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`

func (s *pgStore) Insert(ctx context.Context, rec *queue.Record) error {
	r, err := prepareStored(rec, s.o.clock())
	if err != nil {
		return fmt.Errorf("insert: %w", err)
	}
	err = s.pool.QueryRow(ctx, pgInsert+` ON CONFLICT (webhook_token) DO NOTHING RETURNING id`, pgArgs(&r)...).Scan(&r.ID)
	if errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("%s: insert %s: %w", pgName, r.WebhookToken, queue.ErrExists)
	}
	if err != nil {
		return storeErr(pgName+": insert", err)
	}
	*rec = r
	return nil
}

// errAbort carries a caller-facing error out of a transaction function.
type errAbort struct{ err error }

func (e errAbort) Error() string { return e.err.Error() }

func unwrapAbort(op string, err error) error {
	var a errAbort
	if errors.As(err, &a) {
		return a.err
	}
	return storeErr(op, err)
}

func (s *pgStore) Update(ctx context.Context, token string, p queue.Patch) (queue.Record, error) {
	var r queue.Record
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var err error
		r, err = scanPG(tx.QueryRow(ctx, `SELECT `+pgCols+` FROM notifications WHERE webhook_token = $1 FOR UPDATE`, token))
		if errors.Is(err, pgx.ErrNoRows) {
			return errAbort{fmt.Errorf("%s: update %s: %w", pgName, token, queue.ErrNotFound)}
		}
		if err != nil {
			return err
		}
		if err := applyPatch(&r, p); err != nil {
			return errAbort{err}
		}
		_, err = tx.Exec(ctx, `UPDATE notifications SET notification_type = $1, object_token = $2, program = $3,
			retry_counter = $4, creation_date = $5 WHERE id = $6`,
			r.NotificationType, r.ObjectToken, r.Program, r.RetryCounter, r.CreationDate, r.ID)
		return err
	})
	if err != nil {
		return queue.Record{}, unwrapAbort(pgName+": update", err)
	}
	return r, nil
}

// ReplaceFailed keeps the id, payload and (unless a new one is given) the
// receptionDate of a record whose token is already FAILED or RETRYING.
func (s *pgStore) ReplaceFailed(ctx context.Context, recs []queue.Record) error {
	list, err := checkReplace(recs, s.o.clock())
	if err != nil {
		return err
	}
	toks := make([]string, len(list))
	for i := range list {
		toks[i] = list[i].WebhookToken
	}
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		existing := make(map[string]int64)
		rows, err := tx.Query(ctx, `SELECT id, webhook_token FROM notifications
			WHERE status IN ('FAILED', 'RETRYING') FOR UPDATE`)
		if err != nil {
			return err
		}
		for rows.Next() {
			var id int64
			var tok string
			if err := rows.Scan(&id, &tok); err != nil {
				rows.Close()
				return err
			}
			existing[tok] = id
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		var tok, status string
		err = tx.QueryRow(ctx, `SELECT webhook_token, status FROM notifications
			WHERE webhook_token = ANY($1) AND status NOT IN ('FAILED', 'RETRYING') ORDER BY id LIMIT 1`, toks).Scan(&tok, &status)
		if err == nil {
			return errAbort{fmt.Errorf("%s: replace failed: token %s is %s: %w", pgName, tok, status, queue.ErrConflict)}
		}
		if !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		var drop []int64
		keep := make(map[string]struct{}, len(list))
		for _, t := range toks {
			keep[t] = struct{}{}
		}
		for t, id := range existing {
			if _, ok := keep[t]; !ok {
				drop = append(drop, id)
			}
		}
		if _, err := tx.Exec(ctx, `DELETE FROM notifications WHERE id = ANY($1)`, drop); err != nil {
			return err
		}
		b := &pgx.Batch{}
		for i := range list {
			r := &list[i]
			if id, ok := existing[r.WebhookToken]; ok {
				var reception *time.Time
				if !recs[i].ReceptionDate.IsZero() {
					reception = &r.ReceptionDate
				}
				b.Queue(`UPDATE notifications SET object_token = $1, notification_type = $2, creation_date = $3,
					reception_date = COALESCE($4, reception_date), status = $5, retry_counter = $6,
					last_retry_date = $7, next_retry_date = $8, program = $9, payload = COALESCE($10, payload),
					claimed_until = NULL, source = $12 WHERE id = $11`,
					r.ObjectToken, r.NotificationType, r.CreationDate, reception, string(r.Status), r.RetryCounter,
					r.LastRetryDate, r.NextRetryDate, r.Program, nullBytes(r.Payload), id, r.Source)
				continue
			}
			b.Queue(pgInsert, pgArgs(r)...)
		}
		return tx.SendBatch(ctx, b).Close()
	})
	if err != nil {
		var pe *pgconn.PgError
		if errors.As(err, &pe) && pe.Code == "23505" {
			// A token arrived through intake meanwhile.
			return fmt.Errorf("%s: replace failed: %w", pgName, queue.ErrConflict)
		}
		return unwrapAbort(pgName+": replace failed", err)
	}
	return nil
}

func (s *pgStore) Remove(ctx context.Context, token string) error {
	tag, err := s.pool.Exec(ctx, `DELETE FROM notifications WHERE webhook_token = $1`, token)
	if err != nil {
		return storeErr(pgName+": remove", err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("%s: remove %s: %w", pgName, token, queue.ErrNotFound)
	}
	return nil
}

func (s *pgStore) Requeue(ctx context.Context, token string) (queue.Record, error) {
	r, err := scanPG(s.pool.QueryRow(ctx, `UPDATE notifications SET status = 'PENDING', retry_counter = 0,
		last_retry_date = NULL, next_retry_date = NULL, claimed_until = NULL
		WHERE webhook_token = $1 RETURNING `+pgCols, token))
	if errors.Is(err, pgx.ErrNoRows) {
		return r, fmt.Errorf("%s: requeue %s: %w", pgName, token, queue.ErrNotFound)
	}
	if err != nil {
		return r, storeErr(pgName+": requeue", err)
	}
	return r, nil
}

func (s *pgStore) Stats(ctx context.Context) (queue.Stats, error) {
	st := emptyStats()
	rows, err := s.pool.Query(ctx, `SELECT source, status, count(*) FROM notifications GROUP BY source, status`)
	if err != nil {
		return st, storeErr(pgName+": stats", err)
	}
	for rows.Next() {
		var source, status string
		var n int64
		if err := rows.Scan(&source, &status, &n); err != nil {
			rows.Close()
			return st, storeErr(pgName+": stats", err)
		}
		st.Add(source, queue.Status(status), n)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return st, storeErr(pgName+": stats", err)
	}
	var oldest *time.Time
	err = s.pool.QueryRow(ctx, `SELECT reception_date FROM notifications WHERE status = 'PENDING'
		ORDER BY reception_date LIMIT 1`).Scan(&oldest)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return st, storeErr(pgName+": stats", err)
	}
	if oldest != nil {
		t := oldest.UTC()
		st.OldestPending = &t
	}
	return st, nil
}

func (s *pgStore) Ping(ctx context.Context) error {
	var n int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM schema_migrations`).Scan(&n); err != nil {
		return storeErr(pgName+": ping", err)
	}
	return nil
}

// Close commits every queued Enqueue, releases held job locks and closes
// the pool.
func (s *pgStore) Close() error {
	locks, first := s.locks.close()
	if !first {
		return nil
	}
	s.w.close()
	s.qw.close()
	for _, l := range locks {
		l.closed()
	}
	s.opool.Close()
	s.ipool.Close()
	s.pool.Close()
	return nil
}
