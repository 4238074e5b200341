package parquet

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/sluicedata/sluice/connectors"
	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/fileio"
	"github.com/sluicedata/sluice/internal/atomicfile"
)

// The connector's properties.
const (
	// PropPath is a file, or a directory of part files (an existing
	// directory, or a path ending in /). Required.
	PropPath = "svc.parquet.path"
	// PropMode is overwrite (replace the data; the default) or append (add
	// a part file; needs a directory).
	PropMode = "svc.parquet.mode"
	// PropCompression is the codec of written files: snappy (default),
	// zstd, gzip, brotli or none.
	PropCompression = "svc.parquet.compression"
	// PropPartitionBy lists (comma-separated) the columns of a
	// Hive-partitioned write: dir/key=value/part-….parquet. Needs a directory.
	PropPartitionBy = "svc.parquet.partition.by"
	// PropMergeKey lists (comma-separated) the key columns of
	// svc.parquet.mode=merge (see docs/incremental.md#merge-writes).
	PropMergeKey = "svc.parquet.merge.key"
)

// Properties declares every svc.parquet.* property: validation, redaction,
// DESCRIBE and docs/properties.md all read it.
var Properties = &connectors.PropertySet{
	Connector: Type,
	Prefix:    "svc.parquet.",
	Specs: []connectors.PropertySpec{
		{Name: PropPath, Doc: "A file, or a directory of part files (an existing directory, or a path ending in `/`). Required; a table's LOCATION stands in for it."},
		{Name: PropMode, Kind: connectors.KindEnum, Enum: []string{"overwrite", "replace", "append", "merge"}, Default: "overwrite", Doc: "Write mode: overwrite (replace) the data, append a part file (directories only), or merge rows by `merge.key`."},
		{Name: PropMergeKey, Kind: connectors.KindList, Doc: "mode=merge: comma list of key columns; incoming rows replace rows with the same key."},
		{Name: PropCompression, Kind: connectors.KindEnum, Enum: []string{"snappy", "zstd", "gzip", "brotli", "none", "uncompressed"}, Default: "snappy", Doc: "Codec of written files."},
		{Name: PropPartitionBy, Kind: connectors.KindList, Doc: "Comma list of columns of a Hive-partitioned write (`dir/key=value/part-….parquet`); needs a directory."},
	},
}

// Properties returns the connector's property declaration.
func (Connector) Properties() *connectors.PropertySet { return Properties }

// Overwrites reports that writes honour Dataset.Overwrite (INSERT
// OVERWRITE): the dataset's files are replaced.
func (Connector) Overwrites() bool { return true }

// Type is the connector's registered name.
const Type = "PARQUET"

// DefaultPartition is the directory value of a null or empty partition
// value, as Hive writes it.
const DefaultPartition = "__HIVE_DEFAULT_PARTITION__"

// Compressions are the accepted values of svc.parquet.compression.
var Compressions = []string{"snappy", "zstd", "gzip", "brotli", "none"}

// ErrNoFiles is returned (wrapped) when a directory holds no Parquet file.
var ErrNoFiles = errors.New("no parquet files")

func init() { connectors.Register(Type, Connector{}) }

// Connector reads and writes Parquet files. It implements
// connectors.Connector, connectors.Writer and connectors.Validator.
type Connector struct{}

var (
	_ connectors.Connector = Connector{}
	_ connectors.Writer    = Connector{}
	_ connectors.Validator = Connector{}
)

// Validate checks a table definition: the path is given, the mode and the
// compression are known, partition columns are columns of the table.
func (Connector) Validate(fields []connectors.Field, props connectors.Props) error {
	if err := Properties.Validate(props); err != nil {
		return fmt.Errorf("PARQUET: %w", err)
	}
	if strings.TrimSpace(props.String(PropPath, "")) == "" {
		return fmt.Errorf("PARQUET: property %s is required (a file, or a directory of part files)", PropPath)
	}
	mode, err := modeOf(props)
	if err != nil {
		return err
	}
	mkeys, err := mergeKeys(props, mode)
	if err != nil {
		return err
	}
	if _, err := compressionOf(props); err != nil {
		return err
	}
	keys, err := partitionKeys(props)
	if err != nil {
		return err
	}
	if len(fields) > 0 {
		for _, k := range mkeys {
			if !hasField(fields, k) {
				return fmt.Errorf("PARQUET: %s: %q is not a column of the table", PropMergeKey, k)
			}
		}
		for _, k := range keys {
			if !hasField(fields, k) {
				return fmt.Errorf("PARQUET: %s: %q is not a column of the table", PropPartitionBy, k)
			}
		}
	}
	return nil
}

