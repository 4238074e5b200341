package httpapi

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/parquet-go/parquet-go"

	"github.com/sluicedata/sluice/notifications/queue"
)

// DatasetColumns are the dataset's columns and their types (docs/http-api.md,
// docs/http-api.md#datasets: id long, dates timestamp, counters integer).
var DatasetColumns = []struct{ Name, Type string }{
	{"id", "long"}, {"webhookToken", "string"}, {"objectToken", "string"},
	{"creationDate", "timestamp"}, {"receptionDate", "timestamp"}, {"notificationType", "string"},
	{"status", "string"}, {"retryCounter", "integer"}, {"lastRetryDate", "timestamp"},
	{"nextRetryDate", "timestamp"}, {"program", "string"},
}

// parquetRow is one record in the Parquet export.
type parquetRow struct {
	ID               int64      `parquet:"id"`
	WebhookToken     string     `parquet:"webhookToken"`
	ObjectToken      string     `parquet:"objectToken"`
	CreationDate     *time.Time `parquet:"creationDate,optional,timestamp(millisecond:utc)"`
	ReceptionDate    *time.Time `parquet:"receptionDate,optional,timestamp(millisecond:utc)"`
	NotificationType string     `parquet:"notificationType"`
	Status           string     `parquet:"status"`
	RetryCounter     int32      `parquet:"retryCounter"`
	LastRetryDate    *time.Time `parquet:"lastRetryDate,optional,timestamp(millisecond:utc)"`
	NextRetryDate    *time.Time `parquet:"nextRetryDate,optional,timestamp(millisecond:utc)"`
	Program          string     `parquet:"program"`
}

func timePtr(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	u := t.UTC()
	return &u
}

// DatasetFormats are the formats WriteDataset knows.
var DatasetFormats = []string{"ndjson", "csv", "parquet"}

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
		head := make([]string, len(DatasetColumns))
		for i, c := range DatasetColumns {
			head[i] = c.Name
		}
		if err := cw.Write(head); err != nil {
			return err
		}
		row := make([]string, len(DatasetColumns))
		date := func(t *time.Time) string {
			if t == nil || t.IsZero() {
				return ""
			}
			return queue.FormatDate(*t)
		}
		err := store.Scan(ctx, r, func(rec *queue.Record) error {
			row[0] = strconv.FormatInt(rec.ID, 10)
			row[1], row[2] = rec.WebhookToken, rec.ObjectToken
			row[3], row[4] = date(&rec.CreationDate), date(&rec.ReceptionDate)
			row[5], row[6] = rec.NotificationType, string(rec.Status)
			row[7] = strconv.Itoa(rec.RetryCounter)
			row[8], row[9] = date(rec.LastRetryDate), date(rec.NextRetryDate)
			row[10] = rec.Program
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
		pw := parquet.NewGenericWriter[parquetRow](w, parquet.Compression(&parquet.Snappy),
			parquet.MaxRowsPerRowGroup(64*1024))
		rows := make([]parquetRow, 0, 1024)
		flush := func() error {
			if len(rows) == 0 {
				return nil
			}
			_, err := pw.Write(rows)
			rows = rows[:0]
			return err
		}
		err := store.Scan(ctx, r, func(rec *queue.Record) error {
			rows = append(rows, parquetRow{
				ID: rec.ID, WebhookToken: rec.WebhookToken, ObjectToken: rec.ObjectToken,
				CreationDate: timePtr(rec.CreationDate), ReceptionDate: timePtr(rec.ReceptionDate),
				NotificationType: rec.NotificationType, Status: string(rec.Status), RetryCounter: int32(rec.RetryCounter),
				LastRetryDate: rec.LastRetryDate, NextRetryDate: rec.NextRetryDate, Program: rec.Program,
			})
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
	return fmt.Errorf("unknown dataset format %q (want %s)", format, strings.Join(DatasetFormats, ", "))
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
			fmt.Sprintf("unknown format %q (want %s)", c.Query("format"), strings.Join(DatasetFormats, ", ")))
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
