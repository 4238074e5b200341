// Command fakeapi serves one fake paginated listing per RESTAPI paginator
// type on loopback (connectors/restapi/restapitest) for
// bench/restapi/paginators.sh. It prints one line per type, "<type>
// <--prop k=v …>", then serves until stdin closes.
//
// It serves on fasthttp (Listing.ServeFast, the same answers as the tests'
// net/http Listing.ServeHTTP): the benchmark measures the client, and on a
// 2-core machine a net/http server costs about as much CPU a page as the
// client it serves. -server=net serves on net/http instead. See
// docs/restapi.md#speed.
package main

import (
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"sort"
	"strings"

	"github.com/valyala/fasthttp"

	"github.com/sluicedata/sluice/connectors/restapi/restapitest"
)

func main() {
	pages := flag.Int("pages", 10000, "pages per listing")
	per := flag.Int("per", 2, "records per page")
	server := flag.String("server", "fast", "fast (fasthttp) or net (net/http)")
	flag.Parse()
	for _, kind := range restapitest.Kinds {
		l := restapitest.Uniform(kind, *pages**per, *per)
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			fmt.Fprintln(os.Stderr, "fakeapi:", err)
			os.Exit(1)
		}
		if *server == "net" {
			go func() { _ = http.Serve(ln, l) }()
		} else {
			go func() { _ = (&fasthttp.Server{Handler: l.ServeFast}).Serve(ln) }()
		}
		props := l.Props("http://" + ln.Addr().String())
		keys := make([]string, 0, len(props))
		for k := range props {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var b strings.Builder
		for _, k := range keys {
			fmt.Fprintf(&b, " --prop %s=%s", k, props[k])
		}
		fmt.Printf("%s%s\n", kind, b.String())
	}
	fmt.Println("ready")
	_, _ = io.Copy(io.Discard, os.Stdin) // serve until the script closes stdin
}
