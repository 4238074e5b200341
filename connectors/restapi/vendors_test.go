package restapi_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/connectors"
)

// vendorRecords is the listing every fake vendor serves: 25 records.
const vendorRecords = 25

// vendorAPI is a fake of one vendor's list endpoint on loopback, following
// that vendor's documented pagination and authentication, plus an OAuth2
// token endpoint at /token for the vendors that use one.
type vendorAPI struct {
	t      *testing.T
	srv    *httptest.Server
	pages  atomic.Int64 // list requests answered with a page
	tokens atomic.Int64 // tokens issued
}

func (v *vendorAPI) base() string { return v.srv.URL }

func recs(from, n int, id func(i int) any) []map[string]any {
	out := []map[string]any{}
	for i := from; i < from+n && i < vendorRecords; i++ {
		out = append(out, map[string]any{"id": id(i), "name": fmt.Sprintf("item %d", i)})
	}
	return out
}

func plainID(i int) any { return fmt.Sprintf("id%02d", i) }

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

func atoi(s string) int { n, _ := strconv.Atoi(s); return n }

// vendor describes one vendor's scheme.
type vendor struct {
	name      string
	pages     int // the exact number of list requests a full read takes
	authOK    func(v *vendorAPI, r *http.Request) bool
	serve     func(v *vendorAPI, w http.ResponseWriter, r *http.Request)
	props     func(base string) connectors.Props
	tokenAuth string // "basic" or "body": the vendor has a client-credentials token endpoint
	scope     string // the scope the token request must carry
}

func bearer(tok string) func(*vendorAPI, *http.Request) bool {
	return func(_ *vendorAPI, r *http.Request) bool { return r.Header.Get("Authorization") == "Bearer "+tok }
}

func basicAuth(user, pass string) func(*vendorAPI, *http.Request) bool {
	return func(_ *vendorAPI, r *http.Request) bool {
		u, p, ok := r.BasicAuth()
		return ok && u == user && p == pass
	}
}

func headerAuth(name, val string) func(*vendorAPI, *http.Request) bool {
	return func(_ *vendorAPI, r *http.Request) bool { return r.Header.Get(name) == val }
}

func queryAuth(name, val string) func(*vendorAPI, *http.Request) bool {
	return func(_ *vendorAPI, r *http.Request) bool { return r.URL.Query().Get(name) == val }
}

// issuedToken accepts the last token the fake's token endpoint issued.
func issuedToken(v *vendorAPI, r *http.Request) bool {
	return v.tokens.Load() > 0 && r.Header.Get("Authorization") == "Bearer at-"+strconv.FormatInt(v.tokens.Load(), 10)
}

func props(base string, kv ...string) connectors.Props {
	p := connectors.Props{"svc.restapi.parse.payload": "true", "svc.restapi.retry.max": "0"}
	for i := 0; i < len(kv); i += 2 {
		p["svc.restapi."+kv[i]] = strings.ReplaceAll(kv[i+1], "BASE", base)
	}
	return p
}

