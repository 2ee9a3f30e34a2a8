package board

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/internal/dbcore"
	"github.com/pilot-dev/pilot/db/internal/dbsqlc"
)

// MaxAttachmentSize is the largest attachment, in bytes (10 MB).
const MaxAttachmentSize int64 = 10 * 1024 * 1024

// NewAttachment is an attachment whose file is already stored under StorageKey.
type NewAttachment struct {
	ID, ProjectID, CardID, ActorID string
	OriginalName, MimeType         string
	Size                           int64
	StorageKey                     string
	// Imported records no activity: the attachment comes with a card an import creates, whose creation
	// the import records (its assignee is not told of each file).
	Imported bool
}

// CheckCard answers ErrNotFound unless the card belongs to the project.
func (b *Engine) CheckCard(ctx context.Context, projectID, cardID string) error {
	return b.cardExists(ctx, b.q, projectID, cardID)
}

// CreateAttachment records a stored file as an attachment of a card of a project: it inserts the row,
// raises the card's attachment count and records card_updated (fields ["attachments"]), in one
// transaction. The caller stores the file first and deletes it again when this fails.
func (b *Engine) CreateAttachment(ctx context.Context, in NewAttachment) (db.Attachment, error) {
	var out db.Attachment
	err := b.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		var err error
		out, err = b.CreateAttachmentTx(ctx, tx, q, in)
		return err
	})
	return out, err
}

// CreateAttachmentTx is CreateAttachment in the caller's transaction (an import stores a card's files
// with the project it creates, all or nothing).
func (b *Engine) CreateAttachmentTx(ctx context.Context, tx pgx.Tx, q *dbsqlc.Queries,
	in NewAttachment) (db.Attachment, error) {
	if in.Size < 0 || in.Size > MaxAttachmentSize {
		return db.Attachment{}, dbcore.Invalid(fmt.Sprintf("an attachment is at most %d bytes", MaxAttachmentSize))
	}
	if in.ID == "" {
		in.ID = db.NewID()
	}
	card, err := q.CardAttachmentCountAdd(ctx, dbsqlc.CardAttachmentCountAddParams{Delta: 1, ID: in.CardID,
		ProjectID: in.ProjectID})
	if dbcore.IsNotFound(err) {
		return db.Attachment{}, dbcore.NotFound("card not found")
	}
	if err != nil {
		return db.Attachment{}, fmt.Errorf("count attachment: %w", err)
	}
	row, err := q.AttachmentInsert(ctx, dbsqlc.AttachmentInsertParams{ID: in.ID, CardID: in.CardID,
		UploadedBy: in.ActorID, OriginalName: in.OriginalName, MimeType: in.MimeType, Size: in.Size,
		StorageKey: in.StorageKey})
	if err != nil {
		return db.Attachment{}, dbcore.Wrap(err, "insert attachment")
	}
	if in.Imported {
		return db.Attachment(row), nil
	}
	return db.Attachment(row), b.core.RecordActivities(ctx, tx, attachmentActivity(in.ProjectID, in.CardID,
		in.ActorID, card.Title, card.AssigneeID))
}

// Attachments lists the attachments of a card of a project, oldest first.
func (b *Engine) Attachments(ctx context.Context, projectID, cardID string) ([]db.Attachment, error) {
	if err := b.cardExists(ctx, b.q, projectID, cardID); err != nil {
		return nil, err
	}
	rows, err := b.q.AttachmentListByCard(ctx, cardID)
	if err != nil {
		return nil, fmt.Errorf("list attachments: %w", err)
	}
	return dbcore.MapRows(rows, func(r dbsqlc.Attachment) db.Attachment { return db.Attachment(r) }), nil
}

// Attachment reads one attachment of a card of a project.
func (b *Engine) Attachment(ctx context.Context, card db.CardRef, attachmentID string) (db.Attachment, error) {
	projectID, cardID := card.ProjectID, card.CardID
	a, err := b.q.AttachmentGet(ctx, dbsqlc.AttachmentGetParams{ID: attachmentID, CardID: cardID, ProjectID: projectID})
	if dbcore.IsNotFound(err) {
		return db.Attachment(a), dbcore.NotFound("attachment not found")
	}
	if err != nil {
		return db.Attachment(a), fmt.Errorf("get attachment: %w", err)
	}
	return db.Attachment(a), nil
}

// DeleteAttachment deletes an attachment's row, lowers the card's attachment count and records
// card_updated (fields ["attachments"]), in one transaction, and returns the deleted row so the caller
// can delete the stored file once this has committed. Only the uploader may, or a workspace admin
// (asAdmin); anyone else is refused with ErrForbidden.
func (b *Engine) DeleteAttachment(ctx context.Context, e db.CardEdit, attachmentID string) (db.Attachment, error) {
	projectID, cardID, actorID, asAdmin := e.ProjectID, e.CardID, e.ActorID, e.AsAdmin
	var out db.Attachment
	err := b.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		card, err := q.CardAttachmentCountAdd(ctx, dbsqlc.CardAttachmentCountAddParams{Delta: -1, ID: cardID,
			ProjectID: projectID})
		if dbcore.IsNotFound(err) {
			return dbcore.NotFound("card not found")
		}
		if err != nil {
			return fmt.Errorf("count attachment: %w", err)
		}
		a, err := q.AttachmentGet(ctx, dbsqlc.AttachmentGetParams{ID: attachmentID, CardID: cardID, ProjectID: projectID})
		if dbcore.IsNotFound(err) {
			return dbcore.NotFound("attachment not found")
		}
		if err != nil {
			return fmt.Errorf("get attachment: %w", err)
		}
		if a.UploadedBy != actorID && !asAdmin {
			return dbcore.Forbidden("only the attachment's uploader or a workspace admin may delete it")
		}
		deleted, err := q.AttachmentDelete(ctx, dbsqlc.AttachmentDeleteParams{ID: attachmentID, CardID: cardID})
		if err != nil {
			return fmt.Errorf("delete attachment: %w", err)
		}
		out = db.Attachment(deleted)
		return b.core.RecordActivities(ctx, tx, attachmentActivity(projectID, cardID, actorID, card.Title, card.AssigneeID))
	})
	return out, err
}

func attachmentActivity(projectID, cardID, actorID, title string, assigneeID *string) db.Activity {
	act := db.Activity{ProjectID: projectID, CardID: cardID, ActorID: actorID, Type: db.ActivityCardUpdated,
		Meta: map[string]any{"fields": []string{"attachments"}, "title": title}}
	if assigneeID != nil {
		act.Recipients = []string{*assigneeID}
	}
	return act
}

// OrphanedAttachmentFiles lists, oldest first, at most limit storage keys of deleted attachments whose
// files the sweep has not removed yet.
func (b *Engine) OrphanedAttachmentFiles(ctx context.Context, limit int32) ([]string, error) {
	keys, err := b.q.OrphanedAttachmentFileList(ctx, limit)
	return keys, dbcore.Wrap(err, "list orphaned attachment files")
}

// ForgetOrphanedAttachmentFiles records that the files of keys are removed from storage.
func (b *Engine) ForgetOrphanedAttachmentFiles(ctx context.Context, keys []string) error {
	return dbcore.Wrap(b.q.OrphanedAttachmentFileForget(ctx, keys), "forget orphaned attachment files")
}
