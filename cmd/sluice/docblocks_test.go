package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"

	"github.com/sluicedata/sluice/connectors/jdbc/jdbctest"
	"github.com/sluicedata/sluice/notifications/sqlstore"
)

// The doc-block test: every sh, console, sql and yaml block of README.md
// and docs/*.md runs against a freshly built binary, so an example that no
// longer works fails the build (docs/development.md#docs-that-run).
//
// Each markdown file runs in a scratch directory of its own (its blocks in
// order, sharing that directory and its catalog, .sluice/catalog) in which
// the checkout's top-level entries appear as symlinks, so paths such as
// pipelines/examples/… work. The directory starts with fixtures the
// examples name (docFixtures): subscriptions.json and events.ndjson, the
// tables yt.subs, api.events, api.orders (incremental RESTAPI), shop.orders,
// hr.employees and hr.departments,
// and an empty notification store .sluice/notifications.db. A loopback
// server stands in for the APIs the docs call 127.0.0.1:8765 (it serves
// catalog/testdata, the recorded YouTube answers) and
// https://api.example.com (a small tickets API, /tickets and
// /tickets/{id}/comments, the guide's /v1/tickets, /orders): both are
// replaced by the server's address wherever they appear, in commands and
// expected output alike.
//
// Database URLs on the host db.internal (postgres://app@db.internal:5432/shop,
// mysql://etl@db.internal:3306/shop, in any block that runs) stand for a
// scratch database of the file's own on the local server that
// SLUICE_TEST_POSTGRES_DSN / SLUICE_TEST_MYSQL_DSN name (connectors/jdbc/jdbctest:
// created for the file, dropped after it); the whole URL is replaced. The
// MySQL one holds the table orders, the shop database of docs/jdbc.md. A
// file that needs a database whose variable is unset is skipped, and the
// test says so.
//
//   - sh: each command runs: `sluice …` and `go run ./cmd/sluice …` on the
//     built binary, `export K=V` and `K=V sluice …` set the environment,
//     `go install/build ./cmd/sluice` are what the test did to build it,
//     `go test ./...` is the suite this test is part of (both listed at
//     the end, not run).
//     Anything else (pipes, curl, python) needs a marker.
//   - console: `$ command` lines run; the lines after each are its
//     expected output (stdout and stderr as a terminal shows them), `…`
//     standing for any text within a line, and a line of only `…` for any
//     number of lines.
//   - sql: runs with `sluice sql -f`. A block of property fragments
//     ('svc.restapi.…'='…' lines, grouped by their comments) is checked by
//     creating a RESTAPI table with each group, which validates the names
//     and values against the connector's declarations.
//   - yaml: a pipeline is checked with `sluice run FILE --dry-run`; other
//     YAML must parse.
//
// A marker — an HTML comment on the line above the block — changes that:
//
//	<!-- not run: REASON -->   the block is skipped (and counted): it needs the network, a
//	                           long-running server, or is an excerpt
//	<!-- file: NAME -->        the block is saved as NAME in the scratch directory for a
//	                           later block to use, not run by itself
//	<!-- expect error -->      the block must fail: an sh block's last command, a sql block,
//	                           a pipeline's dry run (console blocks compare their output anyway)
//	<!-- run -->               a yaml pipeline runs for real instead of a dry run

// The fixture APIs' addresses as the docs write them.
const (
	docFixtureAddr   = "127.0.0.1:8765"
	docExampleAPIURL = "https://api.example.com"
)

// docDBURLRE matches the database URLs the docs write for the reader's
// own database (host db.internal); the scheme picks the server.
var docDBURLRE = regexp.MustCompile(`\b(postgres|postgresql|mysql|mariadb)://[^\s'"/@` + "`" + `]*@db\.internal(?::\d+)?(?:/[^\s'"` + "`" + `]*)?`)

// docDBDialect is the server of a docs database URL: "postgres" or "mysql".
func docDBDialect(url string) string {
	if strings.HasPrefix(url, "postgres") {
		return "postgres"
	}
	return "mysql"
}

// docDatabases lists the servers the blocks that run need.
func docDatabases(blocks []docBlock) []string {
	need := map[string]bool{}
	for _, b := range blocks {
		if strings.HasPrefix(b.marker, "not run:") {
			continue
		}
		for _, u := range docDBURLRE.FindAllString(b.text, -1) {
			need[docDBDialect(u)] = true
		}
	}
	var out []string
	for _, d := range []string{"postgres", "mysql"} {
		if need[d] {
			out = append(out, d)
		}
	}
	return out
}

// docMySQLShop is the table the scratch MySQL database starts with: the
// shop's orders that docs/jdbc.md reads incrementally.
var docMySQLShop = []string{
	`CREATE TABLE orders (amount decimal(10,2), created_at datetime(6), id bigint PRIMARY KEY,
	  status varchar(20), updated_at datetime(6))`,
	`INSERT INTO orders VALUES
	  (19.90, '2024-05-01 09:00:00', 101, 'paid',    '2024-05-01 09:05:00'),
	  (5.00,  '2024-05-02 11:30:00', 102, 'pending', '2024-05-02 11:30:00'),
	  (42.00, '2024-05-03 15:10:00', 103, 'shipped', '2024-05-04 08:00:00')`,
}

