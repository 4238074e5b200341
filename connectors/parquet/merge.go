package parquet

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/sluicedata/sluice/connectors"
	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/internal/atomicfile"
)

// mergeKeys are the svc.parquet.merge.key columns; merge needs them, the
// other modes take none.
func mergeKeys(p connectors.Props, mode string) ([]string, error) {
	keys, err := columnList(p, PropMergeKey)
	if err != nil {
		return nil, err
	}
	switch {
	case mode == ModeMerge && len(keys) == 0:
		return nil, fmt.Errorf("PARQUET: %s=merge needs %s (the comma list of key columns)", PropMode, PropMergeKey)
	case mode != ModeMerge && len(keys) > 0:
		return nil, fmt.Errorf("PARQUET: %s is set but %s is %s; it applies to merge", PropMergeKey, PropMode, mode)
	}
	return keys, nil
}

// testHookBeforeSwap, when set by a test, runs once the merged data is
// written and before it replaces the old: a failure there must leave the
// old files as they were.
var testHookBeforeSwap func() error

// mergeWrite is svc.parquet.mode=merge (see docs/incremental.md#merge-writes).
func mergeWrite(ctx context.Context, ds *connectors.Dataset, f *dataframe.Frame) (connectors.WriteResult, error) {
	res := connectors.WriteResult{Rows: f.NumRows()}
	fail := func(err error) (connectors.WriteResult, error) {
		return res, fmt.Errorf("PARQUET %s: %w", ds.Name, err)
	}
	path := strings.TrimSpace(ds.Props.String(PropPath, ""))
	keys, err := mergeKeys(ds.Props, ModeMerge)
	if err != nil {
		return res, err
	}
	comp, err := compressionOf(ds.Props)
	if err != nil {
		return res, err
	}
	parts, err := partitionKeys(ds.Props)
	if err != nil {
		return res, err
	}
	dir := isDir(path)
	if !dir && len(parts) > 0 {
		return res, fmt.Errorf("PARQUET %s: %s needs a directory, and %s %q is a file (end it with / to make it a directory)", ds.Name, PropPartitionBy, PropPath, path)
	}
	merged, err := MergeWithExisting(ctx, path, ds.Fields, f, keys)
	if err != nil {
		return fail(err)
	}
	defer merged.Release()
	if !dir {
		err = WriteFileAtomic(path, merged, comp)
	} else {
		err = replaceDirWith(ctx, filepath.Clean(path), merged, WriteOptions{Compression: comp, PartitionBy: parts})
	}
	if err != nil {
		return fail(err)
	}
	res.Written = f.NumRows()
	return res, nil
}

// replaceDirWith writes f as a new directory beside dir and swaps it in.
func replaceDirWith(ctx context.Context, dir string, f *dataframe.Frame, o WriteOptions) error {
	s, err := atomicfile.StageAt(dir, func(tmp string) error {
		_, err := WriteDir(ctx, tmp, f, o)
		return err
	})
	if err != nil {
		return err
	}
	return commit(s)
}

// commit puts a staged write in place; testHookBeforeSwap, when a test
// sets it, can fail the write just before.
func commit(s *atomicfile.Staged) error {
	if testHookBeforeSwap != nil {
		if err := testHookBeforeSwap(); err != nil {
			s.Abort()
			return err
		}
	}
	return s.Commit()
}

// MergeWithExisting returns the data at path (a file or a directory of
// part files; missing means none) merged with f on the key columns: rows of
// f replace the stored rows with the same key and new keys are added after
// the rows kept; of several rows of f with one key the last wins. f stays
// the caller's.
func MergeWithExisting(ctx context.Context, path string, fields []connectors.Field, f *dataframe.Frame, keys []string) (*dataframe.Frame, error) {
	if f.NumRows() == 0 {
		// Nothing new (an incremental load on a quiet day): the stored data
		// stays as it is, whatever columns the empty frame has.
		old, err := readExisting(ctx, path, fields)
		if err != nil || old != nil {
			return old, err
		}
		f.Retain()
		return dataframe.New(f.Schema(), f.Records()...)
	}
	if err := checkKeys("the incoming rows", f, keys); err != nil {
		return nil, err
	}
	incoming, err := lastPerKey(f, keys)
	if err != nil {
		return nil, err
	}
	defer incoming.Release()
	old, err := readExisting(ctx, path, fields)
	if err != nil {
		return nil, err
	}
	if old == nil {
		incoming.Retain()
		return dataframe.New(incoming.Schema(), incoming.Records()...)
	}
	defer old.Release()
	if err := checkKeys("the stored rows of "+path, old, keys); err != nil {
		return nil, err
	}
	replaced := map[string]bool{}
	if err := visitKeys(incoming, keys, func(k string) { replaced[k] = true }); err != nil {
		return nil, err
	}
	kept, err := eachKey(old, keys, func(k string) bool { return !replaced[k] })
	if err != nil {
		return nil, err
	}
	defer kept.Release()
	out, err := dataframe.Concat(kept, incoming)
	if err != nil {
		return nil, fmt.Errorf("merging into %s: %w", path, err)
	}
	return out, nil
}

// readExisting reads the stored data, nil when there is none yet.
func readExisting(ctx context.Context, path string, fields []connectors.Field) (*dataframe.Frame, error) {
	if !isDir(path) {
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return readFile(ctx, path, nil, nil)
	}
	f, err := ReadDir(ctx, path, fields)
	if errors.Is(err, ErrNoFiles) || errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return f, err
}

func checkKeys(what string, f *dataframe.Frame, keys []string) error {
	cols := f.ColumnNames()
	for _, k := range keys {
		found := false
		for _, c := range cols {
			if c == k {
				found = true
				break
			}
		}
		if !found {
			return fmt.Errorf("%s: merge key column %q is not in %s (columns: %s)", PropMergeKey, k, what, strings.Join(cols, ", "))
		}
	}
	return nil
}

// eachKey keeps the rows of f for which keep(key) is true.
func eachKey(f *dataframe.Frame, keys []string, keep func(string) bool) (*dataframe.Frame, error) {
	var b strings.Builder
	return dataframe.Filter(f, func(r *dataframe.Row) (bool, error) {
		b.Reset()
		for i, k := range keys {
			v, err := r.Get(k)
			if err != nil {
				return false, err
			}
			if i > 0 {
				b.WriteByte(0)
			}
			// Null is a value of its own, distinct from every text.
			if t, ok := connectors.ValueText(v); ok {
				b.WriteByte('v')
				b.WriteString(t)
			} else {
				b.WriteByte('n')
			}
		}
		return keep(b.String()), nil
	})
}

// visitKeys calls visit with the key of each row, in order.
func visitKeys(f *dataframe.Frame, keys []string, visit func(string)) error {
	g, err := eachKey(f, keys, func(k string) bool { visit(k); return false })
	if err != nil {
		return err
	}
	g.Release()
	return nil
}

// lastPerKey keeps, of the rows sharing a key, the last one.
func lastPerKey(f *dataframe.Frame, keys []string) (*dataframe.Frame, error) {
	last := map[string]int64{}
	var i int64
	if err := visitKeys(f, keys, func(k string) { last[k] = i; i++ }); err != nil {
		return nil, err
	}
	if int64(len(last)) == f.NumRows() {
		f.Retain()
		return dataframe.New(f.Schema(), f.Records()...)
	}
	i = 0
	return eachKey(f, keys, func(k string) bool { ok := last[k] == i; i++; return ok })
}
