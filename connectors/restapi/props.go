package restapi

import (
	"fmt"
	"net/http"
	"net/textproto"
	"strings"
	"time"

	"github.com/sluicedata/sluice/connectors"
)

// Property names (see docs/properties.md and docs/restapi.md). Keys are
// case-sensitive.
const (
	PropPrefix           = "svc.restapi."
	PropURL              = "svc.restapi.url"
	PropURLPattern       = "svc.restapi.url.pattern"
	PropPatternPrefix    = "svc.restapi.pattern."
	PropParsePayload     = "svc.restapi.parse.payload"
	PropUsePayload       = "svc.restapi.use.payload"
	PropWriteMode        = "svc.restapi.write.mode"
	PropRecordsPath      = "svc.restapi.records.path"
	PropHeaderPrefix     = "svc.restapi.header."
	PropTimeout          = "svc.restapi.timeout"
	PropRetryMax         = "svc.restapi.retry.max"
	PropRetryWaitMin     = "svc.restapi.retry.wait.min"
	PropRetryWaitMax     = "svc.restapi.retry.wait.max"
	PropMaxResponseBytes = "svc.restapi.max.response.bytes"
	PropAllowedOrigins   = "svc.restapi.allowed.origins"
	PropConcurrency      = "svc.restapi.concurrency"

	PropPaginateType    = "svc.restapi.paginate.type"
	PropNextField       = "svc.restapi.paginate.next.field"
	PropNextHeader      = "svc.restapi.paginate.next.header"
	PropNextRecordField = "svc.restapi.paginate.next.record.field"
	PropNextParam       = "svc.restapi.paginate.next.param"
	PropNextBodyField   = "svc.restapi.paginate.next.body.field"
	PropNextURLField    = "svc.restapi.paginate.next.url.field"
	PropHasMoreField    = "svc.restapi.paginate.has.more.field"
	PropLastPageField   = "svc.restapi.paginate.last.page.field"
	PropLinkHasMoreAttr = "svc.restapi.paginate.link.has.more.attr"
	PropOffsetParam     = "svc.restapi.paginate.offset.param"
	PropLimitParam      = "svc.restapi.paginate.limit.param"
	PropLimit           = "svc.restapi.paginate.limit"
	PropTotalField      = "svc.restapi.paginate.total.field"
	PropOffsetStart     = "svc.restapi.paginate.offset.start"
	PropPageParam       = "svc.restapi.paginate.page.param"
	PropPageStart       = "svc.restapi.paginate.page.start"
	PropSizeParam       = "svc.restapi.paginate.size.param"
	PropSize            = "svc.restapi.paginate.size"
	PropTotalPagesField = "svc.restapi.paginate.total.pages.field"
	PropMaxPages        = "svc.restapi.paginate.max.pages"

	PropAuthType         = "svc.restapi.auth.type"
	PropAuthToken        = "svc.restapi.auth.token"
	PropAuthUsername     = "svc.restapi.auth.username"
	PropAuthPassword     = "svc.restapi.auth.password"
	PropAuthName         = "svc.restapi.auth.name"
	PropAuthValue        = "svc.restapi.auth.value"
	PropAuthLocation     = "svc.restapi.auth.location"
	PropAuthTokenURL     = "svc.restapi.auth.token.url"
	PropAuthClientID     = "svc.restapi.auth.client.id"
	PropAuthClientSecret = "svc.restapi.auth.client.secret"
	PropAuthScopes       = "svc.restapi.auth.scopes"
	PropAuthAudience     = "svc.restapi.auth.audience"
	PropAuthTokenParams  = "svc.restapi.auth.token.params."
	PropAuthClientAuth   = "svc.restapi.auth.client.auth"

	PropRateLimit = "svc.restapi.rate.limit"
	PropRateBurst = "svc.restapi.rate.burst"

	PropResponseFormat     = "svc.restapi.response.format"
	PropResponseOKField    = "svc.restapi.response.ok.field"
	PropResponseErrorField = "svc.restapi.response.error.field"
	PropReadMethod         = "svc.restapi.read.method"
	PropReadBody           = "svc.restapi.read.body"

	PropIncrementalCursor   = "svc.restapi.incremental.cursor"
	PropIncrementalParam    = "svc.restapi.incremental.param"
	PropIncrementalInitial  = "svc.restapi.incremental.initial"
	PropIncrementalEndParam = "svc.restapi.incremental.end.param"
	PropIncrementalEnd      = "svc.restapi.incremental.end"
	PropPrimaryKey          = "svc.restapi.primary.key"

	PropFanoutFrom        = "svc.restapi.fanout.from"
	PropFanoutColumn      = "svc.restapi.fanout.column"
	PropFanoutToken       = "svc.restapi.fanout.token"
	PropFanoutConcurrency = "svc.restapi.fanout.concurrency"
	PropFanoutOnError     = "svc.restapi.fanout.on.error"
)

