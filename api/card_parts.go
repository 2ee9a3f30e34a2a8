package api

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/board"
)

// LabelOut is a label of a project.
type LabelOut struct {
	ID        string    `json:"id"`
	ProjectID string    `json:"projectId"`
	Name      string    `json:"name"`
	Color     string    `json:"color" doc:"#rrggbb"`
	CreatedAt time.Time `json:"createdAt"`
}

func labelOut(l db.Label) LabelOut {
	return LabelOut{ID: l.ID, ProjectID: l.ProjectID, Name: l.Name, Color: l.Color, CreatedAt: l.CreatedAt}
}

// CustomFieldOut is a custom field defined on a project.
type CustomFieldOut struct {
	ID        string    `json:"id"`
	ProjectID string    `json:"projectId"`
	Name      string    `json:"name"`
	Type      string    `json:"type" enum:"text,number,select,multi-select,date,boolean"`
	Options   []string  `json:"options" doc:"The choices of select and multi-select fields; empty for other types"`
	CreatedAt time.Time `json:"createdAt"`
}

func customFieldOut(f db.CustomField) CustomFieldOut {
	options := f.Options
	if options == nil {
		options = []string{}
	}
	return CustomFieldOut{ID: f.ID, ProjectID: f.ProjectID, Name: f.Name, Type: f.Type, Options: options,
		CreatedAt: f.CreatedAt}
}

// RelationOut is a typed relation from a card (cardId) to another card (targetCardId).
type RelationOut struct {
	ID           string    `json:"id"`
	ProjectID    string    `json:"projectId" doc:"The project of the source card"`
	CardID       string    `json:"cardId" doc:"The source card"`
	TargetCardID string    `json:"targetCardId"`
	Type         string    `json:"type" enum:"blocks,blocked_by,related_to,duplicates,parent_of"`
	CreatedBy    string    `json:"createdBy"`
	CreatedAt    time.Time `json:"createdAt"`
}

func relationOut(r db.CardRelation) RelationOut {
	return RelationOut{ID: r.ID, ProjectID: r.ProjectID, CardID: r.CardID, TargetCardID: r.TargetCardID, Type: r.Type,
		CreatedBy: r.CreatedBy, CreatedAt: r.CreatedAt}
}

// ChecklistItemPath are the path parameters of a checklist item's routes.
type ChecklistItemPath struct {
	CardPath
	ItemID string `path:"itemId" format:"uuid"`
}

// LabelPath are the path parameters of a label's routes.
type LabelPath struct {
	ProjectPath
	LabelID string `path:"labelId" format:"uuid"`
}

// CardLabelPath are the path parameters of a label on a card.
type CardLabelPath struct {
	CardPath
	LabelID string `path:"labelId" format:"uuid"`
}

// CustomFieldPath are the path parameters of a custom field's routes.
type CustomFieldPath struct {
	ProjectPath
	FieldID string `path:"fieldId" format:"uuid"`
}

// RelationPath are the path parameters of a relation's routes.
type RelationPath struct {
	ProjectPath
	RelationID string `path:"relationId" format:"uuid"`
}

// registerCardParts registers a card's checklist, labels, custom fields and relations, and the
// project-level label and custom field definitions.
func (s boardOps) registerCardParts() {
	s.registerChecklist()
	s.registerLabels()
	s.registerCustomFields()
	s.registerRelations()
}

