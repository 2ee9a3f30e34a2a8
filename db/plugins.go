package db

// This file holds a workspace's plugin installations: install with settings validated against the
// plugin's schema, list, change settings, uninstall. What a plugin adds is looked up here too, so an
// uninstalled plugin's step types and templates disappear from the workspace at once.

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"

	"github.com/pilot-dev/pilot/db/internal/dbsqlc"
	"github.com/pilot-dev/pilot/internal/plugin"
	"github.com/pilot-dev/pilot/internal/stepgraph"
)

// catalogPlugin finds a plugin of the catalog, or "plugin not found".
func catalogPlugin(pluginID string) (plugin.Plugin, error) {
	p, ok := plugin.ByID(pluginID)
	if !ok {
		return p, notFound(fmt.Sprintf("plugin %q not found; see GET /plugins", pluginID))
	}
	return p, nil
}

// InstallPlugin installs a plugin of the catalog in a workspace with its settings (validated against
// the plugin's schema, defaults filled in). Installing it twice is a conflict.
func (s *Store) InstallPlugin(ctx context.Context, in PluginInstall) (WorkspacePlugin, error) {
	workspaceID, pluginID, actorID, settings := in.WorkspaceID, in.PluginID, in.ActorID, in.Settings
	p, err := catalogPlugin(pluginID)
	if err != nil {
		return WorkspacePlugin{}, err
	}
	norm, err := p.ValidateSettings(settings)
	if err != nil {
		return WorkspacePlugin{}, invalid(err.Error())
	}
	var out WorkspacePlugin
	err = s.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		row, err := q.WorkspacePluginInsert(ctx, dbsqlc.WorkspacePluginInsertParams{WorkspaceID: workspaceID,
			PluginID: p.ID, Settings: norm, InstalledBy: actorID})
		if isNotFound(err) {
			return conflict(fmt.Sprintf("plugin %s is already installed in this workspace", p.ID))
		}
		if err != nil {
			return wrap(err, "install plugin")
		}
		out = WorkspacePlugin(row)
		return s.audit.RecordTx(ctx, tx, AuditEntry{Kind: AuditPluginInstalled, WorkspaceID: workspaceID, ActorID: actorID,
			Target: AuditTarget{Type: "plugin", ID: p.ID, Name: p.Name}, Changes: pluginSettingNames(norm)})
	})
	return out, err
}

// pluginSettingNames are the names of the settings a plugin was given, as the audit log shows them: a
// setting may be a secret (an API key), so its value is never recorded.
func pluginSettingNames(settings json.RawMessage) map[string]any {
	var m map[string]json.RawMessage
	_ = json.Unmarshal(settings, &m) // settings were validated as an object
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	slices.Sort(names)
	return map[string]any{"settings": names}
}

// WorkspacePlugins lists the plugins installed in a workspace.
func (s *Store) WorkspacePlugins(ctx context.Context, workspaceID string) ([]WorkspacePlugin, error) {
	rows, err := s.q.WorkspacePluginList(ctx, workspaceID)
	return mapRows(rows, func(r dbsqlc.WorkspacePlugin) WorkspacePlugin { return WorkspacePlugin(r) }), wrap(err,
		"list plugins")
}

// UpdatePluginSettings replaces an installed plugin's settings.
func (s *Store) UpdatePluginSettings(ctx context.Context, workspaceID, pluginID string,
	settings json.RawMessage) (WorkspacePlugin, error) {
	p, err := catalogPlugin(pluginID)
	if err != nil {
		return WorkspacePlugin{}, err
	}
	norm, err := p.ValidateSettings(settings)
	if err != nil {
		return WorkspacePlugin{}, invalid(err.Error())
	}
	var out WorkspacePlugin
	err = s.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		r, err := orNotFound(q.WorkspacePluginUpdate(ctx, dbsqlc.WorkspacePluginUpdateParams{WorkspaceID: workspaceID,
			PluginID: p.ID, Settings: norm}))("plugin "+p.ID+" is not installed in this workspace", "update plugin")
		if err != nil {
			return err
		}
		out = WorkspacePlugin(r)
		return s.audit.RecordTx(ctx, tx, AuditEntry{Kind: AuditPluginSettingsChange, WorkspaceID: workspaceID,
			Target: AuditTarget{Type: "plugin", ID: p.ID, Name: p.Name}, Changes: pluginSettingNames(norm)})
	})
	return out, err
}

// UninstallPlugin removes a plugin from a workspace: its step types are refused in new pipelines and
// fail in runs, its templates are no longer offered.
func (s *Store) UninstallPlugin(ctx context.Context, workspaceID, pluginID string) error {
	p, err := catalogPlugin(pluginID)
	if err != nil {
		return err
	}
	return s.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		n, err := q.WorkspacePluginDelete(ctx, dbsqlc.WorkspacePluginDeleteParams{WorkspaceID: workspaceID,
			PluginID: p.ID})
		if err != nil {
			return fmt.Errorf("uninstall plugin: %w", err)
		}
		if n == 0 {
			return notFound("plugin " + p.ID + " is not installed in this workspace")
		}
		return s.audit.RecordTx(ctx, tx, AuditEntry{Kind: AuditPluginUninstalled, WorkspaceID: workspaceID,
			Target: AuditTarget{Type: "plugin", ID: p.ID, Name: p.Name}})
	})
}

// InstalledPlugins answers the ids of a workspace's plugins, with their settings.
func InstalledPlugins(ctx context.Context, q *dbsqlc.Queries, workspaceID string) (map[string]json.RawMessage, error) {
	rows, err := q.WorkspacePluginList(ctx, workspaceID)
	if err != nil {
		return nil, fmt.Errorf("list plugins: %w", err)
	}
	out := make(map[string]json.RawMessage, len(rows))
	for _, r := range rows {
		out[r.PluginID] = r.Settings
	}
	return out, nil
}

// StepTypeAllowed refuses a plugin's step type in a workspace without the plugin.
func StepTypeAllowed(installed map[string]json.RawMessage) func(string) error {
	return func(stepType string) error {
		p, ok := plugin.ForStepType(stepType)
		if !ok {
			return nil
		}
		if _, ok := installed[p.ID]; !ok {
			return fmt.Errorf("type %s comes from plugin %s, which is not installed in this workspace", stepType, p.ID)
		}
		return nil
	}
}

// StepTypes lists the step types a workspace's pipelines may use: the built-in ones and those of its
// installed plugins.
func (s *Store) StepTypes(ctx context.Context, workspaceID string) ([]stepgraph.TypeInfo, error) {
	installed, err := InstalledPlugins(ctx, s.q, workspaceID)
	if err != nil {
		return nil, err
	}
	allowed := StepTypeAllowed(installed)
	var out []stepgraph.TypeInfo
	for _, t := range stepgraph.Types {
		if allowed(t.Type) == nil {
			out = append(out, t)
		}
	}
	return out, nil
}
