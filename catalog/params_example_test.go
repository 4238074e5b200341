package catalog_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/sluicedata/sluice/catalog"
	"github.com/sluicedata/sluice/dataframe"
)

// SQL with ? parameters, as database/sql takes them: each value binds as a
// typed literal, never as SQL text — a path with a quote needs no escaping,
// and a value that looks like SQL stays a value.
func ExampleSession_ExecuteBatch_parameters() {
	cat, dir, done := exampleCatalog()
	defer done()
	s := catalog.NewSession(cat)
	ctx := context.Background()

	_, err := s.Exec(ctx, `CREATE TABLE lake.events (id long, kind string, at timestamp, amount decimal(10,2))
		TBLPROPERTIES ('svc.storage.type' = 'PARQUET', 'svc.parquet.path' = ?)`,
		filepath.Join(dir, "it's here", "events.parquet"))
	if err != nil {
		panic(err)
	}
	day := time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)
	res, err := s.Exec(ctx, "INSERT INTO lake.events VALUES (?, ?, ?, ?), (?, ?, ?, ?)",
		1, "signup", day.Add(9*time.Hour), catalog.Decimal("0"),
		2, "x'; DROP TABLE lake.events; --", day.Add(34*time.Hour+30*time.Minute), catalog.Decimal("19.95"))
	if err != nil {
		panic(err)
	}
	f, err := s.ExecuteBatch(ctx, "SELECT id, kind, at, amount FROM lake.events WHERE at >= ? AND amount > ? ORDER BY id",
		day, 10)
	if err != nil {
		panic(err)
	}
	defer f.Release()
	if err := dataframe.WriteTable(os.Stdout, f, dataframe.TableOptions{}); err != nil {
		panic(err)
	}
	_, err = s.ExecuteBatch(ctx, "SELECT * FROM lake.events WHERE id = ? AND kind = ?", res.RowsAffected)
	fmt.Println(err)
	// Output:
	// +---+------------------------------+-------------------+------+
	// |id |kind                          |at                 |amount|
	// +---+------------------------------+-------------------+------+
	// |2  |x'; DROP TABLE lake.events; --|2024-05-02 10:30:00|19.95 |
	// +---+------------------------------+-------------------+------+
	// statement 1, line 1, column 51: parameter 2 (?) has no value: 1 argument given
}
