// Package datagen writes deterministic YouTube-like test data (API listings
// and JSON lines) for tests, benchmarks and the bench/ scripts.
package datagen

import (
	"bufio"
	"io"
	"math/rand"
	"strconv"
)

// GenListing writes a deterministic YouTube-like API listing with the given
// number of items: `{"kind","etag","nextPageToken","pageInfo":{…},"items":[…]}`
// where each item has a nested snippet (resourceId, thumbnails), strings
// with escapes and non-ASCII text, integers, a double, booleans and the
// occasional null. The same seed gives the same bytes. Benchmarks and the
// bench/ scripts use it.
func GenListing(w io.Writer, items int, seed int64) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	g := newGen(seed)
	buf := make([]byte, 0, 4096)
	buf = append(buf, `{"kind":"youtube#subscriptionListResponse","etag":"\"p4VTdlkQv3HQeTEaXgvLePAydmU/`...)
	buf = g.token(buf, 27)
	buf = append(buf, `\"","nextPageToken":"`...)
	buf = g.token(buf, 6)
	buf = append(buf, `","pageInfo":{"totalResults":`...)
	buf = strconv.AppendInt(buf, int64(items), 10)
	buf = append(buf, `,"resultsPerPage":`...)
	buf = strconv.AppendInt(buf, int64(items), 10)
	buf = append(buf, "},\n \"items\": [\n"...)
	for i := 0; i < items; i++ {
		if i > 0 {
			buf = append(buf, ",\n"...)
		}
		buf = append(buf, "  "...)
		buf = g.item(buf, i)
		if len(buf) > 1<<15 {
			if _, err := bw.Write(buf); err != nil {
				return err
			}
			buf = buf[:0]
		}
	}
	buf = append(buf, "\n ]\n}\n"...)
	if _, err := bw.Write(buf); err != nil {
		return err
	}
	return bw.Flush()
}

// GenNDJSON writes rows items of the GenListing shape, one JSON object a
// line.
func GenNDJSON(w io.Writer, rows int, seed int64) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	g := newGen(seed)
	buf := make([]byte, 0, 4096)
	for i := 0; i < rows; i++ {
		buf = g.item(buf[:0], i)
		buf = append(buf, '\n')
		if _, err := bw.Write(buf); err != nil {
			return err
		}
	}
	return bw.Flush()
}

type gen struct{ r *rand.Rand }

func newGen(seed int64) *gen { return &gen{r: rand.New(rand.NewSource(seed))} }

const tokenChars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

func (g *gen) token(dst []byte, n int) []byte {
	for i := 0; i < n; i++ {
		dst = append(dst, tokenChars[g.r.Intn(len(tokenChars))])
	}
	return dst
}

var genWords = []string{
	"TED", "talks", "ideas", "worth", "spreading", "community", "events", "education", "science",
	"café", "naïve", "Zürich", "東京", "música", "☕", "🎬", "—", "lessons", "global", "stage",
	`\"quoted\"`, `line\nbreak`, `tab\there`, `slash\/path`, `\u00e9t\u00e9`, `emoji \ud83d\ude00`,
}

func (g *gen) words(dst []byte, n int) []byte {
	for i := 0; i < n; i++ {
		if i > 0 {
			dst = append(dst, ' ')
		}
		dst = append(dst, genWords[g.r.Intn(len(genWords))]...)
	}
	return dst
}

func (g *gen) date(dst []byte) []byte {
	dst = strconv.AppendInt(dst, int64(2006+g.r.Intn(18)), 10)
	dst = append(dst, '-')
	dst = appendTwo(dst, 1+g.r.Intn(12))
	dst = append(dst, '-')
	dst = appendTwo(dst, 1+g.r.Intn(28))
	dst = append(dst, 'T')
	dst = appendTwo(dst, g.r.Intn(24))
	dst = append(dst, ':')
	dst = appendTwo(dst, g.r.Intn(60))
	dst = append(dst, ':')
	dst = appendTwo(dst, g.r.Intn(60))
	return append(dst, ".000Z"...)
}

func appendTwo(dst []byte, v int) []byte {
	return append(dst, byte('0'+v/10), byte('0'+v%10))
}

func (g *gen) thumb(dst []byte, name string, size int, photo []byte) []byte {
	dst = append(dst, `"`...)
	dst = append(dst, name...)
	dst = append(dst, `":{"url":"https://yt3.ggpht.com/`...)
	dst = append(dst, photo...)
	dst = append(dst, `/s`...)
	dst = strconv.AppendInt(dst, int64(size), 10)
	dst = append(dst, `-c-k-no-mo-rj-c0xffffff/photo.jpg","width":`...)
	dst = strconv.AppendInt(dst, int64(size), 10)
	dst = append(dst, `,"height":`...)
	dst = strconv.AppendInt(dst, int64(size), 10)
	return append(dst, '}')
}

func (g *gen) item(dst []byte, i int) []byte {
	dst = append(dst, `{"kind":"youtube#subscription","etag":"\"p4VTdlkQv3HQeTEaXgvLePAydmU/`...)
	dst = g.token(dst, 27)
	dst = append(dst, `\"","id":"`...)
	dst = g.token(dst, 43)
	dst = append(dst, `","snippet":{"publishedAt":"`...)
	dst = g.date(dst)
	dst = append(dst, `","title":"`...)
	dst = g.words(dst, 2+g.r.Intn(4))
	dst = append(dst, `","description":"`...)
	dst = g.words(dst, 20+g.r.Intn(60))
	dst = append(dst, `","resourceId":{"kind":"youtube#channel","channelId":"UC`...)
	dst = g.token(dst, 22)
	dst = append(dst, `"},"channelId":"UCAuUUnT6oDeKwE6v1NGQxug","thumbnails":{`...)
	photo := g.token(make([]byte, 0, 40), 12)
	photo = append(photo, "/AAAAAAAAAAI/AAAAAAAAAAA/"...)
	photo = g.token(photo, 11)
	dst = g.thumb(dst, "default", 88, photo)
	dst = append(dst, ',')
	dst = g.thumb(dst, "medium", 240, photo)
	dst = append(dst, ',')
	dst = g.thumb(dst, "high", 800, photo)
	dst = append(dst, `}},"contentDetails":{"totalItemCount":`...)
	dst = strconv.AppendInt(dst, int64(g.r.Intn(5000)), 10)
	dst = append(dst, `,"newItemCount":`...)
	dst = strconv.AppendInt(dst, int64(g.r.Intn(20)), 10)
	dst = append(dst, `,"activityType":"all"},"statistics":{"score":`...)
	dst = strconv.AppendFloat(dst, float64(g.r.Intn(100000))/1000+0.001, 'f', -1, 64)
	dst = append(dst, `,"rank":`...)
	dst = strconv.AppendInt(dst, int64(i), 10)
	dst = append(dst, `,"subscribed":`...)
	dst = strconv.AppendBool(dst, g.r.Intn(2) == 0)
	dst = append(dst, `,"hidden":`...)
	dst = strconv.AppendBool(dst, g.r.Intn(10) == 0)
	dst = append(dst, `},"note":`...)
	if g.r.Intn(20) == 0 {
		dst = append(dst, `"`...)
		dst = g.words(dst, 3)
		dst = append(dst, `"`...)
	} else {
		dst = append(dst, "null"...)
	}
	return append(dst, '}')
}
