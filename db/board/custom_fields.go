package board

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/internal/dbcore"
	"github.com/pilot-dev/pilot/db/internal/dbsqlc"
)

// CustomFieldTypes are the types a custom field can have.
var CustomFieldTypes = []string{"text", "number", "select", "multi-select", "date", "boolean"}

// Limits of custom field definitions and values.
const (
	MaxCustomFieldOptions   = 100
	MaxCustomFieldOptionLen = 100
	MaxCustomTextLen        = 5000
)

// HasOptions reports whether a field type picks among options.
func HasOptions(typ string) bool { return typ == "select" || typ == "multi-select" }

// checkFieldDefinition refuses a type it does not know and options that do not fit the type: select
// types need distinct, non-blank options; other types take none. It answers the options to store.
func checkFieldDefinition(typ string, options []string) ([]string, error) {
	if !slices.Contains(CustomFieldTypes, typ) {
		return nil, dbcore.Invalid("type must be one of " + strings.Join(CustomFieldTypes, ", "))
	}
	if !HasOptions(typ) {
		if len(options) > 0 {
			return nil, dbcore.Invalid("options are only allowed for select and multi-select fields")
		}
		return []string{}, nil
	}
	if len(options) == 0 {
		return nil, dbcore.Invalid("options are required for select and multi-select fields")
	}
	if len(options) > MaxCustomFieldOptions {
		return nil, dbcore.Invalid(fmt.Sprintf("a field has at most %d options", MaxCustomFieldOptions))
	}
	for i, o := range options {
		switch {
		case strings.TrimSpace(o) == "":
			return nil, dbcore.Invalid(fmt.Sprintf("options[%d]: must not be blank", i))
		case utf8.RuneCountInString(o) > MaxCustomFieldOptionLen:
			return nil, dbcore.Invalid(fmt.Sprintf("options[%d] must be at most %d characters", i, MaxCustomFieldOptionLen))
		case slices.Contains(options[:i], o):
			return nil, dbcore.Invalid(fmt.Sprintf("options must be distinct: %q appears twice", o))
		}
	}
	return options, nil
}

// dateLayouts are the ISO 8601 forms a date value may take.
var dateLayouts = []string{time.DateOnly, time.RFC3339, "2006-01-02T15:04:05", "2006-01-02T15:04"}

// IsNullValue reports a custom value that means "no value": JSON null, or nothing.
func IsNullValue(raw json.RawMessage) bool { return len(raw) == 0 || string(raw) == "null" }

// CheckCustomValue says why a (non-null) value does not fit a field of this type and options, or nil.
// It is the one rule for custom values: PATCH …/cards/{cardId}/custom-fields and project import both
// check with it, so whatever a project holds can be imported again.
func CheckCustomValue(typ string, options []string, raw json.RawMessage) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return errors.New("must be a JSON value")
	}
	switch typ {
	case "text":
		s, ok := v.(string)
		if !ok {
			return errors.New("must be a string")
		}
		if utf8.RuneCountInString(s) > MaxCustomTextLen {
			return fmt.Errorf("must be at most %d characters", MaxCustomTextLen)
		}
	case "number":
		if _, ok := v.(json.Number); !ok {
			return errors.New("must be a number")
		}
	case "boolean":
		if _, ok := v.(bool); !ok {
			return errors.New("must be true or false")
		}
	case "date":
		s, ok := v.(string)
		if !ok || !slices.ContainsFunc(dateLayouts, func(l string) bool { _, err := time.Parse(l, s); return err == nil }) {
			return errors.New("must be an ISO 8601 date or date-time string")
		}
	case "select":
		s, ok := v.(string)
		if !ok || !slices.Contains(options, s) {
			return fmt.Errorf("must be one of the field's options (%s)", strings.Join(options, ", "))
		}
	case "multi-select":
		arr, ok := v.([]any)
		if !ok {
			return errors.New("must be an array of the field's options")
		}
		seen := make([]string, 0, len(arr))
		for _, e := range arr {
			s, ok := e.(string)
			if !ok || !slices.Contains(options, s) {
				return fmt.Errorf("must be an array of the field's options (%s)", strings.Join(options, ", "))
			}
			if slices.Contains(seen, s) {
				return fmt.Errorf("must not repeat an option (%q)", s)
			}
			seen = append(seen, s)
		}
	default:
		return fmt.Errorf("field type %q takes no values", typ)
	}
	return nil
}