var vendors = []vendor{
	{name: "GitHub", pages: 3, authOK: bearer("ghp_T0KEN"),
		// Link: rel="next"/"last" (and prev/first after page 1); a JSON array body.
		serve: func(v *vendorAPI, w http.ResponseWriter, r *http.Request) {
			page, per := max(atoi(r.URL.Query().Get("page")), 1), atoi(r.URL.Query().Get("per_page"))
			last := (vendorRecords + per - 1) / per
			u := func(p int) string { return fmt.Sprintf("<%s/repos/o/r/issues?per_page=%d&page=%d>", v.base(), per, p) }
			var links []string
			if page < last {
				links = append(links, u(page+1)+`; rel="next"`, u(last)+`; rel="last"`)
			}
			if page > 1 {
				links = append(links, u(1)+`; rel="first"`, u(page-1)+`; rel="prev"`)
			}
			w.Header().Set("Link", strings.Join(links, ", "))
			writeJSON(w, recs((page-1)*per, per, func(i int) any { return i + 1 }))
		},
		props: func(b string) connectors.Props {
			return props(b, "url", "BASE/repos/o/r/issues?per_page=10", "paginate.type", "link", "auth.type", "bearer", "auth.token", "ghp_T0KEN")
		}},
	{name: "Stripe", pages: 3, authOK: basicAuth("sk_test_4eC39HqLyjWDarjtT1zdp7dc", ""),
		// starting_after = the last object's id; has_more.
		serve: func(v *vendorAPI, w http.ResponseWriter, r *http.Request) {
			q := r.URL.Query()
			from := 0
			if a := q.Get("starting_after"); a != "" {
				from = atoi(strings.TrimPrefix(a, "cus_")) + 1
			}
			lim := atoi(q.Get("limit"))
			writeJSON(w, map[string]any{"object": "list", "url": "/v1/customers", "has_more": from+lim < vendorRecords,
				"data": recs(from, lim, func(i int) any { return fmt.Sprintf("cus_%02d", i) })})
		},
		props: func(b string) connectors.Props {
			return props(b, "url", "BASE/v1/customers?limit=10", "records.path", "data", "paginate.next.record.field", "id",
				"paginate.next.param", "starting_after", "paginate.has.more.field", "has_more",
				"auth.type", "basic", "auth.username", "sk_test_4eC39HqLyjWDarjtT1zdp7dc")
		}},
	{name: "Slack", pages: 3, authOK: bearer("xoxb-1234"),
		// cursor in response_metadata.next_cursor, "" on the last page; ok:true.
		serve: func(v *vendorAPI, w http.ResponseWriter, r *http.Request) {
			from := 0
			if c := r.URL.Query().Get("cursor"); c != "" {
				b, _ := base64.StdEncoding.DecodeString(c)
				from = atoi(strings.TrimPrefix(string(b), "user:"))
			}
			lim := atoi(r.URL.Query().Get("limit"))
			next := ""
			if from+lim < vendorRecords {
				next = base64.StdEncoding.EncodeToString([]byte("user:" + strconv.Itoa(from+lim)))
			}
			writeJSON(w, map[string]any{"ok": true, "members": recs(from, lim, plainID), "response_metadata": map[string]any{"next_cursor": next}})
		},
		props: func(b string) connectors.Props {
			return props(b, "url", "BASE/api/users.list?limit=10", "records.path", "members", "response.ok.field", "ok",
				"paginate.next.field", "response_metadata.next_cursor", "paginate.next.param", "cursor",
				"auth.type", "bearer", "auth.token", "xoxb-1234")
		}},
	{name: "Shopify", pages: 3, authOK: headerAuth("X-Shopify-Access-Token", "shpat_abc"),
		// Link with page_info; rel="previous" and rel="next" in one field.
		serve: func(v *vendorAPI, w http.ResponseWriter, r *http.Request) {
			from := 0
			if pi := r.URL.Query().Get("page_info"); pi != "" {
				b, _ := base64.RawURLEncoding.DecodeString(pi)
				from = atoi(string(b))
			}
			u := func(at int) string {
				return fmt.Sprintf("<%s/admin/api/2024-01/products.json?limit=10&page_info=%s>", v.base(), base64.RawURLEncoding.EncodeToString([]byte(strconv.Itoa(at))))
			}
			var links []string
			if from > 0 {
				links = append(links, u(from-10)+`; rel="previous"`)
			}
			if from+10 < vendorRecords {
				links = append(links, u(from+10)+`; rel="next"`)
			}
			if len(links) > 0 {
				w.Header().Set("Link", strings.Join(links, ", "))
			}
			writeJSON(w, map[string]any{"products": recs(from, 10, func(i int) any { return 632910392 + i })})
		},
		props: func(b string) connectors.Props {
			return props(b, "url", "BASE/admin/api/2024-01/products.json?limit=10", "records.path", "products", "paginate.type", "link",
				"auth.type", "api_key", "auth.name", "X-Shopify-Access-Token", "auth.value", "shpat_abc")
		}},
	{name: "Zendesk", pages: 3, authOK: basicAuth("agent@example.com/token", "zd-api-token"),
		// Cursor pagination: links.next (present even on the last page) and meta.has_more.
		serve: func(v *vendorAPI, w http.ResponseWriter, r *http.Request) {
			from := atoi(r.URL.Query().Get("page[after]"))
			size := atoi(r.URL.Query().Get("page[size]"))
			writeJSON(w, map[string]any{"users": recs(from, size, func(i int) any { return 35436 + i }),
				"meta":  map[string]any{"has_more": from+size < vendorRecords, "after_cursor": strconv.Itoa(from + size), "before_cursor": strconv.Itoa(from)},
				"links": map[string]any{"next": fmt.Sprintf("%s/api/v2/users.json?page%%5Bafter%%5D=%d&page%%5Bsize%%5D=%d", v.base(), from+size, size)}})
		},
		props: func(b string) connectors.Props {
			return props(b, "url", "BASE/api/v2/users.json?page%5Bsize%5D=10", "records.path", "users", "paginate.type", "next_url",
				"paginate.next.url.field", "links.next", "paginate.has.more.field", "meta.has_more",
				"auth.type", "basic", "auth.username", "agent@example.com/token", "auth.password", "zd-api-token")
		}},
	{name: "Jira", pages: 4, authOK: basicAuth("me@example.com", "jira-api-token"),
		// startAt/maxResults/total; the server caps maxResults at 7 (short pages mid-way).
		serve: func(v *vendorAPI, w http.ResponseWriter, r *http.Request) {
			start, maxR := atoi(r.URL.Query().Get("startAt")), min(atoi(r.URL.Query().Get("maxResults")), 7)
			writeJSON(w, map[string]any{"startAt": start, "maxResults": maxR, "total": vendorRecords,
				"issues": recs(start, maxR, func(i int) any { return fmt.Sprintf("PROJ-%d", i+1) })})
		},
		props: func(b string) connectors.Props {
			return props(b, "url", "BASE/rest/api/3/search?jql=project%3DPROJ", "records.path", "issues", "paginate.type", "offset",
				"paginate.offset.param", "startAt", "paginate.limit.param", "maxResults", "paginate.limit", "10", "paginate.total.field", "total",
				"auth.type", "basic", "auth.username", "me@example.com", "auth.password", "jira-api-token")
		}},
	{name: "Notion", pages: 3,
		authOK: func(v *vendorAPI, r *http.Request) bool {
			return r.Header.Get("Authorization") == "Bearer secret_notion" && r.Header.Get("Notion-Version") == "2022-06-28"
		},
		// POST query; start_cursor in the body; next_cursor/has_more.
		serve: func(v *vendorAPI, w http.ResponseWriter, r *http.Request) {
			var body struct {
				PageSize    int    `json:"page_size"`
				StartCursor string `json:"start_cursor"`
				Filter      struct {
					Status struct {
						Equals string `json:"equals"`
					} `json:"status"`
				} `json:"filter"`
			}
			if r.Method != http.MethodPost || json.NewDecoder(r.Body).Decode(&body) != nil || body.Filter.Status.Equals != "Done" {
				http.Error(w, `{"object":"error","status":400}`, http.StatusBadRequest)
				return
			}
			from := 0
			if body.StartCursor != "" {
				from = atoi(strings.TrimPrefix(body.StartCursor, "cur-"))
			}
			var next any
			if from+body.PageSize < vendorRecords {
				next = "cur-" + strconv.Itoa(from+body.PageSize)
			}
			writeJSON(w, map[string]any{"object": "list", "results": recs(from, body.PageSize, plainID), "next_cursor": next, "has_more": next != nil})
		},
		props: func(b string) connectors.Props {
			return props(b, "url", "BASE/v1/databases/d9824bdc/query", "records.path", "results", "read.method", "POST",
				"read.body", `{"page_size":10,"filter":{"property":"Status","status":{"equals":"{svc.restapi.status}"}}}`, "status", "Done",
				"paginate.next.field", "next_cursor", "paginate.next.body.field", "start_cursor", "paginate.has.more.field", "has_more",
				"header.Notion-Version", "2022-06-28", "auth.type", "bearer", "auth.token", "secret_notion")
		}},
	{name: "Mailchimp", pages: 3, authOK: basicAuth("anystring", "mc-key-us6"),
		// offset/count with total_items.
		serve: func(v *vendorAPI, w http.ResponseWriter, r *http.Request) {
			off, count := atoi(r.URL.Query().Get("offset")), atoi(r.URL.Query().Get("count"))
			writeJSON(w, map[string]any{"list_id": "57afe96172", "total_items": vendorRecords, "members": recs(off, count, plainID)})
		},
		props: func(b string) connectors.Props {
			return props(b, "url", "BASE/3.0/lists/57afe96172/members", "records.path", "members", "paginate.type", "offset",
				"paginate.limit.param", "count", "paginate.limit", "10", "paginate.total.field", "total_items",
				"auth.type", "basic", "auth.username", "anystring", "auth.password", "mc-key-us6")
		}},
	{name: "Google APIs", pages: 3, authOK: queryAuth("key", "AIza-google-key"),
		// nextPageToken/pageToken; the API key in the query.
		serve: func(v *vendorAPI, w http.ResponseWriter, r *http.Request) {
			from := 0
			if tok := r.URL.Query().Get("pageToken"); tok != "" {
				from = atoi(strings.TrimPrefix(tok, "CA"))
			}
			doc := map[string]any{"kind": "youtube#playlistItemListResponse", "items": recs(from, 10, plainID),
				"pageInfo": map[string]any{"totalResults": vendorRecords, "resultsPerPage": 10}}
			if from+10 < vendorRecords {
				doc["nextPageToken"] = "CA" + strconv.Itoa(from+10)
			}
			writeJSON(w, doc)
		},
		props: func(b string) connectors.Props {
			return props(b, "url", "BASE/youtube/v3/playlistItems?part=snippet&maxResults=10", "records.path", "items",
				"paginate.next.field", "nextPageToken", "paginate.next.param", "pageToken",
				"auth.type", "api_key", "auth.location", "query", "auth.name", "key", "auth.value", "AIza-google-key")
		}},
	{name: "Microsoft Graph", pages: 3, authOK: issuedToken, tokenAuth: "body", scope: "https://graph.microsoft.com/.default",
		// @odata.nextLink (an absolute URL with $skiptoken); OAuth2 client credentials.
		serve: func(v *vendorAPI, w http.ResponseWriter, r *http.Request) {
			from := atoi(r.URL.Query().Get("$skiptoken"))
			doc := map[string]any{"@odata.context": "https://graph.microsoft.com/v1.0/$metadata#users", "value": recs(from, 10, plainID)}
			if from+10 < vendorRecords {
				doc["@odata.nextLink"] = fmt.Sprintf("%s/v1.0/users?$top=10&$skiptoken=%d", v.base(), from+10)
			}
			writeJSON(w, doc)
		},
		props: func(b string) connectors.Props {
			return props(b, "url", "BASE/v1.0/users?$top=10", "records.path", "value", "paginate.type", "next_url",
				"paginate.next.url.field", "@odata.nextLink", "auth.type", "oauth2", "auth.token.url", "BASE/token",
				"auth.client.id", "app-id", "auth.client.secret", "graph-secret", "auth.scopes", "https://graph.microsoft.com/.default", "auth.client.auth", "body")
		}},
	{name: "Salesforce", pages: 3, authOK: bearer("00Dsf!session"),
		// nextRecordsUrl (relative) and done.
		serve: func(v *vendorAPI, w http.ResponseWriter, r *http.Request) {
			from := 0
			if i := strings.LastIndexByte(r.URL.Path, '-'); i > 0 && strings.Contains(r.URL.Path, "/query/") {
				from = atoi(r.URL.Path[i+1:])
			}
			doc := map[string]any{"totalSize": vendorRecords, "done": from+10 >= vendorRecords, "records": recs(from, 10, plainID)}
			if from+10 < vendorRecords {
				doc["nextRecordsUrl"] = fmt.Sprintf("/services/data/v59.0/query/01gD0000002HU6KIAW-%d", from+10)
			}
			writeJSON(w, doc)
		},
		props: func(b string) connectors.Props {
			return props(b, "url", "BASE/services/data/v59.0/query?q=SELECT+Id+FROM+Account", "records.path", "records",
				"paginate.type", "next_url", "paginate.next.url.field", "nextRecordsUrl", "paginate.last.page.field", "done",
				"auth.type", "bearer", "auth.token", "00Dsf!session")
		}},
	{name: "Twilio", pages: 3, authOK: basicAuth("AC0123", "twilio-auth-token"),
		// next_page_uri (relative, null at the end) with Page and PageToken.
		serve: func(v *vendorAPI, w http.ResponseWriter, r *http.Request) {
			page, size := atoi(r.URL.Query().Get("Page")), atoi(r.URL.Query().Get("PageSize"))
			doc := map[string]any{"messages": recs(page*size, size, plainID), "page": page, "page_size": size, "next_page_uri": nil}
			if (page+1)*size < vendorRecords {
				doc["next_page_uri"] = fmt.Sprintf("/2010-04-01/Accounts/AC0123/Messages.json?PageSize=%d&Page=%d&PageToken=PASM%d", size, page+1, page)
			}
			writeJSON(w, doc)
		},
		props: func(b string) connectors.Props {
			return props(b, "url", "BASE/2010-04-01/Accounts/AC0123/Messages.json?PageSize=10", "records.path", "messages",
				"paginate.type", "next_url", "paginate.next.url.field", "next_page_uri",
				"auth.type", "basic", "auth.username", "AC0123", "auth.password", "twilio-auth-token")
		}},
	{name: "HubSpot", pages: 3, authOK: bearer("pat-na1-hub"),
		// paging.next.after, absent on the last page.
		serve: func(v *vendorAPI, w http.ResponseWriter, r *http.Request) {
			from := atoi(r.URL.Query().Get("after"))
			doc := map[string]any{"results": recs(from, 10, plainID)}
			if from+10 < vendorRecords {
				doc["paging"] = map[string]any{"next": map[string]any{"after": strconv.Itoa(from + 10), "link": fmt.Sprintf("%s/crm/v3/objects/contacts?after=%d", v.base(), from+10)}}
			}
			writeJSON(w, doc)
		},
		props: func(b string) connectors.Props {
			return props(b, "url", "BASE/crm/v3/objects/contacts?limit=10", "records.path", "results",
				"paginate.next.field", "paging.next.after", "paginate.next.param", "after", "auth.type", "bearer", "auth.token", "pat-na1-hub")
		}},
	{name: "GitLab", pages: 3, authOK: headerAuth("PRIVATE-TOKEN", "glpat-xyz"),
		// X-Next-Page (empty on the last page), X-Total-Pages; a JSON array.
		serve: func(v *vendorAPI, w http.ResponseWriter, r *http.Request) {
			page, per := max(atoi(r.URL.Query().Get("page")), 1), atoi(r.URL.Query().Get("per_page"))
			total := (vendorRecords + per - 1) / per
			next := ""
			if page < total {
				next = strconv.Itoa(page + 1)
			}
			w.Header().Set("X-Next-Page", next)
			w.Header().Set("X-Page", strconv.Itoa(page))
			w.Header().Set("X-Total-Pages", strconv.Itoa(total))
			writeJSON(w, recs((page-1)*per, per, func(i int) any { return i + 1 }))
		},
		props: func(b string) connectors.Props {
			return props(b, "url", "BASE/api/v4/projects/1/issues?per_page=10", "paginate.next.header", "X-Next-Page", "paginate.next.param", "page",
				"auth.type", "api_key", "auth.name", "PRIVATE-TOKEN", "auth.value", "glpat-xyz")
		}},
	{name: "Okta", pages: 3, authOK: headerAuth("Authorization", "SSWS 00okta-token"),
		// rel="self" and rel="next" as two separate Link header fields.
		serve: func(v *vendorAPI, w http.ResponseWriter, r *http.Request) {
			from := 0
			if a := r.URL.Query().Get("after"); a != "" {
				from = atoi(strings.TrimPrefix(a, "00u")) + 1
			}
			w.Header().Add("Link", fmt.Sprintf(`<%s/api/v1/users?limit=10>; rel="self"`, v.base()))
			if from+10 < vendorRecords {
				w.Header().Add("Link", fmt.Sprintf(`<%s/api/v1/users?after=00u%d&limit=10>; rel="next"`, v.base(), from+9))
			}
			writeJSON(w, recs(from, 10, func(i int) any { return fmt.Sprintf("00u%d", i) }))
		},
		props: func(b string) connectors.Props {
			return props(b, "url", "BASE/api/v1/users?limit=10", "paginate.type", "link",
				"auth.type", "api_key", "auth.name", "Authorization", "auth.value", "SSWS 00okta-token")
		}},
	{name: "Sentry", pages: 3, authOK: bearer("sntrys_tok"),
		// rel="previous" and rel="next" always, with results="true"/"false".
		serve: func(v *vendorAPI, w http.ResponseWriter, r *http.Request) {
			from := 0
			if c := r.URL.Query().Get("cursor"); c != "" {
				from = atoi(strings.Split(c, ":")[1])
			}
			link := func(rel string, at int, more bool) string {
				c := fmt.Sprintf("0:%d:0", at)
				return fmt.Sprintf(`<%s/api/0/organizations/acme/issues/?cursor=%s>; rel="%s"; results="%t"; cursor="%s"`, v.base(), c, rel, more, c)
			}
			w.Header().Set("Link", link("previous", max(from-10, 0), from > 0)+", "+link("next", from+10, from+10 < vendorRecords))
			writeJSON(w, recs(from, 10, plainID))
		},
		props: func(b string) connectors.Props {
			return props(b, "url", "BASE/api/0/organizations/acme/issues/", "paginate.type", "link", "paginate.link.has.more.attr", "results",
				"auth.type", "bearer", "auth.token", "sntrys_tok")
		}},
	{name: "Stack Exchange", pages: 3, authOK: queryAuth("key", "se-app-key"),
		// page/pagesize with has_more.
		serve: func(v *vendorAPI, w http.ResponseWriter, r *http.Request) {
			page, size := atoi(r.URL.Query().Get("page")), atoi(r.URL.Query().Get("pagesize"))
			writeJSON(w, map[string]any{"items": recs((page-1)*size, size, plainID), "has_more": page*size < vendorRecords, "quota_max": 10000, "quota_remaining": 9990})
		},
		props: func(b string) connectors.Props {
			return props(b, "url", "BASE/2.3/questions?site=stackoverflow", "records.path", "items", "paginate.type", "page",
				"paginate.size.param", "pagesize", "paginate.size", "10", "paginate.has.more.field", "has_more",
				"auth.type", "api_key", "auth.location", "query", "auth.name", "key", "auth.value", "se-app-key")
		}},
	{name: "PayPal", pages: 3, authOK: issuedToken, tokenAuth: "basic",
		// page/page_size with total_pages; OAuth2 client credentials (client id/secret in Basic).
		serve: func(v *vendorAPI, w http.ResponseWriter, r *http.Request) {
			page, size := atoi(r.URL.Query().Get("page")), atoi(r.URL.Query().Get("page_size"))
			writeJSON(w, map[string]any{"transaction_details": recs((page-1)*size, size, plainID), "account_number": "XYZ", "page": page,
				"total_items": vendorRecords, "total_pages": (vendorRecords + size - 1) / size})
		},
		props: func(b string) connectors.Props {
			return props(b, "url", "BASE/v1/reporting/transactions?start_date=2024-01-01T00:00:00Z", "records.path", "transaction_details",
				"paginate.type", "page", "paginate.size.param", "page_size", "paginate.size", "10", "paginate.total.pages.field", "total_pages",
				"auth.type", "oauth2", "auth.token.url", "BASE/token", "auth.client.id", "pp-client", "auth.client.secret", "pp-secret")
		}},
}

