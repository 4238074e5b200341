package source

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/sluicedata/sluice/internal/jsonpath"
	"github.com/sluicedata/sluice/notifications/queue"
)

// MappingConfig says where a source's records take their fields from
// (docs/sidecar.md#mapping): a dotted path into the JSON body (`data.object.id`;
// a key equal to the whole path matches first, `\.` is a dot inside a key)
// or `header:Name` for a request header. A key left empty takes the
// scheme's default.
type MappingConfig struct {
	// Token is the de-duplication key: a delivery whose token is stored
	// already is acknowledged and discarded. Required unless the scheme has
	// a delivery id (webhook-id, X-GitHub-Delivery, X-Shopify-Webhook-Id).
	Token string
	// Type becomes notificationType, as received.
	Type string
	// CreatedOn becomes creationDate: RFC 3339, or Unix seconds or
	// milliseconds (a number ≥ 10^11 is milliseconds). Absent: the
	// reception time.
	CreatedOn string
	// ObjectToken becomes objectToken: the obsolete and supersede rules
	// compare records of one object and type. Defaults to none.
	ObjectToken string
	// Program becomes program. Defaults to none.
	Program string
}

// mappingKeys are MappingConfig's keys as the file names them.
var mappingKeys = []string{"token", "type", "createdOn", "objectToken", "program"}

func (m *MappingConfig) fields() []*string {
	return []*string{&m.Token, &m.Type, &m.CreatedOn, &m.ObjectToken, &m.Program}
}

// withDefaults is m with its empty keys taken from d.
func (m MappingConfig) withDefaults(d MappingConfig) MappingConfig {
	out := m
	dst, src := out.fields(), d.fields()
	for i := range dst {
		if *dst[i] == "" {
			*dst[i] = *src[i]
		}
	}
	return out
}

// field is where one mapped value comes from.
type field struct {
	key    string // the mapping key (token, type, …)
	text   string // as written
	header string // a request header's name, for header:Name
	slots  []int  // the trie slots of its key sequences, in the order tried
}

func (f *field) set() bool { return f.text != "" }

// headerPrefix marks a mapping that reads a request header.
const headerPrefix = "header:"

// parseField reads a mapping value. Body paths give their key sequences:
// the whole path as one key first (when it has dots), then its dotted keys.
func parseField(key, s string) (field, [][]string, error) {
	f := field{key: key, text: s}
	if s == "" {
		return f, nil, nil
	}
	if name, ok := strings.CutPrefix(s, headerPrefix); ok {
		name = strings.TrimSpace(name)
		if name == "" || strings.ContainsAny(name, " \t:()<>@,;\\\"/[]?={}") {
			return f, nil, fmt.Errorf("mapping.%s: %q does not name a header (want header:X-Name)", key, s)
		}
		f.header = name
		return f, nil, nil
	}
	segs, err := jsonpath.Split(s)
	if err != nil {
		return f, nil, fmt.Errorf("mapping.%s: %w", key, err)
	}
	seqs := [][]string{segs}
	if len(segs) > 1 {
		seqs = [][]string{{jsonpath.Whole(s)}, segs}
	}
	return f, seqs, nil
}

// Mapping turns a verified delivery into a PENDING record: the map stage of
// intake (docs/sidecar.md#mapping). It is compiled once per source.
type Mapping struct {
	token, typ, createdOn, objectToken, program field
	trie                                        trie
	slots                                       int
	// hmc applies the HMC body's rules (docs/http-api.md#intake): plain
	// dotted keys, strings only, the type derived from the object token,
	// the messages HMC users know.
	hmc bool
}

// NewMapping compiles a mapping; every key it needs must be set (the
// scheme's defaults merged in first).
func NewMapping(c MappingConfig) (*Mapping, error) {
	return compileMapping(c, false)
}

