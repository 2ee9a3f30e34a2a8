package board

import (
	"context"
	"fmt"
	"slices"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/internal/dbcore"
	"github.com/pilot-dev/pilot/internal/plugin"
)

// Template is a built-in starting point for a project.
type Template struct {
	ID          string          `json:"id"`
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Columns     []string        `json:"columns"`
	Labels      []TemplateLabel `json:"labels"`
}

// TemplateLabel is a label a template creates.
type TemplateLabel struct {
	Name  string `json:"name"`
	Color string `json:"color"`
}

// DefaultTemplateID is used when a project is created without a template.
const DefaultTemplateID = "basic-kanban"

// Templates are the built-in project templates.
var Templates = []Template{
	{ID: "basic-kanban", Name: "Basic kanban", Description: "To do, in progress, done.",
		Columns: []string{"To Do", "In Progress", "Done"}},
	{ID: "scrum", Name: "Scrum", Description: "A backlog, a sprint and a review step.",
		Columns: []string{"Backlog", "Sprint Backlog", "In Progress", "In Review", "Done"},
		Labels:  []TemplateLabel{{"Bug", "#d73a4a"}, {"Story", "#0e8a16"}, {"Spike", "#5319e7"}}},
	{ID: "product-launch", Name: "Product launch", Description: "From idea to launch and what follows.",
		Columns: []string{"Ideas", "Planning", "Building", "Launch", "Post-launch"},
		Labels:  []TemplateLabel{{"Marketing", "#fbca04"}, {"Engineering", "#1d76db"}, {"Design", "#c5def5"}}},
	{ID: "empty", Name: "Empty", Description: "No columns; build your own board."},
}

// TemplateByID finds a built-in template.
func TemplateByID(id string) (Template, bool) {
	for _, t := range Templates {
		if t.ID == id {
			return t, true
		}
	}
	return Template{}, false
}

// ProjectTemplates lists the project templates a workspace may use: the built-in ones and those of its
// installed plugins.
func (b *Engine) ProjectTemplates(ctx context.Context, workspaceID string) ([]Template, error) {
	installed, err := db.InstalledPlugins(ctx, b.q, workspaceID)
	if err != nil {
		return nil, err
	}
	out := slices.Clone(Templates)
	for _, t := range plugin.ProjectTemplates {
		if p, ok := plugin.ForProjectTemplate(t.ID); ok {
			if _, on := installed[p.ID]; on {
				out = append(out, pluginTemplate(t))
			}
		}
	}
	return out, nil
}

// projectTemplate finds a template a workspace may use.
func (b *Engine) projectTemplate(ctx context.Context, workspaceID, id string) (Template, error) {
	if t, ok := TemplateByID(id); ok {
		return t, nil
	}
	if p, ok := plugin.ForProjectTemplate(id); ok {
		installed, err := db.InstalledPlugins(ctx, b.q, workspaceID)
		if err != nil {
			return Template{}, err
		}
		if _, on := installed[p.ID]; !on {
			return Template{},
				dbcore.Invalid(fmt.Sprintf("templateId %q comes from plugin %s, which is not installed in this workspace", id,
					p.ID))
		}
		for _, t := range plugin.ProjectTemplates {
			if t.ID == id {
				return pluginTemplate(t), nil
			}
		}
	}
	return Template{}, dbcore.Invalid(fmt.Sprintf("unknown templateId %q; see GET …/projects/templates", id))
}

func pluginTemplate(t plugin.ProjectTemplate) Template {
	out := Template{ID: t.ID, Name: t.Name, Description: t.Description, Columns: t.Columns}
	for _, l := range t.Labels {
		out.Labels = append(out.Labels, TemplateLabel{Name: l[0], Color: l[1]})
	}
	return out
}
