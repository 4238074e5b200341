package jdbc

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"syscall"

	"github.com/sluicedata/sluice/internal/suggest"
)

// Errors a read or write wraps (errors.Is), each named in its message with
// what caused it (docs/jdbc.md#errors).
var (
	// ErrConnect: the database's host:port refused or did not answer.
	ErrConnect = errors.New("cannot connect")
	// ErrLogin: the user (never the password) was refused.
	ErrLogin = errors.New("login failed")
	// ErrTableNotFound: the dbtable does not exist (with a did-you-mean
	// from the database's own catalog).
	ErrTableNotFound = errors.New("table not found")
	// ErrPermission: the user lacks a privilege, which the message names.
	ErrPermission = errors.New("permission denied")
	// ErrValue: a value does not fit its column (the message names table,
	// column and row).
	ErrValue = errors.New("value does not fit")
	// ErrRejected: the database refused a row (a duplicate key, a NULL in
	// a NOT NULL column); the message names table, column and row.
	ErrRejected = errors.New("row refused")
	// ErrSchema: the frame's columns do not fit the table's.
	ErrSchema = errors.New("schema mismatch")
)

// connectError names host:port for a refused or timed-out connection.
func connectError(d dialect, t target, err error) error {
	var nerr net.Error
	switch {
	case errors.Is(err, context.Canceled):
		return err
	case errors.Is(err, syscall.ECONNREFUSED):
		return fmt.Errorf("%w to %s at %s: connection refused", ErrConnect, d.Name(), t.addr())
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, os.ErrDeadlineExceeded), errors.As(err, &nerr) && nerr.Timeout():
		return fmt.Errorf("%w to %s at %s: timed out (%s)", ErrConnect, d.Name(), t.addr(), PropConnectTimeout)
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		return fmt.Errorf("%w to %s at %s: unknown host", ErrConnect, d.Name(), t.addr())
	}
	var opErr *net.OpError
	if errors.As(err, &opErr) {
		return fmt.Errorf("%w to %s at %s: %w", ErrConnect, d.Name(), t.addr(), opErr.Err)
	}
	return nil
}

// tableNotFound is the error for a missing dbtable, with the closest name
// of the schema's tables.
func tableNotFound(ctx context.Context, c conn, d dialect, t target, tn tableName) error {
	hint := ""
	if names, err := c.tableNames(ctx, tn.Schema); err == nil {
		if s, ok := suggest.Closest(tn.Name, names); ok {
			if tn.Schema != "" {
				s = tn.Schema + "." + s
			}
			hint = fmt.Sprintf(" (did you mean %s?)", s)
		}
	}
	if hint == "" && tn.Schema != "" {
		// The schema may be what is misspelled: the closest schema's
		// table of that name, else its closest table.
		if schemas, err := c.schemaNames(ctx); err == nil {
			if sc, ok := suggest.Closest(tn.Schema, schemas); ok {
				if names, err := c.tableNames(ctx, sc); err == nil {
					if contains(names, tn.Name) {
						hint = fmt.Sprintf(" (did you mean %s.%s?)", sc, tn.Name)
					} else if s, ok := suggest.Closest(tn.Name, names); ok {
						hint = fmt.Sprintf(" (did you mean %s.%s?)", sc, s)
					}
				}
			}
		}
	}
	return fmt.Errorf("%w: %s in %s database %s at %s%s", ErrTableNotFound, tn, d.Name(), t.Database, t.addr(), hint)
}

// rowError is the error for a value of the frame that the table refused:
// table, column, 1-based row, and the row's key when the table has one.
func rowError(kind error, table tableName, col string, row int64, key string, cause string) error {
	k := ""
	if key != "" {
		k = " (key " + key + ")"
	}
	c := ""
	if col != "" {
		c = ", column " + col
	}
	return fmt.Errorf("%w: table %s%s, row %d%s: %s", kind, table, c, row, k, cause)
}

// lineOf finds the n of "line n" in a database's message.
func lineOf(s string) (int64, bool) {
	for _, w := range []string{"line ", "at row "} {
		if i := strings.Index(s, w); i >= 0 {
			var n int64
			j := i + len(w)
			for j < len(s) && s[j] >= '0' && s[j] <= '9' {
				n = n*10 + int64(s[j]-'0')
				j++
			}
			if j > i+len(w) {
				return n, true
			}
		}
	}
	return 0, false
}

func didYouMean(name string, names []string) string {
	if s, ok := suggest.Closest(name, names); ok {
		return fmt.Sprintf(" (did you mean %s?)", s)
	}
	return ""
}

// privilegeOf is the privilege a statement needs, by its first word.
func privilegeOf(sql string) string {
	word, _, _ := strings.Cut(strings.TrimSpace(sql), " ")
	if strings.Contains(strings.ToUpper(sql), " INSERT INTO ") {
		word = "INSERT" // a merge: WITH up AS (INSERT …)
	}
	switch w := strings.ToUpper(word); w {
	case "COPY", "INSERT", "LOAD":
		return "INSERT"
	case "SELECT", "DESCRIBE:", "SHOW", "WITH":
		return "SELECT"
	case "CREATE", "ALTER", "DROP":
		return "CREATE (or ownership)"
	case "TRUNCATE", "DELETE", "UPDATE":
		return w
	}
	return "needed"
}

// queryError words the database's refusal of svc.jdbc.query: a missing
// table as tableNotFound does (with its did-you-mean), anything else with
// the database and host:port it came from.
func queryError(ctx context.Context, c conn, d dialect, t target, err error) error {
	var de *dbError
	if !errors.As(err, &de) {
		return err
	}
	missing := ""
	switch de.code {
	case "42P01": // PostgreSQL: relation "x" does not exist
		if _, rest, ok := strings.Cut(de.msg, `relation "`); ok {
			missing, _, _ = strings.Cut(rest, `"`)
		}
	case "1146": // MySQL: Table 'db.x' doesn't exist
		if _, rest, ok := strings.Cut(de.msg, "Table '"); ok {
			missing, _, _ = strings.Cut(rest, "'")
		}
	}
	if missing != "" {
		tn := parseTableName(missing)
		if tn.Schema == t.Database && d.Name() == "MySQL" {
			tn.Schema = ""
		}
		return fmt.Errorf("property %s: %w", PropQuery, tableNotFound(ctx, c, d, t, tn))
	}
	return fmt.Errorf("property %s, in %s database %s at %s: %w", PropQuery, d.Name(), t.Database, t.addr(), err)
}
