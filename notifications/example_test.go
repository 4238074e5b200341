package notifications_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/sluicedata/sluice/notifications"
	"github.com/sluicedata/sluice/notifications/sqlstore"
)

// A provider delivers a webhook; a Go handler for the USR type processes it.
func Example() {
	dir, _ := os.MkdirTemp("", "sluice-example-")
	defer os.RemoveAll(dir)
	ctx := context.Background()
	st, err := sqlstore.Open(ctx, "sqlite:"+filepath.Join(dir, "n.db"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer st.Close()

	cfg := notifications.DefaultConfig()
	cfg.ProcessingCron = notifications.Off // run the job by hand below
	svc, err := notifications.New(cfg, st, notifications.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		fmt.Println(err)
		return
	}
	svc.Handle(notifications.TypeUser, notifications.HandlerFunc(
		func(ctx context.Context, rec *notifications.Record, payload []byte) error {
			fmt.Printf("handling %s for %s (%d bytes)\n", rec.WebhookToken, rec.ObjectToken, len(payload))
			return nil
		}))

	body := `{"token":"wbh-1","type":"USERS.CREATED","createdOn":"2024-05-01T10:00:00","object":{"token":"usr-42","programToken":"prg-1"}}`
	resp, err := svc.App().Test(httptest.NewRequest("POST", "/webhooks/notifications", strings.NewReader(body)), -1)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("intake:", resp.StatusCode)

	stats, err := svc.RunProcessing(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	rec, _ := st.Get(ctx, "wbh-1")
	fmt.Println("succeeded:", stats.Succeeded, "status:", rec.Status, "type:", rec.NotificationType)
	// Output:
	// intake: 200
	// handling wbh-1 for usr-42 (125 bytes)
	// succeeded: 1 status: SUCCESS type: USR
}

func ExampleParseCron() {
	s, err := notifications.ParseCron("0 0 12 ? * 2") // Quartz: 2 = Monday
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(s.Next(time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)))
	_, err = notifications.ParseCron("0 0 0 L * ?")
	fmt.Println(err)
	// Output:
	// 2024-05-06 12:00:00 +0000 UTC
	// cron "0 0 0 L * ?": "L" in field 4 is not supported
}

func ExampleParseDelivery() {
	rec, err := notifications.ParseDelivery([]byte(`{"token":"wbh-7","createdOn":"2024-05-01T10:00:00+02:00","object":{"token":"pmt-9"}}`),
		time.Date(2024, 5, 1, 9, 0, 0, 0, time.UTC))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(rec.WebhookToken, rec.NotificationType, notifications.FormatDate(rec.CreationDate), rec.Status)
	_, err = notifications.ParseDelivery([]byte(`{"object":{}}`), time.Now())
	fmt.Println(err)
	// Output:
	// wbh-7 PMT 2024-05-01T08:00:00.000Z PENDING
	// missing "token": the webhook token is required
}

func ExampleAlertSubject() {
	fmt.Println(notifications.AlertSubject("wbh-1"))
	fmt.Println(notifications.AlertBody("wbh-1", 5))
	// Output:
	// [CONN] Technical error occurred when processing the notification wbh-1
	// There was an error processing the notification wbh-1 and the operation could not be completed. The maximum number of attempts (5) has been reached, therefore it will not try to re-process the notification anymore.
	// Please check the logs for further information.
}
