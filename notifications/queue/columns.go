package queue

import "time"

// ColumnKind is a dataset column's type, named as Spark names it.
type ColumnKind string

// The column types of the notifications dataset.
const (
	KindLong      ColumnKind = "long"
	KindInteger   ColumnKind = "integer"
	KindString    ColumnKind = "string"
	KindTimestamp ColumnKind = "timestamp"
)

// Column is one column of the notifications dataset
// (docs/http-api.md#datasets): its name, its type, whether it can be null
// and how a record gives its value. Exactly one accessor is set, by Kind:
// Int for long and integer, Text for string, Time for timestamp; each
// reports false for null.
type Column struct {
	Name     string
	Kind     ColumnKind
	Nullable bool
	Int      func(r *Record) (int64, bool)
	Text     func(r *Record) (string, bool)
	Time     func(r *Record) (time.Time, bool)
}

// Columns are the notifications dataset's columns, in order: the one
// declaration the CSV and Parquet exports, the NDJSON form's keys
// (AppendRecordJSON, checked by a test) and the NOTIFICATIONS connector all
// follow.
var Columns = []Column{
	{Name: "id", Kind: KindLong, Int: func(r *Record) (int64, bool) { return r.ID, true }},
	{Name: "webhookToken", Kind: KindString, Text: func(r *Record) (string, bool) { return r.WebhookToken, true }},
	{Name: "objectToken", Kind: KindString, Nullable: true, Text: func(r *Record) (string, bool) {
		return r.ObjectToken, r.ObjectToken != ""
	}},
	{Name: "creationDate", Kind: KindTimestamp, Time: func(r *Record) (time.Time, bool) {
		return r.CreationDate, !r.CreationDate.IsZero()
	}},
	{Name: "receptionDate", Kind: KindTimestamp, Time: func(r *Record) (time.Time, bool) {
		return r.ReceptionDate, !r.ReceptionDate.IsZero()
	}},
	{Name: "notificationType", Kind: KindString, Text: func(r *Record) (string, bool) { return r.NotificationType, true }},
	{Name: "status", Kind: KindString, Text: func(r *Record) (string, bool) { return string(r.Status), true }},
	{Name: "retryCounter", Kind: KindInteger, Int: func(r *Record) (int64, bool) { return int64(r.RetryCounter), true }},
	{Name: "lastRetryDate", Kind: KindTimestamp, Nullable: true, Time: timeOf(func(r *Record) *time.Time { return r.LastRetryDate })},
	{Name: "nextRetryDate", Kind: KindTimestamp, Nullable: true, Time: timeOf(func(r *Record) *time.Time { return r.NextRetryDate })},
	{Name: "program", Kind: KindString, Nullable: true, Text: func(r *Record) (string, bool) { return r.Program, r.Program != "" }},
	{Name: "source", Kind: KindString, Text: func(r *Record) (string, bool) { return r.SourceName(), true }},
}

func timeOf(field func(r *Record) *time.Time) func(r *Record) (time.Time, bool) {
	return func(r *Record) (time.Time, bool) {
		if t := field(r); t != nil {
			return *t, true
		}
		return time.Time{}, false
	}
}

// DatasetFormats are the formats the dataset is exported in
// (GET /datasets/notifications?format=…, notifications.WriteDataset).
var DatasetFormats = []string{"ndjson", "csv", "parquet"}
