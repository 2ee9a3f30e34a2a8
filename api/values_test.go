package api

import (
	"log/slog"
	"os"
	"reflect"
	"testing"

	"github.com/danielgtaylor/huma/v2"
	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db/engines"
	"github.com/pilot-dev/pilot/internal/storage"
)

// Every domain value type (a string type with a Values method) that an operation reads or answers is
// registered (registerValues), so the document gives its enum and huma refuses any other value with a
// 400: a type left out is a plain string, and a value outside it reached the database (a 500 the fuzz
// test found on POST /calendar-feeds).
func TestDomainValuesAreEnums(t *testing.T) {
	t.Parallel()
	s, _ := build(engines.New(nil, nil, engines.Options{}), nil, nil, slog.New(slog.DiscardHandler),
		Options{Storage: storage.NewLocal(os.TempDir())})
	reg := huma.NewMapRegistry("#/components/schemas/", huma.DefaultSchemaNamer)
	registerValues(reg)

	seen := map[reflect.Type]bool{}
	var missing []string
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		if seen[t] {
			return
		}
		seen[t] = true
		switch t.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Array:
			walk(t.Elem())
		case reflect.Map:
			walk(t.Key())
			walk(t.Elem())
		case reflect.Struct:
			for i := range t.NumField() {
				if f := t.Field(i); f.IsExported() {
					walk(f.Type)
				}
			}
		case reflect.String:
			if _, ok := t.MethodByName("Values"); ok {
				if schema := reg.Schema(t, false, ""); schema == nil || len(schema.Enum) == 0 {
					missing = append(missing, t.String())
				}
			}
		default:
		}
	}
	operations := 0
	for _, item := range s.api.OpenAPI().Paths {
		for _, op := range []*huma.Operation{item.Get, item.Post, item.Put, item.Patch, item.Delete} {
			if op == nil {
				continue
			}
			types, ok := op.Metadata["types"].([]reflect.Type)
			if !ok { // not registered through register (/mcp's routes): no Go types of its own
				continue
			}
			operations++
			for _, ty := range types {
				walk(ty)
			}
		}
	}
	require.Greater(t, operations, 200)
	require.Empty(t, missing, "domain value types without their enum: register them in registerValues")
}
