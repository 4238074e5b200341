-- Webhook sources (docs/sidecar.md#sources): every record, discard and
-- quarantined body names the source it came in through; existing rows are
-- the HMC source's. The obsolete and supersede rules compare records of
-- one source, so the object index leads with it. Adding a column with a
-- constant default rewrites no row (PostgreSQL 11+).
ALTER TABLE notifications ADD COLUMN source text NOT NULL DEFAULT 'notifications';
DROP INDEX notifications_object_idx;
CREATE INDEX notifications_object_idx ON notifications (source, object_token, notification_type, creation_date);
ALTER TABLE discard_ledger ADD COLUMN source text NOT NULL DEFAULT 'notifications';
ALTER TABLE quarantine ADD COLUMN source text NOT NULL DEFAULT 'notifications';
