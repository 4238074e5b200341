// Package pipelines runs data pipelines written in YAML: read datasets
// through the catalog's connectors, transform them with the dataframe
// operations and write them to files or datasets — `sluice run`.
//
// The format follows Benthos: snake_case keys, one step kind per list item,
// `${ENV}` and `${ENV:default}` in values. Decoding is strict (an unknown
// key, a wrong type or a missing field is an error with its line and
// column) and the whole pipeline is validated — step kinds, `from:`
// references, SQL syntax, cycles — before anything runs.
//
//	name: daily_failed
//	settings:
//	  svc.logging.level: ${LOG_LEVEL:QUIET}
//	steps:
//	  - id: records
//	    read:
//	      type: NOTIFICATIONS
//	      properties:
//	        svc.notifications.store: ${CONN_STORE:sqlite:.sluice/notifications.db}
//	  - filter: status = 'FAILED'
//	  - select: [webhookToken, objectToken, creationDate, retryCounter]
//	  - write: {file: out/failed.csv}
//
// In Go:
//
//	p, err := pipelines.ParseFile("daily.yaml", nil)
//	if err != nil { … }
//	res, err := pipelines.Run(ctx, p, pipelines.Options{Session: sess, Progress: os.Stderr})
//	if err != nil { … } // a *StepError names the failing step
//	defer res.Output.Release()
//
// Steps run in dependency order (an input before its readers; file order
// otherwise). `sql` and `filter` evaluate the SELECT subset of the SQL
// dialect with the dataframe operations over earlier steps' frames — no
// temporary view is left in the session. File outputs are staged under
// hidden names and renamed into place only when every step has succeeded.
package pipelines
