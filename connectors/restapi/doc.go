// Package restapi is the RESTAPI connector (svc.storage.type=RESTAPI): Gimel's
// RESTAPI connector for Sluice, with its gaps closed.
//
// A read requests a URL built from the dataset's properties — svc.restapi.url,
// or the template named by svc.restapi.url.pattern with its {property}
// tokens replaced — follows the pages with one of the paginators (token,
// next_url, link, offset, page; one small type each behind one interface),
// and returns either one `payload` row per page or, with
// svc.restapi.parse.payload=true, the pages parsed into typed columns (one
// row per element of svc.restapi.records.path). Every request goes through
// Go's net/http (HTTP/2 over TLS where offered) under go-retryablehttp:
// it carries the auth scheme's credentials — only to the table's origin and
// svc.restapi.allowed.origins — is paced by the rate limit, bounded by
// svc.restapi.timeout and max.response.bytes, and retried on transport
// errors, 429 and 5xx with back-off that honours Retry-After. Offset and
// page listings whose first page gives the total are requested
// concurrently (svc.restapi.concurrency). A write sends one POST or PUT per
// row. Secret property values never reach an error or a log line. The properties are declared once (Properties);
// docs/restapi.md is the guide and docs/properties.md the reference.
//
// Import it for its side effect (or import connectors/all):
//
//	import _ "github.com/sluicedata/sluice/connectors/restapi"
//
//	c, _ := connectors.Lookup("RESTAPI")
//	f, err := c.Read(ctx, &connectors.Dataset{Name: "yt.subs", Props: connectors.Props{
//		"svc.restapi.url.pattern":           "svc.restapi.pattern.subs",
//		"svc.restapi.pattern.subs":          "{svc.restapi.baseURL}/subscriptions?channelId={svc.restapi.channelId}&key={svc.restapi.accessKey}",
//		"svc.restapi.baseURL":               "https://www.googleapis.com/youtube/v3",
//		"svc.restapi.channelId":             "UC_x5XG1OV2P6uZZ5FSM9Ttw",
//		"svc.restapi.accessKey":             key,
//		"svc.restapi.parse.payload":         "true",
//		"svc.restapi.records.path":          "items",
//		"svc.restapi.paginate.next.field":   "nextPageToken",
//		"svc.restapi.paginate.next.param":   "pageToken",
//	}})
package restapi
