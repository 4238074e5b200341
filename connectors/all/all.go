package all

// One blank import per connector; keep them sorted.
import (
	_ "github.com/sluicedata/sluice/connectors/jdbc"
	_ "github.com/sluicedata/sluice/connectors/notifications"
	_ "github.com/sluicedata/sluice/connectors/parquet"
	_ "github.com/sluicedata/sluice/connectors/restapi"
)