func newVendorAPI(t *testing.T, vd vendor) *vendorAPI {
	v := &vendorAPI{t: t}
	v.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/token" {
			v.token(w, r, vd)
			return
		}
		if !vd.authOK(v, r) {
			http.Error(w, `{"message":"Bad credentials"}`, http.StatusUnauthorized)
			return
		}
		v.pages.Add(1)
		vd.serve(v, w, r)
	}))
	t.Cleanup(v.srv.Close)
	return v
}

// token is a client-credentials token endpoint (RFC 6749 §4.4).
func (v *vendorAPI) token(w http.ResponseWriter, r *http.Request, vd vendor) {
	if err := r.ParseForm(); err != nil || r.Method != http.MethodPost || r.PostForm.Get("grant_type") != "client_credentials" {
		http.Error(w, `{"error":"invalid_request"}`, http.StatusBadRequest)
		return
	}
	id, secret, basic := r.BasicAuth()
	if !basic {
		id, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
	}
	ok := (vd.tokenAuth == "basic") == basic && id != "" && secret != "" && !strings.Contains(r.Header.Get("Referer"), "x")
	if vd.scope != "" && r.PostForm.Get("scope") != vd.scope {
		ok = false
	}
	if !ok {
		http.Error(w, `{"error":"invalid_client"}`, http.StatusUnauthorized)
		return
	}
	n := v.tokens.Add(1)
	writeJSON(w, map[string]any{"access_token": "at-" + strconv.FormatInt(n, 10), "token_type": "Bearer", "expires_in": 3600})
}

