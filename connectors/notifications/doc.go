// Package notifications is the NOTIFICATIONS connector: a notification
// store of the sidecar (see docs/properties.md#notifications) read as a dataset, one row per
// record, with the columns id long, webhookToken, objectToken string,
// creationDate, receptionDate timestamp, notificationType, status string,
// retryCounter integer, lastRetryDate, nextRetryDate timestamp, program
// string. It is read-only (no Writer): records enter through the
// sidecar's intake.
//
//	CREATE TABLE ops.notifications
//	TBLPROPERTIES ('svc.storage.type'='NOTIFICATIONS',
//	               'svc.notifications.store'='sqlite:.sluice/notifications.db');
//	SELECT webhookToken, status FROM ops.notifications WHERE status = 'FAILED';
//
// Optional svc.notifications.from / svc.notifications.to bound the
// receptionDate, as the sidecar's date-range query does.
package notifications
