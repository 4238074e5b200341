// Command signgen writes pre-signed webhook deliveries for wrk, one per
// line, each with a unique token:
//
//	-scheme sluice (default): "timestamp<TAB>signature<TAB>body", signed as
//	  the HMC source's signed intake wants (docs/http-api.md#signed-intake);
//	-scheme standard: "webhook-id<TAB>timestamp<TAB>signature<TAB>body", a
//	  Standard Webhooks delivery (docs/webhooks/standard.md).
//
// bench/gateway/signed.lua sends either.
package main

import (
	"bufio"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/sluicedata/sluice/notifications"
)

func main() {
	n := flag.Int("n", 300000, "deliveries")
	secret := flag.String("secret", "", "the secret: CONN_WEBHOOK_SECRET, or a whsec_… Standard Webhooks secret")
	scheme := flag.String("scheme", "sluice", "sluice or standard")
	out := flag.String("o", "signed.tsv", "output file")
	flag.Parse()
	if *secret == "" {
		fail(2, "-secret is required")
	}
	var key []byte
	if *scheme == "standard" {
		var err error
		if key, err = base64.StdEncoding.DecodeString(strings.TrimPrefix(*secret, "whsec_")); err != nil {
			fail(2, "-secret is not whsec_ followed by base64")
		}
	} else if *scheme != "sluice" {
		fail(2, "-scheme must be sluice or standard")
	}
	f, err := os.Create(*out)
	if err != nil {
		fail(1, err.Error())
	}
	w := bufio.NewWriterSize(f, 1<<20)
	ts := time.Now().Unix()
	run := time.Now().UnixNano()
	for i := range *n {
		id := fmt.Sprintf("%d-%d", run, i)
		if *scheme == "standard" {
			// As large as the HMC body, with an object of its own (mapped as
			// objectToken, so that the rules probe it as HMC's does).
			body := `{"type":"user.activated","timestamp":"2024-05-01T10:00:00.000Z",` +
				`"data":{"id":"usr-` + id + `","program":"prg-bench","status":"ACTIVATED","country":"FR"}}`
			msg := "msg_" + id
			m := hmac.New(sha256.New, key)
			fmt.Fprintf(m, "%s.%d.%s", msg, ts, body)
			fmt.Fprintf(w, "%s\t%d\tv1,%s\t%s\n", msg, ts, base64.StdEncoding.EncodeToString(m.Sum(nil)), body)
			continue
		}
		body := `{"token":"wbh-` + id + `","type":"USERS.UPDATED.STATUS.ACTIVATED","createdOn":"2024-05-01T10:00:00.000Z",` +
			`"object":{"token":"usr-` + id + `","programToken":"prg-bench","status":"ACTIVATED","country":"FR"}}`
		fmt.Fprintf(w, "%d\t%s\t%s\n", ts, notifications.SignWebhook(*secret, ts, []byte(body)), body)
	}
	if err := w.Flush(); err != nil {
		fail(1, err.Error())
	}
	if err := f.Close(); err != nil {
		fail(1, err.Error())
	}
}

func fail(code int, msg string) {
	fmt.Fprintln(os.Stderr, "signgen:", msg)
	os.Exit(code)
}