// TestVendors reads each vendor's fake in full: every record, in exactly
// the vendor's page count, with its authentication.
func TestVendors(t *testing.T) {
	t.Parallel()
	for _, vd := range vendors {
		t.Run(vd.name, func(t *testing.T) {
			t.Parallel()
			v := newVendorAPI(t, vd)
			p := vd.props(v.base())
			require.NoError(t, connector(t).(connectors.Validator).Validate(nil, p), "the recipe is a valid table definition")
			log := &syncBuffer{}
			f, err := read(t, p, log)
			require.NoError(t, err)
			defer f.Release()
			require.EqualValues(t, vendorRecords, f.NumRows())
			require.EqualValues(t, vd.pages, v.pages.Load(), "page requests")
			if vd.tokenAuth != "" {
				require.EqualValues(t, 1, v.tokens.Load(), "the token is fetched once and cached")
			}
			for k, val := range p {
				if connectors.IsSecretKey(k) {
					require.NotContains(t, log.String(), val, "%s in the log", k)
				}
			}
			// Without credentials the vendor refuses: the read fails, naming the status.
			noAuth := p.Clone()
			for _, k := range noAuth.WithPrefix("svc.restapi.auth.") {
				delete(noAuth, k)
			}
			_, err = read(t, noAuth, nil)
			require.ErrorContains(t, err, "HTTP 401")
		})
	}
}

// TestDocRecipes: every vendor recipe in docs/restapi.md is a table
// definition the connector accepts at CREATE, and there is one per vendor
// the tests fake.
func TestDocRecipes(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("../../docs/restapi.md")
	require.NoError(t, err)
	text := string(doc)
	i := strings.Index(text, "## Vendor recipes")
	require.Positive(t, i)
	pair := regexp.MustCompile(`'([^']*)'='([^']*)'`)
	v := connector(t).(connectors.Validator)
	n := 0
	for _, stmt := range strings.Split(text[i:], "CREATE TABLE ")[1:] {
		props := connectors.Props{}
		for _, m := range pair.FindAllStringSubmatch(stmt, -1) {
			props[m[1]] = m[2]
		}
		require.Equal(t, "RESTAPI", props["svc.storage.type"])
		require.NoError(t, v.Validate(nil, props), "recipe %s", strings.SplitN(stmt, " ", 2)[0])
		n++
	}
	require.Len(t, vendors, n, "one recipe per faked vendor")
	for _, vd := range vendors {
		require.Contains(t, text[i:], "-- "+vd.name+":", "docs/restapi.md has a %s recipe", vd.name)
	}
}