// hmcMapping is the HMC source's body (docs/http-api.md#intake).
var hmcMapping = func() *Mapping {
	m, err := compileMapping(MappingConfig{Token: "token", CreatedOn: "createdOn", ObjectToken: "object.token",
		Program: "object.programToken"}, true)
	if err != nil {
		panic(err)
	}
	return m
}()

func compileMapping(c MappingConfig, hmc bool) (*Mapping, error) {
	m := &Mapping{hmc: hmc}
	dst := []*field{&m.token, &m.typ, &m.createdOn, &m.objectToken, &m.program}
	for i, v := range c.fields() {
		f, seqs, err := parseField(mappingKeys[i], strings.TrimSpace(*v))
		if err != nil {
			return nil, err
		}
		if hmc && len(seqs) > 1 {
			seqs = seqs[1:] // HMC reads plain dotted keys only
		}
		for _, seq := range seqs {
			m.trie.add(seq, m.slots)
			f.slots = append(f.slots, m.slots)
			m.slots++
		}
		*dst[i] = f
	}
	if !m.token.set() {
		return nil, fmt.Errorf("mapping.token is required: it is the de-duplication key (a body path such as id, or header:X-Delivery-Id)")
	}
	return m, nil
}

// Config is the mapping as written, for messages and docs.
func (m *Mapping) Config() MappingConfig {
	return MappingConfig{Token: m.token.text, Type: m.typ.text, CreatedOn: m.createdOn.text,
		ObjectToken: m.objectToken.text, Program: m.program.text}
}

// ParseHMC turns an HMC webhook body into a PENDING record received at now
// (docs/http-api.md#intake): the default source's mapping.
func ParseHMC(body []byte, now time.Time) (queue.Record, error) {
	return hmcMapping.Apply(body, nil, now)
}

// Apply turns body, received with headers h at now, into a PENDING record
// (without its source). The record's Payload is a copy of body. A body the
// mapping cannot read gives a *queue.IntakeError saying what and where.
func (m *Mapping) Apply(body []byte, h Headers, now time.Time) (queue.Record, error) {
	if len(bytes.TrimSpace(body)) == 0 {
		if m.hmc {
			return queue.Record{}, &queue.IntakeError{Msg: "empty body: want the provider's webhook JSON object"}
		}
		return queue.Record{}, &queue.IntakeError{Msg: "empty body: want a JSON object"}
	}
	if !json.Valid(body) {
		// encoding/json says what is wrong and where.
		var v any
		err := json.Unmarshal(body, &v)
		if err == nil {
			err = fmt.Errorf("invalid JSON")
		}
		return queue.Record{}, &queue.IntakeError{Msg: "malformed webhook JSON: " + queue.DescribeJSONError(err)}
	}
	i := skipWS(body, 0)
	if body[i] != '{' {
		return queue.Record{}, &queue.IntakeError{Msg: "malformed webhook JSON: " + errNotObject.Error()}
	}
	var buf [16][]byte
	raw := buf[:0]
	if m.slots > len(buf) {
		raw = make([][]byte, m.slots)
	} else {
		raw = buf[:m.slots]
	}
	m.trie.walk(body, i, raw)
	if m.hmc {
		return m.applyHMC(body, raw, now)
	}
	now = queue.Truncate(now)
	rec := queue.Record{ReceptionDate: now, CreationDate: now, Status: queue.StatusPending}
	var err error
	if rec.WebhookToken, err = m.text(&m.token, raw, h); err != nil {
		return queue.Record{}, err
	}
	if rec.WebhookToken == "" {
		return queue.Record{}, &queue.IntakeError{Msg: fmt.Sprintf(
			"missing the token at %s (mapping.token): the de-duplication key is required", strconv.Quote(m.token.text))}
	}
	if rec.NotificationType, err = m.text(&m.typ, raw, h); err != nil {
		return queue.Record{}, err
	}
	if rec.ObjectToken, err = m.text(&m.objectToken, raw, h); err != nil {
		return queue.Record{}, err
	}
	if rec.Program, err = m.text(&m.program, raw, h); err != nil {
		return queue.Record{}, err
	}
	if t, ok, err := m.date(raw, h); err != nil {
		return queue.Record{}, err
	} else if ok {
		rec.CreationDate = t
	}
	for _, f := range []struct {
		f *field
		v string
	}{{&m.token, rec.WebhookToken}, {&m.typ, rec.NotificationType}, {&m.objectToken, rec.ObjectToken}, {&m.program, rec.Program}} {
		if err := queue.CheckToken("mapping."+f.f.key, f.v); err != nil {
			return queue.Record{}, &queue.IntakeError{Msg: err.Error()}
		}
	}
	rec.Payload = bytes.Clone(body)
	return rec, nil
}

