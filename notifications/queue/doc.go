// Package queue is the notification queue's model and rules: the Record
// and its statuses, the Store every backend implements (see
// notifications/sqlstore) and its errors, how a provider's webhook body
// becomes a record (ParseDelivery), the record's JSON form, the date forms
// and the back-off formula. See docs/http-api.md for the wire forms.
package queue
