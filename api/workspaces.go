package api

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/mission"
	"github.com/pilot-dev/pilot/db/tenancy"
	"github.com/pilot-dev/pilot/internal/auth"
)

// WorkspaceOut is a workspace with the caller's roles in it.
type WorkspaceOut struct {
	ID             string    `json:"id"`
	Name           string    `json:"name"`
	Slug           string    `json:"slug"`
	OrganizationID string    `json:"organizationId"`
	OwnerID        string    `json:"ownerId"`
	IsPersonal     bool      `json:"isPersonal"`
	MyRole         string    `json:"myRole" enum:"admin,member"`
	MyPilotageRole string    `json:"myPilotageRole" enum:"viewer,reviewer,owner"`
	CreatedAt      time.Time `json:"createdAt"`
	UpdatedAt      time.Time `json:"updatedAt"`
	// AgentSettings is answered by the workspace's read and update (not by lists or the create).
	AgentSettings *AgentSettingsOut `json:"agentSettings,omitempty" doc:"The workspace's settings for its agents; answered by workspaces-get and workspaces-update"`
}

// AgentSettingsOut are a workspace's settings for its agents.
type AgentSettingsOut struct {
	MaxTokensPerDay *int64 `json:"maxTokensPerDay" nullable:"true" doc:"The daily token budget (UTC days) of the workspace's agents: once their missions used it, new missions are refused (429) and running ones stop at their next model call; null: no budget"`
}

// AgentSettingsIn changes a workspace's settings for its agents.
type AgentSettingsIn struct {
	MaxTokensPerDay Nullable[int64] `json:"maxTokensPerDay" doc:"1 to 1000000000000 tokens a day, or null for no budget"`
}

// withAgentSettings adds the workspace's agent settings to its answer.
func (s tenancyOps) withAgentSettings(ctx context.Context, out WorkspaceOut) (*Output[WorkspaceOut], error) {
	set, err := s.missions.WorkspaceAgentSettings(ctx, out.ID)
	if err != nil {
		return nil, fail(err)
	}
	out.AgentSettings = &AgentSettingsOut{MaxTokensPerDay: set.MaxTokensPerDay}
	return &Output[WorkspaceOut]{Body: out}, nil
}

func workspaceOut(w db.Workspace, role, pilotageRole string) WorkspaceOut {
	return WorkspaceOut{ID: w.ID, Name: w.Name, Slug: w.Slug, OrganizationID: w.OrganizationID, OwnerID: w.OwnerID,
		IsPersonal: w.IsPersonal, MyRole: role, MyPilotageRole: pilotageRole, CreatedAt: w.CreatedAt, UpdatedAt: w.UpdatedAt}
}

// WorkspaceMemberOut is a member of a workspace.
type WorkspaceMemberOut struct {
	UserID       string                `json:"userId"`
	Email        string                `json:"email"`
	Name         string                `json:"name"`
	Role         tenancy.WorkspaceRole `json:"role"`
	PilotageRole tenancy.PilotageRole  `json:"pilotageRole"`
}

func workspaceMemberOut(m db.WorkspaceMember) WorkspaceMemberOut {
	return WorkspaceMemberOut{UserID: m.UserID, Email: m.Email, Name: m.Name, Role: tenancy.WorkspaceRole(m.Role),
		PilotageRole: tenancy.PilotageRole(m.PilotageRole)}
}

// InvitationOut is an invitation as its creator sees it, token included so it can be shared directly.
type InvitationOut struct {
	ID        string    `json:"id"`
	Email     string    `json:"email"`
	Role      string    `json:"role"`
	Token     string    `json:"token"`
	AcceptURL string    `json:"acceptUrl"`
	ExpiresAt time.Time `json:"expiresAt"`
}

// AcceptedInvitationOut says where an accepted invitation leads.
type AcceptedInvitationOut struct {
	OrganizationSlug string       `json:"organizationSlug"`
	Workspace        WorkspaceOut `json:"workspace"`
	Role             string       `json:"role"`
}

