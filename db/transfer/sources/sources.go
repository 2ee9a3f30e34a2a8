// Package sources reads other tools' exports (Trello, Jira, Vikunja, Plane, and Pilot's own) into the
// transfer engine's neutral project model, transfer.TransferDoc, one per project of the export, with
// what the model cannot carry beside it (assignees by e-mail) and every item left out, with why. It
// only reads: db/imports writes each project through transfer.Engine.ImportTx, all or nothing.
//
// Everything read is text: titles, descriptions and comments are kept as written (HTML and scripts
// included, which the web app shows as text), cut to the model's limits with a warning; nothing read
// is ever run or fetched.
package sources

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/pilot-dev/pilot/db/board"
	"github.com/pilot-dev/pilot/db/transfer"
)

// Source is a tool whose export Pilot imports.
type Source string

// Sources.
const (
	Trello  Source = "trello"
	Jira    Source = "jira"
	Vikunja Source = "vikunja"
	Plane   Source = "plane"
	Pilot   Source = "pilot"
)

// Values lists the sources (the OpenAPI document's enum).
func (Source) Values() []Source { return []Source{Trello, Jira, Vikunja, Plane, Pilot} }

// Valid reports whether s is a known source.
func (s Source) Valid() bool { return slices.Contains(s.Values(), s) }

// MaxFileSize is the largest upload accepted, by source (docs/imports.md). A Vikunja archive's
// uncompressed content is bounded apart (MaxArchiveContent).
var MaxFileSize = map[Source]int64{
	Trello:  50 << 20,
	Jira:    20 << 20,
	Vikunja: 50 << 20,
	Plane:   20 << 20,
	Pilot:   20 << 20,
}

// MaxUpload is the largest of MaxFileSize.
const MaxUpload = 50 << 20

// Limits of one imported project, wider than the API's project import (a Trello board of thousands of
// cards is common).
const (
	MaxColumns = 200
	MaxCards   = 20000
	// MaxArchiveContent bounds what an archive may expand to, all entries together: a zip bomb stops there.
	MaxArchiveContent = 200 << 20
)

// ErrUnreadable wraps every refusal of a file as a whole (not the format announced, headers missing).
var ErrUnreadable = errors.New("unreadable export")

func unreadable(format string, a ...any) error {
	return fmt.Errorf("%w: %s", ErrUnreadable, fmt.Sprintf(format, a...))
}

// Skip is an item of the export left out, with why.
type Skip struct {
	Item   string `json:"item" doc:"What was left out, e.g. card \"Fix login\""`
	Reason string `json:"reason"`
}

// Project is one project of an export, ready for transfer.Engine.ImportTx.
type Project struct {
	Doc transfer.TransferDoc
	// Assignees are e-mails by card index.
	Assignees map[int]string
	// Attachments counts the attachments kept as links in their card's description.
	Attachments int
	// Files are attachments whose bytes the export holds, stored as the cards' attachments.
	Files []File
	// Warnings are changes made to fit (a title cut to 500 characters, say).
	Warnings []string
	// Skipped are the project's items left out.
	Skipped []Skip
}

// File is an attachment whose bytes the export holds (a Vikunja archive's files/), for the card at
// CardIndex; Open reads it, at most Size bytes (which is at most board.MaxAttachmentSize).
type File struct {
	CardIndex      int
	Name, MimeType string
	Size           int64
	Open           func() ([]byte, error)
}

// Export is a whole export read.
type Export struct {
	Projects []Project
	// Skipped are items left out that belong to no project (a project refused whole, say).
	Skipped []Skip
}

// Parse reads data, an export of src, into its projects.
func Parse(src Source, data []byte) (Export, error) {
	if limit, ok := MaxFileSize[src]; !ok {
		return Export{}, unreadable("unknown source %q", src)
	} else if int64(len(data)) > limit {
		return Export{}, unreadable("a %s export is at most %d MB", src, limit>>20)
	}
	switch src {
	case Trello:
		return parseTrello(data)
	case Jira:
		return parseJira(data)
	case Pilot:
		return parsePilot(data)
	case Vikunja:
		return parseVikunja(data)
	case Plane:
		return parsePlane(data)
	}
	return Export{}, unreadable("unknown source %q", src)
}

// Limits of the model's text fields.
const (
	titleRunes       = 500
	descriptionRunes = 5000
	projectDescRunes = 20000
	nameRunes        = 100
	projectNameRunes = 200
)

