package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sluicedata/sluice/notifications/queue"
)

// The Postgres side of the attempt history, paged listing, quarantine and
// discard ledger (docs/records-api.md).

func (s *pgStore) Page(ctx context.Context, q queue.Query) ([]queue.Record, error) {
	if err := checkQuery(q); err != nil {
		return nil, err
	}
	where, args := pgRange(q.Range, 1)
	for _, f := range []struct{ col, v string }{
		{"source", q.Source}, {"status", string(q.Status)}, {"notification_type", q.Type}, {"object_token", q.ObjectToken},
	} {
		if f.v != "" {
			args = append(args, f.v)
			where += fmt.Sprintf(" AND %s = $%d", f.col, len(args))
		}
	}
	cmp, order := ">", "ASC"
	if q.Newest {
		cmp, order = "<", "DESC"
	}
	if q.After != nil {
		args = append(args, fromMS(ms(q.After.Reception)), q.After.ID)
		where += fmt.Sprintf(" AND (reception_date, id) %s ($%d, $%d)", cmp, len(args)-1, len(args))
	}
	return s.selectRecords(ctx, "page", fmt.Sprintf(`WHERE %s ORDER BY reception_date %s, id %s LIMIT %d`,
		where, order, order, q.Limit), args...)
}

func (s *pgStore) Attempts(ctx context.Context, token string) ([]queue.Attempt, error) {
	out := []queue.Attempt{}
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		var id int64
		if err := tx.QueryRow(ctx, `SELECT id FROM notifications WHERE webhook_token = $1`, token).Scan(&id); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, `SELECT attempt, at, outcome, http_status, duration_ms, error
			FROM notification_attempts WHERE notification_id = $1 ORDER BY attempt`, id)
		if err != nil {
			return err
		}
		var (
			a      queue.Attempt
			status *int
			msg    *string
		)
		_, err = pgx.ForEachRow(rows, []any{&a.Attempt, &a.At, &a.Outcome, &status, &a.DurationMS, &msg}, func() error {
			b := a
			b.At = a.At.UTC()
			if status != nil {
				b.HTTPStatus = *status
			}
			if msg != nil {
				b.Error = *msg
			}
			out = append(out, b)
			return nil
		})
		return err
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("%s: attempts %s: %w", pgName, token, queue.ErrNotFound)
	}
	if err != nil {
		return nil, storeErr(pgName+": attempts", err)
	}
	return out, nil
}

// settledOr tells why a guarded change touched no row: no such record, or
// one that is SUCCESS or OUTDATED.
func (s *pgStore) settledOr(ctx context.Context, op, token string) error {
	var status string
	err := s.pool.QueryRow(ctx, `SELECT status FROM notifications WHERE webhook_token = $1`, token).Scan(&status)
	if errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("%s: %s %s: %w", pgName, op, token, queue.ErrNotFound)
	}
	if err != nil {
		return storeErr(pgName+": "+op, err)
	}
	return fmt.Errorf("%s: %s %s: %w", pgName, op, token, &queue.SettledError{Status: queue.Status(status)})
}

func (s *pgStore) RequeueLive(ctx context.Context, token string) (queue.Record, error) {
	r, err := scanPG(s.pool.QueryRow(ctx, `UPDATE notifications SET status = 'PENDING', retry_counter = 0,
		last_retry_date = NULL, next_retry_date = NULL, claimed_until = NULL
		WHERE webhook_token = $1 AND status NOT IN ('SUCCESS', 'OUTDATED') RETURNING `+pgCols, token))
	if errors.Is(err, pgx.ErrNoRows) {
		return r, s.settledOr(ctx, "requeue", token)
	}
	if err != nil {
		return r, storeErr(pgName+": requeue", err)
	}
	return r, nil
}

func (s *pgStore) RemoveLive(ctx context.Context, token string) error {
	tag, err := s.pool.Exec(ctx, `DELETE FROM notifications WHERE webhook_token = $1 AND status NOT IN ('SUCCESS', 'OUTDATED')`, token)
	if err != nil {
		return storeErr(pgName+": remove", err)
	}
	if tag.RowsAffected() == 0 {
		return s.settledOr(ctx, "remove", token)
	}
	return nil
}

func (s *pgStore) Discarded(ctx context.Context, token string) (queue.Discard, error) {
	d := queue.Discard{Token: token}
	err := s.pool.QueryRow(ctx, `SELECT reason, winner, at, source FROM discard_ledger WHERE token = $1`, token).Scan(&d.Reason, &d.Winner, &d.At, &d.Source)
	if errors.Is(err, pgx.ErrNoRows) {
		return d, fmt.Errorf("%s: discarded %s: %w", pgName, token, queue.ErrNotFound)
	}
	if err != nil {
		return d, storeErr(pgName+": discarded", err)
	}
	d.At = d.At.UTC()
	return d, nil
}

