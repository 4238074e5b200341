package jdbc

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/sluicedata/sluice/connectors"
	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/cells"
)

// Write writes f to the dataset's table (see WriteStream).
// Overwrites reports that writes honour Dataset.Overwrite (INSERT
// OVERWRITE): the table's rows are replaced in one transaction.
func (c *Connector) Overwrites() bool { return true }

func (c *Connector) Write(ctx context.Context, ds *connectors.Dataset, f *dataframe.Frame) (connectors.WriteResult, error) {
	s := f.Stream()
	defer s.Release()
	return c.WriteStream(ctx, ds, s)
}

// WriteStream writes the stream to the dataset's table in one transaction
// (docs/jdbc.md#writes): append, overwrite or merge by mode, creating the
// table or adding columns as configured, bulk-loading batch.rows rows at a
// time, and storing the states of ds.States with the rows. On any error
// nothing is committed.
func (c *Connector) WriteStream(ctx context.Context, ds *connectors.Dataset, s dataframe.Stream) (res connectors.WriteResult, err error) {
	if err := ctx.Err(); err != nil {
		return res, err
	}
	cfg, err := parseConfig(ds.Props)
	if err != nil {
		return res, err
	}
	if cfg.Table == "" {
		return res, fmt.Errorf("property %s is required for a write (%s is read-only)", PropDBTable, PropQuery)
	}
	mode := cfg.Mode
	if ds.Overwrite {
		mode = ModeOverwrite
	}
	d := cfg.Target.dialect
	cn, err := connect(ctx, ds, cfg)
	if err != nil {
		return res, err
	}
	defer cn.close()
	w := &writer{ctx: ctx, cfg: cfg, d: d, c: cn, tn: parseTableName(cfg.Table), mode: mode, schema: s.Schema(), ds: ds}
	if err := w.prepare(); err != nil {
		return res, err
	}
	return w.run(s)
}

// writer is one write.
type writer struct {
	ctx    context.Context
	cfg    *config
	d      dialect
	c      conn
	tn     tableName
	mode   string
	schema *dataframe.Schema
	ds     *connectors.Dataset

	info    *tableInfo
	ddl     []string     // CREATE / ALTER / state table, in order
	load    []loadColumn // frame columns → table columns
	keys    []string     // merge keys (table names)
	staging string       // merge: the temporary table
}

// prepare compares the frame with the table and plans the DDL.
func (w *writer) prepare() error {
	info, err := w.c.tableInfo(w.ctx, w.tn)
	if err != nil {
		return err
	}
	fields := w.schema.Fields()
	if len(fields) == 0 {
		return fmt.Errorf("%w: the frame written to %s has no columns", ErrSchema, w.tn)
	}
	if info == nil {
		if !w.cfg.CreateTable {
			return tableNotFound(w.ctx, w.c, w.d, w.cfg.Target, w.tn)
		}
		return w.planCreate(fields)
	}
	w.info = info
	if !w.cfg.AddColumns {
		var missing []string
		for _, f := range fields {
			if _, ok := info.column(f.Name); !ok {
				missing = append(missing, f.Name)
			}
		}
		switch len(missing) {
		case 0:
		case 1:
			return fmt.Errorf("%w: table %s has no column %s (%s=fail)%s", ErrSchema, w.tn, missing[0], PropSchemaEvolution, didYouMean(missing[0], info.names()))
		default:
			return fmt.Errorf("%w: table %s has no columns %s (%s=fail)", ErrSchema, w.tn, strings.Join(missing, ", "), PropSchemaEvolution)
		}
	}
	for i, f := range fields {
		spark := sparkName(f.Type)
		col, ok := info.column(f.Name)
		if !ok {
			typ, err := w.d.columnType(spark, false)
			if err != nil {
				return fmt.Errorf("%w: column %s: %w", ErrSchema, f.Name, err)
			}
			w.ddl = append(w.ddl, fmt.Sprintf("ALTER TABLE %s ADD COLUMN %s %s", w.tn.quoted(w.d), w.d.quote(f.Name), typ))
			col = column{Name: f.Name, DBType: typ, Spark: readBack(spark, typ), Nullable: true}
			info.Columns = append(info.Columns, col)
		} else if !assignable(spark, col.Spark) {
			return fmt.Errorf("%w: column %s: the frame's %s cannot go into the table's %s (%s)", ErrSchema, f.Name, spark, col.Spark, col.DBType)
		}
		w.load = append(w.load, loadColumn{Name: col.Name, Src: i, Target: col})
	}
	if w.mode == ModeMerge {
		keys := w.cfg.MergeKey
		if len(keys) == 0 {
			keys = info.Key
		}
		if len(keys) == 0 {
			return fmt.Errorf("mode=merge needs %s: table %s has no primary key", PropMergeKey, w.tn)
		}
		for i, k := range keys {
			col, ok := info.column(k)
			if !ok {
				return fmt.Errorf("property %s: table %s has no column %s%s", PropMergeKey, w.tn, k, didYouMean(k, info.names()))
			}
			keys[i] = col.Name
			if !w.loads(col.Name) {
				return fmt.Errorf("property %s: the frame written has no column %s", PropMergeKey, k)
			}
		}
		if !isUnique(info, keys) {
			return fmt.Errorf("property %s: (%s) is neither the primary key nor a unique key of %s: a merge could not find the rows it replaces", PropMergeKey, strings.Join(keys, ", "), w.tn)
		}
		w.keys = keys
	}
	return w.planState()
}

