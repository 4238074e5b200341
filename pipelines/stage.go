package pipelines

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/sluicedata/sluice/connectors/parquet"
	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/fileio"
	"github.com/sluicedata/sluice/internal/atomicfile"
)

// staged is a file output written under a temporary name, waiting for the
// pipeline to succeed.
type staged struct {
	tmp, final string
	dir        bool // a partitioned directory
	bytes      int64
}

// stageFile writes in beside w.File under a hidden temporary name (a hidden
// name is skipped by directory readers such as the PARQUET connector). A
// plain file is written batch by batch as in streams; a merge and a
// partitioned directory collect in first (docs/pipelines.md#streaming).
func (r *runner) stageFile(ctx context.Context, w *WriteStep, in dataframe.Stream) (st staged, err error) {
	final := filepath.Clean(w.File)
	parent := filepath.Dir(final)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return st, fmt.Errorf("creating %s: %w", parent, err)
	}
	if fi, err := os.Stat(final); err == nil {
		switch {
		case len(w.PartitionBy) > 0 && !fi.IsDir():
			return st, fmt.Errorf("%s is a file; a partitioned output is a directory", final)
		case len(w.PartitionBy) == 0 && fi.IsDir():
			return st, fmt.Errorf("%s is a directory; give a file name (or partition_by for a directory)", final)
		}
	}
	tmp := atomicfile.TempName(final, "sluice-tmp")
	st = staged{tmp: tmp, final: final, dir: len(w.PartitionBy) > 0}
	defer func() {
		if err != nil {
			_ = os.RemoveAll(tmp)
		}
	}()
	if w.Mode != "merge" && !st.dir {
		return r.stagePlain(ctx, w, st, in)
	}
	f, err := r.collect(in)
	if err != nil {
		return st, err
	}
	defer func() { f.Release() }()
	if w.Mode == "merge" {
		// The merged data is staged like any output; the stored files stay
		// until the pipeline succeeds (docs/incremental.md#merge-writes).
		src := final
		if st.dir {
			src += string(filepath.Separator)
		}
		merged, err := parquet.MergeWithExisting(ctx, src, nil, f, w.Key)
		if err != nil {
			return st, fmt.Errorf("merging into %s: %w", final, err)
		}
		f.Release()
		f = merged
	}
	if !st.dir {
		s := f.Stream()
		defer s.Release()
		return r.stagePlain(ctx, w, st, s)
	}
	files, err := parquet.WriteDir(ctx, tmp, f, parquet.WriteOptions{Compression: w.Compression, PartitionBy: w.PartitionBy})
	if err != nil {
		return st, err
	}
	for _, p := range files {
		if fi, err := os.Stat(p); err == nil {
			st.bytes += fi.Size()
		}
	}
	return st, nil
}

// stagePlain writes in, batch by batch, to the staged file st (its
// temporary name keeps the format's extension: WriteStream picks the
// format by it).
func (r *runner) stagePlain(ctx context.Context, w *WriteStep, st staged, in dataframe.Stream) (staged, error) {
	st.tmp += "." + w.Format
	opts := fileio.FileOptions{Allocator: r.mem}
	if w.Format == "parquet" {
		opts.Parquet.Compression = w.Compression
	}
	if _, err := fileio.WriteStream(ctx, st.tmp, in, opts); err != nil {
		_ = os.Remove(st.tmp)
		return st, err
	}
	if fi, err := os.Stat(st.tmp); err == nil {
		st.bytes = fi.Size()
	}
	return st, nil
}

// commit renames every staged output into place, in step order.
func (r *runner) commit() error {
	for i, s := range r.staged {
		if err := publish(s); err != nil {
			for _, rest := range r.staged[i:] {
				_ = os.RemoveAll(rest.tmp)
			}
			r.staged = nil
			return err
		}
	}
	r.staged = nil
	return nil
}

func publish(s staged) error {
	if s.dir {
		return atomicfile.ReplaceDir(s.tmp, s.final)
	}
	if err := os.Rename(s.tmp, s.final); err != nil {
		return fmt.Errorf("writing %s: %w", s.final, err)
	}
	_ = atomicfile.SyncDir(filepath.Dir(s.final))
	return nil
}
