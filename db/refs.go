package db

import "encoding/json"

// The parameters of methods that name several records: a struct per shape, so that two ids given in
// the wrong order do not compile into a call that reads or writes the wrong record.

// CardRef names a card of a project.
type CardRef struct{ ProjectID, CardID string }

// CardEdit names a card and the person who changes one of its parts (a comment, an attachment, a
// label, a checklist item, its custom values). AsAdmin lets a workspace admin delete a comment or an
// attachment someone else wrote.
type CardEdit struct {
	ProjectID, CardID, ActorID string
	AsAdmin                    bool
}

// Ref is the card the edit is on.
func (e CardEdit) Ref() CardRef { return CardRef{ProjectID: e.ProjectID, CardID: e.CardID} }

// RecordEdit names one record of a workspace (a mission, a pilotage record, a document, a draft, a
// pipeline) and the person who acts on it.
type RecordEdit struct{ WorkspaceID, ID, ActorID string }

// ProjectMemberAdd adds the user with Email to a project, as ActorID.
type ProjectMemberAdd struct{ WorkspaceID, ProjectID, ActorID, Email string }

// ProjectMemberRemoval removes UserID from a project, as ActorID.
type ProjectMemberRemoval struct{ ProjectID, ActorID, UserID string }

// PluginInstall installs a plugin in a workspace, as ActorID, with its settings.
type PluginInstall struct {
	WorkspaceID, PluginID, ActorID string
	Settings                       json.RawMessage
}