func (w *writer) loads(name string) bool {
	for _, lc := range w.load {
		if lc.Name == name {
			return true
		}
	}
	return false
}

func isUnique(info *tableInfo, keys []string) bool {
	for _, u := range info.Unique {
		if len(u) == len(keys) {
			all := true
			for _, k := range u {
				all = all && contains(keys, k)
			}
			if all {
				return true
			}
		}
	}
	return false
}

// planCreate makes the CREATE TABLE of a missing table: the frame's
// columns with their mapped types, merge.key as the primary key.
func (w *writer) planCreate(fields []dataframe.Field) error {
	// merge.key names the frame's columns in any case, as SQL does.
	keys := make([]string, len(w.cfg.MergeKey))
	for i, k := range w.cfg.MergeKey {
		keys[i] = k
		for _, f := range fields {
			if strings.EqualFold(f.Name, k) {
				keys[i] = f.Name
				break
			}
		}
	}
	var defs []string
	info := &tableInfo{}
	for i, f := range fields {
		spark := sparkName(f.Type)
		key := contains(keys, f.Name)
		typ, err := w.d.columnType(spark, key)
		if err != nil {
			return fmt.Errorf("%w: column %s: %w", ErrSchema, f.Name, err)
		}
		def := w.d.quote(f.Name) + " " + typ
		if key {
			def += " NOT NULL"
		}
		defs = append(defs, def)
		col := column{Name: f.Name, DBType: typ, Spark: readBack(spark, typ), Nullable: !key}
		info.Columns = append(info.Columns, col)
		w.load = append(w.load, loadColumn{Name: f.Name, Src: i, Target: col})
	}
	for _, k := range keys {
		if !w.loads(k) {
			return fmt.Errorf("property %s: the frame written to the new table %s has no column %s", PropMergeKey, w.tn, k)
		}
	}
	if len(keys) > 0 {
		defs = append(defs, "PRIMARY KEY ("+strings.Join(quoteAll(w.d, keys), ", ")+")")
		info.Key = keys
		info.Unique = [][]string{keys}
	}
	w.ddl = append(w.ddl, fmt.Sprintf("CREATE TABLE %s (%s)", w.tn.quoted(w.d), strings.Join(defs, ", ")))
	w.info = info
	if w.mode == ModeMerge {
		if len(keys) == 0 {
			return fmt.Errorf("mode=merge needs %s to create table %s", PropMergeKey, w.tn)
		}
		w.keys = keys
	}
	return w.planState()
}

// readBack is the Spark type a created column of type typ reads back as.
func readBack(spark, typ string) string {
	switch {
	case typ == "json" || typ == "jsonb":
		return "string"
	case spark == "byte":
		return "short"
	case spark == "timestamp_ntz":
		return "timestamp"
	case spark == "void":
		return "string"
	case strings.HasPrefix(spark, "struct<"), strings.HasPrefix(spark, "map<"):
		return "string"
	}
	return spark
}

func (w *writer) planState() error {
	if w.ds.States != nil {
		w.ddl = append(w.ddl, w.d.stateTable(w.tn.sibling(stateTableName).quoted(w.d)))
	}
	return nil
}