// Defaults of the properties above, as Go values; the declaration below
// prints them.
const (
	DefaultMaxPages         = 1000
	DefaultTimeout          = 30 * time.Second
	DefaultRetryMax         = 3
	DefaultRetryWaitMin     = time.Second
	DefaultRetryWaitMax     = 30 * time.Second
	DefaultMaxResponseBytes = 256 << 20
	DefaultConcurrency      = 4
	DefaultWriteMode        = http.MethodPost
)

// maxConcurrency bounds svc.restapi.concurrency.
const maxConcurrency = 64

// PayloadColumn is the one column of a RESTAPI table.
const PayloadColumn = "payload"

// Properties declares every svc.restapi.* property: validation, redaction,
// DESCRIBE and docs/properties.md all read it.
var Properties = &connectors.PropertySet{
	Connector: Type,
	Prefix:    PropPrefix,
	Open:      true,
	StrictPrefixes: []string{"paginate.", "retry.", "auth.", "rate.", "incremental.", "fanout.",
		"records.", "write.", "read.", "response."},
	Specs: []connectors.PropertySpec{
		{Name: PropURL, Doc: "Complete request URL; when set, patterns are ignored. `{tokens}` are resolved."},
		{Name: PropURLPattern, Doc: "Name of the property holding the URL template, e.g. `svc.restapi.pattern.subscriptions`."},
		{Name: PropPatternPrefix, Family: true, Doc: "A URL template; `{<full property name>}` tokens are replaced by that property's value."},
		{Name: PropHeaderPrefix, Family: true, SecretByName: true, Doc: "Request header `<name>`. Secret, and dropped on a redirect to another origin, when the name contains key, token, secret or auth."},
		{Name: PropParsePayload, Kind: connectors.KindBool, Default: "false", Doc: "true: the response is parsed into typed columns; false: one `payload` row per page."},
		{Name: PropUsePayload, Kind: connectors.KindBool, Default: "false", Doc: "Write: the body is the `payload` column's text, sent as is."},
		{Name: PropWriteMode, Kind: connectors.KindEnum, Enum: []string{"POST", "PUT"}, Default: "POST", Doc: "Write method."},
		{Name: PropRecordsPath, Doc: "Dotted path of the records array in the response (parsed mode gives one row per element). See docs/restapi.md#dotted-paths."},
		{Name: PropReadMethod, Kind: connectors.KindEnum, Enum: []string{"GET", "POST"}, Default: "GET", Doc: "Read method; POST reads are retried like GET."},
		{Name: PropReadBody, Kind: connectors.KindJSON, Doc: "JSON body of a POST read; `{tokens}` are resolved as in URLs."},
		{Name: PropResponseFormat, Kind: connectors.KindEnum, Enum: []string{"json", "ndjson", "csv"}, Default: "json", Doc: "Format of the response body. See docs/restapi.md#response-formats."},
		{Name: PropResponseOKField, Doc: "Dotted path of a boolean; a page where it is false is an error (Slack's `ok`)."},
		{Name: PropResponseErrorField, Doc: "Dotted path; a page where it is present and not null is an error."},

		{Name: PropPaginateType, Kind: connectors.KindEnum, Enum: []string{"token", "next_url", "link", "offset", "page", "none"}, Doc: "Pagination strategy. Default: `token` when `next.field`, `next.header`, `next.record.field` or `next.param` is set, else `none`. See docs/restapi.md#pagination."},
		{Name: PropNextField, Doc: "token: dotted path of the next-page token in the body."},
		{Name: PropNextHeader, Doc: "token: response header holding the next-page token."},
		{Name: PropNextRecordField, Doc: "token: field of the page's last record that is the next token (Stripe's `id`)."},
		{Name: PropNextParam, Doc: "token: query parameter that carries the token on the next request."},
		{Name: PropNextBodyField, Doc: "token with `read.method=POST`: dotted path set to the token in the request body (Notion's `start_cursor`)."},
		{Name: PropNextURLField, Default: "next", Doc: "next_url: dotted path of the next page's URL (relative URLs resolve against the page's URL)."},
		{Name: PropHasMoreField, Doc: "Any type: stop after a page where this boolean is false (`has_more`)."},
		{Name: PropLastPageField, Doc: "Any type: stop after a page where this boolean is true (Jira's `isLast`, Salesforce's `done`)."},
		{Name: PropLinkHasMoreAttr, Doc: "link: stop when this attribute of the next link is `false` (Sentry's `results`)."},
		{Name: PropOffsetParam, Default: "offset", Doc: "offset: query parameter of the offset."},
		{Name: PropLimitParam, Default: "limit", Doc: "offset: query parameter of the page size."},
		{Name: PropLimit, Kind: connectors.KindInt, Min: 1, Default: "100", Doc: "offset: page size sent in `limit.param`."},
		{Name: PropTotalField, Doc: "offset: dotted path of the total record count; stop when offset ≥ total or a page is empty."},
		{Name: PropOffsetStart, Kind: connectors.KindInt, Default: "0", Doc: "offset: the first offset."},
		{Name: PropPageParam, Default: "page", Doc: "page: query parameter of the page number."},
		{Name: PropPageStart, Kind: connectors.KindInt, Default: "1", Doc: "page: the first page number."},
		{Name: PropSizeParam, Doc: "page: query parameter of the page size (with `size`)."},
		{Name: PropSize, Kind: connectors.KindInt, Min: 1, Doc: "page: page size sent in `size.param`."},
		{Name: PropTotalPagesField, Doc: "page: dotted path of the number of pages; stop after that page."},
		{Name: PropMaxPages, Kind: connectors.KindInt, Min: 1, Default: "1000", Doc: "Hard stop; reaching it with pages left is an error."},

		{Name: PropAuthType, Kind: connectors.KindEnum, Enum: []string{"bearer", "basic", "api_key", "oauth2"}, Doc: "Authentication scheme. See docs/restapi.md#authentication."},
		{Name: PropAuthToken, Secret: true, Doc: "bearer: the token sent as `Authorization: Bearer …`."},
		{Name: PropAuthUsername, Doc: "basic: user name."},
		{Name: PropAuthPassword, Secret: true, Doc: "basic: password."},
		{Name: PropAuthName, Doc: "api_key: header or query parameter name; a query parameter of that name is redacted."},
		{Name: PropAuthValue, Secret: true, Doc: "api_key: the key."},
		{Name: PropAuthLocation, Kind: connectors.KindEnum, Enum: []string{"header", "query"}, Default: "header", Doc: "api_key: where the key goes."},
		{Name: PropAuthTokenURL, Doc: "oauth2: token endpoint (client credentials grant)."},
		{Name: PropAuthClientID, Doc: "oauth2: client id."},
		{Name: PropAuthClientSecret, Secret: true, Doc: "oauth2: client secret."},
		{Name: PropAuthScopes, Kind: connectors.KindList, Doc: "oauth2: comma list of scopes, sent space-separated as `scope`."},
		{Name: PropAuthAudience, Doc: "oauth2: sent as the form field `audience`."},
		{Name: PropAuthTokenParams, Family: true, Secret: true, Doc: "oauth2: extra form field `<name>` of the token request (a JWT assertion, a signed secret: always masked)."},
		{Name: PropAuthClientAuth, Kind: connectors.KindEnum, Enum: []string{"basic", "body"}, Default: "basic", Doc: "oauth2: client credentials in an HTTP Basic header or in the form body."},

		{Name: PropRateLimit, Kind: connectors.KindDecimal, Doc: "Requests per second for every request of a read or write (fan-out included). Default: unlimited."},
		{Name: PropRateBurst, Kind: connectors.KindInt, Min: 1, Default: "1", Doc: "Token bucket size of `rate.limit`."},
		{Name: PropTimeout, Kind: connectors.KindDuration, Default: "30s", Doc: "Per request, body included."},
		{Name: PropRetryMax, Kind: connectors.KindInt, Default: "3", Doc: "Retries (not attempts) on connection errors, 429 and 5xx; at most 100."},
		{Name: PropRetryWaitMin, Kind: connectors.KindDuration, Default: "1s", Doc: "First back-off wait, doubling per retry."},
		{Name: PropRetryWaitMax, Kind: connectors.KindDuration, Default: "30s", Doc: "Cap of back-off, `Retry-After` and rate-limit header waits."},
		{Name: PropMaxResponseBytes, Kind: connectors.KindInt, Min: 1, Default: "268435456", Doc: "A larger body (decoded) is an error, never a truncated row; response headers are limited to 1 MiB."},
		{Name: PropAllowedOrigins, Kind: connectors.KindList, Doc: "Comma list of `scheme://host[:port]` origins that get the table's requests and credentials besides its URL's own: next-page URLs, fan-out child URLs and redirects there. See docs/restapi.md#origins."},
		{Name: PropConcurrency, Kind: connectors.KindInt, Min: 1, Default: "4", Doc: "Page requests in flight at once for `offset` and `page` pagination whose total the first page gives (`total.field`, `total.pages.field`); other types read page by page. See docs/restapi.md#concurrency."},

		{Name: PropIncrementalCursor, Doc: "Incremental reads: dotted path of the cursor in each record (`updated_at`)."},
		{Name: PropIncrementalParam, Doc: "Incremental reads: query parameter carrying the last value (`since`)."},
		{Name: PropIncrementalInitial, Doc: "Incremental reads: value sent on the first run."},
		{Name: PropIncrementalEndParam, Doc: "Incremental reads: query parameter of the end value."},
		{Name: PropIncrementalEnd, Doc: "Incremental reads: end value sent on every request."},
		{Name: PropPrimaryKey, Doc: "Incremental reads: column whose already-seen keys at the last value are dropped."},

		{Name: PropFanoutFrom, Doc: "Fan-out: parent catalog table (or pipeline step id)."},
		{Name: PropFanoutColumn, Doc: "Fan-out: parent column or dotted path of it."},
		{Name: PropFanoutToken, Doc: "Fan-out: property name used as a `{token}` in the child's pattern."},
		{Name: PropFanoutConcurrency, Kind: connectors.KindInt, Min: 1, Default: "4", Doc: "Fan-out: child reads at once."},
		{Name: PropFanoutOnError, Kind: connectors.KindEnum, Enum: []string{"fail", "skip"}, Default: "fail", Doc: "Fan-out: `skip` warns about a failed child and goes on."},
	},
}

