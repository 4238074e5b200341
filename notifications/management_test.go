package notifications_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/notifications"
)

func mgmtService(t *testing.T) (*notifications.Service, notifications.Store) {
	t.Helper()
	cfg := testConfig()
	cfg.ManagementAPI = true
	st := openStore(t)
	return newService(t, cfg, st), st
}

type halPage struct {
	Embedded map[string][]notifications.DTO `json:"_embedded"`
	Links    map[string]struct {
		Href string `json:"href"`
	} `json:"_links"`
	Page struct {
		Size, Number              int
		TotalElements, TotalPages int64
	} `json:"page"`
}

func getPage(t *testing.T, svc *notifications.Service, query string) halPage {
	t.Helper()
	code, body := do(t, svc, "GET", "/management/failed-notifications/"+query, "")
	require.Equal(t, 200, code, body)
	var p halPage
	require.NoError(t, json.Unmarshal([]byte(body), &p), body)
	require.Contains(t, body, `"_embedded":{"failed-notifications":[`)
	return p
}

func TestManagementCRUD(t *testing.T) {
	t.Parallel()
	svc, st := mgmtService(t)

	code, body := do(t, svc, "POST", "/management/failed-notifications",
		`{"notificationToken":"wbh-1","target":"usr-1","program":"prg-1","retryCounter":3,"creationDate":"2024-05-01T09:00:00","status":"SUCCESS"}`)
	require.Equal(t, 201, code, body)
	require.JSONEq(t, `{"notificationToken":"wbh-1","type":"USR","target":"usr-1","program":"prg-1","retryCounter":3,`+
		`"creationDate":"2024-05-01T09:00:00.000Z","status":"FAILED","source":"notifications"}`, body, "status ignored, type from target")
	rec := mustGet(t, st, "wbh-1")
	require.Equal(t, notifications.StatusFailed, rec.Status)
	require.False(t, rec.ReceptionDate.IsZero())

	code, _ = do(t, svc, "POST", "/management/failed-notifications/", `{"notificationToken":"wbh-1"}`)
	require.Equal(t, 409, code)
	for _, bad := range []string{``, `{`, `{"target":"usr-1"}`, `{"notificationToken":"x","creationDate":"soon"}`, `{"notificationToken":"x","retryCounter":-1}`, `[]`,
		`{"notificationToken":"nul\u0000"}`} {
		code, body := do(t, svc, "POST", "/management/failed-notifications", bad)
		require.Equal(t, 400, code, bad)
		require.Contains(t, body, "errorMessage")
	}

	code, body = do(t, svc, "GET", "/management/failed-notifications/wbh-1", "")
	require.Equal(t, 200, code)
	require.Contains(t, body, `"notificationToken":"wbh-1"`)
	code, _ = do(t, svc, "GET", "/management/failed-notifications/wbh-1/", "")
	require.Equal(t, 200, code, "trailing slash optional")
	code, body = do(t, svc, "GET", "/management/failed-notifications/nope", "")
	require.Equal(t, 404, code)
	require.Contains(t, body, "errorMessage")

	// PUT changes present fields, keeps absent ones, never status.
	code, body = do(t, svc, "PUT", "/management/failed-notifications/wbh-1", `{"program":"prg-2","type":"stk","status":"SUCCESS"}`)
	require.Equal(t, 200, code, body)
	require.JSONEq(t, `{"notificationToken":"wbh-1","type":"STK","target":"usr-1","program":"prg-2","retryCounter":3,`+
		`"creationDate":"2024-05-01T09:00:00.000Z","status":"FAILED","source":"notifications"}`, body)
	code, _ = do(t, svc, "PUT", "/management/failed-notifications/nope", `{"program":"x"}`)
	require.Equal(t, 404, code)
	code, _ = do(t, svc, "PUT", "/management/failed-notifications/wbh-1", `{"retryCounter":"many"}`)
	require.Equal(t, 400, code)

	// Re-queue: back to PENDING, retryCounter 0, and processed again.
	code, body = do(t, svc, "POST", "/management/failed-notifications/wbh-1/retry", "")
	require.Equal(t, 200, code, body)
	require.Contains(t, body, `"status":"PENDING"`)
	require.Contains(t, body, `"retryCounter":0`)
	code, _ = do(t, svc, "POST", "/management/failed-notifications/nope/retry", "")
	require.Equal(t, 404, code)

	code, _ = do(t, svc, "DELETE", "/management/failed-notifications/wbh-1", "")
	require.Equal(t, 200, code)
	code, _ = do(t, svc, "DELETE", "/management/failed-notifications/wbh-1", "")
	require.Equal(t, 404, code)
	_, err := st.Get(context.Background(), "wbh-1")
	require.ErrorIs(t, err, notifications.ErrNotFound)
}

