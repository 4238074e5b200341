// Package sqlstore keeps notification records durably for the sidecar: the
// queue.Store implementations on SQLite (one file, shared by the
// sidecars of one host) and Postgres (shared by sidecars on many hosts).
//
// Open picks the implementation from the DSN and migrates the schema
// (versioned migrations recorded in schema_migrations):
//
//	st, err := sqlstore.Open(ctx, "sqlite:.sluice/notifications.db")
//	if err != nil { … }
//	defer st.Close()
//	res, err := st.Enqueue(ctx, &queue.Record{WebhookToken: "wbh-1", ObjectToken: "usr-1"})
//
// Enqueue is a group commit: a writer goroutine drains every waiting
// delivery into one transaction, applies the intake rules to each in arrival
// order, commits (one fsync for the batch) and only then answers the
// waiters. A batch that fails is retried one delivery at a time, so a bad one
// never costs the others their acknowledgement. SQLite has one writer (the
// file has one write lock); Postgres runs four side by side, one gathering
// a batch while another waits for its commit, with per-object locks keeping
// the rules exact.
//
// Job locks are a lease row renewed in the background on SQLite and an
// advisory lock on a held connection on Postgres. Claim gives each record a
// claim lease (FOR UPDATE SKIP LOCKED on Postgres), so two sidecars never
// process one record at once; a lease left by a crash expires and the record
// is processed again (at least once). Database failures are reported
// wrapping queue.ErrUnavailable.
package sqlstore