// Properties returns the connector's property declaration.
func (*Connector) Properties() *connectors.PropertySet { return Properties }

// config is the typed form of a dataset's svc.restapi.* properties. The URL
// is not part of it: it is resolved at read/write time because its tokens
// may come from session settings set after CREATE.
type config struct {
	// ParsePayload parses each page as JSON into typed columns. Defaults to false.
	ParsePayload bool
	// UsePayload sends the payload column's text as the write body. Defaults to false.
	UsePayload bool
	// WriteMode is the write method, POST or PUT. Defaults to POST.
	WriteMode string
	// Header holds the svc.restapi.header.<Name> request headers. Defaults to none.
	Header http.Header
	// Timeout bounds each request, body included. Defaults to 30s.
	Timeout time.Duration
	// RetryMax is the number of retries per request. Defaults to 3.
	RetryMax int
	// RetryWaitMin is the first back-off wait. Defaults to 1s.
	RetryWaitMin time.Duration
	// RetryWaitMax caps the back-off and Retry-After waits. Defaults to 30s.
	RetryWaitMax time.Duration
	// MaxResponseBytes is the largest body accepted. Defaults to 268435456.
	MaxResponseBytes int64
	// Auth is the authentication scheme. Defaults to none (nil).
	Auth *authConfig
	// AllowedOrigins get requests and credentials besides the table's
	// URL's origin. Defaults to none.
	AllowedOrigins map[origin]bool
	// Concurrency bounds the page requests in flight where pages are
	// addressable. Defaults to 4.
	Concurrency int
}