func (s boardOps) registerChecklist() {
	tags := []string{"Checklist"}

	register(s.Server, huma.Operation{OperationID: "checklist-add", Method: http.MethodPost, Path: pathCard + "/checklist",
		Summary: "Add a checklist item at the end", Tags: tags, DefaultStatus: http.StatusCreated,
		Description: "Answers the card. A card has at most 100 checklist items."},
		cardWrite, s.addChecklistItem)

	register(s.Server, huma.Operation{OperationID: "checklist-update", Method: http.MethodPatch,
		Path: pathCard + "/checklist/{itemId}", Summary: "Rename, check or uncheck, or reorder a checklist item", Tags: tags,
		Description: "Any of title, done, order. `order` is the item's 0-based place in the checklist; out-of-range values " +
			"go to the end. Answers the card."},
		cardWrite, s.updateChecklistItem)

	register(s.Server, huma.Operation{OperationID: "checklist-delete", Method: http.MethodDelete,
		Path: pathCard + "/checklist/{itemId}", Summary: "Delete a checklist item", Tags: tags,
		Description: "Answers the card."}, cardWrite, s.deleteChecklistItem)
}

func (s boardOps) registerLabels() {
	tags := []string{"Labels"}

	register(s.Server, huma.Operation{OperationID: "labels-create", Method: http.MethodPost, Path: pathProject + "/labels",
		Summary: "Create a label", Tags: tags, DefaultStatus: http.StatusCreated, Errors: []int{http.StatusConflict},
		Description: "Label names are unique in a project (409 otherwise)."},
		cardWrite, s.createLabel)

	register(s.Server, huma.Operation{OperationID: "labels-list", Method: http.MethodGet, Path: pathProject + "/labels",
		Summary: "List the project's labels by name", Tags: tags},
		projectRead, s.listLabels)

	register(s.Server, huma.Operation{OperationID: "labels-update", Method: http.MethodPatch,
		Path: pathProject + "/labels/{labelId}", Summary: "Rename or recolour a label", Tags: tags,
		Errors: []int{http.StatusConflict}}, cardWrite, s.updateLabel)

	register(s.Server, huma.Operation{OperationID: "labels-delete", Method: http.MethodDelete,
		Path: pathProject + "/labels/{labelId}", Summary: "Delete a label", Tags: tags, Description: "Also takes the label " +
			"off every card."},
		cardWrite, s.deleteLabel)

	register(s.Server, huma.Operation{OperationID: "card-labels-add", Method: http.MethodPost,
		Path: pathCard + "/labels/{labelId}", Summary: "Put a label on a card", Tags: tags,
		Description: "The label must be one of the card's project. Adding a label the card already has changes nothing. " +
			"Answers the card."},
		cardWrite, s.addCardLabel)

	register(s.Server, huma.Operation{OperationID: "card-labels-remove", Method: http.MethodDelete,
		Path: pathCard + "/labels/{labelId}", Summary: "Take a label off a card", Tags: tags,
		Description: "Removing a label the card does not have changes nothing. Answers the card."},
		cardWrite, s.removeCardLabel)
}

func (s boardOps) registerCustomFields() {
	tags := []string{"Custom fields"}

	register(s.Server, huma.Operation{OperationID: "custom-fields-create", Method: http.MethodPost,
		Path: pathProject + "/custom-fields", Summary: "Define a custom field", Tags: tags, DefaultStatus: http.StatusCreated,
		Errors: []int{http.StatusConflict},
		Description: "`options` (distinct, non-blank, at most 100) are required for select and multi-select fields and " +
			"refused for other types. Names are unique in a project."},
		cardWrite, s.createCustomField)

	register(s.Server, huma.Operation{OperationID: "custom-fields-list", Method: http.MethodGet,
		Path: pathProject + "/custom-fields", Summary: "List the project's custom fields", Tags: tags},
		projectRead, s.listCustomFields)

	register(s.Server, huma.Operation{OperationID: "custom-fields-update", Method: http.MethodPatch,
		Path: pathProject + "/custom-fields/{fieldId}", Summary: "Rename a custom field or change its type or options",
		Tags: tags, Errors: []int{http.StatusConflict}, Description: "On a type or options change, card values that no " +
			"longer fit the field are dropped. Changing to a type without options drops the options."},
		cardWrite, s.updateCustomField)

	register(s.Server, huma.Operation{OperationID: "custom-fields-delete", Method: http.MethodDelete,
		Path: pathProject + "/custom-fields/{fieldId}", Summary: "Delete a custom field", Tags: tags,
		Description: "Also removes its values from every card."}, cardWrite, s.deleteCustomField)

	register(s.Server, huma.Operation{OperationID: "card-custom-fields-set", Method: http.MethodPatch,
		Path: pathCard + "/custom-fields", Summary: "Set or clear a card's custom field values", Tags: tags,
		Description: "`values` maps field ids of the card's project to a value or null (null removes it). Values must fit " +
			"their field: text a string of at most 5000 characters, number a JSON number, select one of the options, " +
			"multi-select an array of distinct options, date an ISO 8601 string, boolean true or false. Answers the card; its " +
			"`customFields` maps field ids to values."},
		cardWrite, s.setCardCustomValues)
}

