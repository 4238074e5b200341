package sqlstore_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/sluicedata/sluice/notifications"
	"github.com/sluicedata/sluice/notifications/sqlstore"
)

func ExampleOpen() {
	dir, _ := os.MkdirTemp("", "sqlstore-example")
	defer os.RemoveAll(dir)
	ctx := context.Background()

	st, err := sqlstore.Open(ctx, "sqlite:"+filepath.Join(dir, "notifications.db"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer st.Close()

	created := time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC)
	for _, token := range []string{"wbh-1", "wbh-1"} {
		res, _ := st.Enqueue(ctx, &notifications.Record{
			WebhookToken: token, ObjectToken: "usr-42", CreationDate: created,
			Payload: []byte(`{"token":"wbh-1"}`),
		})
		fmt.Println("outcome:", res.Outcome == notifications.Stored)
	}
	newer, _ := st.Enqueue(ctx, &notifications.Record{
		WebhookToken: "wbh-2", ObjectToken: "usr-42", CreationDate: created.Add(time.Second),
	})
	fmt.Println("outdated:", newer.Outdated)

	batch, _ := st.Claim(ctx, time.Now(), 10)
	for _, r := range batch {
		fmt.Println("claimed:", r.WebhookToken, r.NotificationType, r.Status)
	}
	// Output:
	// outcome: true
	// outcome: false
	// outdated: 1
	// claimed: wbh-2 USR PENDING
}
