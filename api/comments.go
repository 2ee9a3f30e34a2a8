package api

import (
	"context"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/board"
)

// CommentOut is a comment on a card.
type CommentOut struct {
	ID         string    `json:"id"`
	CardID     string    `json:"cardId"`
	AuthorID   string    `json:"authorId"`
	AuthorName string    `json:"authorName"`
	Content    string    `json:"content"`
	CreatedAt  time.Time `json:"createdAt"`
	// AuthorType tells an agent's comment (its author is the agent's service user) from a person's.
	AuthorType db.ActorType  `json:"authorType" enum:"person,agent" doc:"agent when an agent wrote it, else person"`
	OnBehalfOf *db.PersonRef `json:"onBehalfOf" doc:"The person an agent wrote it for (who started the mission or approved the comment); null for a person's comment"`
}

func commentOut(c board.Comment) CommentOut {
	out := CommentOut{ID: c.ID, CardID: c.CardID, AuthorID: c.AuthorID, AuthorName: c.AuthorName, Content: c.Content,
		CreatedAt: c.CreatedAt, AuthorType: c.AuthorType()}
	if c.OnBehalfOf != nil {
		out.OnBehalfOf = &db.PersonRef{ID: *c.OnBehalfOf, Name: c.OnBehalfOfName}
	}
	return out
}

// CommentPath are the path parameters of one comment.
type CommentPath struct {
	CardPath
	CommentID string `path:"commentId" format:"uuid"`
}

// registerComments registers a card's comments.
func (s boardOps) registerComments() {
	tags := []string{"Comments"}

	register(s.Server, huma.Operation{OperationID: "comments-list", Method: http.MethodGet, Path: pathCard + "/comments",
		Summary: "List a card's comments", Tags: tags, Description: "Oldest first."},
		projectRead, s.listComments)

	register(s.Server, huma.Operation{OperationID: "comments-create", Method: http.MethodPost,
		Path: pathCard + "/comments", Summary: "Comment on a card", Tags: tags, DefaultStatus: http.StatusCreated,
		Description: "The content is trimmed and must not be blank. Records a `comment_added` activity, which notifies the " +
			"card's assignee and the project's members."},
		cardWrite, s.createComment)

	register(s.Server, huma.Operation{OperationID: "comments-delete", Method: http.MethodDelete,
		Path: pathCard + "/comments/{commentId}", Summary: "Delete a comment", Tags: tags, Description: "Only the " +
			"comment's author or a workspace admin may."},
		cardWrite, s.deleteComment)
}

// ListCommentsInput is the request of comments-list.
type ListCommentsInput struct {
	CardPath
	PageQuery
}

func (s boardOps) listComments(ctx context.Context, in *ListCommentsInput) (*PageOutput[CommentOut], error) {
	return pageOf(ctx, commentOut)(s.board.Comments(ctx, accessFrom(ctx).ProjectID, in.CardID, in.page()))
}

// CreateCommentInput is the request of comments-create.
type CreateCommentInput struct {
	CardPath
	Body CreateCommentInputBody
}

// CreateCommentInputBody is the body of a CreateCommentInput request.
type CreateCommentInputBody struct {
	Content string `json:"content" required:"true" minLength:"1" maxLength:"2000"`
}

func (s boardOps) createComment(ctx context.Context, in *CreateCommentInput) (*Output[CommentOut], error) {
	return oneOf(commentOut)(s.board.CreateComment(ctx, cardEdit(ctx, in.CardID), in.Body.Content))
}

func (s boardOps) deleteComment(ctx context.Context, in *CommentPath) (*OKOutput, error) {
	a := accessFrom(ctx)
	return done(s.board.DeleteComment(ctx, db.CardEdit{ProjectID: a.ProjectID, CardID: in.CardID,
		ActorID: principalFrom(ctx).User.ID, AsAdmin: a.WorkspaceRole == "admin"}, in.CommentID))
}
