// Command pgschema runs one SQL statement against a Postgres DSN; the
// benchmark uses it to create and drop its scratch schema without psql.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/jackc/pgx/v5"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: pgschema DSN SQL")
		os.Exit(2)
	}
	ctx := context.Background()
	c, err := pgx.Connect(ctx, os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "pgschema: connecting failed")
		os.Exit(1)
	}
	defer c.Close(ctx)
	if _, err := c.Exec(ctx, os.Args[2]); err != nil {
		fmt.Fprintln(os.Stderr, "pgschema:", err)
		os.Exit(1)
	}
}
