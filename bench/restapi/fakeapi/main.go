// Command fakeapi serves fake REST APIs for the bench/restapi scripts. It
// prints one line per listing, "<name> <--prop k=v …>", then "ready", and
// serves until stdin closes.
//
// By default it serves one listing per RESTAPI paginator type
// (connectors/restapi/restapitest) on loopback, at once, for paginators.sh
// (the client's CPU per page). It serves on fasthttp (Listing.ServeFast,
// the same answers as the tests' net/http Listing.ServeHTTP), so that on a
// 2-core machine the server's CPU does not crowd out the client's;
// -server=net serves on net/http instead.
//
// With -remote it serves what a real API looks like to remote.sh: HTTPS
// with HTTP/2 (a self-signed certificate, written as PEM to -cert for
// SSL_CERT_FILE), each answer after -latency (50ms): "offset" (offset
// pagination whose first page gives the total, -pages pages of -per
// records), "token" (the same pages by next-page token), and the two
// tables of a fan-out written as SQL to -sql: bench.parents (-children ids
// on one page) and bench.children (one child read per id).
//
// With -youtube N it serves one listing, "youtube", of -pages pages of N
// YouTube-like items each (internal/datagen, ~1.5 KB an item) under
// "items", numbered by ?page= — for spool.sh (docs/restapi.md#memory).
//
// With -bomb MiB it serves /gzip (a gzip body that decodes to MiB of
// zeros, a few hundred KB on the wire) and /chunked (MiB of zeros, chunked)
// — for memory.sh, a body refused at max.response.bytes.
package main

import (
	"bytes"
	"compress/gzip"
	"encoding/pem"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/sluicedata/sluice/connectors/restapi/restapitest"
	"github.com/sluicedata/sluice/internal/datagen"
)

func main() {
	pages := flag.Int("pages", 10000, "pages per listing")
	per := flag.Int("per", 2, "records per page")
	server := flag.String("server", "fast", "fast (fasthttp) or net (net/http)")
	youtube := flag.Int("youtube", 0, "serve one listing of YouTube-like pages of this many items instead")
	remote := flag.Bool("remote", false, "serve HTTPS listings that answer after -latency (remote.sh)")
	latency := flag.Duration("latency", 50*time.Millisecond, "-remote: the wait before each answer")
	children := flag.Int("children", 1000, "-remote: fan-out children")
	cert := flag.String("cert", "", "-remote: write the server's certificate (PEM) to this file")
	sqlOut := flag.String("sql", "", "-remote: write the fan-out tables' CREATE TABLE statements to this file")
	bomb := flag.Int("bomb", 0, "serve /gzip and /chunked bodies of this many MiB instead")
	flag.Parse()
	switch {
	case *bomb > 0:
		printProps("bomb", map[string]string{"svc.restapi.url": serveBomb(*bomb)})
	case *remote:
		serveRemote(*pages, *per, *children, *latency, *cert, *sqlOut)
	case *youtube > 0:
		base := listen(fasthttp.RequestHandler(youtubePages(*pages, *youtube)), nil, *server)
		printProps("youtube", map[string]string{
			"svc.restapi.url":                 base + "/youtube/v3/subscriptions",
			"svc.restapi.parse.payload":       "true",
			"svc.restapi.records.path":        "items",
			"svc.restapi.retry.max":           "0",
			"svc.restapi.paginate.type":       "page",
			"svc.restapi.paginate.page.param": "page",
			"svc.restapi.paginate.max.pages":  strconv.Itoa(*pages + 2),
		})
	default:
		for _, kind := range restapitest.Kinds {
			l := restapitest.Uniform(kind, *pages**per, *per)
			printProps(kind, l.Props(listen(l.ServeFast, l, *server)))
		}
	}
	fmt.Println("ready")
	_, _ = io.Copy(io.Discard, os.Stdin) // serve until the script closes stdin
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "fakeapi:", err)
	os.Exit(1)
}

// listen serves fast (or std with -server=net) on a loopback port and
// returns its base URL.
func listen(fast fasthttp.RequestHandler, std http.Handler, server string) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fail(err)
	}
	if server == "net" && std != nil {
		go func() { _ = http.Serve(ln, std) }()
	} else {
		go func() { _ = (&fasthttp.Server{Handler: fast}).Serve(ln) }()
	}
	return "http://" + ln.Addr().String()
}

func printProps(name string, props map[string]string) {
	keys := make([]string, 0, len(props))
	for k := range props {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, " --prop %s=%s", k, props[k])
	}
	fmt.Printf("%s%s\n", name, b.String())
}

