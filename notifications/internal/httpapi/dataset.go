package httpapi

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/parquet-go/parquet-go"

	"github.com/sluicedata/sluice/notifications/queue"
)

// parquetSchema is the Parquet export's schema, made from the one column
// declaration (queue.Columns) in its order: a struct type built from it
// gives parquet-go the columns as declared (a parquet.Group would sort
// them by name).
var parquetSchema = func() *parquet.Schema {
	fields := make([]reflect.StructField, len(queue.Columns))
	for i, c := range queue.Columns {
		var typ reflect.Type
		tag := c.Name
		switch c.Kind {
		case queue.KindLong:
			typ = reflect.TypeFor[int64]()
		case queue.KindInteger:
			typ = reflect.TypeFor[int32]()
		case queue.KindString:
			typ = reflect.TypeFor[string]()
		case queue.KindTimestamp:
			typ, tag = reflect.TypeFor[time.Time](), tag+",timestamp(microsecond:utc)"
		}
		if c.Nullable {
			typ, tag = reflect.PointerTo(typ), tag+",optional"
		}
		fields[i] = reflect.StructField{Name: fmt.Sprintf("C%d", i), Type: typ, Tag: reflect.StructTag(`parquet:"` + tag + `"`)}
	}
	return parquet.SchemaOf(reflect.New(reflect.StructOf(fields)).Interface())
}()

// parquetRow appends rec's row, one value per column in declaration
// order, as parquet-go's row model has it: a null is a value of
// definition level 0, a present value of an optional column level 1.
func parquetRow(row parquet.Row, rec *queue.Record) parquet.Row {
	for i, c := range queue.Columns {
		var v parquet.Value
		ok := true
		switch c.Kind {
		case queue.KindLong:
			var n int64
			n, ok = c.Int(rec)
			v = parquet.Int64Value(n)
		case queue.KindInteger:
			var n int64
			n, ok = c.Int(rec)
			v = parquet.Int32Value(int32(n))
		case queue.KindString:
			var s string
			s, ok = c.Text(rec)
			v = parquet.ByteArrayValue([]byte(s))
		case queue.KindTimestamp:
			var t time.Time
			t, ok = c.Time(rec)
			v = parquet.Int64Value(t.UnixMicro())
		}
		def := 0
		if c.Nullable {
			def = 1
		}
		if !ok {
			v, def = parquet.Value{}, 0
		}
		row = append(row, v.Level(0, def, i))
	}
	return row
}

// csvValue is a column's CSV text: empty for null, dates as the contract
// writes them.
func csvValue(c *queue.Column, rec *queue.Record) string {
	switch c.Kind {
	case queue.KindLong, queue.KindInteger:
		if n, ok := c.Int(rec); ok {
			return strconv.FormatInt(n, 10)
		}
	case queue.KindString:
		if s, ok := c.Text(rec); ok {
			return s
		}
	case queue.KindTimestamp:
		if t, ok := c.Time(rec); ok {
			return queue.FormatDate(t)
		}
	}
	return ""
}

