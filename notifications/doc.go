// Package notifications is the webhook notification sidecar: a payment
// provider's notifications — and, through sources, any provider's webhooks
// (Standard Webhooks, Stripe, GitHub, Shopify, Slack, HMAC-signed senders;
// see docs/sidecar.md#sources) — are taken in over HTTP, verified, stored
// durably and de-duplicated, superseded by newer ones, processed in batches
// by a scheduled job against downstream handlers, retried with exponential
// back-off, alerted by e-mail when they fail for good, cleaned up after
// retention, and managed over HTTP.
//
// The reference is PayPal's Hyperwallet–Mirakl connector (HMC); Sluice keeps
// its record, statuses, rules and endpoints and stores the raw body durably,
// enforces one record per webhook token, locks jobs across processes and
// commits concurrent deliveries together (group commit).
//
// # Running it
//
// `sluice serve` reads the environment (ConfigFromEnv, Variables), opens the
// store (notifications/sqlstore) and runs a Service. Embedded in Go:
//
//	st, err := sqlstore.Open(ctx, "sqlite:.sluice/notifications.db")
//	if err != nil { … }
//	defer st.Close()
//	cfg, err := notifications.ConfigFromEnv(os.Getenv)
//	if err != nil { … }
//	svc, err := notifications.New(cfg, st)
//	if err != nil { … }
//	svc.Handle(notifications.TypePayment, notifications.HandlerFunc(
//		func(ctx context.Context, rec *notifications.Record, payload []byte) error {
//			return settle(ctx, rec.ObjectToken, payload) // nil = SUCCESS, error = retry with back-off
//		}))
//	if err := svc.Start(ctx); err != nil { … }
//	defer svc.Stop(context.Background())
//
// Types without a handler of their own go to the marketplace handler, which
// POSTs {"notification":{record},"payload":{body}} to CONN_MARKETPLACE_URL.
// Config.Sources (LoadSources, or CONN_CONFIG) adds webhook sources, each at
// its own path with its scheme and mapping; Service.HandleSource registers a
// Go handler for a source's records.
//
// # Guarantees
//
// Intake answers 200 only after the store committed the record (or
// discarded it as duplicate or obsolete), so a provider that re-sends on
// anything but 200 loses nothing. Processing is at-least-once: a record is
// claimed under a lease and its outcome saved after the handler returned,
// so a crash in between has it processed again. One processing run and one
// cleanup run at a time per process (a trigger while running is coalesced
// into one more run) and across processes (Store.Lock); a run whose lock
// the store loses stops at once (ErrLockLost), its unfinished records left
// to be claimed again. With
// CONN_PROCESSING_CONCURRENCY > 1 records of different objectTokens run in
// parallel; one objectToken's records stay sequential and in order.
//
// # Layout
//
//   - notifications/queue: the record, its statuses, the Store contract and
//     its errors, the dataset's columns and formats, the record's JSON forms
//     (DTO), the attempt outcomes, the back-off formula.
//   - notifications/source: webhook sources — the signature schemes, the
//     mapping of a body to a record (the HMC body's too), the config file.
//   - notifications/internal/httpapi: the HTTP API (intake, query,
//     management, datasets, health, metrics).
//   - notifications/sqlstore: the SQLite and Postgres stores;
//     notifications/storetest: the conformance suite every store runs.
//   - this package: configuration (ConfigFromEnv), the Service that puts
//     the parts together, and what a Go embedder handles: the processing and
//     cleanup jobs (RunStats), the downstream handlers (Handler,
//     HandlerFunc, StatusHandler, MarketplaceHandler, DownstreamError) and
//     the FAILED alert (MailConfig). Names of notifications/queue are
//     repeated here as aliases so one import does.
package notifications
