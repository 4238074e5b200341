-- Webhook sources (docs/sidecar.md#sources): every record, discard and
-- quarantined body names the source it came in through; existing rows are
-- the HMC source's. The obsolete and supersede rules compare records of
-- one source: they probe the object index (object, type, date) and check the
-- source on the few rows it finds, so the index stays as it is. Adding a
-- column with a constant default rewrites no row (PostgreSQL 11+), and no
-- index is rebuilt.
ALTER TABLE notifications ADD COLUMN source text NOT NULL DEFAULT 'notifications';
ALTER TABLE discard_ledger ADD COLUMN source text NOT NULL DEFAULT 'notifications';
ALTER TABLE quarantine ADD COLUMN source text NOT NULL DEFAULT 'notifications';
