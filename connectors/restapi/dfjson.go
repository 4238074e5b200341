package restapi

import (
	"context"
	"errors"

	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/jsonframe"
)

// readPages parses the pages of a parsed-mode read into one frame, with the
// JSON read settings ctx carries (jsonframe.WithReadSettings: `sluice read
// --sample-rows/--strict/--mode`; see docs/inference.md#sampling).
func readPages(ctx context.Context, pages [][]byte, recordsPath string, mem dataframe.Allocator) (*dataframe.Frame, error) {
	return jsonframe.ReadDocuments(pages, jsonframe.ReadSettingsFrom(ctx, jsonframe.Options{RecordsPath: recordsPath, Allocator: mem}))
}

// pageSyntaxError finds the page of an invalid-JSON error and returns the
// error worded for one page ("page 2" is said by the caller; the reader's
// own 0-based "in document 1" would contradict it).
func pageSyntaxError(err error) (int, error, bool) {
	var se *jsonframe.SyntaxError
	if !errors.As(err, &se) {
		return 0, err, false
	}
	one := *se
	one.Docs = 1
	return se.Doc, &one, true
}