// docScratchDatabases gives the file a scratch database on each server
// its blocks name, or skips the file (with a message) when a server's
// variable is unset.
func docScratchDatabases(t *testing.T, file string, blocks []docBlock) (map[string]string, string) {
	dbs := map[string]string{}
	for _, d := range docDatabases(blocks) {
		env := map[string]string{"postgres": jdbctest.PostgresEnv, "mysql": jdbctest.MySQLEnv}[d]
		if os.Getenv(env) == "" {
			return nil, fmt.Sprintf("%s: every block skipped: its examples load a %s database (db.internal) and %s is not set", file, d, env)
		}
		if d == "postgres" {
			dbs[d] = jdbctest.Postgres(t).URL
			continue
		}
		db := jdbctest.MySQL(t)
		db.Exec(t, docMySQLShop...)
		dbs[d] = db.URL
	}
	return dbs, ""
}

// docBlock is one fenced code block of a markdown file.
type docBlock struct {
	file   string // path from the repository root
	line   int    // 1-based line of the opening fence
	lang   string
	text   string // the content, fence indentation removed
	marker string // the directive above the block, "" if none
}

func (b docBlock) where() string { return fmt.Sprintf("%s:%d", b.file, b.line) }

var (
	fenceRE  = regexp.MustCompile("^( {0,3})(`{3,}|~{3,})[ \t]*([^`\\s]*)")
	markerRE = regexp.MustCompile(`^<!--\s*((?:not run|file|expect error|run)\b.*?)\s*-->$`)
)

// parseDocBlocks finds the fenced blocks of a markdown text the way
// CommonMark closes them (a closing fence has no info string), and reports
// a block that is never closed or swallows the start of another.
func parseDocBlocks(file, text string) ([]docBlock, error) {
	lines := strings.Split(text, "\n")
	var blocks []docBlock
	for i := 0; i < len(lines); i++ {
		m := fenceRE.FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		indent, fence, lang := len(m[1]), m[2], m[3]
		b := docBlock{file: file, line: i + 1, lang: strings.ToLower(lang)}
		for j := i - 1; j >= 0; j-- {
			if prev := strings.TrimSpace(lines[j]); prev != "" {
				if mm := markerRE.FindStringSubmatch(prev); mm != nil {
					b.marker = mm[1]
				}
				break
			}
		}
		var body []string
		closed := false
		for i++; i < len(lines); i++ {
			l := lines[i]
			t := strings.TrimSpace(l)
			if strings.HasPrefix(t, fence[:3]) && strings.Trim(t, fence[:1]) == "" && len(t) >= len(fence) {
				closed = true
				break
			}
			if mm := fenceRE.FindStringSubmatch(l); mm != nil && mm[3] != "" && mm[2][0] == fence[0] {
				return nil, fmt.Errorf("%s:%d: a %s line inside the block opened at line %d: that block is not closed", file, i+1, strings.TrimSpace(l), b.line)
			}
			for k := 0; k < indent && strings.HasPrefix(l, " "); k++ {
				l = l[1:]
			}
			body = append(body, l)
		}
		if !closed {
			return nil, fmt.Errorf("%s:%d: the code block opened here is never closed", file, b.line)
		}
		b.text = strings.Join(body, "\n")
		blocks = append(blocks, b)
	}
	return blocks, nil
}

// docRun is one markdown file's run: its scratch directory, environment
// and the binary.
type docRun struct {
	bin     string
	wd      string
	fixture string // host:port of the fixture API
	env     map[string]string
	dbs     map[string]string // "postgres"/"mysql" → the scratch database's URL
	n       int               // blocks written to files so far
	// accepted lists the commands taken as done without running them
	// (building the binary, the test suite itself), for the test's list.
	accepted []string
}

func (r *docRun) subst(s string) string {
	s = strings.ReplaceAll(s, docExampleAPIURL, "http://"+r.fixture)
	s = docDBURLRE.ReplaceAllStringFunc(s, func(u string) string {
		if db, ok := r.dbs[docDBDialect(u)]; ok {
			return db
		}
		return u
	})
	return strings.ReplaceAll(s, docFixtureAddr, r.fixture)
}

// environ is the environment of a command: the test's, without Sluice's
// own variables (so the machine's settings do not leak in), plus the
// file's exports and the command's assignments.
func (r *docRun) environ(extra map[string]string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "SLUICE_") || strings.HasPrefix(k, "CONN_") || r.env[k] != "" || extra[k] != "" {
			continue
		}
		env = append(env, kv)
	}
	for _, m := range []map[string]string{r.env, extra} {
		for _, k := range sortedKeys(m) {
			env = append(env, k+"="+m[k])
		}
	}
	return env
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// exec runs the binary with args in the scratch directory; out is stdout
// and stderr as one stream, in the order they were written.
func (r *docRun) exec(args []string, extra map[string]string) (out string, code int, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, r.bin, args...)
	cmd.Dir = r.wd
	cmd.Env = r.environ(extra)
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	err = cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return buf.String(), 0, nil
	case errors.As(err, &ee) && ctx.Err() == nil:
		return buf.String(), ee.ExitCode(), nil
	case ctx.Err() != nil:
		return buf.String(), -1, fmt.Errorf("did not finish within 2 minutes (a server that runs until stopped needs <!-- not run: … -->)")
	}
	return buf.String(), -1, err
}

// shellCmd is one command of an sh block, split into words.
type shellCmd struct {
	line  int // within the block, 0-based
	words []string
}