// builder collects one project, keyed by the source's own ids.
type builder struct {
	p      Project
	cols   map[string]int
	cards  map[string]int
	labels map[string]bool
	rels   map[[3]string]bool
}

func newBuilder(name, description string) *builder {
	b := &builder{cols: map[string]int{}, cards: map[string]int{}, labels: map[string]bool{},
		rels: map[[3]string]bool{}, p: Project{Assignees: map[int]string{}}}
	name = strings.TrimSpace(name)
	if name == "" {
		name = "Imported project"
	}
	b.p.Doc.Version = transfer.TransferVersion
	b.p.Doc.Project.Name = b.fit(name, projectNameRunes, "project name")
	b.p.Doc.Project.Description = b.fit(description, projectDescRunes, "project description")
	return b
}

// fit cuts s to n runes, with a warning naming what.
func (b *builder) fit(s string, n int, what string) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	b.p.Warnings = append(b.p.Warnings, fmt.Sprintf("%s cut to %d characters", what, n))
	return string([]rune(s)[:n])
}

func (b *builder) skip(item, reason string) {
	b.p.Skipped = append(b.p.Skipped, Skip{Item: item, Reason: reason})
}

// column answers the index of the column keyed key, adding it named name the first time.
func (b *builder) column(key, name string) (int, bool) {
	if i, ok := b.cols[key]; ok {
		return i, true
	}
	name = strings.TrimSpace(name)
	if name == "" {
		name = "Untitled"
	}
	if len(b.p.Doc.Columns) >= MaxColumns {
		b.skip(fmt.Sprintf("column %q", name), fmt.Sprintf("a project has at most %d columns", MaxColumns))
		return 0, false
	}
	b.cols[key] = len(b.p.Doc.Columns)
	b.p.Doc.Columns = append(b.p.Doc.Columns, transfer.TransferColumn{Name: b.fit(name, nameRunes, "column name")})
	return b.cols[key], true
}

// label adds a label once by name and answers its name as the project has it.
func (b *builder) label(name, color string) string {
	name = b.fit(strings.TrimSpace(name), nameRunes, "label name")
	if name == "" || b.labels[name] {
		return name
	}
	if len(b.p.Doc.Labels) >= transfer.MaxImportLabels {
		b.skip(fmt.Sprintf("label %q", name), fmt.Sprintf("a project has at most %d labels", transfer.MaxImportLabels))
		return ""
	}
	b.labels[name] = true
	b.p.Doc.Labels = append(b.p.Doc.Labels, transfer.TransferLabel{Name: name, Color: color})
	return name
}

// card adds a card keyed key; it answers false (with the skip recorded) when the card cannot be.
func (b *builder) card(key string, c transfer.TransferCard, assignee string) bool {
	title := strings.TrimSpace(c.Title)
	if title == "" {
		b.skip(fmt.Sprintf("card %s", key), "it has no title")
		return false
	}
	if _, dup := b.cards[key]; dup && key != "" {
		b.skip(fmt.Sprintf("card %q", title), "another card of the export has the same id")
		return false
	}
	if len(b.p.Doc.Cards) >= MaxCards {
		b.skip(fmt.Sprintf("card %q", title), fmt.Sprintf("a project has at most %d cards", MaxCards))
		return false
	}
	c.Title = b.fit(title, titleRunes, fmt.Sprintf("card %q title", string([]rune(title)[:min(40, len([]rune(title)))])))
	c.Description = b.fit(c.Description, descriptionRunes, fmt.Sprintf("card %q description", c.Title))
	if len(c.Checklist) > board.MaxChecklistItems {
		b.skip(fmt.Sprintf("%d checklist items of card %q", len(c.Checklist)-board.MaxChecklistItems, c.Title),
			fmt.Sprintf("a card has at most %d checklist items", board.MaxChecklistItems))
		c.Checklist = c.Checklist[:board.MaxChecklistItems]
	}
	items := c.Checklist[:0]
	for _, it := range c.Checklist {
		it.Title = b.fit(strings.TrimSpace(it.Title), titleRunes, fmt.Sprintf("a checklist item of card %q", c.Title))
		if it.Title != "" {
			items = append(items, it)
		}
	}
	c.Checklist = items
	comments := c.Comments[:0]
	for _, cm := range c.Comments {
		if strings.TrimSpace(cm.Content) == "" {
			continue
		}
		if len(comments) >= transfer.MaxImportCommentsPerCard {
			b.skip(fmt.Sprintf("a comment on card %q", c.Title), "a card imports at most 2000 comments")
			continue
		}
		cm.Content = b.fit(cm.Content, board.MaxCommentLength, fmt.Sprintf("a comment on card %q", c.Title))
		if utf8.RuneCountInString(cm.AuthorEmail) > 254 {
			cm.AuthorEmail = ""
		}
		comments = append(comments, cm)
	}
	c.Comments = comments
	i := len(b.p.Doc.Cards)
	if key != "" {
		b.cards[key] = i
	}
	b.p.Doc.Cards = append(b.p.Doc.Cards, c)
	if a := strings.TrimSpace(assignee); a != "" {
		b.p.Assignees[i] = a
	}
	return true
}

