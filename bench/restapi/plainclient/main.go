// Command plainclient is the limit remote.sh measures token pagination
// against: a plain sequential Go client — net/http's default client, one
// GET after another, each page's body read and decoded for its next-page
// token — reading the "token" listing of fakeapi -remote. It prints the
// pages it read and the pages per second.
//
//	plainclient -url https://127.0.0.1:PORT/token/items
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"time"
)

func main() {
	base := flag.String("url", "", "the listing's first page")
	flag.Parse()
	if *base == "" {
		fmt.Fprintln(os.Stderr, "plainclient: -url is required")
		os.Exit(2)
	}
	start := time.Now()
	pages, next := 0, ""
	for {
		u := *base
		if next != "" {
			u += "?cursor=" + url.QueryEscape(next)
		}
		resp, err := http.Get(u)
		if err != nil {
			fmt.Fprintln(os.Stderr, "plainclient:", err)
			os.Exit(1)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			fmt.Fprintln(os.Stderr, "plainclient:", resp.Status, err)
			os.Exit(1)
		}
		var page struct {
			Data []json.RawMessage `json:"data"`
			Next string            `json:"next"`
		}
		if err := json.Unmarshal(body, &page); err != nil {
			fmt.Fprintln(os.Stderr, "plainclient:", err)
			os.Exit(1)
		}
		pages++
		if page.Next == "" {
			break
		}
		next = page.Next
	}
	d := time.Since(start)
	fmt.Printf("%d pages %.3f s %.1f pages/s\n", pages, d.Seconds(), float64(pages)/d.Seconds())
}