// run executes the write in one transaction.
func (w *writer) run(s dataframe.Stream) (res connectors.WriteResult, err error) {
	ctx := w.ctx
	if !w.d.transactionalDDL() {
		// MySQL commits DDL: it runs before the transaction (a table
		// created by a failed write remains, empty).
		if err := w.execAll(w.ddl); err != nil {
			return res, w.ddlErr(err)
		}
	}
	target := w.tn
	if w.mode == ModeMerge {
		w.staging = "_sluice_stage_" + randomSuffix()
		if !w.d.transactionalDDL() {
			if err := w.execAll(w.d.createStaging(w.d.quote(w.staging), w.tn.quoted(w.d), quoteAll(w.d, w.names()))); err != nil {
				return res, err
			}
		}
	}
	if err := w.c.begin(ctx); err != nil {
		return res, err
	}
	committed := false
	defer func() {
		if !committed {
			_ = w.c.rollback(ctx)
		}
	}()
	if w.d.transactionalDDL() {
		if err := w.execAll(w.ddl); err != nil {
			return res, w.ddlErr(err)
		}
		if w.mode == ModeMerge {
			if err := w.execAll(w.d.createStaging(w.d.quote(w.staging), w.tn.quoted(w.d), quoteAll(w.d, w.names()))); err != nil {
				return res, err
			}
		}
	}
	cols := w.load
	if w.mode == ModeOverwrite {
		if _, err := w.c.exec(ctx, w.d.emptyTable(w.tn.quoted(w.d))); err != nil {
			return res, err
		}
	}
	if w.mode == ModeMerge {
		target = tableName{Name: w.staging}
		if w.d.stagingSeq() {
			cols = append(append([]loadColumn{}, w.load...), loadColumn{Name: seqColumn, Src: -1, Target: column{Name: seqColumn, Spark: "long", DBType: "bigint"}})
		}
	}
	rows, loaded, err := w.loadAll(s, target, cols)
	res.Rows, res.Written = rows, 0
	if err != nil {
		return res, err
	}
	counts := &connectors.WriteCounts{Affected: loaded, Inserted: loaded}
	if w.mode == ModeMerge {
		if counts, err = w.merge(); err != nil {
			return res, err
		}
	}
	if w.ds.States != nil {
		if err := w.saveStates(); err != nil {
			return res, err
		}
	}
	if err := ctx.Err(); err != nil {
		return res, err
	}
	if err := w.c.commit(ctx); err != nil {
		return res, err
	}
	committed = true
	res.Written = rows
	res.Counts = counts
	return res, nil
}

// ddlErr names a missing schema (MySQL: database) of the table a write
// creates, with a did-you-mean from the database's schemas.
func (w *writer) ddlErr(err error) error {
	var de *dbError
	if !errors.As(err, &de) || (de.code != "3F000" && de.code != "1049") || w.tn.Schema == "" {
		return err
	}
	if w.d.transactionalDDL() {
		// The failed CREATE ended the transaction's use: end it to look.
		_ = w.c.rollback(w.ctx)
	}
	hint := ""
	if schemas, serr := w.c.schemaNames(w.ctx); serr == nil {
		hint = didYouMean(w.tn.Schema, schemas)
	}
	t := w.cfg.Target
	return fmt.Errorf("%w: schema %s of table %s does not exist in %s database %s at %s%s", ErrTableNotFound, w.tn.Schema, w.tn, w.d.Name(), t.Database, t.addr(), hint)
}

func (w *writer) names() []string {
	out := make([]string, len(w.load))
	for i, lc := range w.load {
		out[i] = lc.Name
	}
	return out
}

func (w *writer) execAll(stmts []string) error {
	for _, q := range stmts {
		if _, err := w.c.exec(w.ctx, q); err != nil {
			return err
		}
	}
	return nil
}