// WriteDataset streams the records received within r to w in format
// (ndjson, csv or parquet), reading them with queue.Store.Scan.
func WriteDataset(ctx context.Context, store queue.Store, r queue.Range, format string, w io.Writer) (err error) {
	switch format {
	case "ndjson":
		buf := make([]byte, 0, 512)
		return store.Scan(ctx, r, func(rec *queue.Record) error {
			buf = queue.AppendRecordJSON(buf[:0], rec)
			buf = append(buf, '\n')
			_, err := w.Write(buf)
			return err
		})
	case "csv":
		cw := csv.NewWriter(w)
		head := make([]string, len(queue.Columns))
		for i, c := range queue.Columns {
			head[i] = c.Name
		}
		if err := cw.Write(head); err != nil {
			return err
		}
		row := make([]string, len(queue.Columns))
		err := store.Scan(ctx, r, func(rec *queue.Record) error {
			for i := range queue.Columns {
				row[i] = csvValue(&queue.Columns[i], rec)
			}
			return cw.Write(row)
		})
		if err != nil {
			return err
		}
		cw.Flush()
		return cw.Error()
	case "parquet":
		// parquet-go panics on some inputs: turn it into an error here.
		defer func() {
			if p := recover(); p != nil {
				err = fmt.Errorf("writing parquet: %v", p)
			}
		}()
		// Bounded row groups keep a large export's memory flat.
		pw := parquet.NewWriter(w, parquetSchema, parquet.Compression(&parquet.Snappy),
			parquet.MaxRowsPerRowGroup(64*1024))
		rows := make([]parquet.Row, 0, 1024)
		flush := func() error {
			if len(rows) == 0 {
				return nil
			}
			_, err := pw.WriteRows(rows)
			rows = rows[:0]
			return err
		}
		err := store.Scan(ctx, r, func(rec *queue.Record) error {
			rows = append(rows, parquetRow(make(parquet.Row, 0, len(queue.Columns)), rec))
			if len(rows) == cap(rows) {
				return flush()
			}
			return nil
		})
		if err != nil {
			return err
		}
		if err := flush(); err != nil {
			return fmt.Errorf("writing parquet: %w", err)
		}
		if err := pw.Close(); err != nil {
			return fmt.Errorf("writing parquet: %w", err)
		}
		return nil
	}
	return fmt.Errorf("unknown dataset format %q (want %s)", format, strings.Join(queue.DatasetFormats, ", "))
}

func (s *API) dataset(c *fiber.Ctx) error {
	format := strings.ToLower(c.Query("format", "ndjson"))
	var ctype, ext string
	switch format {
	case "ndjson":
		ctype, ext = "application/x-ndjson", "ndjson"
	case "csv":
		ctype, ext = "text/csv; charset=utf-8", "csv"
	case "parquet":
		ctype, ext = "application/vnd.apache.parquet", "parquet"
	default:
		return jsonError(c, fiber.StatusBadRequest,
			fmt.Sprintf("unknown format %q (want %s)", c.Query("format"), strings.Join(queue.DatasetFormats, ", ")))
	}
	r, err := parseRange(c, false)
	if err != nil {
		return jsonError(c, fiber.StatusBadRequest, err.Error())
	}
	// Fail before the 200 goes out when the store is down.
	if err := s.store.Ping(c.UserContext()); err != nil {
		return s.storeError(c, err)
	}
	c.Set(fiber.HeaderContentType, ctype)
	c.Set(fiber.HeaderContentDisposition, `attachment; filename="notifications.`+ext+`"`)
	// The export runs into a pipe. Its first 64 KiB are read here, before
	// the status goes out: a small export is sent whole, and a failure
	// before that point still gets a proper error status. Past it, a
	// failure reaches fasthttp as a read error, which cuts the chunked body
	// off without its final chunk: the client sees an incomplete download,
	// never a short file that looks whole. When the client goes away
	// fasthttp closes the reader, which stops the export.
	pr, pw := io.Pipe()
	ctx := s.baseCtx
	go func() {
		bw := bufio.NewWriterSize(pw, 32<<10)
		err := WriteDataset(ctx, s.store, r, format, bw)
		if err == nil {
			err = bw.Flush()
		}
		if err != nil && !errors.Is(err, io.ErrClosedPipe) {
			s.log.Error("dataset export failed", "format", format, "error", err)
		}
		pw.CloseWithError(err)
	}()
	first := make([]byte, 64<<10)
	n, err := io.ReadFull(pr, first)
	switch {
	case err == io.EOF || err == io.ErrUnexpectedEOF: // all of it
		pr.Close()
		return c.Send(first[:n])
	case err != nil:
		pr.Close()
		return s.storeError(c, fmt.Errorf("dataset export: %w", err))
	}
	c.Context().SetBodyStream(readCloser{io.MultiReader(bytes.NewReader(first), pr), pr}, -1)
	return nil
}

// readCloser lets fasthttp close the pipe behind a MultiReader.
type readCloser struct {
	io.Reader
	io.Closer
}