// CustomFields lists a project's custom fields in creation order.
func (b *Engine) CustomFields(ctx context.Context, projectID string) ([]db.CustomField, error) {
	fs, err := b.q.CustomFieldListByProject(ctx, projectID)
	return dbcore.MapRows(fs, func(r dbsqlc.CustomField) db.CustomField { return db.CustomField(r) }), dbcore.Wrap(err,
		"list custom fields")
}

// NewCustomField is a custom field to define on a project.
type NewCustomField struct {
	ProjectID, Name, Type string
	Options               []string
}

// CreateCustomField defines a custom field on a project; its name is unique in the project.
func (b *Engine) CreateCustomField(ctx context.Context, in NewCustomField) (db.CustomField, error) {
	options, err := checkFieldDefinition(in.Type, in.Options)
	if err != nil {
		return db.CustomField{}, err
	}
	f, err := b.q.CustomFieldInsert(ctx, dbsqlc.CustomFieldInsertParams{ID: db.NewID(), ProjectID: in.ProjectID,
		Name: in.Name, Type: in.Type, Options: options})
	if dbcore.IsUnique(err, "") {
		return db.CustomField(f), dbcore.Conflict(fmt.Sprintf("a custom field named %q already exists in this project",
			in.Name))
	}
	return db.CustomField(f), dbcore.Wrap(err, "insert custom field")
}

// CustomFieldPatch is a change to a custom field; nil fields are left alone. Changing the type away from
// select and multi-select drops the options unless new ones are given (which is refused).
type CustomFieldPatch struct {
	Name, Type *string
	Options    *[]string
}

// UpdateCustomField renames a field or changes its type or options, in one transaction. On a type or
// options change, card values that no longer fit the field are dropped.
func (b *Engine) UpdateCustomField(ctx context.Context, projectID, fieldID string,
	p CustomFieldPatch) (db.CustomField, error) {
	var out db.CustomField
	err := b.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		cur, err := q.CustomFieldGetForUpdate(ctx, dbsqlc.CustomFieldGetForUpdateParams{ID: fieldID, ProjectID: projectID})
		if dbcore.IsNotFound(err) {
			return dbcore.NotFound("custom field not found")
		}
		if err != nil {
			return fmt.Errorf("lock custom field: %w", err)
		}
		name, typ, options := cur.Name, cur.Type, cur.Options
		if p.Name != nil {
			name = *p.Name
		}
		if p.Type != nil {
			typ = *p.Type
		}
		switch {
		case p.Options != nil:
			options = *p.Options
		case !HasOptions(typ):
			options = nil
		}
		if options, err = checkFieldDefinition(typ, options); err != nil {
			return err
		}
		var outRow dbsqlc.CustomField
		outRow, err = q.CustomFieldUpdate(ctx, dbsqlc.CustomFieldUpdateParams{ID: fieldID, Name: name, Type: typ,
			Options: options})
		out = db.CustomField(outRow)
		if dbcore.IsUnique(err, "") {
			return dbcore.Conflict(fmt.Sprintf("a custom field named %q already exists in this project", name))
		}
		if err != nil {
			return fmt.Errorf("update custom field: %w", err)
		}
		if typ == cur.Type && slices.Equal(options, cur.Options) {
			return nil
		}
		vals, err := q.CardCustomValueListByField(ctx, fieldID)
		if err != nil {
			return fmt.Errorf("list custom values: %w", err)
		}
		var stale []string
		for _, v := range vals {
			if CheckCustomValue(typ, options, v.Value) != nil {
				stale = append(stale, v.CardID)
			}
		}
		if len(stale) > 0 {
			if err := q.CardCustomValueDeleteForCards(ctx, dbsqlc.CardCustomValueDeleteForCardsParams{FieldID: fieldID,
				CardIds: stale}); err != nil {
				return fmt.Errorf("drop stale custom values: %w", err)
			}
		}
		return nil
	})
	return out, err
}

