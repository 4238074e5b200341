package fileio

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	pqformat "github.com/parquet-go/parquet-go/format"
	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/internal/frametest"
	"github.com/sluicedata/sluice/dataframe/jsonframe"
	"github.com/sluicedata/sluice/internal/datagen"
)

// TestParquetStreamRowGroupsInParallel writes a stream whose row groups are
// encoded on several goroutines and spliced in order: the file reads back
// with the same rows in the same order, row groups of at most RowGroupRows
// rows, and every batch the writer held is released.
func TestParquetStreamRowGroupsInParallel(t *testing.T) {
	t.Parallel()
	var gen bytes.Buffer
	require.NoError(t, datagen.GenNDJSON(&gen, 3000, 7))
	in := frametest.WriteTemp(t, "in.ndjson", gen.Bytes())
	mem := frametest.CheckedAlloc(t)
	src, err := jsonframe.ReadNDJSON(gen.Bytes(), jsonframe.Options{Allocator: mem})
	require.NoError(t, err)
	defer src.Release()
	for _, workers := range []int{1, 2, 4} {
		s, err := jsonframe.OpenNDJSON(context.Background(), in, jsonframe.Options{Allocator: mem, BlockBytes: 64 << 10})
		require.NoError(t, err)
		var out bytes.Buffer
		pw, err := newParquetWriter(ParquetOptions{RowGroupRows: 700})(&out, s.Schema())
		require.NoError(t, err)
		pw.(*parquetWriter).workers = workers
		rows := int64(0)
		for s.Next() {
			require.NoError(t, pw.write(s.Record()))
			rows += s.Record().NumRows()
		}
		require.NoError(t, s.Err())
		require.NoError(t, pw.close())
		s.Release()
		require.Equal(t, src.NumRows(), rows)

		path := filepath.Join(t.TempDir(), "out.parquet")
		require.NoError(t, os.WriteFile(path, out.Bytes(), 0o644))
		back, err := ReadFile(path, FileOptions{Allocator: mem})
		require.NoError(t, err)
		require.Equal(t, frametest.RowsJSON(t, src), frametest.RowsJSON(t, back), "workers %d", workers)
		back.Release()
		groups := parquetRowGroupRows(t, out.Bytes())
		require.Len(t, groups, 5) // 3000 rows in groups of at most 700
		for _, n := range groups {
			require.LessOrEqual(t, n, int64(700))
		}
	}
}

// TestParquetStreamFailureReleasesBatches: a stream that fails after some
// batches leaves no batch retained by the writer (gathered or being
// encoded) and writes no footer.
func TestParquetStreamFailureReleasesBatches(t *testing.T) {
	t.Parallel()
	mem := frametest.CheckedAlloc(t)
	var gen bytes.Buffer
	require.NoError(t, datagen.GenNDJSON(&gen, 500, 3))
	src, err := jsonframe.ReadNDJSON(gen.Bytes(), jsonframe.Options{Allocator: mem})
	require.NoError(t, err)
	defer src.Release()
	boom := errors.New("source failed")
	s := dataframe.NewStream(context.Background(), src.Schema(), 1, func(ctx context.Context, emit func(arrow.Record) bool) error {
		for _, rec := range src.Records() {
			for i := int64(0); i < rec.NumRows(); i += 50 {
				if !emit(rec.NewSlice(i, min(i+50, rec.NumRows()))) {
					return ctx.Err()
				}
			}
		}
		return boom
	})
	defer s.Release()
	var out bytes.Buffer
	_, err = WriteStreamTo(context.Background(), &out, s, "parquet", FileOptions{Parquet: ParquetOptions{RowGroupRows: 120}})
	require.ErrorIs(t, err, boom)
}

// parquetRowGroupRows is the row count of each row group of a Parquet file.
func parquetRowGroupRows(t *testing.T, data []byte) []int64 {
	t.Helper()
	flen := int(binary.LittleEndian.Uint32(data[len(data)-8:]))
	md := new(pqformat.FileMetaData)
	require.NoError(t, thrift.Unmarshal(new(thrift.CompactProtocol), data[len(data)-8-flen:len(data)-8], md))
	var rows []int64
	for _, rg := range md.RowGroups {
		rows = append(rows, rg.NumRows)
	}
	return rows
}