// loadAll bulk-loads the stream into tn, batch.rows rows per load. It
// returns the rows read and loaded.
func (w *writer) loadAll(s dataframe.Stream, tn tableName, cols []loadColumn) (rows, loaded int64, err error) {
	var pending []dataframe.Record
	var pendingRows int64
	defer func() {
		for _, r := range pending {
			r.Release()
		}
	}()
	flush := func() error {
		if pendingRows == 0 {
			return nil
		}
		first := rows - pendingRows + 1
		for i := range cols {
			if cols[i].Src < 0 {
				cols[i].seqBase = first - 1
			}
		}
		n, err := w.c.load(w.ctx, tn, cols, pending)
		if err != nil {
			return w.rowErr(err, pending, first)
		}
		loaded += n
		for _, r := range pending {
			r.Release()
		}
		pending, pendingRows = pending[:0], 0
		return nil
	}
	limit := int64(w.cfg.BatchRows)
	for s.Next() {
		rec := s.Record()
		n := rec.NumRows()
		for off := int64(0); off < n; {
			take := min(n-off, limit-pendingRows)
			part := rec.NewSlice(off, off+take)
			pending = append(pending, part)
			pendingRows += take
			rows += take
			off += take
			if pendingRows >= limit {
				if err := flush(); err != nil {
					return rows, loaded, err
				}
			}
		}
	}
	if err := s.Err(); err != nil {
		return rows, loaded, err
	}
	if err := flush(); err != nil {
		return rows, loaded, err
	}
	return rows, loaded, nil
}

// rowErr turns a refused row into the error naming table, column, the
// row's position in the frame and its key.
func (w *writer) rowErr(err error, recs []dataframe.Record, first int64) error {
	var le *loadRowError
	if !errors.As(err, &le) {
		return err
	}
	cause := le.Err.Error()
	kind := ErrValue
	var de *dbError
	if errors.As(le.Err, &de) {
		cause = de.msg
		if rejected(de.code) {
			kind = ErrRejected
		}
	}
	at := le.Row
	if at == 0 && de != nil && de.code == "1062" {
		at = w.duplicateRow(recs, de.msg)
	}
	if at == 0 {
		return fmt.Errorf("%w: table %s: %s", kind, w.tn, cause)
	}
	return rowError(kind, w.tn, le.Column, first+at-1, w.keyOf(recs, at), cause)
}

// rejected says whether a database error code is a constraint refusing a
// row (a key, NOT NULL, a CHECK, a foreign key): SQLSTATE class 23, or
// MySQL's duplicate entry (1062), NULL in a NOT NULL column (1048, and 1263
// as LOAD DATA LOCAL words it), foreign key (1451, 1452) and CHECK (MySQL
// 3819, MariaDB 4025).
func rejected(code string) bool {
	switch code {
	case "1062", "1048", "1263", "1451", "1452", "3819", "4025":
		return true
	}
	return strings.HasPrefix(code, "23")
}

// duplicateRow finds the row (1-based in recs) of MySQL's "Duplicate entry
// 'v' for key 'k'", which names no row: a row whose primary or unique key
// reads v (MySQL joins a composite key's values with '-') — when several
// do, the second, which is refused whether or not the first was. 0 when
// none does.
func (w *writer) duplicateRow(recs []dataframe.Record, msg string) int64 {
	const pre = "Duplicate entry '"
	i := strings.Index(msg, pre)
	j := strings.LastIndex(msg, "' for key")
	if i < 0 || j < i+len(pre) || w.info == nil {
		return 0
	}
	entry := msg[i+len(pre) : j]
	src := map[string]int{}
	for _, lc := range w.load {
		if lc.Src >= 0 {
			src[lc.Name] = lc.Src
		}
	}
	for _, u := range w.info.Unique {
		var found []int64
		var base int64
		for _, r := range recs {
			cols := cells.Columns(r)
			for row := 0; row < int(r.NumRows()); row++ {
				parts := make([]string, 0, len(u))
				for _, k := range u {
					c, ok := src[k]
					if !ok {
						break
					}
					t, _ := cellText(cols[c], row)
					parts = append(parts, t)
				}
				if len(parts) == len(u) && strings.Join(parts, "-") == entry {
					found = append(found, base+int64(row)+1)
				}
			}
			base += r.NumRows()
		}
		switch {
		case len(found) == 1:
			return found[0]
		case len(found) > 1:
			return found[1]
		}
	}
	return 0
}