func (s boardOps) registerRelations() {
	tags := []string{"Relations"}

	register(s.Server, huma.Operation{OperationID: "relations-create", Method: http.MethodPost,
		Path: pathCard + "/relations", Summary: "Relate a card to another card", Tags: tags,
		DefaultStatus: http.StatusCreated, Errors: []int{http.StatusConflict}, Description: "The target is any other card " +
			"of the same workspace (another project is fine). The same relation twice answers 409."},
		cardWrite, s.createRelation)

	register(s.Server, huma.Operation{OperationID: "relations-list", Method: http.MethodGet, Path: pathCard + "/relations",
		Summary: "List a card's relations", Tags: tags,
		Description: "Relations the card is the source (cardId) or the target (targetCardId) of, oldest first."},
		projectRead, s.listRelations)

	register(s.Server, huma.Operation{OperationID: "relations-delete", Method: http.MethodDelete,
		Path: pathProject + "/relations/{relationId}", Summary: "Delete a relation", Tags: tags,
		Description: "A relation belongs to the project of its source card."}, cardWrite, s.deleteRelation)
}

// AddChecklistItemInput is the request of checklist-add.
type AddChecklistItemInput struct {
	CardPath
	Body AddChecklistItemInputBody
}

// AddChecklistItemInputBody is the body of a AddChecklistItemInput request.
type AddChecklistItemInputBody struct {
	Title string `json:"title" required:"true" minLength:"1" maxLength:"500"`
}

func (s boardOps) addChecklistItem(ctx context.Context, in *AddChecklistItemInput) (*Output[CardOut], error) {
	title, err := nonBlank("title", in.Body.Title)
	if err != nil {
		return nil, err
	}
	return oneOf(cardOut)(s.board.AddChecklistItem(ctx, cardEdit(ctx, in.CardID), title))
}

// UpdateChecklistItemInput is the request of checklist-update.
type UpdateChecklistItemInput struct {
	ChecklistItemPath
	Body UpdateChecklistItemInputBody
}

// UpdateChecklistItemInputBody is the body of a UpdateChecklistItemInput request.
type UpdateChecklistItemInputBody struct {
	Title *string `json:"title,omitempty" minLength:"1" maxLength:"500"`
	Done  *bool   `json:"done,omitempty"`
	Order *int    `json:"order,omitempty" minimum:"0" maximum:"1000000"`
}

func (s boardOps) updateChecklistItem(ctx context.Context, in *UpdateChecklistItemInput) (*Output[CardOut], error) {
	title, err := nonBlankOpt("title", in.Body.Title)
	if err != nil {
		return nil, err
	}
	p := board.ChecklistItemPatch{Title: title, Done: in.Body.Done, Order: in.Body.Order}
	return oneOf(cardOut)(s.board.UpdateChecklistItem(ctx, cardEdit(ctx, in.CardID), in.ItemID, p))
}

func (s boardOps) deleteChecklistItem(ctx context.Context, in *ChecklistItemPath) (*Output[CardOut], error) {
	return oneOf(cardOut)(s.board.DeleteChecklistItem(ctx, cardEdit(ctx, in.CardID), in.ItemID))
}

