package jdbc

import (
	"testing"

	"github.com/go-sql-driver/mysql"
	"github.com/stretchr/testify/require"
)

// A server that refuses LOAD DATA LOCAL INFILE (MySQL 8's default,
// local_infile=OFF) is an error saying what to set, not MySQL's riddle.
func TestMySQLLocalInfileRefused(t *testing.T) {
	t.Parallel()
	c := &myConn{t: target{Host: "db.internal", Port: "3306", User: "etl"}}
	for _, me := range []*mysql.MySQLError{
		{Number: 3948, Message: "Loading local data is disabled; this must be enabled on both the client and server sides"},
		{Number: 1148, Message: "The used command is not allowed with this MariaDB version"},
	} {
		err := c.err(me)
		require.ErrorIs(t, err, ErrPermission)
		require.ErrorContains(t, err, "db.internal:3306")
		require.ErrorContains(t, err, "local_infile=ON")
	}
}