func hasField(fields []connectors.Field, name string) bool {
	for _, f := range fields {
		if f.Name == name {
			return true
		}
	}
	return false
}

// Write modes of svc.parquet.mode.
const (
	ModeOverwrite = "overwrite"
	ModeAppend    = "append"
	ModeMerge     = "merge"
)

func modeOf(p connectors.Props) (string, error) {
	switch m := strings.ToLower(strings.TrimSpace(p.String(PropMode, ModeOverwrite))); m {
	case ModeOverwrite, "replace":
		return ModeOverwrite, nil
	case ModeAppend, ModeMerge:
		return m, nil
	default:
		return "", fmt.Errorf("PARQUET: property %s: %q is not overwrite, append or merge", PropMode, p[PropMode])
	}
}

func compressionOf(p connectors.Props) (string, error) {
	c := strings.ToLower(strings.TrimSpace(p.String(PropCompression, "snappy")))
	if c == "uncompressed" {
		c = "none"
	}
	for _, ok := range Compressions {
		if c == ok {
			return c, nil
		}
	}
	return "", fmt.Errorf("PARQUET: property %s: %q is not one of %s", PropCompression, p[PropCompression], strings.Join(Compressions, ", "))
}

func partitionKeys(p connectors.Props) ([]string, error) { return columnList(p, PropPartitionBy) }

// columnList parses the comma list of top-level column names in prop.
func columnList(p connectors.Props, prop string) ([]string, error) {
	v := strings.TrimSpace(p.String(prop, ""))
	if v == "" {
		return nil, nil
	}
	var keys []string
	for _, k := range strings.Split(v, ",") {
		k = strings.TrimSpace(k)
		if k == "" || strings.ContainsAny(k, "/=.\\") {
			return nil, fmt.Errorf("PARQUET: property %s: %q is not a column name", prop, k)
		}
		keys = append(keys, k)
	}
	return keys, nil
}

// isDir reports whether path names a directory of part files: an existing
// directory, or a path ending in a separator.
func isDir(path string) bool {
	if strings.HasSuffix(path, "/") || strings.HasSuffix(path, string(filepath.Separator)) {
		return true
	}
	st, err := os.Stat(path)
	return err == nil && st.IsDir()
}

// Read reads the file, or every part file of the directory in name order
// (partition directories `key=value/` included; their values become
// columns, typed when the dataset's fields give a type, else strings).
func (Connector) Read(ctx context.Context, ds *connectors.Dataset) (*dataframe.Frame, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	path := strings.TrimSpace(ds.Props.String(PropPath, ""))
	if path == "" {
		return nil, fmt.Errorf("PARQUET %s: property %s is required", ds.Name, PropPath)
	}
	if !isDir(path) {
		f, err := readFile(ctx, path, ds.Allocator, nil)
		if err != nil {
			return nil, fmt.Errorf("PARQUET %s: %w", ds.Name, err)
		}
		return f, nil
	}
	f, err := ReadDir(ctx, path, ds.Fields)
	if err != nil {
		return nil, fmt.Errorf("PARQUET %s: %w", ds.Name, err)
	}
	return f, nil
}

// readFile reads one Parquet file, only the columns cols names when it is
// not nil.
func readFile(ctx context.Context, path string, mem dataframe.Allocator, cols []string) (f *dataframe.Frame, err error) {
	defer func() {
		if v := recover(); v != nil {
			f, err = nil, fmt.Errorf("reading %s: malformed parquet file: %v", path, v)
		}
	}()
	// fileio.ReadParquet's errors already name the path.
	return fileio.ReadParquetColumns(ctx, path, mem, cols)
}

// part is one data file of a directory and its partition values.
type part struct {
	path   string
	keys   []string
	values []string // unescaped; DefaultPartition means null
}

