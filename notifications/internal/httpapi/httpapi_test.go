package httpapi

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/andybalholm/brotli"
	"github.com/gofiber/fiber/v2"
	"github.com/parquet-go/parquet-go"
	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/notifications/queue"
)

func TestEncodings(t *testing.T) {
	t.Parallel()
	got, err := encodings("gzip, identity, br")
	require.NoError(t, err)
	require.Equal(t, []string{"gzip", "br"}, got)
	got, err = encodings("")
	require.NoError(t, err)
	require.Empty(t, got)
	_, err = encodings("zstd\x01")
	var be *bodyError
	require.ErrorAs(t, err, &be)
	require.Equal(t, 415, be.status)
	require.Contains(t, be.msg, `"zstd\x01"`, "quoted and escaped, not echoed raw")

	plain := []byte(`{"token":"wbh-1"}`)
	var gz, zl, raw, br bytes.Buffer
	for _, w := range []io.WriteCloser{gzip.NewWriter(&gz), zlib.NewWriter(&zl), must(flate.NewWriter(&raw, 5)), brotli.NewWriter(&br)} {
		_, _ = w.Write(plain)
		require.NoError(t, w.Close())
	}
	for _, c := range []struct {
		coding string
		b      []byte
	}{{"gzip", gz.Bytes()}, {"x-gzip", gz.Bytes()}, {"deflate", zl.Bytes()}, {"deflate", raw.Bytes()}, {"br", br.Bytes()}} {
		r, err := decoder(c.coding, c.b)
		require.NoError(t, err, c.coding)
		out, err := readAtMost(r, 100, -1)
		require.NoError(t, err, c.coding)
		require.Equal(t, plain, out, c.coding)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func TestReadAtMost(t *testing.T) {
	t.Parallel()
	b, err := readAtMost(strings.NewReader("12345"), 5, 5)
	require.NoError(t, err)
	require.Equal(t, "12345", string(b))
	_, err = readAtMost(strings.NewReader("123456"), 5, 1<<30)
	require.ErrorIs(t, err, errTooLarge, "a limit past the announced length")
}

func TestRoutesAllowed(t *testing.T) {
	t.Parallel()
	r := &routes{app: fiber.New()}
	h := func(*fiber.Ctx) error { return nil }
	r.add(fiber.MethodPost, "/webhooks/acme", h)
	r.add(fiber.MethodGet, "/webhooks/notifications/:token", h)
	r.add(fiber.MethodDelete, "/webhooks/notifications/:token", h)
	require.Equal(t, []string{"POST"}, r.allowed("/webhooks/acme/"))
	require.Equal(t, []string{"DELETE", "GET"}, r.allowed("/webhooks/notifications/wbh-1"))
	require.Empty(t, r.allowed("/webhooks/acme/x"))
}

func TestCursor(t *testing.T) {
	t.Parallel()
	rec := &queue.Record{ID: 42, ReceptionDate: time.Date(2024, 5, 1, 10, 0, 0, 5e6, time.UTC)}
	c, err := decodeCursor(encodeCursor(rec))
	require.NoError(t, err)
	require.Equal(t, queue.Cursor{Reception: rec.ReceptionDate, ID: 42}, c)
	for _, bad := range []string{"!!", "bm9wZQ", "MS4tMQ"} {
		_, err := decodeCursor(bad)
		require.ErrorContains(t, err, `"after" is not a cursor`, bad)
	}
}

// The Parquet export follows the one column declaration, in its order and
// with its types and nullability.
func TestParquetSchemaFromColumns(t *testing.T) {
	t.Parallel()
	fields := parquetSchema.Fields()
	require.Len(t, fields, len(queue.Columns))
	for i, c := range queue.Columns {
		f := fields[i]
		require.Equal(t, c.Name, f.Name())
		require.Equal(t, c.Nullable, f.Optional(), c.Name)
		want := map[queue.ColumnKind]parquet.Kind{queue.KindLong: parquet.Int64, queue.KindInteger: parquet.Int32,
			queue.KindString: parquet.ByteArray, queue.KindTimestamp: parquet.Int64}[c.Kind]
		require.Equal(t, want, f.Type().Kind(), c.Name)
		if c.Kind == queue.KindTimestamp { // Spark's timestamp: TIMESTAMP_MICROS, adjusted to UTC
			require.Equal(t, "TIMESTAMP(isAdjustedToUTC=true,unit=MICROS)", f.Type().LogicalType().Value.String(), c.Name)
		}
	}
	rec := &queue.Record{ID: 3, WebhookToken: "w", CreationDate: time.UnixMilli(1), ReceptionDate: time.UnixMilli(2),
		NotificationType: "T", Status: queue.StatusPending, Source: "acme"}
	row := parquetRow(nil, rec)
	require.Len(t, row, len(queue.Columns))
	for i, v := range row {
		require.Equal(t, i, v.Column())
		c := queue.Columns[i]
		switch c.Name {
		case "objectToken", "program", "lastRetryDate", "nextRetryDate":
			require.True(t, v.IsNull(), c.Name)
		default:
			require.False(t, v.IsNull(), c.Name)
		}
	}
	require.Equal(t, "acme", string(row[len(row)-1].ByteArray()))
	require.Equal(t, int64(2000), row[4].Int64(), "receptionDate in microseconds")
	require.Equal(t, "", csvValue(&queue.Columns[2], rec), "null objectToken")
	require.Equal(t, "1970-01-01T00:00:00.001Z", csvValue(&queue.Columns[3], rec))
}

func TestRecordDetail(t *testing.T) {
	t.Parallel()
	rec := &queue.Record{ID: 1, WebhookToken: "w", Status: queue.StatusRetrying, LastError: "marketplace answered 500 (3-byte body)"}
	b, err := recordDetail(rec, []queue.Attempt{{Attempt: 1, At: time.UnixMilli(0), Outcome: "retrying", HTTPStatus: 500, DurationMS: 4,
		Error: rec.LastError}, {Attempt: 2, At: time.UnixMilli(0), Outcome: "success", HTTPStatus: 200}})
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	require.Equal(t, rec.LastError, m["lastError"])
	attempts := m["attempts"].([]any)
	require.Len(t, attempts, 2)
	require.EqualValues(t, 200, attempts[1].(map[string]any)["httpStatus"], "a success's status")
	require.Nil(t, attempts[1].(map[string]any)["error"])
	require.Equal(t, "notifications", m["source"])
}

func TestTypes(t *testing.T) {
	t.Parallel()
	require.Equal(t, "PMT", normalizeType(" pmt "))
	require.Equal(t, "UNK", normalizeType("customer.updated"))
	require.Equal(t, "UNK", typeOf(queue.DefaultSource, "customer.updated"), "HMC's rule for the HMC source")
	require.Equal(t, "customer.updated", typeOf("stripe", "customer.updated"), "as given for another")
	require.Equal(t, quoteHeader("a\nb"), `"a\nb"`)
	require.Equal(t, `"`+strings.Repeat("x", 64)+`\u2026"`, quoteHeader(strings.Repeat("x", 100)), "cut short, ASCII")
	require.Equal(t, csrfToken("c1"), csrfToken("c1"))
	require.NotEqual(t, csrfToken("c1"), csrfToken("c2"))
	require.Equal(t, "v", storedHeaders{"Webhook-Id": "v"}.Get("webhook-id"))
}
