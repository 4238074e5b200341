package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sluicedata/sluice/connectors"
)

// demoPostgresEnv is read when --postgres is not given (CI sets it).
const demoPostgresEnv = "SLUICE_TEST_POSTGRES_DSN"

// ---- step: the activities into PostgreSQL, exactly once ------------------

// stepPostgres loads the activities feed into a PostgreSQL table twice,
// incrementally, the state committed with the rows in the database
// (docs/jdbc.md#exactly-once). Without a database it says how to run it.
func (d *demo) stepPostgres(ctx context.Context) error {
	dsn, keepSchema := d.postgres, true
	if dsn == "" {
		dsn, keepSchema = os.Getenv(demoPostgresEnv), false
	}
	if dsn == "" {
		d.result("skipped: give --postgres DSN (or set %s) to load the activities into a", demoPostgresEnv)
		d.result("PostgreSQL table, incrementally, the state committed with the rows (docs/guide-api-to-postgres.md)")
		return nil
	}
	red := connectors.NewRedactor(map[string]string{"svc.jdbc.url": dsn, "svc.restapi.accessKey": d.apiKey})
	schema := "sluice_demo"
	if !keepSchema {
		// A test database: a schema of this run's own, dropped at the end.
		suffix, err := randomHex(4)
		if err != nil {
			return err
		}
		schema = "sluice_demo_" + suffix
	}
	if err := demoSchema(ctx, dsn, schema, !keepSchema); err != nil {
		return red.Error(err)
	}
	if !keepSchema {
		defer func() {
			_ = demoDropSchema(context.WithoutCancel(ctx), dsn, schema)
		}()
	}
	// The DSN may hold a password: like the API key, the catalog keeps a
	// reference to a file only its owner reads (docs/restapi.md#secret-references).
	dsnFile := filepath.Join(d.dir, "postgres-dsn")
	if err := os.WriteFile(dsnFile, []byte(dsn+"\n"), 0o600); err != nil {
		return fmt.Errorf("writing the DSN file: %w", err)
	}
	dsnRef := "${file:" + dsnFile + "}"
	d.say("The same feed into a PostgreSQL table (%s.activities), merged on id. The", schema)
	d.say("state now lives in the target database, in %s.sluice_state, committed in the same", schema)
	d.say("transaction as the rows: a crash anywhere leaves both or neither (docs/jdbc.md).")
	s := d.session()
	stmts := []string{
		d.activitiesTable("yt.activities_pg",
			[2]string{"svc.restapi.channelId", demoChannel},
			[2]string{"svc.restapi.incremental.cursor", "snippet.publishedAt"},
			[2]string{"svc.restapi.incremental.param", "publishedAfter"},
			[2]string{"svc.restapi.primary.key", "id"}),
		fmt.Sprintf(`CREATE TABLE pg.activities TBLPROPERTIES (
  'svc.storage.type'  = 'JDBC',
  'svc.jdbc.url'      = '%s',
  'svc.jdbc.dbtable'  = '%s.activities',
  'svc.jdbc.mode'     = 'merge',
  'svc.jdbc.merge.key'= 'id'
)`, dsnRef, schema),
	}
	run := func(stmt string) error {
		d.echo(red.String(stmt))
		f, err := s.ExecuteBatch(ctx, stmt)
		if err != nil {
			return red.Error(err)
		}
		defer f.Release()
		if f.NumCols() > 0 {
			var rows []string
			_ = f.EachRowJSON(func(_ int64, obj []byte) error { rows = append(rows, string(obj)); return nil })
			d.result("%s", strings.Join(rows, "\n  "))
		}
		return nil
	}
	for _, st := range stmts {
		if err := run(st); err != nil {
			return err
		}
	}
	load := "INSERT INTO pg.activities SELECT id, snippet.title AS title, snippet.publishedAt AS publishedAt FROM yt.activities_pg"
	d.say("First run: every activity; the state goes into %s.sluice_state with the rows.", schema)
	if err := run(load); err != nil {
		return err
	}
	d.api.addUpload(demoUpload{demoChannel, "act-" + demoChannel + "-4", "Straight into Postgres", "2024-07-01T08:00:00Z"})
	d.say("Another upload; the second run reads from the state kept in the database:")
	if err := run(load); err != nil {
		return err
	}
	d.echoCmd("sluice state show yt.activities_pg")
	st, where, err := s.State(ctx, "yt.activities_pg")
	if err != nil {
		return red.Error(err)
	}
	if st == nil {
		return fmt.Errorf("no state after an incremental load into PostgreSQL")
	}
	d.result(`"last_value": %q (kept by %s in %s.sluice_state)`, st.LastValue, where, schema)
	n, err := d.queryShow(ctx, s, "SELECT id, title, publishedAt FROM pg.activities ORDER BY publishedAt", nil)
	if err != nil {
		return red.Error(err)
	}
	d.result("%d rows in %s.activities, each id once", n, schema)
	return nil
}

// demoSchema creates the demo's schema, emptied of an earlier run's
// tables.
func demoSchema(ctx context.Context, dsn, schema string, fresh bool) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return fmt.Errorf("connecting to --postgres: %w", err)
	}
	defer c.Close(ctx)
	q := pgx.Identifier{schema}.Sanitize()
	stmts := []string{"CREATE SCHEMA IF NOT EXISTS " + q}
	if !fresh {
		stmts = append([]string{"DROP TABLE IF EXISTS " + q + ".activities, " + q + ".sluice_state"}, stmts...)
	}
	for _, s := range stmts {
		if _, err := c.Exec(ctx, s); err != nil {
			return fmt.Errorf("preparing schema %s: %w", schema, err)
		}
	}
	return nil
}

func demoDropSchema(ctx context.Context, dsn, schema string) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return err
	}
	defer c.Close(ctx)
	_, err = c.Exec(ctx, "DROP SCHEMA IF EXISTS "+pgx.Identifier{schema}.Sanitize()+" CASCADE")
	return err
}
