// Package plugin is Pilot's plugin catalog: the plugins the service ships, what each adds to a workspace
// that installs it (step types for pipelines, project templates) and the settings it takes, described
// by a small JSON schema and validated here. Installations live in the store; this package holds no
// state and imports nothing of Pilot's.
package plugin

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Plugin is one entry of the catalog.
type Plugin struct {
	ID           string         `json:"id"`
	Name         string         `json:"name"`
	Description  string         `json:"description"`
	Version      string         `json:"version"`
	Capabilities Capabilities   `json:"capabilities"`
	Settings     SettingsSchema `json:"settings"`
}

// Capabilities is what a plugin adds to a workspace that installs it.
type Capabilities struct {
	// StepTypes are pipeline step types; a pipeline of a workspace without the plugin may not use them.
	StepTypes []string `json:"stepTypes"`
	// ProjectTemplates are project template ids offered by GET …/projects/templates and accepted by
	// project creation.
	ProjectTemplates []string `json:"projectTemplates"`
	// AgentTools are agent tools (none of the shipped plugins adds one yet).
	AgentTools []string `json:"agentTools"`
}

// SettingsSchema is the JSON schema of a plugin's settings: an object of typed properties.
type SettingsSchema struct {
	Type                 string                     `json:"type" enum:"object"`
	Properties           map[string]SettingProperty `json:"properties"`
	Required             []string                   `json:"required"`
	AdditionalProperties bool                       `json:"additionalProperties"`
}

// SettingProperty is one setting: its JSON type (string, integer or boolean) and its limits.
type SettingProperty struct {
	Type        string   `json:"type" enum:"string,integer,boolean"`
	Description string   `json:"description"`
	Default     any      `json:"default,omitempty"`
	Enum        []string `json:"enum,omitempty"`
	MaxLength   *int     `json:"maxLength,omitempty"`
	Minimum     *int     `json:"minimum,omitempty"`
	Maximum     *int     `json:"maximum,omitempty"`
}

// Plugin ids.
const (
	EmailDigest   = "email-digest"
	CardTemplates = "card-templates"
	CardActions   = "card-actions"
)

// Step types contributed by plugins.
const (
	StepEmailDigest = "email_digest"
	StepAddComment  = "add_comment"
	StepMoveCard    = "move_card"
)

func intp(v int) *int { return &v }

// catalog is every plugin the service ships, by id order, its empty lists written as [] rather than null.
var catalog = withEmptyLists([]Plugin{
	{
		ID: CardActions, Name: "Card actions", Version: "1.0.0",
		Description: "Pipeline steps that act on cards: comment on a card and move a card to another column " +
			"(for example the card an earlier create_card step made).",
		Capabilities: Capabilities{StepTypes: []string{StepAddComment, StepMoveCard}},
		Settings: SettingsSchema{Type: "object", Properties: map[string]SettingProperty{
			"commentPrefix": {Type: "string", Description: "Text put before every comment the add_comment step posts",
				Default: "", MaxLength: intp(50)},
		}},
	},
	{
		ID: CardTemplates, Name: "Card template pack", Version: "1.0.0",
		Description: "More project templates: bug triage, quarterly OKRs and a content calendar, each with its columns " +
			"and labels.",
		Capabilities: Capabilities{ProjectTemplates: []string{"bug-triage", "okr-quarter", "content-calendar"}},
		Settings:     SettingsSchema{Type: "object", Properties: map[string]SettingProperty{}},
	},
	{
		ID: EmailDigest, Name: "E-mail digest", Version: "1.0.0",
		Description: "A pipeline step that e-mails each workspace member a digest of their unread notifications, " +
			"through the service's e-mail job (SMTP, or the outbox when SMTP is not configured).",
		Capabilities: Capabilities{StepTypes: []string{StepEmailDigest}},
		Settings: SettingsSchema{Type: "object", Required: []string{"subjectPrefix"}, Properties: map[string]SettingProperty{
			"subjectPrefix": {Type: "string", Description: "Put before each digest's subject", MaxLength: intp(40)},
			"maxItems": {Type: "integer", Description: "Notifications listed per digest", Default: 10, Minimum: intp(1),
				Maximum: intp(50)}, "skipEmpty": {Type: "boolean", Description: "Send nothing to members with no unread " +
				"notification", Default: true},
		}},
	},
})