// CreateLabelInput is the request of labels-create.
type CreateLabelInput struct {
	ProjectPath
	Body CreateLabelInputBody
}

// CreateLabelInputBody is the body of a CreateLabelInput request.
type CreateLabelInputBody struct {
	Name  string `json:"name" required:"true" minLength:"1" maxLength:"50"`
	Color string `json:"color" required:"true" pattern:"^#[0-9a-fA-F]{6}$" patternDescription:"#rrggbb" doc:"#rrggbb"`
}

func (s boardOps) createLabel(ctx context.Context, in *CreateLabelInput) (*Output[LabelOut], error) {
	name, err := nonBlank("name", in.Body.Name)
	if err != nil {
		return nil, err
	}
	return oneOf(labelOut)(s.board.CreateLabel(ctx, accessFrom(ctx).ProjectID, name, strings.ToLower(in.Body.Color)))
}

func (s boardOps) listLabels(ctx context.Context, _ *ProjectPath) (*Output[[]LabelOut], error) {
	return listOf(labelOut)(s.board.Labels(ctx, accessFrom(ctx).ProjectID))
}

// UpdateLabelInput is the request of labels-update.
type UpdateLabelInput struct {
	LabelPath
	Body UpdateLabelInputBody
}

// UpdateLabelInputBody is the body of a UpdateLabelInput request.
type UpdateLabelInputBody struct {
	Name  *string `json:"name,omitempty" minLength:"1" maxLength:"50"`
	Color *string `json:"color,omitempty" pattern:"^#[0-9a-fA-F]{6}$" patternDescription:"#rrggbb" doc:"#rrggbb"`
}

func (s boardOps) updateLabel(ctx context.Context, in *UpdateLabelInput) (*Output[LabelOut], error) {
	name, err := nonBlankOpt("name", in.Body.Name)
	if err != nil {
		return nil, err
	}
	color := in.Body.Color
	if color != nil {
		c := strings.ToLower(*color)
		color = &c
	}
	return oneOf(labelOut)(s.board.UpdateLabel(ctx, accessFrom(ctx).ProjectID, in.LabelID, name, color))
}

func (s boardOps) deleteLabel(ctx context.Context, in *LabelPath) (*OKOutput, error) {
	return done(s.board.DeleteLabel(ctx, accessFrom(ctx).ProjectID, in.LabelID))
}

func (s boardOps) addCardLabel(ctx context.Context, in *CardLabelPath) (*Output[CardOut], error) {
	return oneOf(cardOut)(s.board.AddCardLabel(ctx, cardEdit(ctx, in.CardID), in.LabelID))
}

func (s boardOps) removeCardLabel(ctx context.Context, in *CardLabelPath) (*Output[CardOut], error) {
	return oneOf(cardOut)(s.board.RemoveCardLabel(ctx, cardEdit(ctx, in.CardID), in.LabelID))
}

// CreateCustomFieldInput is the request of custom-fields-create.
type CreateCustomFieldInput struct {
	ProjectPath
	Body CreateCustomFieldInputBody
}

// CreateCustomFieldInputBody is the body of a CreateCustomFieldInput request.
type CreateCustomFieldInputBody struct {
	Name    string   `json:"name" required:"true" minLength:"1" maxLength:"100"`
	Type    string   `json:"type" required:"true" enum:"text,number,select,multi-select,date,boolean"`
	Options []string `json:"options,omitempty" maxItems:"100"`
}

func (s boardOps) createCustomField(ctx context.Context, in *CreateCustomFieldInput) (*Output[CustomFieldOut], error) {
	name, err := nonBlank("name", in.Body.Name)
	if err != nil {
		return nil, err
	}
	return oneOf(customFieldOut)(s.board.CreateCustomField(ctx, board.NewCustomField{ProjectID: accessFrom(ctx).ProjectID,
		Name: name, Type: in.Body.Type, Options: in.Body.Options}))
}

