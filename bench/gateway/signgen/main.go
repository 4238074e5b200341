// Command signgen writes pre-signed webhook deliveries for wrk
// (bench/gateway/signed.lua): one per line, "timestamp<TAB>signature<TAB>body",
// each with a unique token, signed with -secret as the sidecar's signed
// intake wants (docs/http-api.md#signed-intake).
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/sluicedata/sluice/notifications"
)

func main() {
	n := flag.Int("n", 300000, "deliveries")
	secret := flag.String("secret", "", "CONN_WEBHOOK_SECRET")
	out := flag.String("o", "signed.tsv", "output file")
	flag.Parse()
	if *secret == "" {
		fmt.Fprintln(os.Stderr, "signgen: -secret is required")
		os.Exit(2)
	}
	f, err := os.Create(*out)
	if err != nil {
		fmt.Fprintln(os.Stderr, "signgen:", err)
		os.Exit(1)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	ts := time.Now().Unix()
	run := time.Now().UnixNano()
	for i := range *n {
		id := fmt.Sprintf("%d-%d", run, i)
		body := `{"token":"wbh-` + id + `","type":"USERS.UPDATED.STATUS.ACTIVATED","createdOn":"2024-05-01T10:00:00.000Z",` +
			`"object":{"token":"usr-` + id + `","programToken":"prg-bench","status":"ACTIVATED","country":"FR"}}`
		fmt.Fprintf(w, "%d\t%s\t%s\n", ts, notifications.SignWebhook(*secret, ts, []byte(body)), body)
	}
	if err := w.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, "signgen:", err)
		os.Exit(1)
	}
	if err := f.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "signgen:", err)
		os.Exit(1)
	}
}
