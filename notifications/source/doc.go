// Package source describes where webhooks come from
// (docs/sidecar.md#sources): a Source is a path, a signature Scheme, a
// Mapping of its bodies to records and a delivery. The default source
// `notifications` takes HMC's body (ParseHMC); `sluice serve --config FILE`
// adds others (LoadFile). Each scheme — standard (Standard Webhooks),
// stripe, github, shopify, slack, hmac-sha256 and sluice — is one small type
// behind the Scheme interface, in its own file, verified exactly as its
// provider documents it, in constant time.
//
// Every source's deliveries go through one intake pipeline (the sidecar's
// HTTP layer runs it): limits and decoding, then
//
//	src.Verify(headers, body, now)      // 401 on failure
//	src.Challenge(body)                 // a provider's handshake, answered
//	rec, err := src.Map(body, headers, now) // 400 (quarantined) on failure
//	store.Enqueue(ctx, &rec)
package source
