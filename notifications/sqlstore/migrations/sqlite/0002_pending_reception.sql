-- The receptionDate of the oldest PENDING record (the oldest-pending-age
-- metric) in one index probe, whatever the backlog.
CREATE INDEX notifications_pending_reception ON notifications (reception_date) WHERE status = 'PENDING';