// shellCommands splits sh text into commands as sh would for the subset
// the docs use: words, '…' and "…" quotes (newlines allowed inside),
// backslash escapes and line continuations, # comments, $VAR and ${VAR}
// (outside single quotes). Pipes, redirections, command substitution,
// && and background jobs are refused.
func shellCommands(text string, lookup func(string) (string, bool)) ([]shellCmd, error) {
	var (
		cmds  []shellCmd
		words []string
		word  strings.Builder
		inW   bool
		line  int
		start = -1
	)
	endWord := func() {
		if inW {
			words = append(words, word.String())
			word.Reset()
			inW = false
		}
	}
	endCmd := func() {
		endWord()
		if len(words) > 0 {
			cmds = append(cmds, shellCmd{line: start, words: words})
		}
		words, start = nil, -1
	}
	expand := func(rs []rune, i int) (int, error) {
		j := i + 1
		var name string
		if j < len(rs) && rs[j] == '{' {
			k := j + 1
			for k < len(rs) && rs[k] != '}' {
				k++
			}
			if k >= len(rs) {
				return 0, fmt.Errorf("line %d: unclosed ${", line+1)
			}
			name, j = string(rs[j+1:k]), k+1
		} else {
			k := j
			for k < len(rs) && (rs[k] == '_' || rs[k] >= 'A' && rs[k] <= 'Z' || rs[k] >= 'a' && rs[k] <= 'z' || k > j && rs[k] >= '0' && rs[k] <= '9') {
				k++
			}
			if k == j {
				if j < len(rs) && rs[j] == '(' {
					return 0, fmt.Errorf("line %d: command substitution $( ) is not run by the doc test", line+1)
				}
				word.WriteRune('$')
				return j, nil
			}
			name, j = string(rs[j:k]), k
		}
		v, ok := lookup(name)
		if !ok {
			return 0, fmt.Errorf("line %d: $%s is not set (export it in an earlier block)", line+1, name)
		}
		word.WriteString(v)
		return j, nil
	}
	rs := []rune(text)
	for i := 0; i < len(rs); {
		c := rs[i]
		if start < 0 && c != ' ' && c != '\t' && c != '\n' {
			start = line
		}
		switch {
		case c == '\n':
			endCmd()
			line++
			i++
		case c == ' ' || c == '\t':
			endWord()
			i++
		case c == '#' && !inW:
			for i < len(rs) && rs[i] != '\n' {
				i++
			}
		case c == '\\':
			if i+1 < len(rs) && rs[i+1] == '\n' {
				line++
				i += 2
				continue
			}
			if i+1 < len(rs) {
				word.WriteRune(rs[i+1])
				inW = true
			}
			i += 2
		case c == '\'':
			inW = true
			j := i + 1
			for j < len(rs) && rs[j] != '\'' {
				if rs[j] == '\n' {
					line++
				}
				j++
			}
			if j >= len(rs) {
				return nil, fmt.Errorf("line %d: unterminated '", start+1)
			}
			word.WriteString(string(rs[i+1 : j]))
			i = j + 1
		case c == '"':
			inW = true
			j := i + 1
			for j < len(rs) && rs[j] != '"' {
				switch {
				case rs[j] == '\\' && j+1 < len(rs) && strings.ContainsRune("\"\\$`\n", rs[j+1]):
					if rs[j+1] != '\n' {
						word.WriteRune(rs[j+1])
					} else {
						line++
					}
					j += 2
				case rs[j] == '$':
					k, err := expand(rs, j)
					if err != nil {
						return nil, err
					}
					j = k
				case rs[j] == '`':
					return nil, fmt.Errorf("line %d: command substitution ` is not run by the doc test", line+1)
				default:
					if rs[j] == '\n' {
						line++
					}
					word.WriteRune(rs[j])
					j++
				}
			}
			if j >= len(rs) {
				return nil, fmt.Errorf("line %d: unterminated \"", start+1)
			}
			i = j + 1
		case c == '$':
			inW = true
			k, err := expand(rs, i)
			if err != nil {
				return nil, err
			}
			i = k
		case strings.ContainsRune("|&;<>`()", c):
			return nil, fmt.Errorf("line %d: the shell operator %q is not run by the doc test", line+1, c)
		default:
			inW = true
			word.WriteRune(c)
			i++
		}
	}
	endCmd()
	return cmds, nil
}

var assignRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`)

// sluiceArgs recognises a command the test runs (the binary and its
// arguments) or accepts (building the binary), else explains what to do.
func sluiceArgs(words []string) (args []string, run bool, err error) {
	switch {
	case words[0] == "sluice":
		return words[1:], true, nil
	case len(words) >= 3 && words[0] == "go" && words[1] == "run" && (words[2] == "./cmd/sluice" || words[2] == "github.com/sluicedata/sluice/cmd/sluice"):
		return words[3:], true, nil
	case len(words) >= 3 && words[0] == "go" && (words[1] == "install" || words[1] == "build") && words[len(words)-1] == "./cmd/sluice":
		return nil, false, nil // what the test itself did to build the binary
	case len(words) == 3 && words[0] == "go" && words[1] == "test" && words[2] == "./...":
		return nil, false, nil // the suite this test is part of
	}
	return nil, false, fmt.Errorf("`%s` is not a sluice command the doc test can run: use sluice, or put <!-- not run: why --> on the line above the block", strings.Join(words, " "))
}

// exitRule is what runShell asks of the exit statuses.
type exitRule int

const (
	allSucceed exitRule = iota // every command exits 0
	lastFails                  // the last command exits non-zero (<!-- expect error -->)
	anyExit                    // a console command, whose output is compared
)

// runShell runs the commands of sh text; the output of the last one is
// returned.
func (r *docRun) runShell(b docBlock, text string, line0 int, rule exitRule) (string, int, error) {
	cmds, err := shellCommands(r.subst(text), r.lookup)
	if err != nil {
		return "", 0, err
	}
	var out string
	code := 0
	for i, c := range cmds {
		words := c.words
		extra := map[string]string{}
		for len(words) > 0 && assignRE.MatchString(words[0]) {
			k, v, _ := strings.Cut(words[0], "=")
			extra[k] = v
			words = words[1:]
		}
		if len(words) == 0 || words[0] == "export" {
			if len(words) > 0 {
				for _, w := range words[1:] {
					k, v, ok := strings.Cut(w, "=")
					if !ok {
						return "", 0, fmt.Errorf("line %d: export %s without a value", b.line+line0+c.line+1, w)
					}
					extra[k] = v
				}
			}
			for k, v := range extra {
				r.env[k] = v
			}
			continue
		}
		args, run, err := sluiceArgs(words)
		if err != nil {
			return "", 0, fmt.Errorf("line %d: %w", b.line+line0+c.line+1, err)
		}
		if !run {
			r.accepted = append(r.accepted, fmt.Sprintf("%s:%d: `%s`", b.file, b.line+line0+c.line+1, strings.Join(words, " ")))
			continue
		}
		out, code, err = r.exec(args, extra)
		if err != nil {
			return out, code, fmt.Errorf("line %d: sluice %s: %w", b.line+line0+c.line+1, strings.Join(args, " "), err)
		}
		last := i == len(cmds)-1
		if code != 0 && rule != anyExit && !(rule == lastFails && last) {
			return out, code, fmt.Errorf("line %d: sluice %s exited %d:\n%s", b.line+line0+c.line+1, strings.Join(args, " "), code, out)
		}
		if rule == lastFails && last && code == 0 {
			return out, code, fmt.Errorf("line %d: sluice %s succeeded, but the block is marked <!-- expect error -->:\n%s", b.line+line0+c.line+1, strings.Join(args, " "), out)
		}
	}
	return out, code, nil
}

func (r *docRun) lookup(name string) (string, bool) {
	if v, ok := r.env[name]; ok {
		return v, true
	}
	if name == "PWD" {
		return r.wd, true
	}
	return "", false
}

// runConsole runs the `$ ` commands of a console block and compares what
// each prints with the lines after it.
func (r *docRun) runConsole(b docBlock) error {
	lines := strings.Split(b.text, "\n")
	for i := 0; i < len(lines); {
		if !strings.HasPrefix(lines[i], "$ ") {
			return fmt.Errorf("line %d: output before any `$ ` command", b.line+i+1)
		}
		// The command goes on while its quotes or a trailing \ leave it open.
		first := i
		cmd := strings.TrimPrefix(lines[i], "$ ")
		for i++; i < len(lines); i++ {
			_, err := shellCommands(cmd, func(string) (string, bool) { return "", true })
			if !strings.HasSuffix(cmd, "\\") && (err == nil || !strings.Contains(err.Error(), "unterminated")) {
				break
			}
			cmd += "\n" + lines[i]
		}
		var want []string
		for ; i < len(lines) && !strings.HasPrefix(lines[i], "$ "); i++ {
			want = append(want, lines[i])
		}
		out, _, err := r.runShell(b, cmd, first, anyExit)
		if err != nil {
			return err
		}
		if err := matchOutput(r.subst(strings.Join(want, "\n")), out); err != nil {
			return fmt.Errorf("line %d: `%s`: %w", b.line+first+1, strings.SplitN(cmd, "\n", 2)[0], err)
		}
	}
	return nil
}

// matchOutput compares actual output with the expected text of a console
// block: `…` is any text within a line, a line of only `…` any number of
// lines; trailing spaces and blank lines do not count.
func matchOutput(want, got string) error {
	norm := func(s string) []string {
		ls := strings.Split(strings.TrimRight(s, "\n "), "\n")
		for i, l := range ls {
			ls[i] = strings.TrimRight(l, " \t")
		}
		if len(ls) == 1 && ls[0] == "" {
			return nil
		}
		return ls
	}
	w, g := norm(want), norm(got)
	if len(w) == 0 {
		return nil
	}
	var re strings.Builder
	re.WriteString(`\A`)
	for _, l := range w {
		if strings.TrimSpace(l) == "…" {
			re.WriteString(`(?:[^\n]*\n)*`)
			continue
		}
		parts := strings.Split(l, "…")
		for k, p := range parts {
			if k > 0 {
				re.WriteString(`[^\n]*`)
			}
			re.WriteString(regexp.QuoteMeta(p))
		}
		re.WriteString(`\n`)
	}
	re.WriteString(`\z`)
	if !regexp.MustCompile(re.String()).MatchString(strings.Join(g, "\n") + "\n") {
		return fmt.Errorf("the output differs from the doc's\n--- doc\n%s\n--- sluice printed\n%s", strings.Join(w, "\n"), strings.Join(g, "\n"))
	}
	return nil
}

// writeFile saves text in the scratch directory.
func (r *docRun) writeFile(name, text string) (string, error) {
	path := filepath.Join(r.wd, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return "", err
	}
	return path, os.WriteFile(path, []byte(text+"\n"), 0o644)
}

func (r *docRun) scratchName(ext string) string {
	r.n++
	return fmt.Sprintf(".docblock-%d.%s", r.n, ext)
}

var fragmentGroupRE = regexp.MustCompile(`(?m)^\s*--.*$`)

// runSQL runs a sql block with sluice sql -f; a block of property
// fragments is checked group by group in a CREATE TABLE.
func (r *docRun) runSQL(b docBlock, wantFail bool) error {
	text := r.subst(b.text)
	body := strings.TrimSpace(fragmentGroupRE.ReplaceAllString(text, ""))
	if strings.HasPrefix(body, "'") {
		for k, group := range fragmentGroupRE.Split(text, -1) {
			group = strings.TrimSpace(group)
			if group == "" {
				continue
			}
			stmt := fmt.Sprintf("CREATE TABLE docfragment.g%d TBLPROPERTIES ('svc.storage.type'='RESTAPI', 'svc.restapi.url'='http://%s/', %s);\nDROP TABLE docfragment.g%d",
				k, r.fixture, strings.TrimSuffix(group, ","), k)
			if err := r.sqlFile(b, stmt, false); err != nil {
				return fmt.Errorf("property fragment %q: %w", group, err)
			}
		}
		return nil
	}
	return r.sqlFile(b, text, wantFail)
}

func (r *docRun) sqlFile(b docBlock, text string, wantFail bool) error {
	name := r.scratchName("sql")
	if _, err := r.writeFile(name, text); err != nil {
		return err
	}
	out, code, err := r.exec([]string{"sql", "-f", name}, nil)
	switch {
	case err != nil:
		return err
	case wantFail && code == 0:
		return fmt.Errorf("succeeded, but the block is marked <!-- expect error -->:\n%s", out)
	case !wantFail && code != 0:
		return fmt.Errorf("sluice sql exited %d:\n%s", code, out)
	}
	return nil
}

// runYAML checks a pipeline with a dry run (or runs it); other YAML must
// parse.
func (r *docRun) runYAML(b docBlock, wantFail, run bool) error {
	text := r.subst(b.text)
	var doc map[string]any
	if err := yaml.Unmarshal([]byte(text), &doc); err != nil {
		return fmt.Errorf("invalid YAML: %w", err)
	}
	if _, ok := doc["steps"]; !ok {
		return nil
	}
	name := r.scratchName("yaml")
	if _, err := r.writeFile(name, text); err != nil {
		return err
	}
	args := []string{"run", name, "--dry-run"}
	if run {
		args = args[:2]
	}
	out, code, err := r.exec(args, nil)
	switch {
	case err != nil:
		return err
	case wantFail && code == 0:
		return fmt.Errorf("sluice %s succeeded, but the block is marked <!-- expect error -->:\n%s", strings.Join(args, " "), out)
	case !wantFail && code != 0:
		return fmt.Errorf("sluice %s exited %d:\n%s", strings.Join(args, " "), code, out)
	}
	return nil
}

// docBlockLangs are the languages of the blocks that run.
var docBlockLangs = map[string]struct{}{"sh": {}, "shell": {}, "bash": {}, "console": {}, "sql": {}, "yaml": {}, "yml": {}}

// runBlock runs one block; ran says whether it was run (or saved for a
// later block), false for a block of another language.
func (r *docRun) runBlock(b docBlock) (ran bool, err error) {
	if _, ok := docBlockLangs[b.lang]; !ok {
		return false, nil
	}
	marker := b.marker
	if name, ok := strings.CutPrefix(marker, "file:"); ok {
		name = strings.TrimSpace(name)
		if name == "" || filepath.IsAbs(name) || strings.HasPrefix(filepath.Clean(name), "..") {
			return false, fmt.Errorf("<!-- file: %s -->: want a relative file name", name)
		}
		_, err := r.writeFile(name, r.subst(b.text))
		return true, err
	}
	wantFail := marker == "expect error"
	if marker != "" && !wantFail && marker != "run" {
		return false, fmt.Errorf("unknown marker <!-- %s --> (want not run: REASON, file: NAME, expect error or run)", marker)
	}
	switch b.lang {
	case "sh", "shell", "bash":
		rule := allSucceed
		if wantFail {
			rule = lastFails
		}
		_, _, err = r.runShell(b, b.text, 0, rule)
	case "console":
		err = r.runConsole(b)
	case "sql":
		err = r.runSQL(b, wantFail)
	default:
		err = r.runYAML(b, wantFail, marker == "run")
	}
	return true, err
}

// docFiles are the markdown files whose blocks run.
func docFiles(t *testing.T) []string {
	files, err := filepath.Glob("../../docs/*.md")
	require.NoError(t, err)
	return append([]string{"../../README.md"}, files...)
}

// buildSluice builds the binary the doc blocks run, once per test binary.
var buildSluice = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "sluice-docs-bin")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "sluice")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, ".")
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("go build ./cmd/sluice: %v\n%s", err, out)
	}
	return bin, nil
})

// scratchDir makes a directory holding a copy of the fixtures in which the
// checkout's top-level entries appear (symlinks), so relative paths of the
// docs resolve.
func scratchDir(t *testing.T, fixtures string) string {
	t.Helper()
	wd := t.TempDir()
	require.NoError(t, os.CopyFS(wd, os.DirFS(fixtures)))
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	entries, err := os.ReadDir(root)
	require.NoError(t, err)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		require.NoError(t, os.Symlink(filepath.Join(root, e.Name()), filepath.Join(wd, e.Name())))
	}
	return wd
}

// fixtureAPI serves, on loopback, catalog/testdata (the docs'
// 127.0.0.1:8765) and a tickets API (the docs' https://api.example.com).
func fixtureAPI(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	tickets := []map[string]any{
		{"id": 1, "subject": "Login fails", "status": "open", "updated_at": "2024-02-01T09:00:00Z"},
		{"id": 2, "subject": "Invoice missing", "status": "pending", "updated_at": "2024-02-03T14:30:00Z"},
		{"id": 3, "subject": "Export to CSV", "status": "closed", "updated_at": "2024-02-05T08:15:00Z"},
	}
	mux := http.NewServeMux()
	mux.Handle("/", http.FileServer(http.Dir("../../catalog/testdata")))
	mux.HandleFunc("GET /tickets", func(w http.ResponseWriter, r *http.Request) {
		since := r.URL.Query().Get("updated_since")
		var out []map[string]any
		for _, tk := range tickets {
			if tk["updated_at"].(string) >= since {
				out = append(out, tk)
			}
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"tickets": out})
	})
	mux.HandleFunc("GET /tickets/{id}/comments", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"comments": []map[string]any{
			{"author": "ana", "body": "Looking into ticket " + r.PathValue("id")},
		}})
	})
	// The guide's API (docs/guide-api-to-postgres.md): a bearer token,
	// records under data, two per page, updated_since inclusive.
	guide := []map[string]any{
		{"id": 15, "subject": "Refund not received", "status": "closed", "priority": "low", "requester": map[string]any{"email": "ana@example.com"}, "updated_at": "2024-04-28T10:00:00Z"},
		{"id": 16, "subject": "Cannot log in", "status": "open", "priority": "high", "requester": map[string]any{"email": "lin@example.com"}, "updated_at": "2024-04-30T16:20:00Z"},
		{"id": 17, "subject": "Export to CSV", "status": "open", "priority": "normal", "requester": map[string]any{"email": "sam@example.com"}, "updated_at": "2024-05-02T08:00:00Z"},
		{"id": 18, "subject": "Win a prize!!!", "status": "spam", "priority": "low", "requester": map[string]any{"email": "x@spam.example"}, "updated_at": "2024-05-02T08:00:00Z"},
	}
	mux.HandleFunc("GET /v1/tickets", func(w http.ResponseWriter, r *http.Request) {
		if tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); !ok || tok == "" {
			http.Error(w, `{"error": "a bearer token is required"}`, http.StatusUnauthorized)
			return
		}
		since := r.URL.Query().Get("updated_since")
		var match []map[string]any
		for _, tk := range guide {
			if tk["updated_at"].(string) >= since {
				match = append(match, tk)
			}
		}
		page := 1
		if p := r.URL.Query().Get("page"); p != "" {
			if _, err := fmt.Sscan(p, &page); err != nil || page < 1 {
				http.Error(w, `{"error": "bad page"}`, http.StatusBadRequest)
				return
			}
		}
		data, next := []map[string]any{}, any(nil)
		if lo := (page - 1) * 2; lo < len(match) {
			data = match[lo:min(lo+2, len(match))]
			if lo+2 < len(match) {
				next = page + 1
			}
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"data": data, "next_page": next})
	})
	// The orders of docs/jdbc.md's api.orders.
	mux.HandleFunc("GET /orders", func(w http.ResponseWriter, r *http.Request) {
		since := r.URL.Query().Get("updated_since")
		var out []map[string]any
		for _, o := range []map[string]any{
			{"id": 1, "status": "paid", "amount": 19.9, "created_at": "2023-12-30T10:00:00Z", "updated_at": "2024-01-02T09:00:00Z"},
			{"id": 2, "status": "paid", "amount": 5.0, "created_at": "2024-01-03T11:00:00Z", "updated_at": "2024-01-03T11:05:00Z"},
			{"id": 3, "status": "pending", "amount": 42.0, "created_at": "2024-01-04T15:00:00Z", "updated_at": "2024-01-04T15:00:00Z"},
		} {
			if o["updated_at"].(string) >= since {
				out = append(out, o)
			}
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"orders": out})
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return ln.Addr().String()
}

// buildDocFixtures makes the directory every scratch directory starts as:
// the files and tables the docs' examples name.
func buildDocFixtures(bin, fixture string) (string, error) {
	dir, err := os.MkdirTemp("", "sluice-docs-fixtures")
	if err != nil {
		return "", err
	}
	subs, err := os.ReadFile("../../catalog/testdata/youtube_subscriptions_by_channel_p1.json")
	if err != nil {
		return "", err
	}
	var events, orders strings.Builder
	kinds := []string{"signup", "login", "purchase", "logout"}
	for i := 1; i <= 200; i++ {
		fmt.Fprintf(&events, `{"id": %d, "type": %q, "day": "2024-05-%02d", "user": "u%d"}`+"\n", i, kinds[i%len(kinds)], 1+i%7, i%13)
	}
	orders.WriteString(`{"order": "o-1", "items": [{"id": "a", "qty": 1}, {"id": "b", "qty": 2}]}` + "\n")
	orders.WriteString(`{"order": "o-2", "items": [{"id": "c", "qty": 5}]}` + "\n")
	files := map[string]string{
		"subscriptions.json":          string(subs),
		"events.ndjson":               events.String(),
		"fixtures/events.ndjson":      events.String(),
		"fixtures/orders.ndjson":      orders.String(),
		"fixtures/employees.ndjson":   `{"name": "Ada", "title": "engineer", "dept": 1, "salary": 120000}` + "\n" + `{"name": "Lin", "title": "analyst", "dept": 2, "salary": null}` + "\n",
		"fixtures/departments.ndjson": `{"id": 1, "department": "R&D"}` + "\n" + `{"id": 2, "department": "Finance"}` + "\n",
	}
	for name, data := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			return "", err
		}
	}
	r := &docRun{bin: bin, wd: dir, fixture: fixture, env: map[string]string{}}
	for _, args := range [][]string{
		{"convert", "fixtures/events.ndjson", "fixtures/events.parquet"},
		{"convert", "fixtures/orders.ndjson", "fixtures/orders.parquet"},
		{"convert", "fixtures/employees.ndjson", "fixtures/employees.parquet"},
		{"convert", "fixtures/departments.ndjson", "fixtures/departments.parquet"},
		{"sql", "-e", `