// parseConfig reads the properties into a config, applying defaults. Every
// error names the property at fault.
func parseConfig(p connectors.Props) (*config, error) {
	// Names and value types first: a misspelt name must not fall back to
	// a default silently.
	if err := Properties.Validate(p); err != nil {
		return nil, err
	}
	c := &config{
		Header: http.Header{},
	}
	// The values parse: Validate checked each against its kind.
	c.ParsePayload, _ = Properties.Bool(p, PropParsePayload)
	c.UsePayload, _ = Properties.Bool(p, PropUsePayload)
	c.WriteMode, _ = Properties.Enum(p, PropWriteMode)
	c.MaxResponseBytes, _ = Properties.Int(p, PropMaxResponseBytes)
	c.Timeout, _ = Properties.Duration(p, PropTimeout)
	c.RetryWaitMin, _ = Properties.Duration(p, PropRetryWaitMin)
	c.RetryWaitMax, _ = Properties.Duration(p, PropRetryWaitMax)
	var errs []error
	var err error
	if n, _ := Properties.Int(p, PropRetryMax); n > 100 {
		errs = append(errs, fmt.Errorf("property %s: %d is above the maximum 100", PropRetryMax, n))
	} else {
		c.RetryMax = int(n)
	}
	for _, k := range p.WithPrefix(PropHeaderPrefix) {
		name := strings.TrimPrefix(k, PropHeaderPrefix)
		if !validHeaderName(name) {
			errs = append(errs, fmt.Errorf("property %s: %q is not a valid header name", k, name))
			continue
		}
		v := p[k]
		if strings.ContainsAny(v, "\r\n\x00") {
			// The value is not quoted: it may be a credential.
			errs = append(errs, fmt.Errorf("property %s: the value contains a line break or NUL", k))
			continue
		}
		c.Header.Set(textproto.CanonicalMIMEHeaderKey(name), v)
	}
	if c.Auth, err = parseAuth(p); err != nil {
		errs = append(errs, err)
	}
	if c.AllowedOrigins, err = parseAllowedOrigins(p); err != nil {
		errs = append(errs, err)
	}
	if n, _ := Properties.Int(p, PropConcurrency); n > maxConcurrency {
		errs = append(errs, fmt.Errorf("property %s: %d is above the maximum %d", PropConcurrency, n, maxConcurrency))
	} else {
		c.Concurrency = int(n)
	}
	if _, err := NewLimiter(p); err != nil {
		errs = append(errs, err)
	}
	if len(errs) > 0 {
		return nil, connectors.JoinErrors(errs)
	}
	if err := c.validate(); err != nil {
		return nil, err
	}
	return c, nil
}

func (c *config) validate() error {
	switch c.WriteMode {
	case http.MethodPost, http.MethodPut:
	default:
		return fmt.Errorf("property %s: %q is not a write mode (POST or PUT)", PropWriteMode, c.WriteMode)
	}
	if c.Timeout <= 0 {
		return fmt.Errorf("property %s: must be positive", PropTimeout)
	}
	if c.RetryWaitMax < c.RetryWaitMin {
		return fmt.Errorf("property %s: %s is below %s (%s)", PropRetryWaitMax, c.RetryWaitMax, PropRetryWaitMin, c.RetryWaitMin)
	}
	return nil
}

func validHeaderName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0:
		default:
			return false
		}
	}
	return true
}
