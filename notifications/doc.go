// Package notifications is the webhook notification sidecar: a payment
// provider's notifications are taken in over HTTP, stored durably and
// de-duplicated, superseded by newer ones, processed in batches by a
// scheduled job against downstream handlers, retried with exponential
// back-off, alerted by e-mail when they fail for good, cleaned up after
// retention, and managed over HTTP.
//
// The reference is PayPal's Hyperwallet–Mirakl connector (HMC); Sluice keeps
// its record, statuses, rules and endpoints and stores the raw body durably,
// enforces one record per webhook token, locks jobs across processes and
// commits concurrent deliveries together (group commit).
package notifications