CREATE TABLE yt.subs TBLPROPERTIES ('svc.storage.type'='RESTAPI',
  'svc.restapi.url'='http://` + fixture + `/youtube_subscriptions_by_channel_p1.json',
  'svc.restapi.parse.payload'='true', 'svc.restapi.records.path'='items');
CREATE TABLE api.events (id long, type string, day string, user string)
  TBLPROPERTIES ('svc.storage.type'='PARQUET', 'svc.parquet.path'='fixtures/events.parquet');
CREATE TABLE shop.orders TBLPROPERTIES ('svc.storage.type'='PARQUET', 'svc.parquet.path'='fixtures/orders.parquet');
CREATE TABLE api.orders TBLPROPERTIES ('svc.storage.type'='RESTAPI',
  'svc.restapi.url'='http://` + fixture + `/orders', 'svc.restapi.parse.payload'='true',
  'svc.restapi.records.path'='orders', 'svc.restapi.incremental.cursor'='updated_at',
  'svc.restapi.incremental.param'='updated_since', 'svc.restapi.incremental.initial'='2024-01-01T00:00:00Z',
  'svc.restapi.primary.key'='id');
CREATE TABLE hr.employees (name string, title string, dept long, salary long)
  TBLPROPERTIES ('svc.storage.type'='PARQUET', 'svc.parquet.path'='fixtures/employees.parquet');
