package main

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// restOnlyForbidden are the packages a program that only reads REST APIs
// into frames must not link, and why (docs/go-api.md#dependencies).
var restOnlyForbidden = []struct{ prefix, why string }{
	{"google.golang.org/grpc", "gRPC (Arrow Flight's transport)"},
	{"google.golang.org/protobuf", "protobuf (gRPC's encoding)"},
	{"github.com/apache/arrow/go/v17/arrow/flight", "Arrow Flight (it links gRPC)"},
	{"github.com/apache/arrow/go/v17/parquet", "Arrow's Parquet library"},
	{"github.com/parquet-go/", "parquet-go, a second Parquet library"},
	{"github.com/apache/thrift/", "Thrift (Parquet's footer encoding)"},
	{module + "dataframe/fileio", "dataframe/fileio (Parquet and Arrow IPC files; REST code reads CSV with dataframe/csvframe)"},
}

// TestRESTOnlyDeps guards the dependency graph of internal/minrest, the
// smallest program reading a REST API into a frame (a catalog session, the
// RESTAPI connector, the frame packages): it links neither gRPC / Arrow
// Flight nor any Parquet library, so such a program stays small and builds
// fast. A new import that breaks this names the chain that brought the
// package in.
func TestRESTOnlyDeps(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: not running go list")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "list", "-deps", "-f", "{{.ImportPath}}\t{{join .Imports \" \"}}",
		"./internal/minrest", "./dataframe/jsonframe", "./dataframe/csvframe", "./connectors/restapi")
	cmd.Dir = "../.."
	out, err := cmd.Output()
	require.NoError(t, err, "go list -deps")
	importers := map[string][]string{} // package → the packages importing it
	var pkgs []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		path, imports, _ := strings.Cut(line, "\t")
		pkgs = append(pkgs, path)
		for _, imp := range strings.Fields(imports) {
			importers[imp] = append(importers[imp], path)
		}
	}
	require.Contains(t, pkgs, module+"connectors/restapi")
	for _, f := range restOnlyForbidden {
		var linked []string
		for _, p := range pkgs {
			if strings.HasPrefix(p, f.prefix) {
				linked = append(linked, p)
			}
		}
		if len(linked) > 0 {
			t.Errorf("a REST-only program links %s (%d packages), e.g. through %s", f.why, len(linked), importChain(importers, linked[0]))
		}
	}
}

// importChain is the shortest chain of importers from one of the module's
// packages down to p ("a → b → p").
func importChain(importers map[string][]string, p string) string {
	prev := map[string]string{p: ""}
	queue := []string{p}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		if cur != p && strings.HasPrefix(cur, module) {
			chain := []string{cur}
			for n := prev[cur]; n != ""; n = prev[n] {
				chain = append(chain, n)
			}
			return strings.Join(chain, " → ")
		}
		for _, imp := range importers[cur] {
			if _, seen := prev[imp]; !seen {
				prev[imp] = cur
				queue = append(queue, imp)
			}
		}
	}
	return "(no importer found)"
}