// withEmptyLists gives the plugins' nil lists their empty value, so each encodes as [].
func withEmptyLists(plugins []Plugin) []Plugin {
	for i := range plugins {
		p := &plugins[i]
		p.Capabilities.StepTypes = orEmpty(p.Capabilities.StepTypes)
		p.Capabilities.ProjectTemplates = orEmpty(p.Capabilities.ProjectTemplates)
		p.Capabilities.AgentTools = orEmpty(p.Capabilities.AgentTools)
		p.Settings.Required = orEmpty(p.Settings.Required)
	}
	return plugins
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// Catalog lists every plugin, by id.
func Catalog() []Plugin { return slices.Clone(catalog) }

// ByID finds a plugin of the catalog.
func ByID(id string) (Plugin, bool) {
	for _, p := range catalog {
		if p.ID == id {
			return p, true
		}
	}
	return Plugin{}, false
}

// ForStepType answers the plugin that contributes a step type, if any.
func ForStepType(stepType string) (Plugin, bool) {
	for _, p := range catalog {
		if slices.Contains(p.Capabilities.StepTypes, stepType) {
			return p, true
		}
	}
	return Plugin{}, false
}

// ForProjectTemplate answers the plugin that contributes a project template, if any.
func ForProjectTemplate(templateID string) (Plugin, bool) {
	for _, p := range catalog {
		if slices.Contains(p.Capabilities.ProjectTemplates, templateID) {
			return p, true
		}
	}
	return Plugin{}, false
}

// ValidateSettings checks settings (a JSON object; empty means {}) against the plugin's schema and
// answers them with defaults filled in. The error names the setting.
func (p Plugin) ValidateSettings(raw json.RawMessage) (json.RawMessage, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		raw = []byte("{}")
	}
	var in map[string]json.RawMessage
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, fmt.Errorf("settings must be a JSON object")
	}
	out := map[string]any{}
	names := make([]string, 0, len(in))
	for k := range in {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		prop, ok := p.Settings.Properties[k]
		if !ok {
			if p.Settings.AdditionalProperties {
				out[k] = in[k]
				continue
			}
			return nil, fmt.Errorf("settings.%s: unknown setting of plugin %s", k, p.ID)
		}
		v, err := prop.check(in[k])
		if err != nil {
			return nil, fmt.Errorf("settings.%s: %w", k, err)
		}
		out[k] = v
	}
	for _, k := range p.Settings.Required {
		if _, ok := out[k]; !ok {
			return nil, fmt.Errorf("settings.%s is required", k)
		}
	}
	for k, prop := range p.Settings.Properties {
		if _, ok := out[k]; !ok && prop.Default != nil {
			out[k] = prop.Default
		}
	}
	return json.Marshal(out)
}

func (pr SettingProperty) check(raw json.RawMessage) (any, error) {
	switch pr.Type {
	case "string":
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, fmt.Errorf("must be a string")
		}
		if pr.MaxLength != nil && len([]rune(s)) > *pr.MaxLength {
			return nil, fmt.Errorf("must be at most %d characters", *pr.MaxLength)
		}
		if len(pr.Enum) > 0 && !slices.Contains(pr.Enum, s) {
			return nil, fmt.Errorf("must be one of %s", strings.Join(pr.Enum, ", "))
		}
		return s, nil
	case "integer":
		var f float64
		if err := json.Unmarshal(raw, &f); err != nil || f != float64(int64(f)) {
			return nil, fmt.Errorf("must be an integer")
		}
		n := int(f)
		if pr.Minimum != nil && n < *pr.Minimum {
			return nil, fmt.Errorf("must be at least %d", *pr.Minimum)
		}
		if pr.Maximum != nil && n > *pr.Maximum {
			return nil, fmt.Errorf("must be at most %d", *pr.Maximum)
		}
		return n, nil
	case "boolean":
		var b bool
		if err := json.Unmarshal(raw, &b); err != nil {
			return nil, fmt.Errorf("must be true or false")
		}
		return b, nil
	}
	return nil, fmt.Errorf("has an unsupported type %q", pr.Type)
}

// ProjectTemplate is a project template a plugin contributes.
type ProjectTemplate struct {
	ID, Name, Description string
	Columns               []string
	Labels                [][2]string // name, #rrggbb
}

// ProjectTemplates are the templates of the card-templates plugin.
var ProjectTemplates = []ProjectTemplate{
	{ID: "bug-triage", Name: "Bug triage", Description: "Reported, triaged, fixing, verifying, closed.",
		Columns: []string{"Reported", "Triaged", "Fixing", "Verifying", "Closed"},
		Labels:  [][2]string{{"Critical", "#b60205"}, {"Regression", "#d93f0b"}, {"Needs info", "#fbca04"}}},
	{ID: "okr-quarter", Name: "Quarterly OKRs", Description: "Objectives and key results through a quarter.",
		Columns: []string{"Objectives", "Key results", "On track", "At risk", "Achieved"},
		Labels:  [][2]string{{"Company", "#5319e7"}, {"Team", "#1d76db"}}},
	{ID: "content-calendar", Name: "Content calendar", Description: "Ideas to published pieces.",
		Columns: []string{"Ideas", "Drafting", "Editing", "Scheduled", "Published"},
		Labels:  [][2]string{{"Blog", "#0e8a16"}, {"Newsletter", "#c5def5"}, {"Social", "#f9d0c4"}}},
}