// value is the raw JSON a body field found (the first of its key
// sequences that is present), or its header's value.
func (m *Mapping) value(f *field, raw [][]byte, h Headers) (json []byte, hdr string, found bool) {
	if f.header != "" {
		if h == nil {
			return nil, "", false
		}
		v := strings.TrimSpace(h.Get(f.header))
		return nil, v, v != ""
	}
	for _, s := range f.slots {
		if raw[s] != nil {
			return raw[s], "", true
		}
	}
	return nil, "", false
}

// text reads a field as text: a string as decoded, a number as written;
// absent or null is "". Anything else is a 400 naming the field.
func (m *Mapping) text(f *field, raw [][]byte, h Headers) (string, error) {
	if !f.set() {
		return "", nil
	}
	v, hdr, found := m.value(f, raw, h)
	if !found {
		return "", nil
	}
	if f.header != "" {
		return hdr, nil
	}
	switch c := v[0]; {
	case c == 'n':
		return "", nil
	case c == '"':
		return unquote(v)
	case c == '-' || (c >= '0' && c <= '9'):
		return string(v), nil
	}
	return "", &queue.IntakeError{Msg: fmt.Sprintf("%s (mapping.%s) must be a string or a number, got %s",
		strconv.Quote(f.text), f.key, kindOf(v))}
}

// date reads createdOn: RFC 3339 text, or Unix seconds or milliseconds as
// a number or a text of digits; absent or null is not ok.
func (m *Mapping) date(raw [][]byte, h Headers) (time.Time, bool, error) {
	f := &m.createdOn
	if !f.set() {
		return time.Time{}, false, nil
	}
	v, hdr, found := m.value(f, raw, h)
	if !found || (v != nil && v[0] == 'n') {
		return time.Time{}, false, nil
	}
	bad := func(what string) error {
		return &queue.IntakeError{Msg: fmt.Sprintf("%s (mapping.createdOn) must be an RFC 3339 date-time or Unix seconds or milliseconds, got %s",
			strconv.Quote(f.text), what)}
	}
	text := hdr
	if v != nil {
		switch c := v[0]; {
		case c == '"':
			s, err := unquote(v)
			if err != nil {
				return time.Time{}, false, bad("an unreadable string")
			}
			text = s
		case c == '-' || (c >= '0' && c <= '9'):
			n, err := strconv.ParseFloat(string(v), 64)
			if err != nil {
				return time.Time{}, false, bad(strconv.Quote(queue.TruncateText(string(v), 40)))
			}
			t, err := UnixTime(n)
			if err != nil {
				return time.Time{}, false, bad(err.Error())
			}
			return t, true, nil
		default:
			return time.Time{}, false, bad(kindOf(v))
		}
	}
	text = strings.TrimSpace(text)
	if text != "" && strings.Trim(text, "0123456789") == "" {
		n, err := strconv.ParseFloat(text, 64)
		if err == nil {
			if t, err := UnixTime(n); err == nil {
				return t, true, nil
			}
		}
		return time.Time{}, false, bad(strconv.Quote(queue.TruncateText(text, 40)))
	}
	t, err := queue.ParseDateTime(text)
	if err != nil {
		return time.Time{}, false, bad(strconv.Quote(queue.TruncateText(text, 64)))
	}
	return t, true, nil
}

