package fileio

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/apache/arrow/go/v17/arrow/memory"

	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/csvframe"
	"github.com/sluicedata/sluice/dataframe/jsonframe"
	"github.com/sluicedata/sluice/internal/atomicfile"
)

// ErrUnknownFormat is returned by ReadFile and WriteFile for a file
// extension they do not know.
var ErrUnknownFormat = errors.New("unknown file format")

// FileOptions tune ReadFile and WriteFile.
type FileOptions struct {
	// RecordsPath is the dotted path of the array holding the rows inside a
	// .json document (`items`). Ignored for other formats. Defaults to "" (the
	// whole document).
	RecordsPath string
	// Parquet tunes .parquet output. Defaults to snappy compression.
	Parquet ParquetOptions
	// Allocator backs the frame's buffers. Defaults to memory.DefaultAllocator.
	Allocator memory.Allocator
	// SampleRows, Strict, Mode and Stats apply to JSON input as in
	// jsonframe.Options (see docs/inference.md#sampling).
	SampleRows int
	Strict     bool
	Mode       string
	Stats      *jsonframe.ReadStats
	// TimeZone is the zone CSV and JSON output write timestamps in, with
	// its offset (`2016-03-11T20:54:00.000-08:00`), as Spark writes them
	// in the session time zone. Defaults to UTC (when nil).
	TimeZone *time.Location
}

func (o FileOptions) allocator() memory.Allocator {
	if o.Allocator == nil {
		return memory.DefaultAllocator
	}
	return o.Allocator
}

// fileFormat is a format chosen by file extension.
type fileFormat int

const (
	formatUnknown fileFormat = iota
	formatJSON               // one JSON document
	formatNDJSON             // JSON lines
	formatCSV
	formatParquet
	formatArrow
)

func formatOf(path string) (fileFormat, string) {
	ext := strings.ToLower(filepath.Ext(path))
	switch ext {
	case ".json":
		return formatJSON, ext
	case ".ndjson", ".jsonl":
		return formatNDJSON, ext
	case ".csv":
		return formatCSV, ext
	case ".parquet":
		return formatParquet, ext
	case ".arrow":
		return formatArrow, ext
	}
	return formatUnknown, ext
}

// FileFormat names the format ReadFile and WriteFile choose for path by its
// extension: "json", "ndjson", "csv", "parquet" or "arrow". An unknown
// extension is an error wrapping ErrUnknownFormat that names it.
func FileFormat(path string) (string, error) {
	format, ext := formatOf(path)
	if format == formatUnknown {
		return "", unknownFormat(path, ext, ".json, .ndjson, .jsonl, .csv, .parquet or .arrow")
	}
	return [...]string{"", "json", "ndjson", "csv", "parquet", "arrow"}[format], nil
}

func unknownFormat(path, ext, want string) error {
	if ext == "" {
		return fmt.Errorf("%s: %w: no file extension (want %s)", path, ErrUnknownFormat, want)
	}
	return fmt.Errorf("%s: %w %q (want %s)", path, ErrUnknownFormat, ext, want)
}

// ReadFile reads a file into a frame, choosing the format by extension:
// .json (one JSON document, inferred as jsonframe.ReadDocument does; RecordsPath picks the
// rows), .ndjson and .jsonl (JSON lines), .csv (header row, types inferred),
// .parquet and .arrow (Arrow IPC file format). The whole file ends up in
// memory; OpenFile streams it instead. Cancelling ctx stops the read. The
// caller releases the frame.
func ReadFile(ctx context.Context, path string, o FileOptions) (*dataframe.Frame, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	format, ext := formatOf(path)
	mem := o.allocator()
	switch format {
	case formatJSON, formatNDJSON:
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		var f *dataframe.Frame
		jo := jsonframe.Options{Allocator: mem, SampleRows: o.SampleRows, Strict: o.Strict, Mode: o.Mode, Stats: o.Stats}
		if format == formatJSON {
			jo.RecordsPath = o.RecordsPath
			f, err = jsonframe.ReadDocument(data, jo)
		} else {
			f, err = jsonframe.ReadNDJSON(data, jo)
		}
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", path, err)
		}
		return f, nil
	case formatCSV:
		return collect(csvframe.Open(ctx, path, csvframe.Options{Allocator: mem}))(mem)
	case formatParquet:
		return ReadParquet(ctx, path, mem)
	case formatArrow:
		return ReadArrowIPC(ctx, path, mem)
	}
	return nil, unknownFormat(path, ext, ".json, .ndjson, .jsonl, .csv, .parquet or .arrow")
}

// WriteFile writes f to path in the format its extension names: .parquet,
// .arrow (Arrow IPC file format), .csv, .ndjson or .jsonl (JSON lines), .json
// (one JSON array of row objects).
//
// The write is atomic: the data goes to a temporary file in the same
// directory, is synced, and is renamed over path only when complete, so a
// reader never sees half a file and a failed write leaves nothing behind.
// A frame's Parquet row groups are encoded on all cores (WriteParquet).
// Cancelling ctx stops the write and leaves path as it was.
func WriteFile(ctx context.Context, path string, f *dataframe.Frame, o FileOptions) error {
	if format, _ := formatOf(path); format == formatParquet {
		if err := o.Parquet.validate(); err != nil {
			return err
		}
		err := atomicfile.Write(path, func(w io.Writer) error {
			return writeParquet(ctx, w, f, o.Parquet, runtime.GOMAXPROCS(0))
		})
		if err != nil {
			return fmt.Errorf("writing %s: %w", path, err)
		}
		return nil
	}
	s := f.Stream()
	defer s.Release()
	_, err := WriteStream(ctx, path, s, o)
	return err
}

// collect materialises a just-opened stream (its open error passes
// through) into a frame whose operations use mem.
func collect(s dataframe.Stream, err error) func(mem memory.Allocator) (*dataframe.Frame, error) {
	return func(mem memory.Allocator) (*dataframe.Frame, error) {
		if err != nil {
			return nil, err
		}
		defer s.Release()
		f, err := dataframe.Collect(s)
		if err != nil {
			return nil, err
		}
		f.SetAllocator(mem)
		return f, nil
	}
}
