package httpapi

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/andybalholm/brotli"
	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"
)

// Request bodies are read here, not by Fiber: Fiber would decompress an
// encoded body without any limit and fasthttp would reserve the announced
// Content-Length up front. The server streams bodies (StreamRequestBody);
// readBody takes at most CONN_MAX_BODY_BYTES decoded bytes, growing its
// buffer only as bytes arrive. See docs/http-api.md#request-bodies.

// encodedSlack is how far an encoded body may exceed the limit: incompressible
// data grows a little when compressed.
const encodedSlack = 64 << 10

// errTooLarge is a body over CONN_MAX_BODY_BYTES.
var errTooLarge = errors.New("body too large")

// bodyError is a refused body: 413, 415 or 400 with a message.
type bodyError struct {
	status int
	msg    string
}

func (e *bodyError) Error() string { return e.msg }

// quoteHeader renders a header value for an error message: quoted, with
// control and non-ASCII bytes escaped, and cut short.
func quoteHeader(v string) string {
	if len(v) > 64 {
		v = v[:64] + "…"
	}
	return strconv.QuoteToASCII(v)
}

// encodings parses Content-Encoding into the codings applied, in order.
func encodings(header string) ([]string, error) {
	var out []string
	for _, p := range strings.Split(header, ",") {
		p = strings.ToLower(strings.TrimSpace(p))
		switch p {
		case "", "identity":
		case "gzip", "x-gzip", "deflate", "br":
			out = append(out, p)
		default:
			return nil, &bodyError{fiber.StatusUnsupportedMediaType,
				fmt.Sprintf("Content-Encoding %s is not supported (want gzip, deflate, br or identity)", quoteHeader(header))}
		}
	}
	return out, nil
}

// tooLargeMark is set on a request whose announced Content-Length is over
// the limit, by markTooLarge before any byte of the body is read.
const tooLargeMark = "X-Sluice-Internal-Too-Large"

// markTooLarge runs on every request's header, before its body is read: an
// announced length over the limit becomes a body of 0 bytes and a mark, so
// that the handler answers 413 and the connection closes without reading
// what the client sends.
func (s *API) markTooLarge(h *fasthttp.RequestHeader) fasthttp.RequestConfig {
	h.Del(tooLargeMark)
	limit := s.cfg.MaxBodyBytes
	if ce := h.Peek(fiber.HeaderContentEncoding); len(ce) > 0 && !strings.EqualFold(string(ce), "identity") {
		limit += encodedSlack
	}
	if h.ContentLength() > limit {
		h.Set(tooLargeMark, "1")
		h.SetContentLength(0)
		h.SetConnectionClose()
	}
	return fasthttp.RequestConfig{}
}

// readBody returns the request body, decoded, or a *bodyError.
func (s *API) readBody(c *fiber.Ctx) ([]byte, error) {
	limit := s.cfg.MaxBodyBytes
	codings, err := encodings(string(c.Request().Header.Peek(fiber.HeaderContentEncoding)))
	if err != nil {
		c.Context().SetConnectionClose()
		return nil, err
	}
	rawLimit := limit
	if len(codings) > 0 {
		rawLimit += encodedSlack
	}
	if len(c.Request().Header.Peek(tooLargeMark)) > 0 || c.Request().Header.ContentLength() > rawLimit {
		// Answered before the body is read; the unread body makes the
		// connection unusable.
		c.Context().SetConnectionClose()
		return nil, s.tooLarge()
	}
	var r io.Reader
	if st := c.Context().RequestBodyStream(); st != nil {
		r = st
	} else {
		r = bytes.NewReader(c.Request().Body())
	}
	raw, err := readAtMost(r, rawLimit, c.Request().Header.ContentLength())
	if err == errTooLarge {
		c.Context().SetConnectionClose()
		return nil, s.tooLarge()
	}
	if err != nil {
		c.Context().SetConnectionClose()
		return nil, &bodyError{fiber.StatusBadRequest, "reading the body: " + err.Error()}
	}
	// Decode in reverse order of application, each step bounded.
	for i := len(codings) - 1; i >= 0; i-- {
		dec, err := decoder(codings[i], raw)
		if err == nil {
			raw, err = readAtMost(dec, limit, -1)
		}
		if err == errTooLarge {
			return nil, s.tooLarge()
		}
		if err != nil {
			return nil, &bodyError{fiber.StatusBadRequest,
				fmt.Sprintf("body is not valid %s (Content-Encoding): %v", codings[i], err)}
		}
	}
	if len(raw) > limit {
		return nil, s.tooLarge()
	}
	return raw, nil
}

func (s *API) tooLarge() error {
	return &bodyError{fiber.StatusRequestEntityTooLarge,
		fmt.Sprintf("body larger than CONN_MAX_BODY_BYTES (%d bytes)", s.cfg.MaxBodyBytes)}
}

// decoder opens one coding over b. "deflate" is zlib (RFC 9110) or, as some
// clients send it, raw DEFLATE.
func decoder(coding string, b []byte) (io.Reader, error) {
	switch coding {
	case "gzip", "x-gzip":
		return gzip.NewReader(bytes.NewReader(b))
	case "deflate":
		if zr, err := zlib.NewReader(bytes.NewReader(b)); err == nil {
			return zr, nil
		}
		return flate.NewReader(bytes.NewReader(b)), nil
	case "br":
		return brotli.NewReader(bytes.NewReader(b)), nil
	}
	return nil, fmt.Errorf("unknown coding %q", coding)
}

// readAtMost reads r whole, or fails with errTooLarge past limit bytes.
// An announced length (≥ 0) sizes the buffer, up to 16 KiB: a client
// cannot make it reserve more than it sends.
func readAtMost(r io.Reader, limit, announced int) ([]byte, error) {
	var buf bytes.Buffer
	if announced >= 0 {
		buf.Grow(min(announced, 16<<10) + bytes.MinRead)
	}
	n, err := buf.ReadFrom(io.LimitReader(r, int64(limit)+1))
	if err != nil {
		return nil, err
	}
	if n > int64(limit) {
		return nil, errTooLarge
	}
	return buf.Bytes(), nil
}

// boundedBody reads every request's body with readBody before any other
// handler runs: afterwards c.Body() is the decoded body, within the limit.
func (s *API) boundedBody(c *fiber.Ctx) error {
	b, err := s.readBody(c)
	if err != nil {
		var be *bodyError
		if errors.As(err, &be) {
			return jsonError(c, be.status, be.msg)
		}
		return err
	}
	c.Request().Header.Del(fiber.HeaderContentEncoding)
	c.Request().SetBodyRaw(b)
	return c.Next()
}