// UnixMillisFrom is the magnitude from which a Unix time is milliseconds
// (docs/sidecar.md#timestamps): 10^11 seconds is the year 5138.
const UnixMillisFrom = 1e11

// UnixTime reads Unix seconds, or milliseconds from UnixMillisFrom on,
// truncated to milliseconds.
func UnixTime(n float64) (time.Time, error) {
	if math.IsNaN(n) || math.IsInf(n, 0) || n < 0 || n >= 1e15 {
		return time.Time{}, fmt.Errorf("%v is not a Unix time", n)
	}
	ms := n * 1000
	if n >= UnixMillisFrom {
		ms = n
	}
	return time.UnixMilli(int64(ms)).UTC(), nil
}

func kindOf(v []byte) string {
	switch v[0] {
	case '{':
		return "a JSON object"
	case '[':
		return "a JSON array"
	case 't', 'f':
		return "a JSON boolean"
	case '"':
		return "a JSON string"
	}
	return "a JSON number"
}

// applyHMC reads the HMC body's fields with HMC's rules and messages
// (docs/http-api.md#intake): token a string; createdOn ISO-8601 text;
// object.token and object.programToken strings, anything else counting as
// missing (type UNK, no program) so that the delivery is not lost.
func (m *Mapping) applyHMC(body []byte, raw [][]byte, now time.Time) (queue.Record, error) {
	tok, _, _ := m.value(&m.token, raw, nil)
	var token string
	if tok != nil {
		s, err := stringValue("token", tok)
		if err != nil {
			return queue.Record{}, &queue.IntakeError{Msg: "malformed webhook JSON: " + queue.DescribeJSONError(err)}
		}
		if s != nil {
			token = *s
		}
	}
	if token == "" {
		return queue.Record{}, &queue.IntakeError{Msg: `missing "token": the webhook token is required`}
	}
	now = queue.Truncate(now)
	rec := queue.Record{WebhookToken: token, ReceptionDate: now, CreationDate: now, Status: queue.StatusPending}
	if cd, _, _ := m.value(&m.createdOn, raw, nil); cd != nil && cd[0] != 'n' {
		if cd[0] != '"' {
			return queue.Record{}, &queue.IntakeError{Msg: fmt.Sprintf(`"createdOn" must be an ISO-8601 date-time string, got %s`,
				queue.TruncateText(string(cd), 64))}
		}
		s, err := unquote(cd)
		if err != nil {
			return queue.Record{}, &queue.IntakeError{Msg: "malformed webhook JSON: " + err.Error()}
		}
		t, err := queue.ParseDateTime(s)
		if err != nil {
			return queue.Record{}, &queue.IntakeError{Msg: `"createdOn": ` + queue.TruncateText(err.Error(), 128)}
		}
		rec.CreationDate = t
	}
	for _, f := range []struct {
		f   *field
		dst *string
	}{{&m.objectToken, &rec.ObjectToken}, {&m.program, &rec.Program}} {
		if v, _, _ := m.value(f.f, raw, nil); v != nil && v[0] == '"' {
			s, err := unquote(v)
			if err != nil {
				return queue.Record{}, &queue.IntakeError{Msg: "malformed webhook JSON: " + err.Error()}
			}
			*f.dst = s
		}
	}
	// No store keeps NUL bytes faithfully (Postgres refuses them), and an
	// index row has a size limit: the same tokens are refused everywhere.
	if err := queue.CheckTokens(&rec); err != nil {
		return queue.Record{}, &queue.IntakeError{Msg: err.Error()}
	}
	rec.NotificationType = queue.TypeOf(rec.ObjectToken)
	rec.Payload = bytes.Clone(body)
	return rec, nil
}