// WorkspacePath are the path parameters of every workspace-scoped route.
type WorkspacePath struct {
	OrgSlug string `path:"orgSlug" format:"slug"`
	WsSlug  string `path:"wsSlug" format:"slug"`
}

// pathWorkspace is the prefix of workspace-scoped routes.
const pathWorkspace = "/orgs/{orgSlug}/workspaces/{wsSlug}"

// registerWorkspaces registers workspaces, their members and invitations.
func (s tenancyOps) registerWorkspaces() {
	tags := []string{"Workspaces"}

	register(s.Server, huma.Operation{OperationID: "workspaces-create", Method: http.MethodPost,
		Path: "/orgs/{orgSlug}/workspaces", Summary: "Create a workspace", Tags: tags, DefaultStatus: http.StatusCreated,
		Errors: []int{http.StatusConflict}, Description: "Organization owners and admins. The creator becomes workspace " +
			"admin and pilotage owner."},
		Requires{Scope: auth.ScopeProjectsWrite, OrgRole: "admin"}, s.createWorkspace)

	register(s.Server, huma.Operation{OperationID: "workspaces-list", Method: http.MethodGet,
		Path: "/orgs/{orgSlug}/workspaces", Summary: "List the workspaces I may open", Tags: tags},
		Requires{Scope: auth.ScopeProjectsRead, OrgRole: "member"}, s.listWorkspaces)

	register(s.Server, huma.Operation{OperationID: "workspaces-get", Method: http.MethodGet, Path: pathWorkspace,
		Summary: "Get a workspace with my roles", Tags: tags},
		Requires{Scope: auth.ScopeProjectsRead, WSRole: "member"}, s.getWorkspace)

	register(s.Server, huma.Operation{OperationID: "workspaces-update", Method: http.MethodPatch, Path: pathWorkspace,
		Summary: "Rename a workspace, change its slug or its agent settings", Tags: tags, Errors: []int{http.StatusConflict},
		Description: "Workspace admins (organization owners and admins act as admins). Any subset of name, slug and " +
			"agentSettings (`maxTokensPerDay`: the agents' daily token budget, 1 to 10^12, or null for none); the " +
			"slug follows the rules of the create and must be free in the organization (409). A personal workspace " +
			"may be renamed but keeps its slug: changing it answers 403. The old slug's URLs stop answering at once."},
		Requires{Scope: auth.ScopeProjectsWrite, WSRole: "admin"}, s.updateWorkspace)

	register(s.Server, huma.Operation{OperationID: "workspaces-delete", Method: http.MethodDelete, Path: pathWorkspace,
		Summary: "Delete a workspace and everything in it", Tags: tags, Errors: []int{http.StatusConflict},
		Description: "Workspace admins (organization owners and admins act as admins). Deletes, in one transaction, the " +
			"workspace's projects (with their columns, cards, comments, attachments, checklists, relations, labels, custom " +
			"fields, scopes, automation rules, activity and notifications), its documents and their links, its agents and " +
			"skills with their missions (their service users lose the membership and stay, as when an agent is deleted), " +
			"its pipelines and their runs, its pilotage records, its drafts, its members and its invitations, with every " +
			"stream of those. The e-mails of its pending invitations and the jobs of its unsettled missions and running " +
			"runs are cancelled; the files of its attachments are removed from storage by the attachment sweep, enqueued " +
			"at once. A personal workspace cannot be deleted: 409."},
		Requires{Scope: auth.ScopeProjectsWrite, WSRole: "admin"}, s.deleteWorkspace)

	register(s.Server, huma.Operation{OperationID: "workspaces-members-list", Method: http.MethodGet,
		Path: pathWorkspace + "/members", Summary: "List workspace members", Tags: tags},
		Requires{Scope: auth.ScopeProjectsRead, WSRole: "member"}, s.listWorkspaceMembers)

	register(s.Server, huma.Operation{OperationID: "workspaces-invite", Method: http.MethodPost,
		Path: pathWorkspace + "/members/invite", Summary: "Invite someone by e-mail", Tags: tags,
		DefaultStatus: http.StatusCreated, Errors: []int{http.StatusConflict}, Description: "Workspace admins. The " +
			"invitation is bound to the e-mail, single-use and valid 7 days. The e-mail is sent by a background job; the " +
			"answer also carries the token and accept URL to share directly."},
		Requires{Scope: auth.ScopeProjectsWrite, WSRole: "admin"}, s.inviteToWorkspace)

	register(s.Server, huma.Operation{OperationID: "invitations-accept", Method: http.MethodPost,
		Path: "/invitations/{token}/accept", Summary: "Accept an invitation", Tags: tags, Errors: []int{http.StatusNotFound,
			http.StatusConflict}, Description: "Needs authentication as the invited e-mail, but no membership. Joins the " +
			"workspace (and its organization)."},
		Requires{Scope: auth.ScopeAccountWrite}, s.acceptInvitation)

	register(s.Server, huma.Operation{OperationID: "workspaces-members-update", Method: http.MethodPatch,
		Path: pathWorkspace + "/members/{userId}", Summary: "Change a member's role or pilotage role", Tags: tags,
		Description: "Workspace admins. The workspace owner's roles cannot be changed (403)."},
		Requires{Scope: auth.ScopeProjectsWrite, WSRole: "admin"}, s.updateWorkspaceMember)

	register(s.Server, huma.Operation{OperationID: "workspaces-members-remove", Method: http.MethodDelete,
		Path: pathWorkspace + "/members/{userId}", Summary: "Remove a member from the workspace", Tags: tags,
		Errors: []int{http.StatusConflict}, Description: "Workspace admins remove anyone but the workspace owner (403); a " +
			"member may remove themselves. An owner or admin of the organization acts as admin in every workspace of it, so " +
			"removing their membership would change nothing: 409 (change their organization role instead). Leaving means " +
			"leaving, in the same transaction: they leave every project of the workspace (a member_removed activity each), " +
			"the cards there assigned to them are unassigned (a card_assigned activity each, assigneeId null), the pipeline " +
			"runs they started there are cancelled (and the missions those runs wait for, just after), and their open event " +
			"and MCP streams end. From then on no notification of the workspace reaches them, not even of a change made " +
			"before the removal whose notification was not sent yet. They stay a member of the organization."},
		Requires{Scope: auth.ScopeProjectsWrite, WSRole: "member"}, s.removeWorkspaceMember)
}

