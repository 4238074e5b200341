package datagen

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

type listing struct {
	Kind          string `json:"kind"`
	NextPageToken string `json:"nextPageToken"`
	PageInfo      struct {
		TotalResults   int `json:"totalResults"`
		ResultsPerPage int `json:"resultsPerPage"`
	} `json:"pageInfo"`
	Items []item `json:"items"`
}

type item struct {
	ID      string `json:"id"`
	Snippet struct {
		PublishedAt string `json:"publishedAt"`
		Title       string `json:"title"`
		Description string `json:"description"`
		ResourceID  struct {
			ChannelID string `json:"channelId"`
		} `json:"resourceId"`
		Thumbnails map[string]struct {
			URL    string `json:"url"`
			Width  int    `json:"width"`
			Height int    `json:"height"`
		} `json:"thumbnails"`
	} `json:"snippet"`
	Statistics struct {
		Score      float64 `json:"score"`
		Rank       int64   `json:"rank"`
		Subscribed bool    `json:"subscribed"`
	} `json:"statistics"`
	Note *string `json:"note"`
}

func TestGenListing(t *testing.T) {
	t.Parallel()
	var a, b, c bytes.Buffer
	require.NoError(t, GenListing(&a, 300, 7))
	require.NoError(t, GenListing(&b, 300, 7))
	require.NoError(t, GenListing(&c, 300, 8))
	require.Equal(t, a.Bytes(), b.Bytes(), "the same seed gives the same bytes")
	require.NotEqual(t, a.Bytes(), c.Bytes())

	var l listing
	require.NoError(t, json.Unmarshal(b.Bytes(), &l), "valid JSON")
	require.Equal(t, "youtube#subscriptionListResponse", l.Kind)
	require.Len(t, l.NextPageToken, 6)
	require.Equal(t, 300, l.PageInfo.TotalResults)
	require.Len(t, l.Items, 300)
	ids := map[string]bool{}
	notes := 0
	text := ""
	for i, it := range l.Items {
		require.Len(t, it.ID, 43)
		ids[it.ID] = true
		require.Regexp(t, `^20[0-2]\d-\d\d-\d\dT\d\d:\d\d:\d\d\.000Z$`, it.Snippet.PublishedAt)
		require.True(t, strings.HasPrefix(it.Snippet.ResourceID.ChannelID, "UC"))
		require.Len(t, it.Snippet.Thumbnails, 3)
		require.Equal(t, 800, it.Snippet.Thumbnails["high"].Width)
		require.EqualValues(t, i, it.Statistics.Rank)
		require.Greater(t, it.Statistics.Score, 0.0)
		if it.Note != nil {
			notes++
		}
		text += it.Snippet.Title + " " + it.Snippet.Description + " "
	}
	require.Len(t, ids, 300, "ids are distinct")
	require.Positive(t, notes, "some notes are set")
	require.Less(t, notes, 300, "most notes are null")
	// Every word, escapes decoded, occurs: the data exercises non-ASCII
	// text, escaped quotes, line breaks and surrogate pairs.
	for _, w := range []string{"café", "東京", "🎬", `"quoted"`, "line\nbreak", "tab\there", "slash/path", "été", "emoji 😀"} {
		require.Contains(t, text, w)
	}
}

func TestGenNDJSON(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	require.NoError(t, GenNDJSON(&buf, 500, 3))
	sc := bufio.NewScanner(&buf)
	sc.Buffer(nil, 1<<20)
	n := 0
	for sc.Scan() {
		var it item
		require.NoError(t, json.Unmarshal(sc.Bytes(), &it), "line %d", n+1)
		require.EqualValues(t, n, it.Statistics.Rank)
		n++
	}
	require.NoError(t, sc.Err())
	require.Equal(t, 500, n)
}

// failWriter fails once it has taken limit bytes.
type failWriter struct{ n, limit int }

var errFull = errors.New("disk full")

func (w *failWriter) Write(p []byte) (int, error) {
	if w.n+len(p) > w.limit {
		return 0, errFull
	}
	w.n += len(p)
	return len(p), nil
}

func TestWriteErrors(t *testing.T) {
	t.Parallel()
	require.ErrorIs(t, GenListing(&failWriter{limit: 100 << 10}, 2000, 1), errFull)
	require.ErrorIs(t, GenNDJSON(&failWriter{limit: 100 << 10}, 2000, 1), errFull)
	require.NoError(t, GenListing(&failWriter{limit: 1 << 30}, 10, 1))
}
