package notifications_test

import (
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestGoDocShowsTypes checks what `go doc notifications <Name>` shows a Go
// embedder: every exported name is documented, and none is declared in
// terms of an internal package — an alias of an internal type, a constant
// or variable whose value lives there, a function or field whose type
// does — for `go doc` cannot follow those (docs/go-api.md).
func TestGoDocShowsTypes(t *testing.T) {
	t.Parallel()
	fset := token.NewFileSet()
	paths, err := filepath.Glob("*.go")
	require.NoError(t, err)
	var files []*ast.File
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ParseComments)
		require.NoError(t, err)
		files = append(files, f)
	}
	require.NotEmpty(t, files)

	// internalRefs lists the internal packages n refers to (qualified
	// identifiers such as jobs.Handler), by the file's import names.
	internalRefs := func(f *ast.File, n ast.Node) []string {
		imports := map[string]string{}
		for _, is := range f.Imports {
			path, _ := strconv.Unquote(is.Path.Value)
			name := path[strings.LastIndex(path, "/")+1:]
			if is.Name != nil {
				name = is.Name.Name
			}
			imports[name] = path
		}
		var refs []string
		ast.Inspect(n, func(n ast.Node) bool {
			if n == nil {
				return false
			}
			if _, ok := n.(*ast.BlockStmt); ok {
				return false // a function body is not what go doc shows
			}
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if id, ok := sel.X.(*ast.Ident); ok {
				if path := imports[id.Name]; strings.Contains(path, "/internal/") {
					refs = append(refs, id.Name+"."+sel.Sel.Name+" ("+path+")")
				}
			}
			return true
		})
		return refs
	}

	checked := 0
	for _, f := range files {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if !d.Name.IsExported() || (d.Recv != nil && !exportedRecv(d.Recv)) {
					continue
				}
				checked++
				name := d.Name.Name
				if d.Recv != nil {
					name = recvName(d.Recv) + "." + name
				}
				if d.Recv == nil { // methods such as Error and String explain themselves
					require.NotNil(t, d.Doc, "%s has no doc comment", name)
				}
				require.Empty(t, internalRefs(f, d.Type), "func %s's signature names internal packages", name)
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						if !s.Name.IsExported() {
							continue
						}
						checked++
						require.True(t, s.Doc != nil || d.Doc != nil, "type %s has no doc comment", s.Name.Name)
						var shown ast.Node = s.Type
						if st, ok := s.Type.(*ast.StructType); ok {
							shown = exportedFields(st)
						}
						if s.Assign.IsValid() {
							require.Empty(t, internalRefs(f, s.Type),
								"type %s is an alias of an internal type: go doc shows nothing of it; declare it here or in a public package", s.Name.Name)
						} else {
							require.Empty(t, internalRefs(f, shown), "type %s shows internal types", s.Name.Name)
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if !n.IsExported() {
								continue
							}
							checked++
							require.True(t, s.Doc != nil || d.Doc != nil || s.Comment != nil, "%s has no doc comment", n.Name)
							require.Empty(t, internalRefs(f, s), "%s is declared by an internal package's name: go doc cannot show its value", n.Name)
						}
					}
				}
			}
		}
	}

	// go/doc's view: the names a user handles are types of this package
	// with their fields or methods, not aliases.
	pkg, err := doc.NewFromFiles(fset, files, "github.com/sluicedata/sluice/notifications")
	require.NoError(t, err)
	types := map[string]*doc.Type{}
	for _, ty := range pkg.Types {
		types[ty.Name] = ty
	}
	for _, name := range []string{"Handler", "HandlerFunc", "StatusHandler", "MarketplaceHandler", "DownstreamError",
		"RunStats", "MailConfig", "Config", "Service"} {
		ty, ok := types[name]
		require.True(t, ok, "notifications.%s is missing", name)
		spec := ty.Decl.Specs[0].(*ast.TypeSpec)
		require.False(t, spec.Assign.IsValid(), "notifications.%s is an alias: go doc shows no fields or methods", name)
		require.NotEmpty(t, strings.TrimSpace(ty.Doc), "notifications.%s has no doc", name)
	}
	require.Greater(t, checked, 50, "the scan found the package's exported names")
}

func exportedRecv(fl *ast.FieldList) bool { return ast.IsExported(recvName(fl)) }

func recvName(fl *ast.FieldList) string {
	e := fl.List[0].Type
	if s, ok := e.(*ast.StarExpr); ok {
		e = s.X
	}
	if id, ok := e.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

// exportedFields is a struct's exported fields, as go doc shows them.
func exportedFields(st *ast.StructType) *ast.FieldList {
	out := &ast.FieldList{}
	for _, f := range st.Fields.List {
		if len(f.Names) == 0 || f.Names[0].IsExported() {
			out.List = append(out.List, f)
		}
	}
	return out
}
