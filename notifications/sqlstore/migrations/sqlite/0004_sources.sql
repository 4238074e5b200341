-- Webhook sources (docs/sidecar.md#sources): every record, discard and
-- quarantined body names the source it came in through; existing rows are
-- the HMC source's. The obsolete and supersede rules compare records of
-- one source, so the object index leads with it. Adding a column with a
-- constant default rewrites no row.
ALTER TABLE notifications ADD COLUMN source TEXT NOT NULL DEFAULT 'notifications';
DROP INDEX notifications_object;
CREATE INDEX notifications_object ON notifications (source, object_token, notification_type, creation_date);
ALTER TABLE discard_ledger ADD COLUMN source TEXT NOT NULL DEFAULT 'notifications';
ALTER TABLE quarantine ADD COLUMN source TEXT NOT NULL DEFAULT 'notifications';
