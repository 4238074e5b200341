package functions

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	mrand "math/rand/v2"
	"net/url"
	"regexp"
	"strings"
	"sync"

	"github.com/apache/arrow/go/v17/arrow"

	"github.com/sluicedata/sluice/dataframe/query/fn"
)

// Random values and URL functions: see docs/sql-functions.md.

func init() {
	def(fn.Scalar{Name: "rand", Group: gMath, Signature: "rand([seed])", Returns: "double", Bind: bindRand(false), Nondeterministic: true,
		Doc: "A uniformly distributed random number in [0, 1), a new one per row. With a `seed` (NULL counts as 0) the sequence " +
			"is Spark's own for that seed in a single partition.",
		Examples: ex("rand(0)", "0.7604953758285915", "rand(null)", "0.7604953758285915")},
		aliases("random"), pretty(namedAs("rand")))
	def(fn.Scalar{Name: "randn", Group: gMath, Signature: "randn([seed])", Returns: "double", Bind: bindRand(true), Nondeterministic: true,
		Doc:      "A random number from the standard normal distribution, a new one per row; seeded as `rand`.",
		Examples: ex("randn(0)", "1.6034991609278433", "randn(null)", "1.6034991609278433")})
	def(fn.Scalar{Name: "uuid", Group: gMisc, Signature: "uuid()", Returns: "string", Bind: bindUUID, Nondeterministic: true,
		Doc: "A random (version 4) UUID in its 36-character form, a new one per row."})
	def(fn.Scalar{Name: "parse_url", Group: gURL, Signature: "parse_url(url, partToExtract[, key])", Returns: "string", Bind: bindParseURL,
		Doc: "Part `partToExtract` of `url`: `HOST`, `PATH`, `QUERY`, `REF`, `PROTOCOL`, `FILE`, `AUTHORITY` or `USERINFO`; " +
			"with `key`, the value of that query parameter. NULL when the part is absent or the URL invalid.",
		Examples: ex("parse_url('http://spark.apache.org/path?query=1', 'HOST')", "spark.apache.org",
			"parse_url('http://spark.apache.org/path?query=1', 'QUERY')", "query=1", "parse_url('http://spark.apache.org/path?query=1', 'QUERY', 'query')", "1")})
	def(fn.Scalar{Name: "url_encode", Group: gURL, Signature: "url_encode(str)", Returns: "string",
		Bind:     bindStrings("s", func(dst []byte, r row) []byte { return appendURLEncode(dst, r.str(0, "")) }),
		Doc:      "`str` encoded as `application/x-www-form-urlencoded` (Java's URLEncoder, UTF-8).",
		Examples: ex("url_encode('https://spark.apache.org')", "https%3A%2F%2Fspark.apache.org")})
	def(fn.Scalar{Name: "url_decode", Group: gURL, Signature: "url_decode(str)", Returns: "string", Bind: bindURLDecode,
		Doc:      "`str` decoded from `application/x-www-form-urlencoded`; an invalid escape is an error.",
		Examples: ex("url_decode('https%3A%2F%2Fspark.apache.org')", "https://spark.apache.org")})
}

// xorShift is Spark's XORShiftRandom.
type xorShift struct {
	seed         uint64
	nextGaussian float64
	haveGaussian bool
}

func newXORShift(seed int64) *xorShift {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(seed))
	low := scalaBytesHash(b[:], 0x3c074a61)
	high := scalaBytesHash(b[:], low)
	return &xorShift{seed: uint64(high)<<32 | uint64(low)}
}

// scalaBytesHash is scala.util.hashing.MurmurHash3.bytesHash.
func scalaBytesHash(data []byte, seed uint32) uint32 {
	h := seed
	k := 0
	for ; k+4 <= len(data); k += 4 {
		h = mixH1(h, mixK1(uint32(data[k])|uint32(data[k+1])<<8|uint32(data[k+2])<<16|uint32(data[k+3])<<24))
	}
	if rest := len(data) - k; rest > 0 {
		var t uint32
		if rest == 3 {
			t ^= uint32(data[k+2]) << 16
		}
		if rest >= 2 {
			t ^= uint32(data[k+1]) << 8
		}
		t ^= uint32(data[k])
		h ^= mixK1(t)
	}
	return fmix32(h, uint32(len(data)))
}

func (x *xorShift) next(bits uint) int64 {
	s := x.seed ^ x.seed<<21
	s ^= s >> 35
	s ^= s << 4
	x.seed = s
	return int64(s & (1<<bits - 1))
}

func (x *xorShift) nextDouble() float64 {
	return float64(x.next(26)<<27+x.next(27)) * (1.0 / (1 << 53))
}

// gaussian is java.util.Random.nextGaussian.
func (x *xorShift) gaussian() float64 {
	if x.haveGaussian {
		x.haveGaussian = false
		return x.nextGaussian
	}
	for {
		v1, v2 := 2*x.nextDouble()-1, 2*x.nextDouble()-1
		s := v1*v1 + v2*v2
		if s < 1 && s != 0 {
			m := math.Sqrt(-2 * math.Log(s) / s)
			x.nextGaussian, x.haveGaussian = v2*m, true
			return v1 * m
		}
	}
}

