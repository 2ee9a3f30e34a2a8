package dbcore_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db/internal/dbcore"
)

// TestActivityTypesListsEveryType reads every constant named Activity… that the store and its engines
// declare as a string (under db/) and requires each in ActivityTypes, the one list webhooks take their
// event types from: a type missing there could be recorded but never subscribed to.
func TestActivityTypesListsEveryType(t *testing.T) {
	t.Parallel()
	declared := map[string]string{} // value → where
	root := filepath.Join("..", "..")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			g, ok := decl.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, spec := range g.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, name := range vs.Names {
					if !strings.HasPrefix(name.Name, "Activity") || i >= len(vs.Values) {
						continue
					}
					if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
						v, err := strconv.Unquote(lit.Value)
						require.NoError(t, err)
						declared[v] = path + ": " + name.Name
					}
				}
			}
		}
		return nil
	})
	require.NoError(t, err)
	require.NotEmpty(t, declared)
	for v, where := range declared {
		require.Contains(t, dbcore.ActivityTypes, v, "%s is not in dbcore.ActivityTypes", where)
	}
	sorted := slices.Clone(dbcore.ActivityTypes)
	slices.Sort(sorted)
	require.Len(t, slices.Compact(sorted), len(dbcore.ActivityTypes), "ActivityTypes lists a type twice")
	require.Len(t, dbcore.ActivityTypes, len(declared), "ActivityTypes lists a type no constant declares")
}