func (s boardOps) listCustomFields(ctx context.Context, _ *ProjectPath) (*Output[[]CustomFieldOut], error) {
	return listOf(customFieldOut)(s.board.CustomFields(ctx, accessFrom(ctx).ProjectID))
}

// UpdateCustomFieldInput is the request of custom-fields-update.
type UpdateCustomFieldInput struct {
	CustomFieldPath
	Body UpdateCustomFieldInputBody
}

// UpdateCustomFieldInputBody is the body of a UpdateCustomFieldInput request.
type UpdateCustomFieldInputBody struct {
	Name    *string  `json:"name,omitempty" minLength:"1" maxLength:"100"`
	Type    *string  `json:"type,omitempty" enum:"text,number,select,multi-select,date,boolean"`
	Options []string `json:"options,omitempty" maxItems:"100"`
}

func (s boardOps) updateCustomField(ctx context.Context, in *UpdateCustomFieldInput) (*Output[CustomFieldOut], error) {
	name, err := nonBlankOpt("name", in.Body.Name)
	if err != nil {
		return nil, err
	}
	p := board.CustomFieldPatch{Name: name, Type: in.Body.Type}
	if in.Body.Options != nil {
		p.Options = &in.Body.Options
	}
	return oneOf(customFieldOut)(s.board.UpdateCustomField(ctx, accessFrom(ctx).ProjectID, in.FieldID, p))
}

func (s boardOps) deleteCustomField(ctx context.Context, in *CustomFieldPath) (*OKOutput, error) {
	return done(s.board.DeleteCustomField(ctx, accessFrom(ctx).ProjectID, in.FieldID))
}

// SetCardCustomValuesInput is the request of card-custom-fields-set.
type SetCardCustomValuesInput struct {
	CardPath
	Body SetCardCustomValuesInputBody
}

// SetCardCustomValuesInputBody is the body of a SetCardCustomValuesInput request.
type SetCardCustomValuesInputBody struct {
	Values map[string]json.RawMessage `json:"values" required:"true" doc:"fieldId -> value, or null to remove the value"`
}

func (s boardOps) setCardCustomValues(ctx context.Context, in *SetCardCustomValuesInput) (*Output[CardOut], error) {
	return oneOf(cardOut)(s.board.SetCardCustomValues(ctx, cardEdit(ctx, in.CardID), in.Body.Values))
}

// CreateRelationInput is the request of relations-create.
type CreateRelationInput struct {
	CardPath
	Body CreateRelationInputBody
}

// CreateRelationInputBody is the body of a CreateRelationInput request.
type CreateRelationInputBody struct {
	TargetCardID string `json:"targetCardId" required:"true" format:"uuid"`
	Type         string `json:"type" required:"true" enum:"blocks,blocked_by,related_to,duplicates,parent_of"`
}

func (s boardOps) createRelation(ctx context.Context, in *CreateRelationInput) (*Output[RelationOut], error) {
	a := accessFrom(ctx)
	return oneOf(relationOut)(s.board.CreateRelation(ctx, board.NewRelation{WorkspaceID: a.WorkspaceID,
		ProjectID: a.ProjectID, CardID: in.CardID, TargetCardID: in.Body.TargetCardID, Type: in.Body.Type,
		ActorID: principalFrom(ctx).User.ID}))
}

func (s boardOps) listRelations(ctx context.Context, in *CardPath) (*Output[[]RelationOut], error) {
	return listOf(relationOut)(s.board.CardRelations(ctx, accessFrom(ctx).ProjectID, in.CardID))
}

func (s boardOps) deleteRelation(ctx context.Context, in *RelationPath) (*OKOutput, error) {
	return done(s.board.DeleteRelation(ctx, accessFrom(ctx).ProjectID, in.RelationID))
}
