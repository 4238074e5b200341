package main

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/tools/go/packages"
)

// errWrapScope is where an error is always wrapped with %w: package
// patterns.
var errWrapScope = []string{"./notifications/...", "./connectors/...", "./cmd/sluice/...", "./internal/...",
	"./dataframe/...", "./catalog/...", "./pipelines/..."}

// TestErrorsWrapWithW finds errors built from another error that lose it:
// an error formatted with %v or %s (by fmt.Errorf or a printf-like helper
// that makes errors), or its text copied into a new error. errors.Is and
// errors.As cannot see through those (docs/development.md#errors). Where
// dropping the chain is deliberate (it would expose a secret), a comment
// saying "not %w" and why on the line or the line above keeps it.
func TestErrorsWrapWithW(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: not type-checking the module")
	}
	t.Parallel()
	cfg := &packages.Config{Dir: "../..", Mode: packages.NeedName | packages.NeedFiles | packages.NeedSyntax |
		packages.NeedTypes | packages.NeedTypesInfo}
	pkgs, err := packages.Load(cfg, errWrapScope...)
	require.NoError(t, err)
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	var found []string
	files := 0
	for _, p := range pkgs {
		require.Empty(t, p.Errors, "loading %s", p.PkgPath)
		for _, f := range p.Syntax {
			rel, _ := filepath.Rel(root, p.Fset.Position(f.Package).Filename)
			rel = filepath.ToSlash(rel)
			files++
			found = append(found, unwrappedErrors(p.Fset, p.TypesInfo, f, rel)...)
		}
	}
	require.Greater(t, files, 100, "the scan read the packages in scope")
	require.Empty(t, found, "errors that lose the error they wrap: use %w (or say why not, with a comment \"not %w: …\")")
}

var errorType = types.Universe.Lookup("error").Type().Underlying().(*types.Interface)

// unwrappedErrors lists f's calls that build an error from an error without
// wrapping it.
func unwrappedErrors(fset *token.FileSet, info *types.Info, f *ast.File, rel string) []string {
	excused := map[int]bool{}
	for _, cg := range f.Comments {
		if strings.Contains(cg.Text(), "not %w") {
			end := fset.Position(cg.End()).Line
			excused[end], excused[end+1] = true, true
		}
	}
	isError := func(e ast.Expr) bool {
		t := info.TypeOf(e)
		return t != nil && types.Implements(t, errorType)
	}
	// errText reports whether e copies an error's text (err.Error()).
	errText := func(e ast.Expr) bool {
		found := false
		ast.Inspect(e, func(n ast.Node) bool {
			if c, ok := n.(*ast.CallExpr); ok {
				if s, ok := c.Fun.(*ast.SelectorExpr); ok && s.Sel.Name == "Error" && len(c.Args) == 0 && isError(s.X) {
					found = true
				}
			}
			return !found
		})
		return found
	}
	var out []string
	report := func(n ast.Node, what string) {
		line := fset.Position(n.Pos()).Line
		if !excused[line] {
			out = append(out, fmt.Sprintf("%s:%d: %s", rel, line, what))
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		var fn *types.Func
		switch fun := call.Fun.(type) {
		case *ast.SelectorExpr:
			fn, _ = info.Uses[fun.Sel].(*types.Func)
		case *ast.Ident:
			fn, _ = info.Uses[fun].(*types.Func)
		}
		if fn != nil && fn.Pkg() != nil && fn.Pkg().Path() == "errors" && fn.Name() == "New" && errText(call.Args[0]) {
			report(call, "errors.New copies an error's text")
			return true
		}
		sig, ok := info.TypeOf(call.Fun).(*types.Signature)
		if !ok || !sig.Variadic() || sig.Params().Len() < 2 {
			return true
		}
		// Printf-like calls that make errors: fmt.Errorf, and this module's
		// helpers (usagef, invalidf, a fail closure) unless they make text.
		if fn != nil && fn.Pkg() != nil && !(fn.Pkg().Path() == "fmt" && fn.Name() == "Errorf") &&
			!strings.HasPrefix(fn.Pkg().Path(), strings.TrimSuffix(module, "/")) {
			return true
		}
		if r := sig.Results(); r.Len() == 1 && r.At(0).Type().String() == "string" {
			return true
		}
		fi := sig.Params().Len() - 2
		if sig.Params().At(fi).Name() != "format" || len(call.Args) <= fi {
			return true
		}
		tv := info.Types[call.Args[fi]]
		if tv.Value == nil || tv.Value.Kind() != constant.String {
			return true
		}
		verbs := formatVerbs(constant.StringVal(tv.Value))
		for i, a := range call.Args[fi+1:] {
			v := '?'
			if i < len(verbs) {
				v = verbs[i]
			}
			switch {
			case isError(a) && v != 'w':
				report(call, fmt.Sprintf("%s formats the error %s with %%%c", types.ExprString(call.Fun), types.ExprString(a), v))
			case errText(a):
				report(call, fmt.Sprintf("%s copies an error's text: %s", types.ExprString(call.Fun), types.ExprString(a)))
			}
		}
		return true
	})
	return out
}

// formatVerbs lists a format's verbs in argument order (a * width or
// precision takes an argument too).
func formatVerbs(format string) []rune {
	var out []rune
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			continue
		}
		for i++; i < len(format) && strings.IndexByte("+-# 0123456789.[]*", format[i]) >= 0; i++ {
			if format[i] == '*' {
				out = append(out, '*')
			}
		}
		if i < len(format) && format[i] != '%' {
			out = append(out, rune(format[i]))
		}
	}
	return out
}

func TestFormatVerbs(t *testing.T) {
	t.Parallel()
	require.Equal(t, []rune{'q', 'w', '*', 'd', 'v'}, formatVerbs("a %q b %w 100%% %*d %-8v"))
}
