-- Attempt history, discard ledger and quarantine (docs/records-api.md).
ALTER TABLE notifications ADD COLUMN last_error TEXT;

-- One row per processing attempt; deleted with its record (foreign_keys is
-- on for every connection of the store).
CREATE TABLE notification_attempts (
    notification_id INTEGER NOT NULL REFERENCES notifications (id) ON DELETE CASCADE,
    attempt         INTEGER NOT NULL,
    at              INTEGER NOT NULL,
    outcome         TEXT    NOT NULL,
    http_status     INTEGER,
    duration_ms     INTEGER NOT NULL,
    error           TEXT,
    PRIMARY KEY (notification_id, attempt)
) WITHOUT ROWID;

-- A delivery acknowledged but not stored: its token, why, and which
-- stored record's token made it redundant.
CREATE TABLE discard_ledger (
    token  TEXT    PRIMARY KEY,
    reason TEXT    NOT NULL,
    winner TEXT    NOT NULL,
    at     INTEGER NOT NULL
);
CREATE INDEX discard_ledger_at ON discard_ledger (at);

-- Intake bodies refused with 400.
CREATE TABLE quarantine (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    received_at INTEGER NOT NULL,
    reason      TEXT    NOT NULL,
    headers     TEXT    NOT NULL,
    body        BLOB
);
CREATE INDEX quarantine_received ON quarantine (received_at);
