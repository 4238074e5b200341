// Command fakeapi serves fake paginated listings on loopback for the
// bench/restapi scripts. It prints one line per listing, "<name>
// <--prop k=v …>", then "ready", and serves until stdin closes.
//
// By default it serves one listing per RESTAPI paginator type
// (connectors/restapi/restapitest) for paginators.sh. It serves on fasthttp
// (Listing.ServeFast, the same answers as the tests' net/http
// Listing.ServeHTTP): the benchmark measures the client, and on a 2-core
// machine a net/http server costs about as much CPU a page as the client it
// serves. -server=net serves on net/http instead. See docs/restapi.md#speed.
//
// With -youtube N it serves one listing, "youtube", of -pages pages of N
// YouTube-like items each (internal/datagen, ~1.5 KB an item) under
// "items", numbered by ?page= — for spool.sh (docs/restapi.md#memory).
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/valyala/fasthttp"

	"github.com/sluicedata/sluice/connectors/restapi/restapitest"
	"github.com/sluicedata/sluice/internal/datagen"
)

func main() {
	pages := flag.Int("pages", 10000, "pages per listing")
	per := flag.Int("per", 2, "records per page")
	server := flag.String("server", "fast", "fast (fasthttp) or net (net/http)")
	youtube := flag.Int("youtube", 0, "serve one listing of YouTube-like pages of this many items instead")
	flag.Parse()
	if *youtube > 0 {
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
	} else {
		for _, kind := range restapitest.Kinds {
			l := restapitest.Uniform(kind, *pages**per, *per)
			printProps(kind, l.Props(listen(l.ServeFast, l, *server)))
		}
	}
	fmt.Println("ready")
	_, _ = io.Copy(io.Discard, os.Stdin) // serve until the script closes stdin
}

// listen serves fast (or std with -server=net) on a loopback port and
// returns its base URL.
func listen(fast fasthttp.RequestHandler, std http.Handler, server string) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, "fakeapi:", err)
		os.Exit(1)
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