func TestManagementPaging(t *testing.T) {
	t.Parallel()
	svc, _ := mgmtService(t)
	for i := range 45 {
		target := fmt.Sprintf("usr-%d", i)
		if i%3 == 0 {
			target = fmt.Sprintf("pmt-%d", i)
		}
		code, body := do(t, svc, "POST", "/management/failed-notifications",
			fmt.Sprintf(`{"notificationToken":"wbh-%02d","target":%q,"creationDate":"2024-05-01T09:%02d:00Z"}`, i, target, i))
		require.Equal(t, 201, code, body)
	}
	p := getPage(t, svc, "")
	require.Equal(t, 20, p.Page.Size)
	require.EqualValues(t, 45, p.Page.TotalElements)
	require.EqualValues(t, 3, p.Page.TotalPages)
	require.Equal(t, 0, p.Page.Number)
	items := p.Embedded["failed-notifications"]
	require.Len(t, items, 20)
	require.Equal(t, "wbh-44", items[0].NotificationToken, "newest creationDate first")
	require.Contains(t, p.Links, "self")
	require.Contains(t, p.Links, "first")
	require.Contains(t, p.Links, "last")
	require.Contains(t, p.Links, "next")
	require.NotContains(t, p.Links, "prev")
	require.Contains(t, p.Links["last"].Href, "page=2")
	require.Contains(t, p.Links["next"].Href, "page=1&size=20")

	p = getPage(t, svc, "?page=2&size=20")
	require.Len(t, p.Embedded["failed-notifications"], 5)
	require.NotContains(t, p.Links, "next")
	require.Contains(t, p.Links["prev"].Href, "page=1")

	p = getPage(t, svc, "?type=pmt&size=1000")
	require.EqualValues(t, 15, p.Page.TotalElements)
	for _, d := range p.Embedded["failed-notifications"] {
		require.Equal(t, "PMT", d.Type)
	}
	require.Contains(t, p.Links["self"].Href, "type=pmt")

	p = getPage(t, svc, "?target=usr-1")
	require.EqualValues(t, 1, p.Page.TotalElements)

	// An unknown type filter matches UNK (none here): an empty page, still with _embedded.
	p = getPage(t, svc, "?type=bogus")
	require.EqualValues(t, 0, p.Page.TotalElements)
	require.NotNil(t, p.Embedded["failed-notifications"])
	require.Contains(t, p.Links, "first")
	require.Contains(t, p.Links, "last")

	for _, bad := range []string{"?size=0", "?size=1001", "?size=x", "?page=-1", "?page=two"} {
		code, body := do(t, svc, "GET", "/management/failed-notifications"+bad, "")
		require.Equal(t, 400, code, bad)
		require.Contains(t, body, "errorMessage")
	}
}

func TestManagementReplaceList(t *testing.T) {
	t.Parallel()
	svc, st := mgmtService(t)
	code, _ := do(t, svc, "POST", "/management/failed-notifications", `{"notificationToken":"wbh-old","target":"usr-1"}`)
	require.Equal(t, 201, code)
	deliver(t, svc, "wbh-pending", "usr-2", "")

	// A repeated token → 400; a token held by a PENDING record → 409; nothing changes either way.
	code, _ = do(t, svc, "PUT", "/management/failed-notifications/",
		`[{"notificationToken":"wbh-a","target":"usr-3"},{"notificationToken":"wbh-a","target":"usr-3"}]`)
	require.Equal(t, 400, code)
	code, _ = do(t, svc, "PUT", "/management/failed-notifications",
		`[{"notificationToken":"wbh-a","target":"usr-3"},{"notificationToken":"wbh-pending"}]`)
	require.Equal(t, 409, code)
	code, _ = do(t, svc, "PUT", "/management/failed-notifications", `{"notificationToken":"wbh-a"}`)
	require.Equal(t, 400, code, "not a list")
	require.Equal(t, notifications.StatusFailed, mustGet(t, st, "wbh-old").Status)
	_, err := st.Get(context.Background(), "wbh-a")
	require.ErrorIs(t, err, notifications.ErrNotFound)

	code, body := do(t, svc, "PUT", "/management/failed-notifications",
		`[{"notificationToken":"wbh-a","target":"usr-3"},{"notificationToken":"wbh-b","target":"trm-4","status":"RETRYING"}]`)
	require.Equal(t, 200, code, body)
	p := getPage(t, svc, "")
	require.EqualValues(t, 2, p.Page.TotalElements)
	_, err = st.Get(context.Background(), "wbh-old")
	require.ErrorIs(t, err, notifications.ErrNotFound, "replaced")
	require.Equal(t, notifications.StatusRetrying, mustGet(t, st, "wbh-b").Status)
	require.Equal(t, notifications.StatusPending, mustGet(t, st, "wbh-pending").Status, "live queue untouched")
}
