package llm

import "github.com/pilot-dev/pilot/internal/agenttool"

// ToolCatalog returns the agent tools a mission may offer (agenttool.Catalog: names, descriptions and
// JSON Schemas of their arguments), in a fixed order. Each call returns a fresh slice the caller may
// modify.
func ToolCatalog() []Tool {
	specs := agenttool.Catalog()
	tools := make([]Tool, len(specs))
	for i, s := range specs {
		tools[i] = Tool(s)
	}
	return tools
}

// SelectTools returns the catalog tools whose names are in names (an agent's tools), in catalog
// order. Unknown names are ignored.
func SelectTools(names []string) []Tool {
	want := make(map[string]bool, len(names))
	for _, n := range names {
		want[n] = true
	}
	var tools []Tool
	for _, t := range ToolCatalog() {
		if want[t.Name] {
			tools = append(tools, t)
		}
	}
	return tools
}