// listParts finds the *.parquet files under dir in name order, skipping
// hidden and underscore-prefixed names (temporary files, _SUCCESS), and
// reads partition values from `key=value` directory names.
func listParts(dir string) ([]part, error) {
	var parts []part
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if p != dir && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() || !strings.HasSuffix(strings.ToLower(name), ".parquet") {
			return nil
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		pt := part{path: p}
		segs := strings.Split(filepath.ToSlash(rel), "/")
		for _, seg := range segs[:len(segs)-1] {
			k, v, ok := strings.Cut(seg, "=")
			if !ok || k == "" {
				continue
			}
			uk, err1 := unescape(k)
			uv, err2 := unescape(v)
			if err1 != nil || err2 != nil {
				return fmt.Errorf("partition directory %q: bad %%-escape", seg)
			}
			pt.keys = append(pt.keys, uk)
			pt.values = append(pt.values, uv)
		}
		parts = append(parts, pt)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("listing %s: %w", dir, err)
	}
	// WalkDir visits in lexical order per directory already; sorting the
	// whole relative paths keeps the order stable across partition depths.
	sort.SliceStable(parts, func(i, j int) bool { return parts[i].path < parts[j].path })
	return parts, nil
}

// dirLayout lists the part files of dir and the partition columns their
// directories name (the same keys for every file), typed by fields (long,
// integer, double, boolean, timestamp) or strings.
func dirLayout(dir string, fields []connectors.Field) ([]part, []string, []dataframe.ColumnKind, error) {
	parts, err := listParts(dir)
	if err != nil {
		return nil, nil, nil, err
	}
	if len(parts) == 0 {
		return nil, nil, nil, fmt.Errorf("%w in %s", ErrNoFiles, dir)
	}
	keys := parts[0].keys
	for _, p := range parts[1:] {
		if strings.Join(p.keys, "/") != strings.Join(keys, "/") {
			return nil, nil, nil, fmt.Errorf("inconsistent partition directories: %s has keys [%s], %s has [%s]",
				parts[0].path, strings.Join(keys, ", "), p.path, strings.Join(p.keys, ", "))
		}
	}
	kinds := make([]dataframe.ColumnKind, len(keys))
	for i, k := range keys {
		kinds[i] = dataframe.KindString
		for _, f := range fields {
			if f.Name == k {
				kind, err := dataframe.ParseColumnKind(f.Type)
				if err != nil {
					return nil, nil, nil, fmt.Errorf("partition column %s: %w", k, err)
				}
				kinds[i] = kind
			}
		}
	}
	return parts, keys, kinds, nil
}

// constants are p's partition values as columns.
func (p part) constants(keys []string, kinds []dataframe.ColumnKind) []dataframe.Constant {
	consts := make([]dataframe.Constant, len(keys))
	for i, k := range keys {
		consts[i] = dataframe.Constant{Name: k, Kind: kinds[i], Value: p.values[i], Null: p.values[i] == DefaultPartition}
	}
	return consts
}

// ReadDir reads a directory of part files as one frame. fields may give
// partition columns a type (long, integer, double, boolean, timestamp);
// without it they are strings.
func ReadDir(ctx context.Context, dir string, fields []connectors.Field) (*dataframe.Frame, error) {
	parts, keys, kinds, err := dirLayout(dir, fields)
	if err != nil {
		return nil, err
	}
	frames := make([]*dataframe.Frame, 0, len(parts))
	defer func() {
		for _, f := range frames {
			f.Release()
		}
	}()
	for _, p := range parts {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		f, err := readFile(ctx, p.path, nil, nil)
		if err != nil {
			return nil, err
		}
		if len(keys) > 0 {
			g, err := dataframe.WithConstants(nil, f, p.constants(keys, kinds))
			f.Release()
			if err != nil {
				return nil, fmt.Errorf("%s: %w", p.path, err)
			}
			f = g
		}
		frames = append(frames, f)
	}
	if len(frames) == 1 {
		f := frames[0]
		frames = nil
		return f, nil
	}
	out, err := dataframe.Concat(frames...)
	if err != nil {
		return nil, fmt.Errorf("combining the part files of %s (do they share one schema?): %w", dir, err)
	}
	return out, nil
}

