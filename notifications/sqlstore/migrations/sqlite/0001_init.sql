-- Notification records (see docs/http-api.md#record). Dates are INTEGER unix milliseconds
-- in UTC: exact, compact and fast to compare. claimed_until is the claim
-- lease of a record handed out by Claim and not yet finished.
CREATE TABLE notifications (
    id                INTEGER PRIMARY KEY AUTOINCREMENT,
    webhook_token     TEXT    NOT NULL,
    object_token      TEXT    NOT NULL DEFAULT '',
    notification_type TEXT    NOT NULL,
    creation_date     INTEGER NOT NULL,
    reception_date    INTEGER NOT NULL,
    status            TEXT    NOT NULL CHECK (status IN ('PENDING', 'RETRYING', 'SUCCESS', 'FAILED', 'OUTDATED')),
    retry_counter     INTEGER NOT NULL DEFAULT 0,
    last_retry_date   INTEGER,
    next_retry_date   INTEGER,
    program           TEXT    NOT NULL DEFAULT '',
    payload           BLOB,
    claimed_until     INTEGER
);
CREATE UNIQUE INDEX notifications_webhook_token ON notifications (webhook_token);
CREATE INDEX notifications_object ON notifications (object_token, notification_type, creation_date);
CREATE INDEX notifications_queue ON notifications (status, next_retry_date, creation_date);
CREATE INDEX notifications_reception ON notifications (reception_date);

-- One row per running job: the lease keeping job runs one at a time across
-- every process sharing the file. A crashed holder's lease expires.
CREATE TABLE job_leases (
    job        TEXT    PRIMARY KEY,
    holder     TEXT    NOT NULL,
    expires_at INTEGER NOT NULL
);