CREATE TABLE hr.departments (id long, department string)
  TBLPROPERTIES ('svc.storage.type'='PARQUET', 'svc.parquet.path'='fixtures/departments.parquet')`},
	} {
		out, code, err := r.exec(args, nil)
		if err != nil || code != 0 {
			return "", fmt.Errorf("fixtures: sluice %s: exit %d, %v\n%s", strings.Join(args, " "), code, err, out)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	st, err := sqlstore.Open(ctx, "sqlite:"+filepath.Join(dir, ".sluice", "notifications.db"))
	if err != nil {
		return "", fmt.Errorf("fixtures: the notification store: %w", err)
	}
	return dir, st.Close()
}

// TestDocBlocks runs the examples of README.md and docs/ (see the comment
// at the top of this file for the rules and markers).
func TestDocBlocks(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: not building and running the docs' examples")
	}
	bin, err := buildSluice()
	require.NoError(t, err)
	fixture := fixtureAPI(t)
	fixtures, err := buildDocFixtures(bin, fixture)
	require.NoError(t, err)
	t.Cleanup(func() { _ = os.RemoveAll(fixtures) })
	type tally struct{ ran, marked, skipped int }
	var mu sync.Mutex
	counts := map[string]*tally{}
	var notRun, accepted, skipped []string
	t.Cleanup(func() {
		var ran, marked, skippedBlocks int
		for _, c := range counts {
			ran += c.ran
			marked += c.marked
			skippedBlocks += c.skipped
		}
		t.Logf("README.md and docs/: %d blocks run, %d marked not run, %d skipped (no database)", ran, marked, skippedBlocks)
		for _, list := range []struct {
			what  string
			items []string
		}{{"not run", notRun}, {"accepted, not run", accepted}, {"skipped", skipped}} {
			sort.Strings(list.items)
			for _, n := range list.items {
				t.Logf("  %s: %s", list.what, n)
			}
		}
	})
	for _, path := range docFiles(t) {
		rel := strings.TrimPrefix(path, "../../")
		t.Run(rel, func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(path)
			require.NoError(t, err)
			blocks, err := parseDocBlocks(rel, string(data))
			require.NoError(t, err)
			c := &tally{}
			mu.Lock()
			counts[rel] = c
			mu.Unlock()
			dbs, skip := docScratchDatabases(t, rel, blocks)
			if skip != "" {
				mu.Lock()
				for _, b := range blocks {
					if _, ok := docBlockLangs[b.lang]; ok {
						c.skipped++
					}
				}
				skipped = append(skipped, skip)
				mu.Unlock()
				t.Skip(skip)
			}
			r := &docRun{bin: bin, wd: scratchDir(t, fixtures), fixture: fixture, env: map[string]string{}, dbs: dbs}
			defer func() {
				mu.Lock()
				accepted = append(accepted, r.accepted...)
				mu.Unlock()
			}()
			for _, b := range blocks {
				if reason, ok := strings.CutPrefix(b.marker, "not run:"); ok {
					if _, ok := docBlockLangs[b.lang]; !ok {
						t.Errorf("%s: <!-- not run --> on a %q block, which the test never runs anyway", b.where(), b.lang)
					}
					if strings.TrimSpace(reason) == "" {
						t.Errorf("%s: <!-- not run: --> without a reason", b.where())
					}
					mu.Lock()
					c.marked++
					notRun = append(notRun, b.where()+": "+strings.TrimSpace(reason))
					mu.Unlock()
					continue
				}
				ran, err := r.runBlock(b)
				if err != nil {
					t.Errorf("%s: %s block: %v", b.where(), b.lang, err)
					continue
				}
				if ran {
					mu.Lock()
					c.ran++
					mu.Unlock()
				}
			}
		})
	}
}

func TestParseDocBlocks(t *testing.T) {
	t.Parallel()
	blocks, err := parseDocBlocks("x.md", "a\n<!-- not run: needs the network -->\n\n```sh\nsluice x\n```\n\n   ```sql\n   SELECT 1\n   ```\n~~~yaml\nname: x\n~~~\n")
	require.NoError(t, err)
	require.Len(t, blocks, 3)
	require.Equal(t, docBlock{file: "x.md", line: 4, lang: "sh", text: "sluice x", marker: "not run: needs the network"}, blocks[0])
	require.Equal(t, "SELECT 1", blocks[1].text)
	require.Equal(t, 8, blocks[1].line)
	require.Equal(t, "yaml", blocks[2].lang)

	_, err = parseDocBlocks("x.md", "```sh\nsluice x\n\n## Next\n\n```sql\nSELECT 1\n```\n")
	require.EqualError(t, err, "x.md:6: a ```sql line inside the block opened at line 1: that block is not closed")
	_, err = parseDocBlocks("x.md", "text\n```sh\nsluice x\n")
	require.EqualError(t, err, "x.md:2: the code block opened here is never closed")
}