// Write replaces the dataset's data with f (or adds a part file with
// svc.parquet.mode=append). New files are written under hidden temporary
// names and renamed into place once complete; old files are removed only
// after that, so a reader never sees a half-written file.
func (Connector) Write(ctx context.Context, ds *connectors.Dataset, f *dataframe.Frame) (connectors.WriteResult, error) {
	res := connectors.WriteResult{Rows: f.NumRows()}
	path, mode, err := writePathAndMode(ctx, ds)
	if err != nil {
		return res, err
	}
	if mode == ModeMerge {
		return mergeWrite(ctx, ds, f)
	}
	t, err := writeTargetOf(ds, path, mode)
	if err != nil {
		return res, err
	}
	if !t.dir {
		if err := WriteFileAtomic(path, f, t.comp); err != nil {
			return res, fmt.Errorf("PARQUET %s: %w", ds.Name, err)
		}
		res.Written = f.NumRows()
		return res, nil
	}
	if _, err := WriteDir(ctx, path, f, WriteOptions{Compression: t.comp, PartitionBy: t.keys, Append: mode == ModeAppend}); err != nil {
		return res, fmt.Errorf("PARQUET %s: %w", ds.Name, err)
	}
	res.Written = f.NumRows()
	return res, nil
}

// writePathAndMode are a write's svc.parquet.path (required) and mode.
func writePathAndMode(ctx context.Context, ds *connectors.Dataset) (string, string, error) {
	if err := ctx.Err(); err != nil {
		return "", "", err
	}
	path := strings.TrimSpace(ds.Props.String(PropPath, ""))
	if path == "" {
		return "", "", fmt.Errorf("PARQUET %s: property %s is required", ds.Name, PropPath)
	}
	mode, err := modeOf(ds.Props)
	if err == nil && ds.Overwrite {
		mode = ModeOverwrite // INSERT OVERWRITE, whatever the table's mode
	}
	return path, mode, err
}

// writeTarget is where an overwrite or append write goes.
type writeTarget struct {
	dir  bool // a directory of part files, else one file
	comp string
	keys []string // partition columns
}

// writeTargetOf checks an overwrite or append write's properties against
// its path: append and partitioning need a directory.
func writeTargetOf(ds *connectors.Dataset, path, mode string) (writeTarget, error) {
	comp, err := compressionOf(ds.Props)
	if err != nil {
		return writeTarget{}, err
	}
	keys, err := partitionKeys(ds.Props)
	if err != nil {
		return writeTarget{}, err
	}
	t := writeTarget{dir: isDir(path), comp: comp, keys: keys}
	if !t.dir {
		if mode == ModeAppend {
			return t, fmt.Errorf("PARQUET %s: %s=append needs a directory, and %s %q is a file (end it with / to make it a directory)", ds.Name, PropMode, PropPath, path)
		}
		if len(keys) > 0 {
			return t, fmt.Errorf("PARQUET %s: %s needs a directory, and %s %q is a file (end it with / to make it a directory)", ds.Name, PropPartitionBy, PropPath, path)
		}
	}
	return t, nil
}

// WriteOptions configure WriteDir.
type WriteOptions struct {
	// Compression is the codec. Defaults to snappy.
	Compression string
	// PartitionBy are top-level columns whose values name the directories
	// (key=value/) the rows go to; they are not stored in the files.
	// Defaults to none.
	PartitionBy []string
	// Append keeps the directory's existing files. Defaults to false (they
	// are removed once the new ones are in place).
	Append bool
}

