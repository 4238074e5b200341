// Package queue is the notification queue's model and rules: the Record
// and its statuses, the Store every backend implements (see
// notifications/sqlstore) and its errors, the dataset's columns, the
// record's JSON form, the date forms and the back-off formula. How a
// webhook body becomes a record is notifications/source's. See
// docs/http-api.md for the wire forms.
package queue
