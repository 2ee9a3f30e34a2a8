package draft

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

// Limits of a roadmap a person edits. They are wider than the model's (llm.MaxRoadmapPhases and
// llm.MaxPhaseDeliverables): a person may add phases and deliverables, and a phase may be left empty (an
// empty column). The texts keep within a column's name and a card's title and description.
const (
	EditMaxPhases           = 20
	EditMaxDeliverables     = 50 // per phase
	EditMaxPhaseNameRunes   = 100
	EditMaxPhaseGoalRunes   = 1000
	EditMaxTitleRunes       = 200
	EditMaxDescriptionRunes = 2000
)

// EditRoadmap replaces a ready draft's roadmap with the one a person adjusted (phases renamed, added,
// removed, reordered; their deliverables likewise), before it is executed. Texts are trimmed; a blank
// phase name or deliverable title, a text past its limit, no phase at all or too many are invalid, naming
// where. Only a draft whose roadmap is ready may be edited: a conflict while a job runs, before a roadmap
// exists, and once executed. The draft's stream gets a status event carrying the new roadmap, so every
// page watching it shows it.
func (e *Engine) EditRoadmap(ctx context.Context, r db.RecordEdit, roadmap DraftRoadmap) (Draft, error) {
	clean, err := cleanRoadmap(roadmap)
	if err != nil {
		return Draft{}, err
	}
	var out Draft
	err = e.core.InTx(ctx, func(tx pgx.Tx, q *dbsqlc.Queries) error {
		row, err := q.DraftGetForUpdate(ctx, dbsqlc.DraftGetForUpdateParams{ID: r.ID, WorkspaceID: r.WorkspaceID})
		if dbcore.IsNotFound(err) {
			return dbcore.NotFound("draft not found")
		}
		if err != nil {
			return fmt.Errorf("lock draft: %w", err)
		}
		if row.Status != DraftRoadmapReady {
			if row.Status == DraftExecuted || row.Status == DraftGenerating || row.Status == DraftRefining {
				return draftStateConflict(row, "have its roadmap edited")
			}
			return dbcore.Conflict(fmt.Sprintf("the draft has no roadmap to edit (status %s); generate it first", row.Status))
		}
		if row, err = q.DraftSetRoadmap(ctx, dbsqlc.DraftSetRoadmapParams{ID: r.ID, Roadmap: jsonOf(clean)}); err != nil {
			return fmt.Errorf("store edited roadmap: %w", err)
		}
		if out, err = draftFromRow(row); err != nil {
			return err
		}
		sum := roadmapSummary(clean)
		_, err = e.store.AppendStreamEventTx(ctx, tx, StreamDraft, r.ID, db.NewStreamEvent{Type: DraftEventStatus,
			Status: DraftRoadmapReady, Message: strings.Replace(sum["summary"].(string), "roadmap ready", "roadmap edited", 1),
			Data: map[string]any{"roadmap": clean, "editedBy": r.ActorID}})
		return err
	})
	return out, err
}

// cleanRoadmap trims a person's roadmap and checks it against the edit limits.
func cleanRoadmap(in DraftRoadmap) (DraftRoadmap, error) {
	if len(in.Phases) == 0 {
		return in, dbcore.Invalid("phases: a roadmap needs at least one phase")
	}
	if len(in.Phases) > EditMaxPhases {
		return in, dbcore.Invalid(fmt.Sprintf("phases: at most %d", EditMaxPhases))
	}
	text := func(where, v string, limit int, required bool) (string, error) {
		v = strings.TrimSpace(v)
		if required && v == "" {
			return v, dbcore.Invalid(where + ": must not be blank")
		}
		if utf8.RuneCountInString(v) > limit {
			return v, dbcore.Invalid(fmt.Sprintf("%s: at most %d characters", where, limit))
		}
		return v, nil
	}
	out := DraftRoadmap{Phases: make([]DraftPhase, 0, len(in.Phases))}
	for i, p := range in.Phases {
		at := fmt.Sprintf("phases[%d]", i)
		var ph DraftPhase
		var err error
		if ph.Name, err = text(at+".name", p.Name, EditMaxPhaseNameRunes, true); err != nil {
			return in, err
		}
		if ph.Goal, err = text(at+".goal", p.Goal, EditMaxPhaseGoalRunes, false); err != nil {
			return in, err
		}
		if len(p.Deliverables) > EditMaxDeliverables {
			return in, dbcore.Invalid(fmt.Sprintf("%s.deliverables: at most %d", at, EditMaxDeliverables))
		}
		ph.Deliverables = make([]DraftDeliverable, 0, len(p.Deliverables))
		for j, d := range p.Deliverables {
			dat := fmt.Sprintf("%s.deliverables[%d]", at, j)
			var dl DraftDeliverable
			if dl.Title, err = text(dat+".title", d.Title, EditMaxTitleRunes, true); err != nil {
				return in, err
			}
			if dl.Description, err = text(dat+".description", d.Description, EditMaxDescriptionRunes, false); err != nil {
				return in, err
			}
			ph.Deliverables = append(ph.Deliverables, dl)
		}
		out.Phases = append(out.Phases, ph)
	}
	return out, nil
}