// WriteDir writes f as part files under dir (created if missing) and
// returns their paths. All new files are complete before the first is
// renamed into place; unless Append, older part files are removed after.
func WriteDir(ctx context.Context, dir string, f *dataframe.Frame, o WriteOptions) (files []string, err error) {
	if o.Compression == "" {
		o.Compression = "snappy"
	}
	dir = filepath.Clean(dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("creating %s: %w", dir, err)
	}
	var old []part
	if !o.Append {
		if old, err = listParts(dir); err != nil {
			return nil, err
		}
	}
	groups, err := Partition(f, o.PartitionBy)
	if err != nil {
		return nil, err
	}
	defer func() {
		for _, g := range groups {
			g.Frame.Release()
		}
	}()
	run := runID()
	var staged []*atomicfile.Staged
	defer func() {
		if err != nil {
			for _, s := range staged {
				s.Abort()
			}
		}
	}()
	for i, g := range groups {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		sub := dir
		for k, key := range o.PartitionBy {
			sub = filepath.Join(sub, escape(key)+"="+partitionDirValue(g.Values[k], g.Nulls[k]))
		}
		if err := os.MkdirAll(sub, 0o755); err != nil {
			return nil, fmt.Errorf("creating %s: %w", sub, err)
		}
		final := filepath.Join(sub, partName(i, run, o.Compression))
		s, err := atomicfile.Stage(final, frameWriter(final, g.Frame, o.Compression))
		if err != nil {
			return nil, err
		}
		staged = append(staged, s)
	}
	return publish(dir, staged, old)
}

// publish puts the complete part files staged in place (all or, on
// failure, none of them), then removes the old part files.
func publish(dir string, staged []*atomicfile.Staged, old []part) (files []string, err error) {
	if err := atomicfile.CommitAll(staged...); err != nil {
		return nil, err
	}
	for _, s := range staged {
		files = append(files, s.Path())
	}
	for _, p := range old {
		if err := os.Remove(p.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return files, fmt.Errorf("removing old part file %s: %w", p.path, err)
		}
	}
	if len(old) > 0 {
		removeEmptyDirs(dir)
	}
	return files, nil
}

// WriteFileAtomic writes f to path as one Parquet file: a temporary file in
// the same directory, synced, then renamed over path.
func WriteFileAtomic(path string, f *dataframe.Frame, compression string) error {
	if compression == "" {
		compression = "snappy"
	}
	return writeFile(path, frameWriter(path, f, compression))
}

// writeFile replaces the file path (creating its directory) with what
// write writes, atomically (see docs/development.md#file-writes).
func writeFile(path string, write func(w io.Writer) error) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", dir, err)
	}
	s, err := atomicfile.Stage(path, write)
	if err != nil {
		return err
	}
	return commit(s)
}

// frameWriter writes f as Parquet; its errors name path.
func frameWriter(path string, f *dataframe.Frame, compression string) func(w io.Writer) error {
	return func(w io.Writer) error {
		if err := fileio.WriteParquet(w, f, fileio.ParquetOptions{Compression: compression}); err != nil {
			return fmt.Errorf("writing %s: %w", path, err)
		}
		return nil
	}
}

// removeEmptyDirs removes partition directories left empty under root.
func removeEmptyDirs(root string) {
	var dirs []string
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() && p != root {
			dirs = append(dirs, p)
		}
		return nil
	})
	for i := len(dirs) - 1; i >= 0; i-- {
		_ = os.Remove(dirs[i]) // fails, harmlessly, when not empty
	}
}

// partName names the i-th part file of a write.
func partName(i int, run, compression string) string {
	return fmt.Sprintf("part-%05d-%s.%s.parquet", i, run, compression)
}

// runID makes the part file names of one write unique.
func runID() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return time.Now().UTC().Format("20060102T150405.000") + "-" + hex.EncodeToString(b[:])
}

// Group is the rows of one partition.
type Group struct {
	Values []string // partition values as directory text (before escaping)
	Nulls  []bool   // which values are null
	Frame  *dataframe.Frame
}