// bindRand: the generator lives as long as the bound call, so a query
// draws one sequence across its batches (Spark: one per partition).
func bindRand(gaussian bool) bindFunc {
	return func(args []fn.Arg) (fn.Bound, error) {
		if err := arity(args, 0, 1); err != nil {
			return fn.Bound{}, err
		}
		seed := int64(mrand.Uint64())
		if len(args) == 1 {
			v, null, ok := constInt(args[0])
			if !ok || !isIntegral(args[0].Type) && !isNull(args[0].Type) {
				return fn.Bound{}, fmt.Errorf("argument 1 must be an integer literal seed, got %s", sparkName(args[0].Type))
			}
			if !null {
				seed = v
			} else {
				seed = 0
			}
		}
		rng := newXORShift(seed)
		var mu sync.Mutex
		return fn.Bound{Type: float64Type, Args: []arrow.DataType{nil}[:len(args)], Eval: func(ctx *fn.Ctx, _ []arrow.Array, n int) (arrow.Array, error) {
			mu.Lock()
			defer mu.Unlock()
			return rowsOf(ctx, float64Type, nil, n, func(row) (float64, bool) {
				if gaussian {
					return rng.gaussian(), true
				}
				return rng.nextDouble(), true
			}), nil
		}}, nil
	}
}

func bindUUID(args []fn.Arg) (fn.Bound, error) {
	if err := arity(args, 0, 0); err != nil {
		return fn.Bound{}, err
	}
	return fn.Bound{Type: stringType, Eval: func(ctx *fn.Ctx, _ []arrow.Array, n int) (arrow.Array, error) {
		raw := make([]byte, 16*n)
		if _, err := rand.Read(raw); err != nil {
			return nil, err
		}
		buf := make([]byte, 36)
		return rowsOf(ctx, stringType, nil, n, func(r row) (string, bool) {
			u := raw[16*r.i : 16*r.i+16]
			u[6] = u[6]&0x0f | 0x40
			u[8] = u[8]&0x3f | 0x80
			hex.Encode(buf[0:8], u[0:4])
			buf[8] = '-'
			hex.Encode(buf[9:13], u[4:6])
			buf[13] = '-'
			hex.Encode(buf[14:18], u[6:8])
			buf[18] = '-'
			hex.Encode(buf[19:23], u[8:10])
			buf[23] = '-'
			hex.Encode(buf[24:], u[10:])
			return string(buf), true
		}), nil
	}}, nil
}

func bindParseURL(args []fn.Arg) (fn.Bound, error) {
	in, err := signature(args, "ss|s")
	if err != nil {
		return fn.Bound{}, err
	}
	return fn.Bound{Type: stringType, Args: in, Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
		var lastURL string
		var u *url.URL
		return rowsOf(ctx, stringType, a, n, func(r row) (string, bool) {
			raw := r.str(0, "")
			if u == nil || raw != lastURL {
				var err error
				if u, err = url.Parse(raw); err != nil || strings.ContainsAny(raw, " \t\n") {
					u = nil
					return "", false
				}
				lastURL = raw
			}
			part := r.str(1, "")
			if len(a) == 3 {
				if part != "QUERY" || u.RawQuery == "" && !u.ForceQuery {
					return "", false
				}
				re := regexp.MustCompile(`(&|^)` + regexp.QuoteMeta(r.str(2, "")) + `=([^&]*)`)
				m := re.FindStringSubmatch(u.RawQuery)
				if m == nil {
					return "", false
				}
				return m[2], true
			}
			return urlPart(u, part)
		}), nil
	}}, nil
}

func urlPart(u *url.URL, part string) (string, bool) {
	authority := u.Host
	if u.User != nil {
		authority = u.User.String() + "@" + authority
	}
	switch part {
	case "HOST":
		return u.Hostname(), u.Hostname() != ""
	case "PATH":
		return u.EscapedPath(), u.Opaque == ""
	case "QUERY":
		return u.RawQuery, u.RawQuery != "" || u.ForceQuery
	case "REF":
		return u.EscapedFragment(), u.Fragment != "" || u.RawFragment != ""
	case "PROTOCOL":
		return u.Scheme, u.Scheme != ""
	case "FILE":
		if u.RawQuery != "" || u.ForceQuery {
			return u.EscapedPath() + "?" + u.RawQuery, true
		}
		return u.EscapedPath(), u.Opaque == ""
	case "AUTHORITY":
		return authority, authority != ""
	case "USERINFO":
		if u.User == nil {
			return "", false
		}
		return u.User.String(), true
	}
	return "", false
}

// appendURLEncode is java.net.URLEncoder.encode(s, UTF-8).
func appendURLEncode(dst []byte, s string) []byte {
	const hexDigits = "0123456789ABCDEF"
	for k := 0; k < len(s); k++ {
		c := s[k]
		switch {
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == '*' || c == '_':
			dst = append(dst, c)
		case c == ' ':
			dst = append(dst, '+')
		default:
			dst = append(dst, '%', hexDigits[c>>4], hexDigits[c&15])
		}
	}
	return dst
}

func bindURLDecode(args []fn.Arg) (fn.Bound, error) {
	in, err := signature(args, "s")
	if err != nil {
		return fn.Bound{}, err
	}
	return fn.Bound{Type: stringType, Args: in, Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
		return mapStrings(ctx, a, n, func(dst []byte, i int) ([]byte, bool, error) {
			v, err := url.QueryUnescape(row{a: a, i: i}.str(0, ""))
			if err != nil {
				return nil, false, fmt.Errorf("cannot decode %q: %w", row{a: a, i: i}.str(0, ""), err)
			}
			return append(dst, v...), true, nil
		})
	}}, nil
}
