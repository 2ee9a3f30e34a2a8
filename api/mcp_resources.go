package api

// MCP resources: records readable by URI under the same access rules as the tools (and REST). Adding a
// kind of record is one template and one reader in registerMCPResources.

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"regexp"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// cardURITemplate names a card as an MCP resource.
const cardURITemplate = "pilot://orgs/{org}/workspaces/{workspace}/projects/{projectId}/cards/{cardId}"

var cardURI = regexp.MustCompile(`^pilot://orgs/([^/]+)/workspaces/([^/]+)/projects/([^/]+)/cards/([^/]+)$`)

// documentURITemplate names a document as an MCP resource.
const documentURITemplate = "pilot://orgs/{org}/workspaces/{workspace}/documents/{documentId}"

var documentURI = regexp.MustCompile(`^pilot://orgs/([^/]+)/workspaces/([^/]+)/documents/([^/]+)$`)

// cardResourceURI is the resource URI of a card.
func cardResourceURI(org, ws, projectID, cardID string) string {
	return "pilot://orgs/" + org + "/workspaces/" + ws + "/projects/" + projectID + "/cards/" + cardID
}

// documentResourceURI is the resource URI of a document.
func documentResourceURI(org, ws, documentID string) string {
	return "pilot://orgs/" + org + "/workspaces/" + ws + "/documents/" + documentID
}

// registerMCPResources registers the resource templates.
func (s *Server) registerMCPResources() {
	s.mcp.srv.AddResourceTemplate(&mcp.ResourceTemplate{Name: "card", Title: "A card", URITemplate: cardURITemplate,
		MIMEType: "application/json", Description: "A card as get_card answers it. Personal access tokens need the " +
			"`projects:read` scope."},
		func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			uri := req.Params.URI
			m := cardURI.FindStringSubmatch(uri)
			if m == nil {
				return nil, mcp.ResourceNotFoundError(uri)
			}
			in := &CardArgs{ProjectArgs: ProjectArgs{WorkspaceArgs: WorkspaceArgs{Org: m[1], Workspace: m[2]}, ProjectID: m[3]},
				CardID: m[4]}
			return s.readResource(ctx, uri, req.Extra, projectRead, in, func(ctx context.Context) (any,
				error) {
				return s.mcpGetCard(ctx, in)
			})
		})
	s.mcp.srv.AddResourceTemplate(&mcp.ResourceTemplate{Name: "document", Title: "A document",
		URITemplate: documentURITemplate, MIMEType: "application/json", Description: "A document with its content and " +
			"reviews, as get_document answers it. Personal access tokens need the `projects:read` scope."},
		func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			uri := req.Params.URI
			m := documentURI.FindStringSubmatch(uri)
			if m == nil {
				return nil, mcp.ResourceNotFoundError(uri)
			}
			in := &DocumentArgs{WorkspaceArgs: WorkspaceArgs{Org: m[1], Workspace: m[2]}, DocumentID: m[3]}
			return s.readResource(ctx, uri, req.Extra, docRead, in, func(ctx context.Context) (any,
				error) {
				return s.mcpGetDocument(ctx, in)
			})
		})
}

// readResource reads one resource under a, the access of the tool that reads it (projectRead, docRead), as JSON.
// Outside the caller's tenancy, or a malformed id, is "resource not found"; a refused scope or role is
// an invalid-params error naming it.
func (s *Server) readResource(ctx context.Context, uri string, extra *mcp.RequestExtra, a Requires, in any,
	read func(context.Context) (any, error)) (*mcp.ReadResourceResult, error) {
	ctx, err := s.toolAccess(ctx, &mcp.CallToolRequest{Extra: extra}, a, in)
	var v any
	if err == nil {
		v, err = read(ctx)
	}
	if err != nil {
		var eb *ErrorBody
		switch {
		case !errors.As(fail(err), &eb) || (eb.StatusCode >= 500 && eb.StatusCode != http.StatusServiceUnavailable):
			s.logger.ErrorContext(ctx, "mcp resource read failed", "uri", uri, "error", err)
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "internal error"}
		case eb.StatusCode == http.StatusServiceUnavailable: // the database out of reach: worth retrying
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: s.toolError(ctx, "resource", err).Error()}
		case eb.StatusCode == http.StatusNotFound || eb.StatusCode == http.StatusBadRequest:
			return nil, mcp.ResourceNotFoundError(uri)
		default:
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: s.toolError(ctx, "resource", err).Error()}
		}
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "application/json",
		Text: string(b)}}}, nil
}