// Partition splits f by the values of the keys (top-level, flat columns)
// into frames without those columns, in order of first appearance. With
// no keys it returns one group sharing f's data. The caller releases the
// groups' frames.
func Partition(f *dataframe.Frame, keys []string) ([]Group, error) {
	names := f.ColumnNames()
	keyIdx := make([]int, len(keys))
	for i, k := range keys {
		keyIdx[i] = -1
		for j, n := range names {
			if n == k {
				keyIdx[i] = j
			}
		}
		if keyIdx[i] < 0 {
			return nil, fmt.Errorf("partition column %q is not a column (columns: %s)", k, strings.Join(names, ", "))
		}
	}
	var keep []int
	for j := range names {
		if !containsInt(keyIdx, j) {
			keep = append(keep, j)
		}
	}
	if len(keys) == 0 {
		g, err := dataframe.KeepColumns(f, keep)
		if err != nil {
			return nil, err
		}
		return []Group{{Frame: g}}, nil
	}
	if len(keep) == 0 {
		return nil, fmt.Errorf("partitioning by every column leaves no data columns to write")
	}
	// One pass gives every row its group (distinct key tuples numbered in
	// order of first appearance); each group is then one cheap filter.
	type tuple struct {
		vals  []string
		nulls []bool
	}
	var tuples []tuple
	index := map[string]int32{}
	groupOf := make([]int32, 0, f.NumRows())
	for _, rec := range f.Records() {
		n := int(rec.NumRows())
		for i := 0; i < n; i++ {
			t := tuple{vals: make([]string, len(keys)), nulls: make([]bool, len(keys))}
			for k, idx := range keyIdx {
				v, null, err := partitionText(dataframe.ValueAt(rec.Column(idx), i))
				if err != nil {
					return nil, fmt.Errorf("partition column %q: %w", keys[k], err)
				}
				t.vals[k], t.nulls[k] = v, null
			}
			id := tupleID(t.vals, t.nulls)
			g, seen := index[id]
			if !seen {
				g = int32(len(tuples))
				index[id] = g
				tuples = append(tuples, t)
			}
			groupOf = append(groupOf, g)
		}
	}
	groups := make([]Group, 0, len(tuples))
	release := func() {
		for _, g := range groups {
			g.Frame.Release()
		}
	}
	for gi, t := range tuples {
		want := int32(gi)
		sel, err := dataframe.Filter(f, func(r *dataframe.Row) (bool, error) {
			return groupOf[r.Index()] == want, nil
		})
		if err != nil {
			release()
			return nil, err
		}
		g, err := dataframe.KeepColumns(sel, keep)
		sel.Release()
		if err != nil {
			release()
			return nil, err
		}
		groups = append(groups, Group{Values: t.vals, Nulls: t.nulls, Frame: g})
	}
	return groups, nil
}

func containsInt(xs []int, x int) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

func tupleID(vals []string, nulls []bool) string {
	var b strings.Builder
	for i, v := range vals {
		if nulls[i] {
			b.WriteString("\x00N")
		} else {
			b.WriteString("\x00V")
			b.WriteString(v)
		}
	}
	return b.String()
}

// partitionText renders a partition value the way Hive names directories.
func partitionText(v any) (string, bool, error) {
	switch x := v.(type) {
	case nil:
		return "", true, nil
	case string:
		if x == "" {
			return "", true, nil // Hive stores empty values in the default partition
		}
		return x, false, nil
	case int64:
		return strconv.FormatInt(x, 10), false, nil
	case int32:
		return strconv.FormatInt(int64(x), 10), false, nil
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64), false, nil
	case bool:
		return strconv.FormatBool(x), false, nil
	case time.Time:
		// Milliseconds, as directories have always been named; all six
		// digits when the timestamp has microseconds, so that they survive.
		if x.Nanosecond()%int(time.Millisecond) != 0 {
			return x.UTC().Format("2006-01-02 15:04:05.000000"), false, nil
		}
		return x.UTC().Format("2006-01-02 15:04:05.000"), false, nil
	}
	return "", false, fmt.Errorf("a %T cannot name a partition directory (use a flat column)", v)
}

func partitionDirValue(v string, null bool) string {
	if null {
		return DefaultPartition
	}
	return escape(v)
}

// escape %-encodes the characters Hive escapes in partition paths.
func escape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c == 0x7f || strings.IndexByte("\"#%'*/:=?\\{[]^", c) >= 0 {
			fmt.Fprintf(&b, "%%%02X", c)
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

func unescape(s string) (string, error) {
	if !strings.Contains(s, "%") {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			b.WriteByte(s[i])
			continue
		}
		if i+2 >= len(s) {
			return "", fmt.Errorf("bad escape in %q", s)
		}
		n, err := strconv.ParseUint(s[i+1:i+3], 16, 8)
		if err != nil {
			return "", fmt.Errorf("bad escape in %q", s)
		}
		b.WriteByte(byte(n))
		i += 2
	}
	return b.String(), nil
}
