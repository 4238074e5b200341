package jdbc

import (
	"fmt"
	"net"
	"net/url"
	"strings"

	"github.com/go-sql-driver/mysql"
)

// target is where a dataset's database is and who logs in, from
// svc.jdbc.url (+ user, password). See docs/jdbc.md#urls.
type target struct {
	dialect  dialect
	Host     string
	Port     string
	Database string
	User     string
	Password string
	// Params are the URL's other query parameters (sslmode, …), passed to
	// the driver.
	Params url.Values
}

// addr is host:port, as errors name it.
func (t target) addr() string { return net.JoinHostPort(t.Host, t.Port) }

// parseURL reads svc.jdbc.url. Errors never quote the URL (it may hold a
// password).
func parseURL(raw string) (target, error) {
	s := strings.TrimPrefix(raw, "jdbc:")
	scheme, _, ok := strings.Cut(s, "://")
	if !ok {
		// go-sql-driver/mysql's own DSN: user:pw@tcp(host:port)/db.
		if strings.Contains(s, "@tcp(") || strings.HasPrefix(s, "tcp(") {
			return parseMySQLDSN(s)
		}
		return target{}, fmt.Errorf("property %s: not a database URL (want postgres://…, mysql://…, jdbc:postgresql://… or jdbc:mysql://…)", PropURL)
	}
	var t target
	switch strings.ToLower(scheme) {
	case "postgres", "postgresql":
		t.dialect, t.Port = postgres{}, "5432"
	case "mysql", "mariadb":
		t.dialect, t.Port = mysqlDialect{}, "3306"
	default:
		return target{}, fmt.Errorf("property %s: unknown database %q (want postgres, postgresql, mysql or mariadb)", PropURL, scheme)
	}
	u, err := url.Parse(s)
	if err != nil {
		// net/url's reason may quote a piece of the password.
		return target{}, fmt.Errorf("property %s: not a valid URL; percent-encode @ : / ? # %% in a user or password (or set %s)", PropURL, PropPassword)
	}
	t.Host = u.Hostname()
	if t.Host == "" {
		t.Host = "localhost"
	}
	if p := u.Port(); p != "" {
		t.Port = p
	}
	t.Database = strings.TrimPrefix(u.Path, "/")
	if u.User != nil {
		t.User = u.User.Username()
		t.Password, _ = u.User.Password()
	}
	t.Params = u.Query()
	if v := t.Params.Get("user"); v != "" {
		t.User = v
	}
	if v := t.Params.Get("password"); v != "" {
		t.Password = v
	}
	t.Params.Del("user")
	t.Params.Del("password")
	if t.Database == "" {
		return target{}, fmt.Errorf("property %s: the URL names no database (…://host:port/DATABASE)", PropURL)
	}
	return t, nil
}

func parseMySQLDSN(s string) (target, error) {
	cfg, err := mysql.ParseDSN(s)
	if err != nil {
		return target{}, fmt.Errorf("property %s: not a valid MySQL DSN", PropURL)
	}
	t := target{dialect: mysqlDialect{}, User: cfg.User, Password: cfg.Passwd, Database: cfg.DBName, Params: url.Values{}}
	host, port, err := net.SplitHostPort(cfg.Addr)
	if err != nil {
		host, port = cfg.Addr, "3306"
	}
	t.Host, t.Port = host, port
	if t.Database == "" {
		return target{}, fmt.Errorf("property %s: the DSN names no database (…/DATABASE)", PropURL)
	}
	return t, nil
}
