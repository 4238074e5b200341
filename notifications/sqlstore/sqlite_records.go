package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/sluicedata/sluice/notifications/queue"
)

// The SQLite side of the attempt history, paged listing, quarantine and
// discard ledger (docs/records-api.md).

const sqliteLedger = `INSERT INTO discard_ledger (token, reason, winner, at, source) VALUES (?1, ?2, ?3, ?4, ?5)
	ON CONFLICT (token) DO UPDATE SET reason = excluded.reason, winner = excluded.winner, at = excluded.at,
	source = excluded.source`

const sqliteAttempt = `INSERT INTO notification_attempts (notification_id, attempt, at, outcome, http_status, duration_ms, error)
	VALUES (?1, (SELECT COALESCE(MAX(attempt), 0) + 1 FROM notification_attempts WHERE notification_id = ?1), ?2, ?3, ?4, ?5, ?6)`

func (s *sqliteStore) Page(ctx context.Context, q queue.Query) ([]queue.Record, error) {
	if err := checkQuery(q); err != nil {
		return nil, err
	}
	where, args := sqliteRange(q.Range)
	for _, f := range []struct{ col, v string }{
		{"source", q.Source}, {"status", string(q.Status)}, {"notification_type", q.Type}, {"object_token", q.ObjectToken},
	} {
		if f.v != "" {
			where += " AND " + f.col + " = ?"
			args = append(args, f.v)
		}
	}
	cmp, order := ">", "ASC"
	if q.Newest {
		cmp, order = "<", "DESC"
	}
	if q.After != nil {
		where += " AND (reception_date, id) " + cmp + " (?, ?)"
		args = append(args, ms(q.After.Reception), q.After.ID)
	}
	return s.selectRecords(ctx, "page", `WHERE `+where+` ORDER BY reception_date `+order+`, id `+order+
		` LIMIT `+strconv.Itoa(q.Limit), args...)
}

func (s *sqliteStore) Attempts(ctx context.Context, token string) ([]queue.Attempt, error) {
	tx, err := s.rdb.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, storeErr(sqliteName+": attempts", err)
	}
	defer tx.Rollback() //nolint:errcheck // read-only
	var id int64
	err = tx.QueryRowContext(ctx, `SELECT id FROM notifications WHERE webhook_token = ?`, token).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("%s: attempts %s: %w", sqliteName, token, queue.ErrNotFound)
	}
	if err != nil {
		return nil, storeErr(sqliteName+": attempts", err)
	}
	rows, err := tx.QueryContext(ctx, `SELECT attempt, at, outcome, http_status, duration_ms, error
		FROM notification_attempts WHERE notification_id = ? ORDER BY attempt`, id)
	if err != nil {
		return nil, storeErr(sqliteName+": attempts", err)
	}
	defer rows.Close()
	out := []queue.Attempt{}
	for rows.Next() {
		var (
			a      queue.Attempt
			at     int64
			status sql.NullInt64
			msg    sql.NullString
		)
		if err := rows.Scan(&a.Attempt, &at, &a.Outcome, &status, &a.DurationMS, &msg); err != nil {
			return nil, storeErr(sqliteName+": attempts", err)
		}
		a.At, a.HTTPStatus, a.Error = fromMS(at), int(status.Int64), msg.String
		out = append(out, a)
	}
	if err := rows.Err(); err != nil {
		return nil, storeErr(sqliteName+": attempts", err)
	}
	return out, nil
}

// settledOr tells why a guarded change touched no row: no such record, or
// one that is SUCCESS or OUTDATED.
func (s *sqliteStore) settledOr(ctx context.Context, op, token string) error {
	var status string
	err := s.wdb.QueryRowContext(ctx, `SELECT status FROM notifications WHERE webhook_token = ?`, token).Scan(&status)
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("%s: %s %s: %w", sqliteName, op, token, queue.ErrNotFound)
	}
	if err != nil {
		return storeErr(sqliteName+": "+op, err)
	}
	return fmt.Errorf("%s: %s %s: %w", sqliteName, op, token, &queue.SettledError{Status: queue.Status(status)})
}

func (s *sqliteStore) RequeueLive(ctx context.Context, token string) (queue.Record, error) {
	r, err := scanSQLite(s.wdb.QueryRowContext(ctx, `UPDATE notifications SET status = 'PENDING', retry_counter = 0,
		last_retry_date = NULL, next_retry_date = NULL, claimed_until = NULL
		WHERE webhook_token = ? AND status NOT IN ('SUCCESS', 'OUTDATED') RETURNING `+sqliteCols, token))
	if errors.Is(err, sql.ErrNoRows) {
		return r, s.settledOr(ctx, "requeue", token)
	}
	if err != nil {
		return r, storeErr(sqliteName+": requeue", err)
	}
	return r, nil
}