// serveRemote serves the listings of remote.sh over HTTPS with HTTP/2,
// each answer after latency.
func serveRemote(pages, per, children int, latency time.Duration, certFile, sqlFile string) {
	offset := restapitest.Uniform("offset", pages*per, per)
	offset.Total = true
	token := restapitest.Uniform("token-body", pages*per, per)
	mux := http.NewServeMux()
	mux.Handle("/offset/", http.StripPrefix("/offset", offset))
	mux.Handle("/token/", http.StripPrefix("/token", token))
	mux.HandleFunc("/parents", func(w http.ResponseWriter, r *http.Request) {
		var b bytes.Buffer
		b.WriteString(`{"data":[`)
		for i := range children {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"id":"c%05d"}`, i)
		}
		b.WriteString(`]}`)
		w.Header().Set("Content-Type", "application/json")
		w.Write(b.Bytes())
	})
	mux.HandleFunc("/children/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"items":[{"video":%q,"views":1}]}`, strings.TrimPrefix(r.URL.Path, "/children/"))
	})
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(latency) // the round trip of a real API
		mux.ServeHTTP(w, r)
	}))
	srv.EnableHTTP2 = true
	srv.StartTLS()
	if certFile != "" {
		pemCert := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
		if err := os.WriteFile(certFile, pemCert, 0o644); err != nil {
			fail(err)
		}
	}
	// httptest's certificate names 127.0.0.1 and example.com: keep the IP.
	base := srv.URL
	p := offset.Props(base + "/offset")
	p["svc.restapi.concurrency"] = "8"
	printProps("offset", p)
	printProps("token", token.Props(base+"/token"))
	if sqlFile != "" {
		sql := fmt.Sprintf(`CREATE TABLE bench.parents TBLPROPERTIES ('svc.storage.type'='RESTAPI',
  'svc.restapi.url'='%[1]s/parents', 'svc.restapi.parse.payload'='true', 'svc.restapi.records.path'='data');
CREATE TABLE bench.children TBLPROPERTIES ('svc.storage.type'='RESTAPI',
  'svc.restapi.url.pattern'='svc.restapi.pattern.child', 'svc.restapi.pattern.child'='%[1]s/children/{svc.restapi.childId}',
  'svc.restapi.parse.payload'='true', 'svc.restapi.records.path'='items', 'svc.restapi.retry.max'='0',
  'svc.restapi.fanout.from'='bench.parents', 'svc.restapi.fanout.column'='id',
  'svc.restapi.fanout.token'='svc.restapi.childId', 'svc.restapi.fanout.concurrency'='8');
`, base)
		if err := os.WriteFile(sqlFile, []byte(sql), 0o644); err != nil {
			fail(err)
		}
	}
}

// serveBomb serves /gzip and /chunked bodies of mib MiB of zeros on
// loopback and returns the base URL.
func serveBomb(mib int) string {
	zeros := make([]byte, 1<<20)
	for i := range zeros {
		zeros[i] = '0'
	}
	var gz bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
	for range mib {
		zw.Write(zeros)
	}
	zw.Close()
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/gzip" {
			w.Header().Set("Content-Encoding", "gzip")
			w.Header().Set("Content-Length", strconv.Itoa(gz.Len()))
			w.Write(gz.Bytes())
			return
		}
		for range mib {
			if _, err := w.Write(zeros); err != nil {
				return
			}
		}
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fail(err)
	}
	go func() { _ = http.Serve(ln, handler) }()
	return "http://" + ln.Addr().String()
}

// youtubePages answers ?page=1…pages with YouTube-like listings of items
// items (16 different bodies in turn, so no two pages in a row are the
// same), and later pages with no items; ?n= ends the listing earlier.
func youtubePages(pages, items int) func(*fasthttp.RequestCtx) {
	bodies := make([][]byte, 16)
	for i := range bodies {
		var b bytes.Buffer
		if err := datagen.GenListing(&b, items, int64(i+1)); err != nil {
			panic(err)
		}
		bodies[i] = b.Bytes()
	}
	return func(ctx *fasthttp.RequestCtx) {
		n, _ := strconv.Atoi(string(ctx.QueryArgs().Peek("page")))
		last := pages
		if m, err := strconv.Atoi(string(ctx.QueryArgs().Peek("n"))); err == nil {
			last = min(m, pages)
		}
		ctx.SetContentType("application/json")
		if n < 1 || n > last {
			ctx.SetBodyString(`{"kind":"youtube#subscriptionListResponse","items":[]}`)
			return
		}
		ctx.SetBody(bodies[n%len(bodies)])
	}
}
