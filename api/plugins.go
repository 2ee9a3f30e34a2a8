package api

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/internal/auth"
	"github.com/pilot-dev/pilot/internal/plugin"
)

// InstalledPluginOut is a plugin installed in a workspace.
type InstalledPluginOut struct {
	PluginID     string              `json:"pluginId"`
	Name         string              `json:"name"`
	Version      string              `json:"version"`
	Capabilities plugin.Capabilities `json:"capabilities"`
	Settings     json.RawMessage     `json:"settings" doc:"The settings, with the schema's defaults filled in"`
	InstalledBy  string              `json:"installedBy"`
	InstalledAt  time.Time           `json:"installedAt"`
	UpdatedAt    time.Time           `json:"updatedAt"`
}

func installedPluginOut(w db.WorkspacePlugin) InstalledPluginOut {
	p, _ := plugin.ByID(w.PluginID)
	return InstalledPluginOut{PluginID: w.PluginID, Name: p.Name, Version: p.Version, Capabilities: p.Capabilities,
		Settings: w.Settings, InstalledBy: w.InstalledBy, InstalledAt: w.InstalledAt, UpdatedAt: w.UpdatedAt}
}

// PluginPath names a plugin of the catalog in a workspace.
type PluginPath struct {
	WorkspacePath
	PluginID string `path:"pluginId" doc:"A plugin id of GET /plugins"`
}

// PluginSettingsInput carries a plugin's settings.
type PluginSettingsInput struct {
	PluginPath
	Body *struct {
		Settings json.RawMessage `json:"settings,omitempty" doc:"An object fitting the plugin's settings schema (GET /plugins)"`
	}
}

// settings are the request's settings (none without a body).
func (in *PluginSettingsInput) settings() json.RawMessage {
	if in.Body == nil {
		return nil
	}
	return in.Body.Settings
}

// registerPlugins registers the public catalog and workspace installations.
func (s workflowOps) registerPlugins() {
	tags := []string{"Plugins"}
	read := Requires{Scope: auth.ScopeProjectsRead, WSRole: "member"}
	admin := Requires{Scope: auth.ScopeProjectsWrite, WSRole: "admin", KeepsTenancy: true}
	base := pathWorkspace + "/plugins"

	register(s.Server, huma.Operation{OperationID: "plugins-catalog", Method: http.MethodGet, Path: "/plugins",
		Summary: "The plugin catalog", Tags: tags,
		Description: "Every plugin the service ships: what it adds to a workspace that installs it (capabilities) and the " +
			"JSON schema of its settings. No credentials needed."},
		Requires{Public: true}, s.listPluginCatalog)

	register(s.Server, huma.Operation{OperationID: "plugins-installed", Method: http.MethodGet, Path: base,
		Summary: "List the plugins installed in the workspace", Tags: tags},
		read, s.listInstalledPlugins)

	register(s.Server, huma.Operation{OperationID: "plugins-install", Method: http.MethodPost,
		Path: base + "/{pluginId}/install", Summary: "Install a plugin in the workspace", Tags: tags,
		DefaultStatus: http.StatusCreated, Errors: []int{http.StatusConflict}, Description: "Settings are validated " +
			"against the plugin's schema (400 naming the setting). Installing twice answers 409."},
		admin, s.installPlugin)

	register(s.Server, huma.Operation{OperationID: "plugins-update", Method: http.MethodPatch, Path: base + "/{pluginId}",
		Summary: "Replace an installed plugin's settings", Tags: tags},
		admin, s.updatePlugin)

	register(s.Server, huma.Operation{OperationID: "plugins-uninstall", Method: http.MethodDelete,
		Path: base + "/{pluginId}", Summary: "Uninstall a plugin", Tags: tags,
		Description: "Its capabilities disappear from the workspace: its step types are refused in pipelines, its " +
			"templates no longer offered."},
		admin, s.uninstallPlugin)
}

func (s workflowOps) listPluginCatalog(context.Context, *struct{}) (*Output[[]plugin.Plugin], error) {
	return &Output[[]plugin.Plugin]{Body: plugin.Catalog()}, nil
}

func (s workflowOps) listInstalledPlugins(ctx context.Context,
	_ *WorkspacePath) (*Output[[]InstalledPluginOut], error) {
	return listOf(installedPluginOut)(s.store.WorkspacePlugins(ctx, accessFrom(ctx).WorkspaceID))
}

func (s workflowOps) installPlugin(ctx context.Context, in *PluginSettingsInput) (*Output[InstalledPluginOut], error) {
	return oneOf(installedPluginOut)(s.store.InstallPlugin(ctx, db.PluginInstall{WorkspaceID: accessFrom(ctx).WorkspaceID,
		PluginID: in.PluginID, ActorID: principalFrom(ctx).User.ID, Settings: in.settings()}))
}

func (s workflowOps) updatePlugin(ctx context.Context, in *PluginSettingsInput) (*Output[InstalledPluginOut], error) {
	return oneOf(installedPluginOut)(s.store.UpdatePluginSettings(ctx, accessFrom(ctx).WorkspaceID, in.PluginID,
		in.settings()))
}

func (s workflowOps) uninstallPlugin(ctx context.Context, in *PluginPath) (*OKOutput, error) {
	return done(s.store.UninstallPlugin(ctx, accessFrom(ctx).WorkspaceID, in.PluginID))
}