// relation relates the cards keyed from and to, once; one naming a card not imported is skipped.
func (b *builder) relation(from, to, typ string) {
	fi, okf := b.cards[from]
	ti, okt := b.cards[to]
	item := fmt.Sprintf("relation %s %s %s", from, typ, to)
	switch {
	case !okf || !okt:
		b.skip(item, "it names a card that is not in the import")
		return
	case fi == ti:
		b.skip(item, "a card cannot be related to itself")
		return
	case b.rels[[3]string{from, to, typ}]:
		return
	case len(b.p.Doc.Relations) >= transfer.MaxImportRelations:
		b.skip(item, fmt.Sprintf("a project has at most %d relations", transfer.MaxImportRelations))
		return
	}
	b.rels[[3]string{from, to, typ}] = true
	b.p.Doc.Relations = append(b.p.Doc.Relations, transfer.TransferRelation{CardIndex: fi, TargetCardIndex: ti, Type: typ})
}

// attachments appends links to a description, as a list under "Attachments".
func (b *builder) attachments(desc string, links [][2]string) string {
	if len(links) == 0 {
		return desc
	}
	var sb strings.Builder
	sb.WriteString(desc)
	if desc != "" {
		sb.WriteString("\n\n")
	}
	sb.WriteString("Attachments:\n")
	for _, l := range links {
		fmt.Fprintf(&sb, "- [%s](%s)\n", strings.NewReplacer("[", "(", "]", ")").Replace(l[0]), l[1])
	}
	b.p.Attachments += len(links)
	return sb.String()
}

// done answers the project.
func (b *builder) done() Project {
	if len(b.p.Doc.Columns) == 0 {
		b.p.Doc.Columns = []transfer.TransferColumn{{Name: "To do"}}
	}
	return b.p
}

// parseTime reads a date in the first layout that fits; nil when none does.
func parseTime(s string, layouts ...string) *time.Time {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil
	}
	for _, l := range layouts {
		if t, err := time.Parse(l, s); err == nil {
			t = t.UTC()
			return &t
		}
	}
	return nil
}

// Counts are what a project holds, by kind (the import report's figures).
type Counts struct {
	Columns        int `json:"columns"`
	Cards          int `json:"cards"`
	Labels         int `json:"labels"`
	ChecklistItems int `json:"checklistItems"`
	Comments       int `json:"comments"`
	DueDates       int `json:"dueDates"`
	Relations      int `json:"relations"`
	Attachments    int `json:"attachments" doc:"Attachments kept as links in their card's description"`
	Files          int `json:"files" doc:"Attachments stored as files on their card"`
	ArchivedCards  int `json:"archivedCards"`
}

// Total is the number of items.
func (c Counts) Total() int {
	return c.Columns + c.Cards + c.Labels + c.ChecklistItems + c.Comments + c.Relations + c.Attachments + c.Files
}

// Count counts what p holds.
func (p Project) Count() Counts {
	c := Counts{Columns: len(p.Doc.Columns), Cards: len(p.Doc.Cards), Labels: len(p.Doc.Labels),
		Relations: len(p.Doc.Relations), Attachments: p.Attachments, Files: len(p.Files)}
	for _, k := range p.Doc.Cards {
		c.ChecklistItems += len(k.Checklist)
		c.Comments += len(k.Comments)
		if k.DueDate != nil {
			c.DueDates++
		}
		if k.Archived {
			c.ArchivedCards++
		}
	}
	return c
}