func (s *pgStore) CleanupLedger(ctx context.Context, cutoff time.Time) (int64, error) {
	tag, err := s.pool.Exec(ctx, `DELETE FROM discard_ledger WHERE at < $1`, fromMS(ceilMS(cutoff)))
	if err != nil {
		return 0, storeErr(pgName+": cleanup ledger", err)
	}
	return tag.RowsAffected(), nil
}

func (s *pgStore) CleanupQuarantine(ctx context.Context, cutoff time.Time) (int64, error) {
	tag, err := s.pool.Exec(ctx, `DELETE FROM quarantine WHERE received_at < $1`, fromMS(ceilMS(cutoff)))
	if err != nil {
		return 0, storeErr(pgName+": cleanup quarantine", err)
	}
	return tag.RowsAffected(), nil
}

func (s *pgStore) Quarantine(ctx context.Context, q *queue.Quarantined, keep int) error {
	return quarantineVia(ctx, s.qw, s.o.clock(), q, keep)
}

// applyQuarantine is the quarantine writer's transaction: the batch's
// entries, then the oldest beyond keep dropped.
func (s *pgStore) applyQuarantine(ctx context.Context, reqs []*intakeReq) ([]queue.EnqueueResult, error) {
	res := make([]queue.EnqueueResult, len(reqs))
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		for i, r := range reqs {
			hdr, err := encodeHeaders(r.q.Headers)
			if err != nil {
				return err
			}
			if err := tx.QueryRow(ctx, `INSERT INTO quarantine (received_at, reason, headers, body, source) VALUES ($1, $2, $3, $4, $5) RETURNING id`,
				r.q.ReceivedAt, r.q.Reason, hdr, r.q.Body, r.q.Source).Scan(&res[i].ID); err != nil {
				return err
			}
		}
		_, err := tx.Exec(ctx, `DELETE FROM quarantine WHERE id <= (SELECT id FROM quarantine ORDER BY id DESC LIMIT 1 OFFSET $1)`,
			quarantineKeep(reqs))
		return err
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

func scanPGQuarantined(row pgx.Row) (queue.Quarantined, error) {
	var (
		q    queue.Quarantined
		hdr  string
		size *int
	)
	if err := row.Scan(&q.ID, &q.ReceivedAt, &q.Reason, &hdr, &q.Body, &size, &q.Source); err != nil {
		return q, err
	}
	if size != nil {
		q.Size = *size
	}
	q.ReceivedAt, q.Headers = q.ReceivedAt.UTC(), decodeHeaders(hdr)
	return q, nil
}

func (s *pgStore) ListQuarantine(ctx context.Context, before int64, limit, excerpt int) ([]queue.Quarantined, error) {
	if limit < 1 || excerpt < 0 {
		return nil, invalidf("list quarantine: limit %d, excerpt %d: want limit ≥ 1 and excerpt ≥ 0", limit, excerpt)
	}
	where, args := "TRUE", []any{excerpt, limit}
	if before > 0 {
		where, args = "id < $3", append(args, before)
	}
	rows, err := s.pool.Query(ctx, `SELECT id, received_at, reason, headers, substring(body from 1 for $1), octet_length(body),
		source FROM quarantine WHERE `+where+` ORDER BY id DESC LIMIT $2`, args...)
	if err != nil {
		return nil, storeErr(pgName+": list quarantine", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (queue.Quarantined, error) { return scanPGQuarantined(row) })
	if err != nil {
		return nil, storeErr(pgName+": list quarantine", err)
	}
	if out == nil {
		out = []queue.Quarantined{}
	}
	return out, nil
}

func (s *pgStore) GetQuarantined(ctx context.Context, id int64) (queue.Quarantined, error) {
	q, err := scanPGQuarantined(s.pool.QueryRow(ctx, `SELECT id, received_at, reason, headers, body, octet_length(body),
		source FROM quarantine WHERE id = $1`, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return q, fmt.Errorf("%s: quarantined body %d: %w", pgName, id, queue.ErrNotFound)
	}
	if err != nil {
		return q, storeErr(pgName+": quarantined body", err)
	}
	return q, nil
}

func (s *pgStore) RemoveQuarantined(ctx context.Context, id int64) error {
	tag, err := s.pool.Exec(ctx, `DELETE FROM quarantine WHERE id = $1`, id)
	if err != nil {
		return storeErr(pgName+": remove quarantined body", err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("%s: quarantined body %d: %w", pgName, id, queue.ErrNotFound)
	}
	return nil
}
