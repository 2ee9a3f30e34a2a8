// Package transfer is the project transfer engine: a project exported whole as one self-contained
// document (TransferDoc) and imported again, in one transaction, into any workspace.
package transfer

// This file is the transfer format, which export.go writes and import.go reads.

import (
	"encoding/json"
	"time"
)

// TransferVersion is the version of the project export format.
const TransferVersion = 1

// TransferDoc is a complete, self-contained snapshot of a project: what GET …/export returns and
// POST …/projects/import takes. Records refer to each other by their index in the document (cards to
// columns and scopes, relations to cards) and by name (cards to labels and custom fields), never by id.
// On import only project.name, columns[].name and cards[].title and columnIndex are required.
type TransferDoc struct {
	Version      int                   `json:"version" required:"false" minimum:"0" maximum:"1" doc:"Format version (1)"`
	ExportedAt   *time.Time            `json:"exportedAt" required:"false" nullable:"true" doc:"When the snapshot was taken; ignored on import"`
	Project      TransferProject       `json:"project"`
	Columns      []TransferColumn      `json:"columns" maxItems:"50" doc:"Columns, at most 50"`
	Labels       []TransferLabel       `json:"labels" required:"false" maxItems:"500"`
	CustomFields []TransferCustomField `json:"customFields" required:"false" maxItems:"200"`
	Scopes       []TransferScope       `json:"scopes" required:"false" maxItems:"500"`
	Cards        []TransferCard        `json:"cards" maxItems:"500" doc:"Cards, at most 500"`
	Relations    []TransferRelation    `json:"relations" required:"false" maxItems:"10000"`
}

// TransferProject is the project's own fields.
type TransferProject struct {
	Name        string     `json:"name" minLength:"1" maxLength:"200"`
	Description string     `json:"description" required:"false" maxLength:"20000"`
	Deadline    *time.Time `json:"deadline" required:"false" nullable:"true"`
}

// TransferColumn is a column; on import, columns are placed by order, then as given.
type TransferColumn struct {
	Name  string `json:"name" minLength:"1" maxLength:"100"`
	Order *int   `json:"order" required:"false" nullable:"true" minimum:"0" doc:"0-based place among the columns"`
}

// TransferLabel is a label of the project.
type TransferLabel struct {
	Name  string `json:"name" minLength:"1" maxLength:"100"`
	Color string `json:"color" pattern:"^#[0-9a-fA-F]{6}$" doc:"#rrggbb"`
}

// TransferCustomField is a custom field definition.
type TransferCustomField struct {
	Name    string   `json:"name" minLength:"1" maxLength:"100"`
	Type    string   `json:"type" enum:"text,number,select,multi-select,date,boolean"`
	Options []string `json:"options" required:"false" maxItems:"100" doc:"Choices of select and multi-select fields"`
}

// TransferScope is a scope of the project.
type TransferScope struct {
	Name        string          `json:"name" minLength:"1" maxLength:"200"`
	Description string          `json:"description" required:"false" maxLength:"5000"`
	StartDate   *time.Time      `json:"startDate" required:"false" nullable:"true"`
	EndDate     *time.Time      `json:"endDate" required:"false" nullable:"true"`
	Settings    json.RawMessage `json:"settings,omitempty" required:"false" doc:"A JSON object of at most 16 KB"`
	ActiveView  string          `json:"activeView,omitempty" required:"false" enum:"kanban,list,calendar,roadmap,stats"`
}

// TransferCard is a card with everything on it.
type TransferCard struct {
	Title        string                     `json:"title" minLength:"1" maxLength:"500"`
	Description  string                     `json:"description" required:"false" maxLength:"5000"`
	ColumnIndex  int                        `json:"columnIndex" minimum:"0" doc:"Index of the card's column in columns"`
	Order        *int                       `json:"order" required:"false" nullable:"true" minimum:"0" doc:"0-based place in the column"`
	Priority     string                     `json:"priority" required:"false" enum:"low,medium,high" doc:"Default medium"`
	StartDate    *time.Time                 `json:"startDate" required:"false" nullable:"true"`
	DueDate      *time.Time                 `json:"dueDate" required:"false" nullable:"true"`
	Archived     bool                       `json:"archived" required:"false"`
	ScopeIndex   *int                       `json:"scopeIndex" required:"false" nullable:"true" minimum:"0" doc:"Index of the card's scope in scopes, or null"`
	Checklist    []TransferChecklistItem    `json:"checklist" required:"false" maxItems:"100"`
	Labels       []string                   `json:"labels" required:"false" maxItems:"500" doc:"Names of labels in labels"`
	CustomFields map[string]json.RawMessage `json:"customFields" required:"false" doc:"Values by custom field name"`
	Comments     []TransferComment          `json:"comments" required:"false" maxItems:"2000"`
	Documents    []TransferDocumentLink     `json:"documents" required:"false" maxItems:"500" doc:"Documents linked to the card (export only: an import ignores them, as they name documents of the source workspace)"`
}

// TransferDocumentLink is a document linked to a card, as an export names it.
type TransferDocumentLink struct {
	ID    string `json:"id" maxLength:"36"`
	Title string `json:"title" required:"false" maxLength:"500"`
}

// TransferChecklistItem is a checklist item of a card.
type TransferChecklistItem struct {
	Title string `json:"title" minLength:"1" maxLength:"500"`
	Done  bool   `json:"done" required:"false"`
	Order *int   `json:"order" required:"false" nullable:"true" minimum:"0"`
}

// TransferComment is a comment on a card. On import the importer becomes its author; the content and
// date are kept.
type TransferComment struct {
	AuthorEmail string     `json:"authorEmail" required:"false" maxLength:"254" doc:"Original author; informative only"`
	Content     string     `json:"content" minLength:"1" maxLength:"2000"`
	CreatedAt   *time.Time `json:"createdAt" required:"false" nullable:"true"`
}

// TransferRelation is a typed relation from one card to another, by their indexes in cards.
type TransferRelation struct {
	CardIndex       int    `json:"cardIndex" minimum:"0"`
	TargetCardIndex int    `json:"targetCardIndex" minimum:"0"`
	Type            string `json:"type" enum:"blocks,blocked_by,related_to,duplicates,parent_of"`
}
