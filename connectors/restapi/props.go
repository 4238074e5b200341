package restapi

import (
	"fmt"
	"net/http"
	"net/textproto"
	"strings"
	"time"

	"github.com/sluicedata/sluice/connectors"
)

// Property names (CONTRACT §3). Keys are case-sensitive.
const (
	PropPrefix           = "svc.restapi."
	PropURL              = "svc.restapi.url"
	PropURLPattern       = "svc.restapi.url.pattern"
	PropPatternPrefix    = "svc.restapi.pattern."
	PropParsePayload     = "svc.restapi.parse.payload"
	PropUsePayload       = "svc.restapi.use.payload"
	PropWriteMode        = "svc.restapi.write.mode"
	PropRecordsPath      = "svc.restapi.records.path"
	PropNextField        = "svc.restapi.paginate.next.field"
	PropNextParam        = "svc.restapi.paginate.next.param"
	PropMaxPages         = "svc.restapi.paginate.max.pages"
	PropHeaderPrefix     = "svc.restapi.header."
	PropTimeout          = "svc.restapi.timeout"
	PropRetryMax         = "svc.restapi.retry.max"
	PropRetryWaitMin     = "svc.restapi.retry.wait.min"
	PropRetryWaitMax     = "svc.restapi.retry.wait.max"
	PropMaxResponseBytes = "svc.restapi.max.response.bytes"
)

// Defaults of the properties above.
const (
	DefaultMaxPages         = 1000
	DefaultTimeout          = 30 * time.Second
	DefaultRetryMax         = 3
	DefaultRetryWaitMin     = time.Second
	DefaultRetryWaitMax     = 30 * time.Second
	DefaultMaxResponseBytes = 256 << 20
	DefaultWriteMode        = http.MethodPost
)

// PayloadColumn is the one column of a RESTAPI table.
const PayloadColumn = "payload"

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
	// RecordsPath is the dotted path of the records array in parsed mode. Defaults to none.
	RecordsPath string
	// NextField is the dotted path of the next-page token. Defaults to none.
	NextField string
	// NextParam is the query parameter carrying the token. Defaults to none.
	NextParam string
	// MaxPages bounds the pages of one read. Defaults to 1000.
	MaxPages int64
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
}

// paginated reports whether pagination is on: it needs both properties.
func (c *config) paginated() bool { return c.NextField != "" && c.NextParam != "" }

// parseConfig reads the properties into a config, applying defaults. Every
// error names the property at fault.
func parseConfig(p connectors.Props) (*config, error) {
	c := &config{
		RecordsPath: strings.TrimSpace(p.String(PropRecordsPath, "")),
		NextField:   strings.TrimSpace(p.String(PropNextField, "")),
		NextParam:   strings.TrimSpace(p.String(PropNextParam, "")),
		Header:      http.Header{},
	}
	var errs []error
	var err error
	if c.ParsePayload, err = p.Bool(PropParsePayload, false); err != nil {
		errs = append(errs, err)
	}
	if c.UsePayload, err = p.Bool(PropUsePayload, false); err != nil {
		errs = append(errs, err)
	}
	c.WriteMode = strings.ToUpper(strings.TrimSpace(p.String(PropWriteMode, DefaultWriteMode)))
	if c.MaxPages, err = p.Int(PropMaxPages, DefaultMaxPages, 1); err != nil {
		errs = append(errs, err)
	}
	var n int64
	if n, err = p.Int(PropRetryMax, DefaultRetryMax, 0); err != nil {
		errs = append(errs, err)
	} else if n > 100 {
		errs = append(errs, fmt.Errorf("property %s: %d is above the maximum 100", PropRetryMax, n))
	} else {
		c.RetryMax = int(n)
	}
	if c.MaxResponseBytes, err = p.Int(PropMaxResponseBytes, DefaultMaxResponseBytes, 1); err != nil {
		errs = append(errs, err)
	}
	if c.Timeout, err = p.Duration(PropTimeout, DefaultTimeout); err != nil {
		errs = append(errs, err)
	}
	if c.RetryWaitMin, err = p.Duration(PropRetryWaitMin, DefaultRetryWaitMin); err != nil {
		errs = append(errs, err)
	}
	if c.RetryWaitMax, err = p.Duration(PropRetryWaitMax, DefaultRetryWaitMax); err != nil {
		errs = append(errs, err)
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
	if len(errs) > 0 {
		return nil, joinErrors(errs)
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

// joinErrors keeps every property error on one line (the CLI prints one
// line per failure) while errors.Is/As still see each of them.
func joinErrors(errs []error) error {
	if len(errs) == 1 {
		return errs[0]
	}
	msgs := make([]string, len(errs))
	for i, e := range errs {
		msgs[i] = e.Error()
	}
	return &multiError{msg: strings.Join(msgs, "; "), errs: errs}
}

type multiError struct {
	msg  string
	errs []error
}

func (e *multiError) Error() string   { return e.msg }
func (e *multiError) Unwrap() []error { return e.errs }
