package api

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// Every path parameter declares its format on its input type, so the guard checks it before the
// handler instead of guessing from its name; only the parameters listed here are free-form.
func TestPathParametersDeclareTheirFormat(t *testing.T) {
	t.Parallel()
	freeForm := map[string]bool{"pluginId": true, "token": true}
	raw, err := OpenAPIDocument("")
	require.NoError(t, err)
	var doc struct {
		Paths map[string]map[string]struct {
			Parameters []struct {
				Name   string `json:"name"`
				In     string `json:"in"`
				Schema struct {
					Format string `json:"format"`
				} `json:"schema"`
			} `json:"parameters"`
		} `json:"paths"`
	}
	require.NoError(t, json.Unmarshal(raw, &doc))
	checked := 0
	for path, ops := range doc.Paths {
		for method, op := range ops {
			for _, p := range op.Parameters {
				if p.In != "path" || freeForm[p.Name] {
					continue
				}
				checked++
				require.Contains(t, []string{"uuid", formatSlug, formatDeliveryID}, p.Schema.Format,
					"%s %s: path parameter %s declares no format the guard checks", method, path, p.Name)
			}
		}
	}
	require.Greater(t, checked, 100, "the document's path parameters were read")
}
