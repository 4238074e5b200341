package queue

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func sample() Record {
	last := time.Date(2024, 5, 1, 10, 1, 0, 0, time.UTC)
	return Record{ID: 7, Source: "stripe", WebhookToken: "evt_1", ObjectToken: "pi_1",
		CreationDate: time.Date(2024, 5, 1, 12, 0, 0, 0, time.FixedZone("x", 7200)), ReceptionDate: time.Date(2024, 5, 1, 10, 0, 0, 5e6, time.UTC),
		NotificationType: "payment_intent.succeeded", Status: StatusRetrying, RetryCounter: 1, LastRetryDate: &last}
}

// The dataset's columns are declared once: the record's JSON form has the
// same keys in the same order.
func TestColumnsAreTheJSONKeys(t *testing.T) {
	t.Parallel()
	r := sample()
	dec := json.NewDecoder(strings.NewReader(string(AppendRecordJSON(nil, &r))))
	var keys []string
	tok, err := dec.Token()
	require.NoError(t, err)
	require.Equal(t, json.Delim('{'), tok)
	for dec.More() {
		k, err := dec.Token()
		require.NoError(t, err)
		keys = append(keys, k.(string))
		var v json.RawMessage
		require.NoError(t, dec.Decode(&v))
	}
	var names []string
	for _, c := range Columns {
		names = append(names, c.Name)
		set := 0
		for _, f := range []bool{c.Int != nil, c.Text != nil, c.Time != nil} {
			if f {
				set++
			}
		}
		require.Equal(t, 1, set, "%s: exactly one accessor", c.Name)
		switch c.Kind {
		case KindLong, KindInteger:
			require.NotNil(t, c.Int, c.Name)
		case KindString:
			require.NotNil(t, c.Text, c.Name)
		case KindTimestamp:
			require.NotNil(t, c.Time, c.Name)
		default:
			t.Fatalf("%s: kind %q", c.Name, c.Kind)
		}
	}
	require.Equal(t, names, keys)
}

func TestColumnValues(t *testing.T) {
	t.Parallel()
	r := sample()
	got := map[string]any{}
	for _, c := range Columns {
		switch {
		case c.Int != nil:
			if v, ok := c.Int(&r); ok {
				got[c.Name] = v
			}
		case c.Text != nil:
			if v, ok := c.Text(&r); ok {
				got[c.Name] = v
			}
		case c.Time != nil:
			if v, ok := c.Time(&r); ok {
				got[c.Name] = v.UTC()
			}
		}
		if !c.Nullable {
			require.Contains(t, got, c.Name, "%s is never null", c.Name)
		}
	}
	require.Equal(t, map[string]any{"id": int64(7), "webhookToken": "evt_1", "objectToken": "pi_1",
		"creationDate": time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC), "receptionDate": r.ReceptionDate,
		"notificationType": "payment_intent.succeeded", "status": "RETRYING", "retryCounter": int64(1),
		"lastRetryDate": *r.LastRetryDate, "source": "stripe"}, got, "program and nextRetryDate null")
}

func TestRecordJSONForms(t *testing.T) {
	t.Parallel()
	r := sample()
	fast := AppendRecordJSON(nil, &r)
	slow, err := json.Marshal(r)
	require.NoError(t, err)
	require.Equal(t, string(slow), string(fast))
	require.Contains(t, string(fast), `"program":null,"source":"stripe"}`)
	var back Record
	require.NoError(t, json.Unmarshal(fast, &back))
	r.CreationDate = r.CreationDate.UTC()
	require.Equal(t, r, back)

	var hmc Record
	hmc.WebhookToken, hmc.Program = "wbh-1", "prg-\x01é"
	out := string(AppendRecordJSON(nil, &hmc))
	require.Contains(t, out, `"objectToken":null`)
	require.Contains(t, out, `"creationDate":null`)
	require.Contains(t, out, `"program":"prg-\u0001é"`)
	require.Contains(t, out, `"source":"notifications"`, "no source is the HMC source")
	require.True(t, json.Valid([]byte(out)))
}

func TestTypeOfAndStatuses(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"usr-1": "USR", "PMT-x": "PMT", "stk": "STK", "trm-": "TRM", "trc-1": "UNK", "": "UNK", "-usr": "UNK"} {
		require.Equal(t, want, TypeOf(in), in)
	}
	for _, s := range Statuses {
		require.True(t, s.Valid())
		require.Equal(t, s != StatusPending && s != StatusRetrying, s.Terminal(), s)
	}
	require.False(t, Status("DONE").Valid())
}

func TestBackoff(t *testing.T) {
	t.Parallel()
	require.Equal(t, time.Minute, Backoff(time.Minute, 2, 1))
	require.Equal(t, 4*time.Minute, Backoff(time.Minute, 2, 3))
	require.Equal(t, maxBackoff, Backoff(time.Minute, 1000, 50), "saturates instead of overflowing")
}

func TestTexts(t *testing.T) {
	t.Parallel()
	require.Equal(t, "a\uFFFDb\uFFFD", string(ValidUTF8([]byte("a\xffb\xc3"))))
	require.ErrorContains(t, CheckToken("token", strings.Repeat("x", 256)), `"token" is 256 bytes long`)
	require.ErrorContains(t, CheckToken("token", "a\x00"), "NUL")
	require.ErrorContains(t, CheckToken("token", "\xff"), "UTF-8")
	require.NoError(t, CheckToken("token", strings.Repeat("é", 127)))
	require.Equal(t, "ab…", Excerpt("abcdef", 5))
	require.Equal(t, "é…", Excerpt("éééé", 5), "cut on a rune boundary")
	require.Equal(t, "abc…", TruncateText("abcdef", 3))
	for in, want := range map[string]time.Time{
		"2024-05-01T10:00:00Z":           time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC),
		"2024-05-01t10:00:00.1234z":      time.Date(2024, 5, 1, 10, 0, 0, 123e6, time.UTC),
		"2024-05-01T12:00:00 02:00":      time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC),
		"2024-05-01T10:00:00":            time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC),
		"2024-05-01T09:59:00.877041743Z": time.Date(2024, 5, 1, 9, 59, 0, 877e6, time.UTC),
	} {
		got, err := ParseDateTime(in)
		require.NoError(t, err, in)
		require.Equal(t, want, got, in)
	}
	_, err := ParseDateTime("soon")
	require.ErrorContains(t, err, `"soon" is not an ISO-8601 date-time`)
	var se *json.SyntaxError
	err = json.Unmarshal([]byte(`{"a":}`), &struct{}{})
	require.ErrorAs(t, err, &se)
	require.Contains(t, DescribeJSONError(err), "at byte offset 6")
}
