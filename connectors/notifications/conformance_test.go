package notifications_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/connectors"
	"github.com/sluicedata/sluice/connectors/connectortest"
	notifconn "github.com/sluicedata/sluice/connectors/notifications"
	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/notifications"
	"github.com/sluicedata/sluice/notifications/sqlstore"
)

func TestConformance(t *testing.T) {
	connectortest.Run(t, "NOTIFICATIONS", connectortest.Harness{
		NewDataset: func(t *testing.T) connectortest.Case {
			// Records with known dates, stored through the store's own Enqueue.
			dsn := "sqlite:" + filepath.Join(t.TempDir(), "n.db")
			received := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
			st, err := sqlstore.Open(context.Background(), dsn, sqlstore.WithClock(func() time.Time { return received }))
			require.NoError(t, err)
			want := dataframe.NewTypedBuilder(nil, notifconn.Columns, 0)
			defer want.Release()
			for i, obj := range []string{"usr-1", "pmt-2", "odd"} {
				created := received.Add(-time.Duration(i+1) * time.Hour)
				res, err := st.Enqueue(context.Background(), &notifications.Record{
					WebhookToken: "wbh-" + obj, ObjectToken: obj, CreationDate: created, Program: "prg-x",
				})
				require.NoError(t, err)
				want.AppendLong(0, res.ID)
				want.AppendString(1, "wbh-"+obj)
				want.AppendString(2, obj)
				want.AppendTimestamp(3, created)
				want.AppendTimestamp(4, received)
				want.AppendString(5, notifications.TypeOf(obj))
				want.AppendString(6, "PENDING")
				want.AppendInteger(7, 0)
				want.AppendNull(8)
				want.AppendNull(9)
				want.AppendString(10, "prg-x")
				want.AppendString(11, notifications.DefaultSource)
				require.NoError(t, want.EndRow())
			}
			require.NoError(t, st.Close())
			f, err := want.Frame()
			require.NoError(t, err)
			t.Cleanup(f.Release)
			return connectortest.Case{
				Dataset: &connectors.Dataset{Name: "ops.notifications", Props: connectors.Props{notifconn.PropStore: dsn}},
				Want:    f,
			}
		},
		Failing: func(t *testing.T) (*connectors.Dataset, error) {
			return &connectors.Dataset{Name: "ops.gone", Props: connectors.Props{
				notifconn.PropStore:             "sqlite:" + filepath.Join(t.TempDir(), "missing.db"),
				"svc.notifications.apiPassword": "pa55word-never-shown",
			}}, nil
		},
		BadProps: []connectortest.BadProps{
			{Props: connectors.Props{notifconn.PropStore: ""}, Property: notifconn.PropStore},
			{Props: connectors.Props{notifconn.PropFrom: "soon"}, Property: notifconn.PropFrom},
		},
	})
}
