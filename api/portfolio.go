package api

import (
	"context"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/pilot-dev/pilot/db/board"
	"github.com/pilot-dev/pilot/db/pilotage"
	"github.com/pilot-dev/pilot/db/roadmap"
	"github.com/pilot-dev/pilot/db/transfer"
)

// maxImportBodyBytes is the largest import document accepted (500 cards with checklists and comments).
const maxImportBodyBytes = 8 << 20

// PortfolioProjectOut is one project's summary in the workspace portfolio. Archived cards count nowhere.
type PortfolioProjectOut struct {
	ProjectID       string                    `json:"projectId"`
	Name            string                    `json:"name"`
	Deadline        *time.Time                `json:"deadline" nullable:"true"`
	DaysLeft        *int                      `json:"daysLeft" nullable:"true" doc:"Whole days until the deadline, negative once past; null without one"`
	CardCount       int                       `json:"cardCount"`
	CardsByColumn   []PortfolioColumnOut      `json:"cardsByColumn" doc:"In column order"`
	CardsByPriority PortfolioPriorityOut      `json:"cardsByPriority"`
	Overdue         int                       `json:"overdue" doc:"Cards due in the past that are not in the last column"`
	Checklist       PortfolioChecklistSummary `json:"checklist"`
}

// PortfolioColumnOut is the number of active cards in a column.
type PortfolioColumnOut struct {
	ColumnID string `json:"columnId"`
	Name     string `json:"name"`
	Count    int    `json:"count"`
}

// PortfolioPriorityOut counts active cards by priority.
type PortfolioPriorityOut struct {
	Low    int `json:"low"`
	Medium int `json:"medium"`
	High   int `json:"high"`
}

// PortfolioChecklistSummary is the checklist progress over a project's active cards.
type PortfolioChecklistSummary struct {
	Done    int `json:"done"`
	Total   int `json:"total"`
	Percent int `json:"percent" doc:"Share of items done, rounded down; 0 without items"`
}

// RoadmapOut is a project's timeline.
type RoadmapOut struct {
	ProjectID string            `json:"projectId"`
	Start     *time.Time        `json:"start" nullable:"true" doc:"Earliest date over scopes and dated cards"`
	End       *time.Time        `json:"end" nullable:"true" doc:"Latest date over scopes and dated cards"`
	Scopes    []RoadmapScopeOut `json:"scopes"`
	Unscoped  []RoadmapCardOut  `json:"unscoped" doc:"Dated cards outside any scope"`
}

// RoadmapScopeOut is a scope on the roadmap with its dated cards.
type RoadmapScopeOut struct {
	ID        string           `json:"id"`
	Name      string           `json:"name"`
	StartDate *time.Time       `json:"startDate" nullable:"true"`
	EndDate   *time.Time       `json:"endDate" nullable:"true"`
	Cards     []RoadmapCardOut `json:"cards"`
}

// RoadmapCardOut is a dated card (one with a start or due date) on the roadmap.
type RoadmapCardOut struct {
	ID        string         `json:"id"`
	Title     string         `json:"title"`
	ColumnID  string         `json:"columnId"`
	StartDate *time.Time     `json:"startDate" nullable:"true"`
	DueDate   *time.Time     `json:"dueDate" nullable:"true"`
	Priority  board.Priority `json:"priority"`
	Archived  bool           `json:"archived" doc:"Always false: archived cards are left off the roadmap"`
}

func roadmapCards(rows []roadmap.RoadmapCard) []RoadmapCardOut {
	out := make([]RoadmapCardOut, len(rows))
	for i, c := range rows {
		out[i] = RoadmapCardOut{ID: c.ID, Title: c.Title, ColumnID: c.ColumnID, StartDate: c.StartDate, DueDate: c.DueDate,
			Priority: board.Priority(c.Priority)}
	}
	return out
}

func portfolioProjectOut(p pilotage.PortfolioProject) PortfolioProjectOut {
	cols := make([]PortfolioColumnOut, len(p.CardsByColumn))
	for j, c := range p.CardsByColumn {
		cols[j] = PortfolioColumnOut{ColumnID: c.ColumnID, Name: c.Name, Count: c.Count}
	}
	return PortfolioProjectOut{ProjectID: p.ProjectID, Name: p.Name, Deadline: p.Deadline, DaysLeft: p.DaysLeft,
		CardCount: p.CardCount, CardsByColumn: cols,
		CardsByPriority: PortfolioPriorityOut{Low: p.CardsByPriority["low"], Medium: p.CardsByPriority["medium"],
			High: p.CardsByPriority["high"]}, Overdue: p.Overdue,
		Checklist: PortfolioChecklistSummary{Done: p.ChecklistDone, Total: p.ChecklistTotal, Percent: p.ChecklistPercent}}
}