func (s *sqliteStore) RemoveLive(ctx context.Context, token string) error {
	res, err := s.wdb.ExecContext(ctx, `DELETE FROM notifications WHERE webhook_token = ? AND status NOT IN ('SUCCESS', 'OUTDATED')`, token)
	if err != nil {
		return storeErr(sqliteName+": remove", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return storeErr(sqliteName+": remove", err)
	}
	if n == 0 {
		return s.settledOr(ctx, "remove", token)
	}
	return nil
}

func (s *sqliteStore) Discarded(ctx context.Context, token string) (queue.Discard, error) {
	d := queue.Discard{Token: token}
	var at int64
	err := s.rdb.QueryRowContext(ctx, `SELECT reason, winner, at, source FROM discard_ledger WHERE token = ?`, token).Scan(&d.Reason, &d.Winner, &at, &d.Source)
	if errors.Is(err, sql.ErrNoRows) {
		return d, fmt.Errorf("%s: discarded %s: %w", sqliteName, token, queue.ErrNotFound)
	}
	if err != nil {
		return d, storeErr(sqliteName+": discarded", err)
	}
	d.At = fromMS(at)
	return d, nil
}

// deleteOlder deletes rows of table whose col is before cutoff, in chunks
// so intake is not held up.
func (s *sqliteStore) deleteOlder(ctx context.Context, op, table, col string, cutoff time.Time) (int64, error) {
	q := `DELETE FROM ` + table + ` WHERE rowid IN (SELECT rowid FROM ` + table + ` WHERE ` + col + ` < ? LIMIT ` +
		strconv.Itoa(deleteChunk) + `)`
	return s.deleteChunks(ctx, op, q, ceilMS(cutoff))
}

func (s *sqliteStore) CleanupLedger(ctx context.Context, cutoff time.Time) (int64, error) {
	return s.deleteOlder(ctx, "cleanup ledger", "discard_ledger", "at", cutoff)
}

func (s *sqliteStore) CleanupQuarantine(ctx context.Context, cutoff time.Time) (int64, error) {
	return s.deleteOlder(ctx, "cleanup quarantine", "quarantine", "received_at", cutoff)
}

func (s *sqliteStore) Quarantine(ctx context.Context, q *queue.Quarantined, keep int) error {
	return quarantineVia(ctx, s.qw, s.o.clock(), q, keep)
}

// applyQuarantine is the quarantine writer's transaction: the batch's
// entries, then the oldest beyond keep dropped.
func (s *sqliteStore) applyQuarantine(ctx context.Context, reqs []*intakeReq) ([]queue.EnqueueResult, error) {
	tx, err := s.wdb.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback() //nolint:errcheck // no-op after Commit
	res := make([]queue.EnqueueResult, len(reqs))
	for i, r := range reqs {
		hdr, err := encodeHeaders(r.q.Headers)
		if err != nil {
			return nil, err
		}
		ir, err := tx.ExecContext(ctx, `INSERT INTO quarantine (received_at, reason, headers, body, source) VALUES (?, ?, ?, ?, ?)`,
			ms(r.q.ReceivedAt), r.q.Reason, hdr, r.q.Body, r.q.Source)
		if err != nil {
			return nil, err
		}
		if res[i].ID, err = ir.LastInsertId(); err != nil {
			return nil, err
		}
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM quarantine WHERE id <= (SELECT id FROM quarantine ORDER BY id DESC LIMIT 1 OFFSET ?)`,
		quarantineKeep(reqs)); err != nil {
		return nil, err
	}
	return res, tx.Commit()
}

func scanQuarantined(sc rowScanner) (queue.Quarantined, error) {
	var (
		q        queue.Quarantined
		received int64
		hdr      string
	)
	if err := sc.Scan(&q.ID, &received, &q.Reason, &hdr, &q.Body, &q.Size, &q.Source); err != nil {
		return q, err
	}
	q.ReceivedAt, q.Headers = fromMS(received), decodeHeaders(hdr)
	return q, nil
}

func (s *sqliteStore) ListQuarantine(ctx context.Context, before int64, limit, excerpt int) ([]queue.Quarantined, error) {
	if limit < 1 || excerpt < 0 {
		return nil, invalidf("list quarantine: limit %d, excerpt %d: want limit ≥ 1 and excerpt ≥ 0", limit, excerpt)
	}
	where, args := "1 = 1", []any{excerpt}
	if before > 0 {
		where, args = "id < ?", append(args, before)
	}
	rows, err := s.rdb.QueryContext(ctx, `SELECT id, received_at, reason, headers, COALESCE(substr(body, 1, ?), x''),
		COALESCE(length(body), 0), source FROM quarantine WHERE `+where+` ORDER BY id DESC LIMIT `+strconv.Itoa(limit), args...)
	if err != nil {
		return nil, storeErr(sqliteName+": list quarantine", err)
	}
	defer rows.Close()
	out := []queue.Quarantined{}
	for rows.Next() {
		q, err := scanQuarantined(rows)
		if err != nil {
			return nil, storeErr(sqliteName+": list quarantine", err)
		}
		out = append(out, q)
	}
	if err := rows.Err(); err != nil {
		return nil, storeErr(sqliteName+": list quarantine", err)
	}
	return out, nil
}

func (s *sqliteStore) GetQuarantined(ctx context.Context, id int64) (queue.Quarantined, error) {
	q, err := scanQuarantined(s.rdb.QueryRowContext(ctx, `SELECT id, received_at, reason, headers, COALESCE(body, x''),
		COALESCE(length(body), 0), source FROM quarantine WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return q, fmt.Errorf("%s: quarantined body %d: %w", sqliteName, id, queue.ErrNotFound)
	}
	if err != nil {
		return q, storeErr(sqliteName+": quarantined body", err)
	}
	return q, nil
}

func (s *sqliteStore) RemoveQuarantined(ctx context.Context, id int64) error {
	res, err := s.wdb.ExecContext(ctx, `DELETE FROM quarantine WHERE id = ?`, id)
	if err != nil {
		return storeErr(sqliteName+": remove quarantined body", err)
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		if err != nil {
			return storeErr(sqliteName+": remove quarantined body", err)
		}
		return fmt.Errorf("%s: quarantined body %d: %w", sqliteName, id, queue.ErrNotFound)
	}
	return nil
}
