package api

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"
)

// registerMyCards registers the caller's cards across the workspace (the web app's "My work").
func (s boardOps) registerMyCards() {
	register(s.Server, huma.Operation{OperationID: "cards-assigned-to-me", Method: http.MethodGet,
		Path: pathWorkspace + "/my-cards", Summary: "List the cards assigned to me in the workspace", Tags: []string{"Cards"},
		Description: "The active (not archived) cards of every project of the workspace not archived whose assignee is " +
			"the caller, oldest first, in one read instead of one per project. Paged (`limit`, `cursor`; the next page is " +
			"named by the `Link` header)."},
		projectRead, s.listMyCards)
}

// ListMyCardsInput is the request of cards-assigned-to-me.
type ListMyCardsInput struct {
	WorkspacePath
	PageQuery
}

func (s boardOps) listMyCards(ctx context.Context, in *ListMyCardsInput) (*PageOutput[CardOut], error) {
	return pageOf(ctx, cardOut)(s.board.AssignedCards(ctx, accessFrom(ctx).WorkspaceID, principalFrom(ctx).User.ID,
		in.page()))
}