func roadmapOut(rm roadmap.Roadmap) RoadmapOut {
	out := RoadmapOut{ProjectID: rm.ProjectID, Start: rm.Start, End: rm.End, Scopes: make([]RoadmapScopeOut,
		len(rm.Scopes)), Unscoped: roadmapCards(rm.Unscoped)}
	for i, sc := range rm.Scopes {
		out.Scopes[i] = RoadmapScopeOut{ID: sc.ID, Name: sc.Name, StartDate: sc.StartDate, EndDate: sc.EndDate,
			Cards: roadmapCards(sc.Cards)}
	}
	return out
}

// registerPortfolio registers the workspace portfolio, a project's roadmap, and project export and
// import.
func (s boardOps) registerPortfolio() {
	tags := []string{"Projects"}

	register(s.Server, huma.Operation{OperationID: "projects-portfolio", Method: http.MethodGet,
		Path: pathWorkspace + "/projects/portfolio", Summary: "Summarise every project of the workspace", Tags: tags,
		Description: "Per project: deadline and days left, active cards by column and priority, overdue cards " +
			"(due in the past and not in the last column) and checklist progress. Archived cards are not counted."},
		projectRead, s.getPortfolio)

	register(s.Server, huma.Operation{OperationID: "projects-roadmap", Method: http.MethodGet,
		Path: pathProject + "/roadmap", Summary: "Get the project's roadmap", Tags: tags,
		Description: "Scopes (sorted by start, undated last) with their dated cards, and dated cards outside any scope. " +
			"A card is dated when it has a start or due date; cards are sorted by start (start date, else due date). Archived " +
			"cards are left out."},
		projectRead, s.getRoadmap)

	register(s.Server, huma.Operation{OperationID: "projects-export", Method: http.MethodGet,
		Path: pathProject + "/export", Summary: "Export the project as a JSON snapshot", Tags: tags,
		Description: "Everything the project holds (columns, labels, custom fields, scopes, cards with checklists, labels, " +
			"custom values and comments, and relations), with references by index and name rather than id, so it can be " +
			"imported again with POST …/projects/import. Card assignees and attachments are not carried."},
		projectRead, s.exportProject)

	register(s.Server, huma.Operation{OperationID: "projects-import", Method: http.MethodPost,
		Path: pathWorkspace + "/projects/import", Summary: "Create a project from an export", Tags: tags,
		DefaultStatus: http.StatusCreated, MaxBodyBytes: maxImportBodyBytes, Description: "Takes the document GET …/export " +
			"returns; only project.name, columns[].name and cards[].title and columnIndex are required. At most 50 columns " +
			"and 500 cards. Cards refer to columns and scopes by index, to labels and custom fields by name; relations refer " +
			"to cards by index. The project is created whole or not at all, without template columns; the importer becomes " +
			"its member and the author of the imported comments."},
		projectWrite, s.importProject)
}

func (s boardOps) getPortfolio(ctx context.Context, _ *WorkspacePath) (*Output[[]PortfolioProjectOut], error) {
	return listOf(portfolioProjectOut)(s.pilotage.Portfolio(ctx, accessFrom(ctx).WorkspaceID))
}

func (s boardOps) getRoadmap(ctx context.Context, _ *ProjectPath) (*Output[RoadmapOut], error) {
	return oneOf(roadmapOut)(s.roadmaps.Roadmap(ctx, accessFrom(ctx).ProjectID))
}

func (s boardOps) exportProject(ctx context.Context, _ *ProjectPath) (*Output[transfer.TransferDoc], error) {
	a := accessFrom(ctx)
	doc, err := s.transfer.Export(ctx, a.WorkspaceID, a.ProjectID)
	if err != nil {
		return nil, fail(err)
	}
	return &Output[transfer.TransferDoc]{Body: doc}, nil
}

// ImportProjectInput is the request of projects-import.
type ImportProjectInput struct {
	WorkspacePath
	Body transfer.TransferDoc
}

func (s boardOps) importProject(ctx context.Context, in *ImportProjectInput) (*Output[ProjectOut], error) {
	return oneOf(projectOut)(s.transfer.Import(ctx, accessFrom(ctx).WorkspaceID, principalFrom(ctx).User.ID, in.Body))
}
