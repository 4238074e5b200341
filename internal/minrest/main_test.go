package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestRun(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"items": [{"id": "a", "n": 1}, {"id": "b", "n": 2}]}`))
	}))
	defer srv.Close()
	var out bytes.Buffer
	require.NoError(t, run(context.Background(), &out, srv.URL+"/items", "items"))
	require.Equal(t, "+---+---+\n| id|  n|\n+---+---+\n|  a|  1|\n|  b|  2|\n+---+---+\n", out.String())
}

func TestRunError(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "no", http.StatusForbidden)
	}))
	defer srv.Close()
	err := run(context.Background(), &bytes.Buffer{}, srv.URL+"/items", "items")
	require.ErrorContains(t, err, "403")
}