// keyOf is the key (primary key, else merge.key) of the i-th (1-based)
// row of recs as text, or "".
func (w *writer) keyOf(recs []dataframe.Record, i int64) string {
	keys := w.keys
	if len(keys) == 0 && w.info != nil {
		keys = w.info.Key
	}
	if len(keys) == 0 {
		return ""
	}
	for _, r := range recs {
		if i > r.NumRows() {
			i -= r.NumRows()
			continue
		}
		cols := cells.Columns(r)
		var parts []string
		for _, k := range keys {
			for _, lc := range w.load {
				if lc.Name == k && lc.Src >= 0 {
					t, ok := cellText(cols[lc.Src], int(i-1))
					if !ok {
						t = "NULL"
					}
					parts = append(parts, k+"="+t)
				}
			}
		}
		return strings.Join(parts, ", ")
	}
	return ""
}

// merge upserts the staging table into the target.
func (w *writer) merge() (*connectors.WriteCounts, error) {
	tq, sq := w.tn.quoted(w.d), w.d.quote(w.staging)
	cols := quoteAll(w.d, w.names())
	keys := quoteAll(w.d, w.keys)
	q := w.d.upsert(tq, sq, cols, keys, false)
	if w.d.transactionalDDL() {
		if _, err := w.c.exec(w.ctx, "SAVEPOINT sluice_merge"); err != nil {
			return nil, err
		}
		rows, err := w.c.texts(w.ctx, q)
		var de *dbError
		dedupe := false
		if errors.As(err, &de) && de.code == "21000" {
			// A key staged twice: keep its last row.
			if _, err := w.c.exec(w.ctx, "ROLLBACK TO SAVEPOINT sluice_merge"); err != nil {
				return nil, err
			}
			dedupe = true
			rows, err = w.c.texts(w.ctx, w.d.upsert(tq, sq, cols, keys, true))
		}
		if err != nil {
			return nil, w.mergeRowErr(err, dedupe)
		}
		ins, _ := strconv.ParseInt(rows[0][0], 10, 64)
		upd, _ := strconv.ParseInt(rows[0][1], 10, 64)
		return &connectors.WriteCounts{Affected: ins + upd, Inserted: ins, Updated: upd}, nil
	}
	// MySQL: count the distinct keys staged and those the table has,
	// then upsert.
	var on []string
	for _, k := range keys {
		on = append(on, "t."+k+" = s."+k)
	}
	sk := make([]string, len(keys))
	for i, k := range keys {
		sk[i] = "s." + k
	}
	total, err := w.c.texts(w.ctx, fmt.Sprintf("SELECT COUNT(DISTINCT %s) FROM %s s", strings.Join(sk, ", "), sq))
	if err != nil {
		return nil, err
	}
	existing, err := w.c.texts(w.ctx, fmt.Sprintf("SELECT COUNT(DISTINCT %s) FROM %s s JOIN %s t ON %s", strings.Join(sk, ", "), sq, tq, strings.Join(on, " AND ")))
	if err != nil {
		return nil, err
	}
	if _, err := w.c.exec(w.ctx, q); err != nil {
		var de *dbError
		if errors.As(err, &de) && rejected(de.code) {
			// The staging table has the columns, not the table's checks.
			return nil, fmt.Errorf("%w: table %s: %s", ErrRejected, w.tn, de.msg)
		}
		return nil, err
	}
	all, _ := strconv.ParseInt(total[0][0], 10, 64)
	upd, _ := strconv.ParseInt(existing[0][0], 10, 64)
	return &connectors.WriteCounts{Affected: all, Inserted: all - upd, Updated: upd}, nil
}

