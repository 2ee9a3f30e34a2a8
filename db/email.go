package db

import (
	"context"
	"fmt"

	"github.com/pilot-dev/pilot/db/internal/dbsqlc"
)

// RecordEmail records an e-mail in the outbox once per (topic, ref); a retried job gets the same row.
func (s *Store) RecordEmail(ctx context.Context, topic, refID, to, subject, body, transport string) (EmailOutbox, error) {
	var ref *string
	if refID != "" {
		ref = &refID
	}
	row, err := s.q.EmailOutboxInsert(ctx, dbsqlc.EmailOutboxInsertParams{ID: NewID(), ToAddress: to, Subject: subject, Body: body,
		Kind: topic, RefID: ref, Transport: transport})
	if err != nil {
		return row, fmt.Errorf("record email: %w", err)
	}
	return row, nil
}

// MarkEmailSent records that the SMTP server accepted an outbox e-mail.
func (s *Store) MarkEmailSent(ctx context.Context, id string) error {
	return wrap(s.q.EmailOutboxMarkSent(ctx, id), "mark email sent")
}

// Outbox lists every recorded e-mail, oldest first.
func (s *Store) Outbox(ctx context.Context) ([]EmailOutbox, error) {
	rows, err := s.q.EmailOutboxList(ctx)
	return rows, wrap(err, "list outbox")
}