// DeleteCustomField deletes a custom field of a project, which removes its values from every card.
func (b *Engine) DeleteCustomField(ctx context.Context, projectID, fieldID string) error {
	n, err := b.q.CustomFieldDelete(ctx, dbsqlc.CustomFieldDeleteParams{ID: fieldID, ProjectID: projectID})
	if dbcore.IsNotFound(err) || (err == nil && n == 0) {
		return dbcore.NotFound("custom field not found")
	}
	return dbcore.Wrap(err, "delete custom field")
}

// SetCardCustomValues sets or (for a JSON null) removes a card's values of its project's custom fields,
// each checked against its field, and records card_updated when anything changed, in one transaction.
// A field id that is not a field of the card's project is refused. It answers the card.
func (b *Engine) SetCardCustomValues(ctx context.Context, e db.CardEdit,
	values map[string]json.RawMessage) (Card, error) {
	projectID, cardID, actorID := e.ProjectID, e.CardID, e.ActorID
	ids := make([]string, 0, len(values))
	for id := range values {
		if len(id) != 36 || uuid.Validate(id) != nil {
			return Card{}, dbcore.Invalid(fmt.Sprintf("values: %q is not a custom field of this project", id))
		}
		ids = append(ids, id)
	}
	slices.Sort(ids)
	var out Card
	err := b.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		card, err := lockCard(ctx, q, projectID, cardID)
		if err != nil {
			return err
		}
		fields, err := q.CustomFieldListByIDsForShare(ctx, dbsqlc.CustomFieldListByIDsForShareParams{ProjectID: projectID,
			Ids: ids})
		if err != nil {
			return fmt.Errorf("get custom fields: %w", err)
		}
		set := map[string]json.RawMessage{}
		var removed []string
		for _, id := range ids {
			i := slices.IndexFunc(fields, func(f dbsqlc.CustomField) bool { return strings.EqualFold(f.ID, id) })
			if i < 0 {
				return dbcore.Invalid(fmt.Sprintf("values: %q is not a custom field of this project", id))
			}
			f, raw := fields[i], values[id]
			if IsNullValue(raw) {
				removed = append(removed, f.ID)
				continue
			}
			if err := CheckCustomValue(f.Type, f.Options, raw); err != nil {
				return dbcore.Invalid(fmt.Sprintf("values.%s (%s): %s", id, f.Name, err))
			}
			set[f.ID] = raw
		}
		var changed int64
		if len(set) > 0 {
			vals, err := json.Marshal(set)
			if err != nil {
				return fmt.Errorf("encode custom values: %w", err)
			}
			n, err := q.CardCustomValueUpsert(ctx, dbsqlc.CardCustomValueUpsertParams{CardID: cardID, Vals: vals})
			if err != nil {
				return fmt.Errorf("set custom values: %w", err)
			}
			changed += n
		}
		if len(removed) > 0 {
			n, err := q.CardCustomValueDelete(ctx, dbsqlc.CardCustomValueDeleteParams{CardID: cardID, FieldIds: removed})
			if err != nil {
				return fmt.Errorf("remove custom values: %w", err)
			}
			changed += n
		}
		if changed > 0 {
			if err := b.cardPartChanged(ctx, tx, q, card, actorID, cardPartCustomFields); err != nil {
				return err
			}
		}
		out, err = cardTx(ctx, q, projectID, cardID)
		return err
	})
	return out, err
}