// mergeRowErr words a constraint's refusal of the PostgreSQL upsert — the
// staging table has no NOT NULL, so a NULL is refused only there — as the
// row refused: a NULL in a NOT NULL column is found in the staging table
// (rows lie in the order loaded; with dedupe only a key's last row counts)
// and named by its position in the frame and its key.
func (w *writer) mergeRowErr(err error, dedupe bool) error {
	var de *dbError
	if !errors.As(err, &de) || !rejected(de.code) {
		return err
	}
	if de.code != "23502" || de.column == "" {
		return fmt.Errorf("%w: table %s: %s", ErrRejected, w.tn, de.msg)
	}
	if _, rerr := w.c.exec(w.ctx, "ROLLBACK TO SAVEPOINT sluice_merge"); rerr != nil {
		return fmt.Errorf("%w: table %s, column %s: %s", ErrRejected, w.tn, de.column, de.msg)
	}
	sel := []string{"n"}
	var same []string
	for _, k := range w.keys {
		q := w.d.quote(k)
		sel = append(sel, "coalesce("+q+"::text, 'NULL')")
		same = append(same, "l."+q+" IS NOT DISTINCT FROM s."+q)
	}
	where := w.d.quote(de.column) + " IS NULL"
	if dedupe {
		where += " AND n = (SELECT max(l.n) FROM s AS l WHERE " + strings.Join(same, " AND ") + ")"
	}
	q := fmt.Sprintf("WITH s AS (SELECT row_number() OVER (ORDER BY ctid) AS n, * FROM %s) SELECT %s FROM s WHERE %s ORDER BY n LIMIT 1",
		w.d.quote(w.staging), strings.Join(sel, ", "), where)
	rows, qerr := w.c.texts(w.ctx, q)
	if qerr != nil || len(rows) == 0 {
		return fmt.Errorf("%w: table %s, column %s: %s", ErrRejected, w.tn, de.column, de.msg)
	}
	n, _ := strconv.ParseInt(rows[0][0], 10, 64)
	var key []string
	for i, k := range w.keys {
		key = append(key, k+"="+rows[0][i+1])
	}
	return rowError(ErrRejected, w.tn, de.column, n, strings.Join(key, ", "), de.msg)
}

// saveStates stores the states of the write's sources in the target's
// sluice_state table, inside the write's transaction.
func (w *writer) saveStates() error {
	states, err := w.ds.States()
	if err != nil {
		return err
	}
	table := w.tn.sibling(stateTableName).quoted(w.d)
	for _, st := range states {
		if st.State == nil {
			continue
		}
		data, err := json.Marshal(st.State)
		if err != nil {
			return err
		}
		if st.Check {
			if err := w.checkState(table, st, data); err != nil {
				return err
			}
		}
		if _, err := w.c.exec(w.ctx, w.d.saveState(table), st.Source, string(data)); err != nil {
			return fmt.Errorf("storing the state of %s in %s: %w", st.Source, stateTableName, err)
		}
	}
	return nil
}

// checkState fails the write unless the source's row of sluice_state
// still holds what the read started from, and locks it until the commit: a
// load that committed in the meantime (a concurrent run, or a killed run
// whose COMMIT the server finished after this run read the state) already
// delivered these rows. With no state when the read started, the row is
// claimed by inserting it, which waits for a load storing one to finish.
func (w *writer) checkState(table string, st connectors.SourceState, data []byte) error {
	if st.Expect == nil {
		_, err := w.c.exec(w.ctx, w.d.claimState(table), st.Source, string(data))
		var de *dbError
		if errors.As(err, &de) && (de.code == "23505" || de.code == "1062") {
			return fmt.Errorf("%w: %s in %s was empty when this load read it and another load has stored one since; nothing was written, run again to load from there",
				connectors.ErrStateChanged, st.Source, stateTableName)
		}
		if err != nil {
			return fmt.Errorf("storing the state of %s in %s: %w", st.Source, stateTableName, err)
		}
		return nil
	}
	rows, err := w.c.texts(w.ctx, fmt.Sprintf("SELECT state FROM %s WHERE table_name = %s FOR UPDATE", table, w.d.param(1)), st.Source)
	if err != nil {
		return fmt.Errorf("locking the state of %s in %s: %w", st.Source, stateTableName, err)
	}
	var held *connectors.State
	if len(rows) > 0 {
		held = new(connectors.State)
		if err := json.Unmarshal([]byte(rows[0][0]), held); err != nil {
			return fmt.Errorf("the state of %s in %s is not a state (sluice state reset %s starts over): %w", st.Source, stateTableName, st.Source, err)
		}
	}
	if !connectors.SameState(held, st.Expect) {
		return fmt.Errorf("%w: %s in %s was %s when this load read it and is %s now (another load committed first); nothing was written, run again to load from there",
			connectors.ErrStateChanged, st.Source, stateTableName, stateText(st.Expect), stateText(held))
	}
	return nil
}

func stateText(st *connectors.State) string {
	if st == nil {
		return "empty"
	}
	return fmt.Sprintf("%s=%q", st.Cursor, st.LastValue)
}

func randomSuffix() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
