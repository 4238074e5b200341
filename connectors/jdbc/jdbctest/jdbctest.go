// Package jdbctest gives tests a scratch database of their own on the real
// PostgreSQL and MySQL/MariaDB servers named by SLUICE_TEST_POSTGRES_DSN
// and SLUICE_TEST_MYSQL_DSN (skipping, with a message, when they are
// unset): CREATE DATABASE per test, dropped when it ends.
package jdbctest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"
)

// Env names the variables the servers are read from.
const (
	PostgresEnv = "SLUICE_TEST_POSTGRES_DSN"
	MySQLEnv    = "SLUICE_TEST_MYSQL_DSN"
)

// DB is a scratch database.
type DB struct {
	// URL is the svc.jdbc.url of the database.
	URL string
	// Name is the database's name.
	Name string
	// Dialect is "postgres" or "mysql".
	Dialect string
	exec    func(ctx context.Context, q string) error
	query   func(ctx context.Context, q string) ([][]string, error)
}

// Exec runs statements in the database.
func (d *DB) Exec(t testing.TB, stmts ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, q := range stmts {
		if err := d.exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// Query runs a query in the database and returns its rows as text
// ("NULL" for NULL).
func (d *DB) Query(t testing.TB, q string) [][]string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rows, err := d.query(ctx, q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return rows
}

func scratchName() string {
	var b [5]byte
	_, _ = rand.Read(b[:])
	return "sluice_t_" + hex.EncodeToString(b[:])
}

// Postgres creates a scratch database on the PostgreSQL server, or skips.
func Postgres(t testing.TB) *DB {
	t.Helper()
	dsn := os.Getenv(PostgresEnv)
	if dsn == "" {
		t.Skipf("%s is not set: no PostgreSQL to test against", PostgresEnv)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	admin, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatalf("connecting to %s: %v", PostgresEnv, err)
	}
	name := scratchName()
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		admin.Close(ctx)
		t.Fatalf("CREATE DATABASE: %v", err)
	}
	admin.Close(ctx)
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	db := &DB{URL: u.String(), Name: name, Dialect: "postgres"}
	conn := func(ctx context.Context) (*pgx.Conn, error) { return pgx.Connect(ctx, db.URL) }
	db.exec = func(ctx context.Context, q string) error {
		c, err := conn(ctx)
		if err != nil {
			return err
		}
		defer c.Close(ctx)
		_, err = c.Exec(ctx, q)
		return err
	}
	db.query = func(ctx context.Context, q string) ([][]string, error) {
		c, err := conn(ctx)
		if err != nil {
			return nil, err
		}
		defer c.Close(ctx)
		rows, err := c.Query(ctx, q, pgx.QueryResultFormats{pgx.TextFormatCode})
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		var out [][]string
		for rows.Next() {
			var r []string
			for _, v := range rows.RawValues() {
				if v == nil {
					r = append(r, "NULL")
				} else {
					r = append(r, string(v))
				}
			}
			out = append(out, r)
		}
		return out, rows.Err()
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		admin, err := pgx.Connect(ctx, dsn)
		if err != nil {
			t.Errorf("dropping %s: %v", name, err)
			return
		}
		defer admin.Close(ctx)
		if _, err := admin.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			t.Errorf("dropping %s: %v", name, err)
		}
	})
	return db
}

// MySQLConfig reads SLUICE_TEST_MYSQL_DSN: a URL (mysql://root@127.0.0.1:3306/test)
// or the driver's DSN (root@tcp(127.0.0.1:3306)/test).
func MySQLConfig(dsn string) (*mysql.Config, error) {
	if strings.Contains(dsn, "://") {
		u, err := url.Parse(strings.TrimPrefix(dsn, "jdbc:"))
		if err != nil {
			return nil, err
		}
		cfg := mysql.NewConfig()
		cfg.Net, cfg.Addr = "tcp", u.Host
		if u.Port() == "" {
			cfg.Addr = u.Host + ":3306"
		}
		cfg.User = u.User.Username()
		cfg.Passwd, _ = u.User.Password()
		cfg.DBName = strings.TrimPrefix(u.Path, "/")
		return cfg, nil
	}
	return mysql.ParseDSN(dsn)
}

// MySQL creates a scratch database on the MySQL/MariaDB server, or skips.
func MySQL(t testing.TB) *DB {
	t.Helper()
	dsn := os.Getenv(MySQLEnv)
	if dsn == "" {
		t.Skipf("%s is not set: no MySQL/MariaDB to test against", MySQLEnv)
	}
	cfg, err := MySQLConfig(dsn)
	if err != nil {
		t.Fatalf("%s: %v", MySQLEnv, err)
	}
	name := scratchName()
	open := func(dbname string) (*sql.DB, error) {
		c := cfg.Clone()
		c.DBName = dbname
		c.Loc = time.UTC
		c.Params = map[string]string{"time_zone": "'+00:00'"}
		conn, err := mysql.NewConnector(c)
		if err != nil {
			return nil, err
		}
		return sql.OpenDB(conn), nil
	}
	admin, err := open("")
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	if _, err := admin.Exec("CREATE DATABASE " + name); err != nil {
		t.Fatalf("CREATE DATABASE: %v", err)
	}
	u := url.URL{Scheme: "mysql", Host: cfg.Addr, Path: "/" + name}
	if cfg.Passwd != "" {
		u.User = url.UserPassword(cfg.User, cfg.Passwd)
	} else {
		u.User = url.User(cfg.User)
	}
	db := &DB{URL: u.String(), Name: name, Dialect: "mysql"}
	db.exec = func(ctx context.Context, q string) error {
		c, err := open(name)
		if err != nil {
			return err
		}
		defer c.Close()
		_, err = c.ExecContext(ctx, q)
		return err
	}
	db.query = func(ctx context.Context, q string) ([][]string, error) {
		c, err := open(name)
		if err != nil {
			return nil, err
		}
		defer c.Close()
		rows, err := c.QueryContext(ctx, q)
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		cols, _ := rows.Columns()
		var out [][]string
		for rows.Next() {
			raw := make([]sql.NullString, len(cols))
			dest := make([]any, len(cols))
			for i := range raw {
				dest[i] = &raw[i]
			}
			if err := rows.Scan(dest...); err != nil {
				return nil, err
			}
			r := make([]string, len(cols))
			for i, v := range raw {
				r[i] = "NULL"
				if v.Valid {
					r[i] = v.String
				}
			}
			out = append(out, r)
		}
		return out, rows.Err()
	}
	t.Cleanup(func() {
		admin, err := open("")
		if err != nil {
			t.Errorf("dropping %s: %v", name, err)
			return
		}
		defer admin.Close()
		if _, err := admin.Exec("DROP DATABASE IF EXISTS " + name); err != nil {
			t.Errorf("dropping %s: %v", name, err)
		}
	})
	return db
}

// Each runs fn once per server that is configured, as a subtest named
// postgres or mysql.
func Each(t *testing.T, fn func(t *testing.T, db *DB)) {
	t.Helper()
	for _, s := range []struct {
		name string
		open func(testing.TB) *DB
	}{{"postgres", Postgres}, {"mysql", MySQL}} {
		t.Run(s.name, func(t *testing.T) {
			fn(t, s.open(t))
		})
	}
}

// String is for messages.
func (d *DB) String() string { return fmt.Sprintf("%s database %s", d.Dialect, d.Name) }
