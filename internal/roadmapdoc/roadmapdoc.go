// Package roadmapdoc is the phased roadmap of a project draft, as one JSON document: the language model
// writes it (llm), the draft keeps it (db/draft) and the API answers it. It imports nothing, so both
// sides share it without the store depending on the model's package or the other way round. The type
// names are the OpenAPI document's schema names.
package roadmapdoc

// DraftRoadmap is a draft's phased plan: each phase becomes a column on execution, each deliverable a
// card.
type DraftRoadmap struct {
	Phases []DraftPhase `json:"phases"`
}

// DraftPhase is one stage of a roadmap; it becomes a column on execution.
type DraftPhase struct {
	Name         string             `json:"name"`
	Goal         string             `json:"goal"`
	Deliverables []DraftDeliverable `json:"deliverables"`
}

// DraftDeliverable is one outcome of a phase; it becomes a card on execution.
type DraftDeliverable struct {
	Title       string `json:"title"`
	Description string `json:"description"`
}