// CreateWorkspaceInput is the request of workspaces-create.
type CreateWorkspaceInput struct {
	OrgPath
	Body CreateWorkspaceInputBody
}

// CreateWorkspaceInputBody is the body of a CreateWorkspaceInput request.
type CreateWorkspaceInputBody struct {
	Name string `json:"name" required:"true" minLength:"1" maxLength:"100"`
	Slug Slug   `json:"slug" required:"true"`
}

func (s tenancyOps) createWorkspace(ctx context.Context, in *CreateWorkspaceInput) (*Output[WorkspaceOut], error) {
	name, err := nonBlank("name", in.Body.Name)
	if err != nil {
		return nil, err
	}
	ws, err := s.tenancy.CreateWorkspace(ctx, accessFrom(ctx).OrgID, principalFrom(ctx).User.ID, name,
		string(in.Body.Slug))
	if err != nil {
		return nil, fail(err)
	}
	return &Output[WorkspaceOut]{Body: workspaceOut(ws, "admin", "owner")}, nil
}

func (s tenancyOps) listWorkspaces(ctx context.Context, _ *OrgPath) (*Output[[]WorkspaceOut], error) {
	a := accessFrom(ctx)
	return listOf(func(r db.AccessibleWorkspace) WorkspaceOut {
		role, prole := tenancy.EffectiveWorkspaceRoles(a.OrgRole, r.MemberRole, r.MemberPilotageRole)
		ws := db.Workspace{ID: r.ID, OrganizationID: r.OrganizationID, Name: r.Name, Slug: r.Slug, OwnerID: r.OwnerID,
			IsPersonal: r.IsPersonal, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt}
		return workspaceOut(ws, role, prole)
	})(s.tenancy.ListWorkspaces(ctx, a.OrgID, principalFrom(ctx).User.ID, a.OrgAdmin()))
}

