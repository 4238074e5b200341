package pipelines

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/sluicedata/sluice/connectors/parquet"
	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/fileio"
	"github.com/sluicedata/sluice/internal/atomicfile"
)

// staged is a file output complete under a temporary name, waiting for the
// pipeline to succeed.
type staged struct{ *atomicfile.Staged }

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
	dir := len(w.PartitionBy) > 0
	if fi, err := os.Stat(final); err == nil {
		switch {
		case dir && !fi.IsDir():
			return st, fmt.Errorf("%s is a file; a partitioned output is a directory", final)
		case !dir && fi.IsDir():
			return st, fmt.Errorf("%s is a directory; give a file name (or partition_by for a directory)", final)
		}
	}
	if w.Mode != "merge" && !dir {
		return r.stagePlain(ctx, w, final, in)
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
		if dir {
			src += string(filepath.Separator)
		}
		merged, err := parquet.MergeWithExisting(ctx, src, nil, f, w.Key)
		if err != nil {
			return st, fmt.Errorf("merging into %s: %w", final, err)
		}
		f.Release()
		f = merged
	}
	if !dir {
		s := f.Stream()
		defer s.Release()
		return r.stagePlain(ctx, w, final, s)
	}
	st.Staged, err = atomicfile.StageAt(final, func(tmp string) error {
		_, err := parquet.WriteDir(ctx, tmp, f, parquet.WriteOptions{Compression: w.Compression, PartitionBy: w.PartitionBy})
		return err
	})
	return st, err
}

// stagePlain writes in, batch by batch, in w.Format to a staged file for
// final.
func (r *runner) stagePlain(ctx context.Context, w *WriteStep, final string, in dataframe.Stream) (st staged, err error) {
	opts := fileio.FileOptions{Allocator: r.mem, TimeZone: r.zone}
	if w.Format == "parquet" {
		opts.Parquet.Compression = w.Compression
	}
	st.Staged, err = atomicfile.Stage(final, func(out io.Writer) error {
		if _, err := fileio.WriteStreamTo(ctx, out, in, w.Format, opts); err != nil {
			return fmt.Errorf("writing %s: %w", final, err)
		}
		return nil
	})
	return st, err
}

// commit puts every staged output in place, in step order, all or none
// (docs/pipelines.md#write).
func (r *runner) commit() error {
	all := make([]*atomicfile.Staged, len(r.staged))
	for i, s := range r.staged {
		all[i] = s.Staged
	}
	r.staged = nil
	return atomicfile.CommitAll(all...)
}
