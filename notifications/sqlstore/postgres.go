package sqlstore

import (
	"context"
	"errors"

	"github.com/sluicedata/sluice/notifications"
)

func openPostgres(ctx context.Context, dsn string, o options) (notifications.Store, error) {
	return nil, errors.New("sqlstore: the postgres store is being written (use sqlite:<path> for now)")
}