func (s tenancyOps) getWorkspace(ctx context.Context, _ *WorkspacePath) (*Output[WorkspaceOut], error) {
	a := accessFrom(ctx)
	ws, err := s.tenancy.Workspace(ctx, a.WorkspaceID)
	if err != nil {
		return nil, fail(err)
	}
	return s.withAgentSettings(ctx, workspaceOut(ws, a.WorkspaceRole, a.WorkspacePilotageRole))
}

// UpdateWorkspaceInput is the request of workspaces-update.
type UpdateWorkspaceInput struct {
	WorkspacePath
	Body UpdateWorkspaceInputBody
}

// UpdateWorkspaceInputBody is the body of a UpdateWorkspaceInput request.
type UpdateWorkspaceInputBody struct {
	Name          *string          `json:"name,omitempty" minLength:"1" maxLength:"100"`
	Slug          *Slug            `json:"slug,omitempty"`
	AgentSettings *AgentSettingsIn `json:"agentSettings,omitempty" doc:"The workspace's settings for its agents"`
}

func (s tenancyOps) updateWorkspace(ctx context.Context, in *UpdateWorkspaceInput) (*Output[WorkspaceOut], error) {
	if in.Body.Name == nil && in.Body.Slug == nil && in.Body.AgentSettings == nil {
		return nil, errBadRequest("give name, slug and/or agentSettings")
	}
	if as := in.Body.AgentSettings; as != nil {
		n := as.MaxTokensPerDay
		if !n.Set {
			return nil, errBadRequest("agentSettings: give maxTokensPerDay (null for no budget)")
		}
		if !n.Null && (n.Value < 1 || n.Value > mission.MaxTokensPerDayLimit) { // checked before anything is written
			return nil, errBadRequest(fmt.Sprintf("agentSettings.maxTokensPerDay must be 1 to %d, or null for no budget",
				int64(mission.MaxTokensPerDayLimit)))
		}
	}
	name, err := nonBlankOpt("name", in.Body.Name)
	if err != nil {
		return nil, err
	}
	a := accessFrom(ctx)
	var ws db.Workspace
	if in.Body.Name != nil || in.Body.Slug != nil {
		p := tenancy.WorkspacePatch{Name: name}
		if in.Body.Slug != nil {
			slug := string(*in.Body.Slug)
			p.Slug = &slug
		}
		if ws, err = s.tenancy.UpdateWorkspace(ctx, a.WorkspaceID, p); err != nil {
			return nil, fail(err)
		}
	} else if ws, err = s.tenancy.Workspace(ctx, a.WorkspaceID); err != nil {
		return nil, fail(err)
	}
	if as := in.Body.AgentSettings; as != nil {
		var set mission.AgentSettings
		if !as.MaxTokensPerDay.Null {
			set.MaxTokensPerDay = &as.MaxTokensPerDay.Value
		}
		if _, err := s.missions.SetWorkspaceAgentSettings(ctx, a.WorkspaceID, set); err != nil {
			return nil, fail(err)
		}
	}
	return s.withAgentSettings(ctx, workspaceOut(ws, a.WorkspaceRole, a.WorkspacePilotageRole))
}

func (s tenancyOps) deleteWorkspace(ctx context.Context, _ *WorkspacePath) (*OKOutput, error) {
	return done(s.tenancy.DeleteWorkspace(ctx, accessFrom(ctx).WorkspaceID))
}

// ListWorkspaceMembersInput is the request of workspaces-members-list.
type ListWorkspaceMembersInput struct {
	WorkspacePath
	PageQuery
}

