package sqlstore_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/sluicedata/sluice/notifications/queue"
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
		res, _ := st.Enqueue(ctx, &queue.Record{
			WebhookToken: token, ObjectToken: "usr-42", CreationDate: created,
			Payload: []byte(`{"token":"wbh-1"}`),
		})
		fmt.Println("outcome:", res.Outcome == queue.Stored)
	}
	newer, _ := st.Enqueue(ctx, &queue.Record{
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

// A processing run: take the job lock, claim a batch, save each outcome.
func Example_processing() {
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
	for i, obj := range []string{"usr-1", "pmt-7"} {
		_, _ = st.Enqueue(ctx, &queue.Record{
			WebhookToken: fmt.Sprintf("wbh-%d", i), ObjectToken: obj, CreationDate: created.Add(time.Duration(i) * time.Second),
		})
	}

	// The job runs under held, which ends should the store lose the lock.
	held, unlock, err := st.Lock(ctx, "process-notifications")
	if err != nil {
		fmt.Println(err) // queue.ErrLocked: another sidecar runs the job
		return
	}
	defer unlock()
	ctx = held
	_, _, err = st.Lock(ctx, "process-notifications")
	fmt.Println("second lock:", errors.Is(err, queue.ErrLocked))

	now := time.Now()
	batch, _ := st.Claim(ctx, now, 100)
	for i := range batch {
		r := &batch[i]
		if r.NotificationType == queue.TypePayment { // say the payment handler failed
			next := now.Add(time.Minute)
			r.Status, r.RetryCounter, r.LastRetryDate, r.NextRetryDate = queue.StatusRetrying, 1, &now, &next
		} else {
			r.Status = queue.StatusSuccess
		}
		saved, _ := st.Finish(ctx, r)
		fmt.Println(r.WebhookToken, r.Status, saved)
	}
	stats, _ := st.Stats(ctx)
	fmt.Println("success:", stats.ByStatus[queue.StatusSuccess], "retrying:", stats.ByStatus[queue.StatusRetrying])
	// Output:
	// second lock: true
	// wbh-0 SUCCESS true
	// wbh-1 RETRYING true
	// success: 1 retrying: 1
}
