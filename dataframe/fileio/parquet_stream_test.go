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

// TestParquetStreamRowGroups writes a stream into row groups of at most
// RowGroupRows rows: the file reads back with the same rows in the same
// order, and every batch is released.
func TestParquetStreamRowGroups(t *testing.T) {
	t.Parallel()
	var gen bytes.Buffer
	require.NoError(t, datagen.GenNDJSON(&gen, 3000, 7))
	in := frametest.WriteTemp(t, "in.ndjson", gen.Bytes())
	mem := frametest.CheckedAlloc(t)
	src, err := jsonframe.ReadNDJSON(gen.Bytes(), jsonframe.Options{Allocator: mem})
	require.NoError(t, err)
	defer src.Release()
	{
		s, err := jsonframe.OpenNDJSON(context.Background(), in, jsonframe.Options{Allocator: mem, BlockBytes: 64 << 10})
		require.NoError(t, err)
		var out bytes.Buffer
		pw, err := newParquetWriter(ParquetOptions{RowGroupRows: 700})(&out, s.Schema())
		require.NoError(t, err)
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
		back, err := ReadFile(t.Context(), path, FileOptions{Allocator: mem})
		require.NoError(t, err)
		require.Equal(t, frametest.RowsJSON(t, src), frametest.RowsJSON(t, back))
		back.Release()
		var total int64
		for _, n := range parquetRowGroupRows(t, out.Bytes()) {
			require.LessOrEqual(t, n, int64(700))
			total += n
		}
		require.Equal(t, int64(3000), total)
	}
}

// TestParquetStreamFailureReleasesBatches: a stream that fails after some
// batches leaves no batch retained by the writer.
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
