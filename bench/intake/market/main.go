// Command market is the fast local marketplace of the processing benchmark:
// it answers 200 to every POST and counts them (GET /count).
package main

import (
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"sync/atomic"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:18082", "listen address")
	flag.Parse()
	var n atomic.Int64
	http.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && r.URL.Path == "/count" {
			fmt.Fprintln(w, n.Load())
			return
		}
		_, _ = io.Copy(io.Discard, r.Body)
		n.Add(1)
	})
	log.Fatal(http.ListenAndServe(*addr, nil))
}
