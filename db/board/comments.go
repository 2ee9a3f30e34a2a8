package board

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/internal/dbcore"
	"github.com/pilot-dev/pilot/db/internal/dbsqlc"
)

// MaxCommentLength is the longest comment, in characters.
const MaxCommentLength = 2000

// CommentExcerptLength is how much of a comment its comment_added activity carries.
const CommentExcerptLength = 140

// Comment is a comment with its author's name, whether its author is an agent's service user, and the
// person an agent wrote it for (OnBehalfOf, with their name now).
type Comment struct {
	dbsqlc.Comment
	AuthorName      string
	AuthorIsService bool
	OnBehalfOfName  string
}

// AuthorType is agent for a comment an agent wrote (through its service user), else person.
func (c Comment) AuthorType() db.ActorType {
	if c.AuthorIsService {
		return db.ActorAgent
	}
	return db.ActorPerson
}

// CreateComment adds a comment to a card of a project as actorID: it stores the comment, raises the
// card's comment count and records comment_added (with its notifications to the card's assignee and the
// project's members), in one transaction. The content is trimmed; blank or longer than
// MaxCommentLength characters is refused. People's requests and agents both call it.
func (b *Engine) CreateComment(ctx context.Context, e db.CardEdit, content string) (Comment, error) {
	var out Comment
	err := b.core.InTx(ctx, func(tx pgx.Tx, _ *dbsqlc.Queries) error {
		var err error
		out, err = b.CreateCommentTx(ctx, tx, e, content)
		return err
	})
	return out, err
}

// CreateCommentTx is CreateComment in the caller's transaction (agents' add_comment, say): the comment,
// the card's count and comment_added with its notifications.
func (b *Engine) CreateCommentTx(ctx context.Context, tx pgx.Tx, e db.CardEdit, content string) (Comment, error) {
	projectID, cardID, actorID := e.ProjectID, e.CardID, e.ActorID
	content = strings.TrimSpace(content)
	if content == "" {
		return Comment{}, dbcore.Invalid("content: must not be blank")
	}
	if utf8.RuneCountInString(content) > MaxCommentLength {
		return Comment{}, dbcore.Invalid(fmt.Sprintf("content: expected length <= %d", MaxCommentLength))
	}
	q := dbcore.Queries(tx)
	card, err := q.CardCommentCountAdd(ctx, dbsqlc.CardCommentCountAddParams{Delta: 1, ID: cardID, ProjectID: projectID})
	if dbcore.IsNotFound(err) {
		return Comment{}, dbcore.NotFound("card not found")
	}
	if err != nil {
		return Comment{}, fmt.Errorf("count comment: %w", err)
	}
	var onBehalfOf *string
	if a, ok := dbcore.ActingFrom(ctx); ok && a.OnBehalfOf != "" {
		onBehalfOf = &a.OnBehalfOf
	}
	c, err := q.CommentInsert(ctx, dbsqlc.CommentInsertParams{ID: db.NewID(), CardID: cardID, AuthorID: actorID,
		Content: content, OnBehalfOf: onBehalfOf})
	if err != nil {
		return Comment{}, fmt.Errorf("insert comment: %w", err)
	}
	row, err := q.CommentGet(ctx, dbsqlc.CommentGetParams{ID: c.ID, CardID: cardID})
	if err != nil {
		return Comment{}, fmt.Errorf("read comment: %w", err)
	}
	act := db.Activity{ProjectID: projectID, CardID: cardID, ActorID: actorID, Type: db.ActivityCommentAdded,
		Meta: map[string]any{"commentId": c.ID, "title": card.Title, "excerpt": Excerpt(content, CommentExcerptLength)}}
	if card.AssigneeID != nil {
		act.Recipients = []string{*card.AssigneeID}
	}
	if err := b.core.RecordActivities(ctx, tx, act); err != nil {
		return Comment{}, err
	}
	return Comment{Comment: row.Comment, AuthorName: row.AuthorName, AuthorIsService: row.AuthorIsService,
		OnBehalfOfName: row.OnBehalfOfName}, nil
}

// Comments is one page of the comments of a card of a project, oldest first.
func (b *Engine) Comments(ctx context.Context, projectID, cardID string, p db.Page) (db.Paged[Comment], error) {
	k, err := p.AfterTime("comments", false)
	if err != nil {
		return db.Paged[Comment]{}, err
	}
	if err := b.cardExists(ctx, b.q, projectID, cardID); err != nil {
		return db.Paged[Comment]{}, err
	}
	rows, err := b.q.CommentPageByCard(ctx, dbsqlc.CommentPageByCardParams{CardID: cardID, AfterAt: k.At, AfterID: k.ID,
		Lim: p.Fetch()})
	if err != nil {
		return db.Paged[Comment]{}, fmt.Errorf("list comments: %w", err)
	}
	out := make([]Comment, len(rows))
	for i, r := range rows {
		out[i] = Comment{Comment: r.Comment, AuthorName: r.AuthorName, AuthorIsService: r.AuthorIsService,
			OnBehalfOfName: r.OnBehalfOfName}
	}
	return db.PageOf(p, "comments", out, func(c Comment) any { return db.TimeKey{At: c.CreatedAt, ID: c.ID} }), nil
}

// DeleteComment deletes a comment of a card of a project and lowers the card's comment count, in one
// transaction. Only the comment's author may, or a workspace admin (asAdmin); anyone else is refused
// with ErrForbidden.
func (b *Engine) DeleteComment(ctx context.Context, e db.CardEdit, commentID string) error {
	projectID, cardID, actorID, asAdmin := e.ProjectID, e.CardID, e.ActorID, e.AsAdmin
	return b.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		if _, err := q.CardCommentCountAdd(ctx, dbsqlc.CardCommentCountAddParams{Delta: -1, ID: cardID,
			ProjectID: projectID}); err != nil {
			if dbcore.IsNotFound(err) {
				return dbcore.NotFound("card not found")
			}
			return fmt.Errorf("count comment: %w", err)
		}
		c, err := q.CommentGet(ctx, dbsqlc.CommentGetParams{ID: commentID, CardID: cardID})
		if dbcore.IsNotFound(err) {
			return dbcore.NotFound("comment not found")
		}
		if err != nil {
			return fmt.Errorf("get comment: %w", err)
		}
		if c.Comment.AuthorID != actorID && !asAdmin {
			return dbcore.Forbidden("only the comment's author or a workspace admin may delete it")
		}
		if _, err := q.CommentDelete(ctx, dbsqlc.CommentDeleteParams{ID: commentID, CardID: cardID}); err != nil {
			return fmt.Errorf("delete comment: %w", err)
		}
		return b.core.RecordQuietActivities(ctx, tx, db.Activity{ProjectID: projectID, CardID: cardID, ActorID: actorID,
			Type: db.ActivityCommentDeleted, Meta: map[string]any{"commentId": commentID}})
	})
}

// cardExists answers ErrNotFound unless the card belongs to the project.
func (b *Engine) cardExists(ctx context.Context, q *dbsqlc.Queries, projectID, cardID string) error {
	_, err := q.CardRowGet(ctx, dbsqlc.CardRowGetParams{ID: cardID, ProjectID: projectID})
	if dbcore.IsNotFound(err) {
		return dbcore.NotFound("card not found")
	}
	if err != nil {
		return fmt.Errorf("get card: %w", err)
	}
	return nil
}

// Excerpt is the first n characters of s.
func Excerpt(s string, n int) string {
	i := 0
	for j := range s {
		if i == n {
			return s[:j]
		}
		i++
	}
	return s
}