func TestShellCommands(t *testing.T) {
	t.Parallel()
	env := map[string]string{"DIR": "/tmp/d"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	cmds, err := shellCommands(`sluice read yt.subs --format json   # a comment
X=1 sluice sql -e "SELECT 'a', \"b\"
  FROM t" \
  --set k=v
export A='x y' B=$DIR/c
sluice convert ${DIR}/in.json 'it''s'`, lookup)
	require.NoError(t, err)
	require.Equal(t, []shellCmd{
		{line: 0, words: []string{"sluice", "read", "yt.subs", "--format", "json"}},
		{line: 1, words: []string{"X=1", "sluice", "sql", "-e", "SELECT 'a', \"b\"\n  FROM t", "--set", "k=v"}},
		{line: 4, words: []string{"export", "A=x y", "B=/tmp/d/c"}},
		{line: 5, words: []string{"sluice", "convert", "/tmp/d/in.json", "its"}},
	}, cmds)
	for text, want := range map[string]string{
		"sluice read x | head":        `the shell operator '|'`,
		"sluice read x > out":         `the shell operator '>'`,
		"a && b":                      `the shell operator '&'`,
		"echo $(date)":                "command substitution",
		"sluice read $MISSING":        "$MISSING is not set",
		"sluice sql -e \"SELECT 1":    `unterminated "`,
		"python3 -m http.server 80 &": `the shell operator '&'`,
	} {
		_, err := shellCommands(text, lookup)
		require.ErrorContains(t, err, want, text)
	}
	_, _, err = sluiceArgs([]string{"curl", "-XPOST", "x"})
	require.ErrorContains(t, err, "`curl -XPOST x` is not a sluice command")
	args, run, err := sluiceArgs([]string{"go", "run", "./cmd/sluice", "demo"})
	require.NoError(t, err)
	require.True(t, run)
	require.Equal(t, []string{"demo"}, args)
}

func TestMatchOutput(t *testing.T) {
	t.Parallel()
	got := "restapi: GET http://h/x 200 8073 bytes 1.2ms\n+---+\n|  a|\n+---+\n|  1|\n|  2|\n+---+\n"
	require.NoError(t, matchOutput("restapi: GET http://h/x 200 8073 bytes …\n+---+\n|  a|\n+---+\n…\n+---+", got))
	require.NoError(t, matchOutput("", got))
	err := matchOutput("+---+\n|  b|", got)
	require.ErrorContains(t, err, "the output differs from the doc's")
}

func TestDocDatabases(t *testing.T) {
	t.Parallel()
	blocks := []docBlock{
		{lang: "sql", text: "'svc.jdbc.url'='postgres://loader@db.internal:5432/warehouse?sslmode=require'"},
		{lang: "sh", marker: "not run: a server", text: "sluice x 'mysql://etl@db.internal:3306/shop'"},
		{lang: "console", text: "$ sluice serve --store 'mysql://sluice:s3cret@mysql.internal/sluice'"},
	}
	require.Equal(t, []string{"postgres"}, docDatabases(blocks))
	blocks[1].marker = ""
	require.Equal(t, []string{"postgres", "mysql"}, docDatabases(blocks))

	r := &docRun{fixture: "127.0.0.1:1", dbs: map[string]string{"postgres": "postgres://postgres@127.0.0.1:5432/sluice_t_1?sslmode=disable"}}
	require.Equal(t,
		"'svc.jdbc.url'='postgres://postgres@127.0.0.1:5432/sluice_t_1?sslmode=disable', 'mysql://etl@db.internal:3306/shop', http://127.0.0.1:1/v1",
		r.subst("'svc.jdbc.url'='postgresql://app@db.internal/shop', 'mysql://etl@db.internal:3306/shop', https://api.example.com/v1"))
}

// TestREADMEStart keeps the README's first lines what a newcomer runs:
// the title, then a block of the demo and the test suite, no marker
// between (TestDocBlocks runs the demo and lists `go test ./...`).
func TestREADMEStart(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	blocks, err := parseDocBlocks("README.md", string(data))
	require.NoError(t, err)
	require.NotEmpty(t, blocks)
	first := blocks[0]
	require.True(t, strings.HasPrefix(string(data), "# Sluice\n\n```sh\n"), "README.md starts: # Sluice, a blank line, the sh block")
	require.Equal(t, "", first.marker)
	cmds, err := shellCommands(first.text, func(string) (string, bool) { return "", false })
	require.NoError(t, err)
	var got []string
	for _, c := range cmds {
		got = append(got, strings.Join(c.words, " "))
	}
	require.Equal(t, []string{"go run ./cmd/sluice demo", "go test ./..."}, got)
}
