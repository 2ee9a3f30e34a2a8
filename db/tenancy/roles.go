package tenancy

import "slices"

// OrgRole is a person's role in an organization.
type OrgRole string

// The organization roles: the owner (one person: everything, billing, deletion), admins (members,
// workspaces, settings) and members (the workspaces they belong to).
const (
	OrgOwner  OrgRole = "owner"
	OrgAdmin  OrgRole = "admin"
	OrgMember OrgRole = "member"
)

// OrgRoles lists every organization role, highest first.
var OrgRoles = []OrgRole{OrgOwner, OrgAdmin, OrgMember}

// Values lists the valid organization roles (the OpenAPI document's enum).
func (OrgRole) Values() []OrgRole { return OrgRoles }

// Valid says whether r is one of OrgRoles.
func (r OrgRole) Valid() bool { return slices.Contains(OrgRoles, r) }

// AtLeast says whether r ranks at least as high as least (an unknown role ranks below every role).
func (r OrgRole) AtLeast(least OrgRole) bool {
	return r.Valid() && slices.Index(OrgRoles, r) <= slices.Index(OrgRoles, least) // highest first
}

// OrganizationInvitationRoles are the roles an organization invitation can give (the owner is one
// person, never invited).
var OrganizationInvitationRoles = []OrgRole{OrgMember, OrgAdmin}

// WorkspaceRole is a member's role in a workspace.
type WorkspaceRole string

// The workspace roles: admins (members, invitations, agents, pipelines, automations) and members
// (projects, cards, documents, drafts, missions).
const (
	WorkspaceMember WorkspaceRole = "member"
	WorkspaceAdmin  WorkspaceRole = "admin"
)

// WorkspaceRoles lists every workspace role, highest first.
var WorkspaceRoles = []WorkspaceRole{WorkspaceAdmin, WorkspaceMember}

// Values lists the valid workspace roles (the OpenAPI document's enum).
func (WorkspaceRole) Values() []WorkspaceRole { return WorkspaceRoles }

// Valid says whether r is one of WorkspaceRoles.
func (r WorkspaceRole) Valid() bool { return slices.Contains(WorkspaceRoles, r) }

// AtLeast says whether r ranks at least as high as least (an unknown role ranks below every role).
func (r WorkspaceRole) AtLeast(least WorkspaceRole) bool {
	return r.Valid() && slices.Index(WorkspaceRoles, r) <= slices.Index(WorkspaceRoles, least) // highest first
}

// PilotageRole is a member's role in the workspace's cockpit.
type PilotageRole string

// The pilotage roles: viewers read, reviewers also review proposed actions and documents, owners also
// create and change cockpit records and apply actions.
const (
	PilotageViewer   PilotageRole = "viewer"
	PilotageReviewer PilotageRole = "reviewer"
	PilotageOwner    PilotageRole = "owner"
)

// PilotageRoles lists every pilotage role, least first.
var PilotageRoles = []PilotageRole{PilotageViewer, PilotageReviewer, PilotageOwner}

// Values lists the valid pilotage roles (the OpenAPI document's enum).
func (PilotageRole) Values() []PilotageRole { return PilotageRoles }

// Valid says whether r is one of PilotageRoles.
func (r PilotageRole) Valid() bool { return slices.Contains(PilotageRoles, r) }

// AtLeast says whether r ranks at least as high as least (an unknown role ranks below every role).
func (r PilotageRole) AtLeast(least PilotageRole) bool {
	return r.Valid() && slices.Index(PilotageRoles, r) >= slices.Index(PilotageRoles, least) // least first
}