func (s tenancyOps) listWorkspaceMembers(ctx context.Context,
	in *ListWorkspaceMembersInput) (*PageOutput[WorkspaceMemberOut], error) {
	return workspaceMembers.listed(ctx, s.tenancy, in.page())
}

// InviteToWorkspaceInput is the request of workspaces-invite.
type InviteToWorkspaceInput struct {
	WorkspacePath
	Body InviteToWorkspaceInputBody
}

// InviteToWorkspaceInputBody is the body of a InviteToWorkspaceInput request.
type InviteToWorkspaceInputBody struct {
	Email string                `json:"email" required:"true" format:"email" maxLength:"254"`
	Role  tenancy.WorkspaceRole `json:"role,omitempty" default:"member"`
}

func (s tenancyOps) inviteToWorkspace(ctx context.Context, in *InviteToWorkspaceInput) (*Output[InvitationOut], error) {
	ws, err := s.tenancy.Workspace(ctx, accessFrom(ctx).WorkspaceID)
	if err != nil {
		return nil, fail(err)
	}
	l := s.newInvitationLink(ctx, "/invitations/")
	role := in.Body.Role
	if role == "" {
		role = "member"
	}
	inv, err := s.tenancy.InviteToWorkspace(ctx, tenancy.NewInvitation{WorkspaceID: ws.ID, WorkspaceName: ws.Name,
		Email: strings.TrimSpace(in.Body.Email), Role: string(role), InvitedBy: principalFrom(ctx).User.ID,
		InviterName: l.inviter, Token: l.token, AcceptURL: l.acceptURL})
	if err != nil {
		return nil, fail(err)
	}
	return l.out(inv.ID, inv.Email, inv.Role, inv.ExpiresAt), nil
}

// AcceptInvitationInput is the request of invitations-accept.
type AcceptInvitationInput struct {
	Token string `path:"token" maxLength:"200"`
}

func (s tenancyOps) acceptInvitation(ctx context.Context,
	in *AcceptInvitationInput) (*Output[AcceptedInvitationOut], error) {
	res, err := s.tenancy.AcceptInvitation(ctx, in.Token, principalFrom(ctx).User)
	if err != nil {
		return nil, fail(err)
	}
	// The roles the user now has, as the workspace read reports them: an existing member keeps theirs
	// and organization owners and admins act as workspace admins.
	role, prole := tenancy.EffectiveWorkspaceRoles(res.OrgRole, &res.Member.Role, &res.Member.PilotageRole)
	return &Output[AcceptedInvitationOut]{Body: AcceptedInvitationOut{OrganizationSlug: res.OrgSlug,
		Workspace: workspaceOut(res.Workspace, role, prole), Role: role}}, nil
}

// UpdateWorkspaceMemberInput is the request of workspaces-members-update.
type UpdateWorkspaceMemberInput struct {
	WorkspacePath
	UserID string `path:"userId" format:"uuid"`
	Body   struct {
		Role         *tenancy.WorkspaceRole `json:"role,omitempty"`
		PilotageRole *tenancy.PilotageRole  `json:"pilotageRole,omitempty"`
	}
}

func (s tenancyOps) updateWorkspaceMember(ctx context.Context,
	in *UpdateWorkspaceMemberInput) (*Output[WorkspaceMemberOut], error) {
	if in.Body.Role == nil && in.Body.PilotageRole == nil {
		return nil, errBadRequest("give role and/or pilotageRole")
	}
	return oneOf(workspaceMemberOut)(s.tenancy.UpdateWorkspaceMember(ctx, accessFrom(ctx).WorkspaceID, in.UserID,
		(*string)(in.Body.Role), (*string)(in.Body.PilotageRole)))
}

// WorkspaceMemberPath names a member of a workspace.
type WorkspaceMemberPath struct {
	WorkspacePath
	UserID string `path:"userId" format:"uuid"`
}

func (s tenancyOps) removeWorkspaceMember(ctx context.Context, in *WorkspaceMemberPath) (*OKOutput, error) {
	return workspaceMembers.removed(ctx, s.tenancy, in.UserID)
}
