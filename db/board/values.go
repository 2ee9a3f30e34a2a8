package board

import "slices"

// Priority is how urgent a card is.
type Priority string

// The priorities, lowest first.
const (
	PriorityLow    Priority = "low"
	PriorityMedium Priority = "medium"
	PriorityHigh   Priority = "high"
)

// Priorities lists every priority, lowest first.
var Priorities = []Priority{PriorityLow, PriorityMedium, PriorityHigh}

// Values lists the valid priorities (the OpenAPI document's enum).
func (Priority) Values() []Priority { return Priorities }

// Valid says whether p is one of Priorities.
func (p Priority) Valid() bool { return slices.Contains(Priorities, p) }

// Status is where a card stands, derived from its column and whether it is archived (StatusOf).
type Status string

// The card statuses.
const (
	StatusTodo       Status = "todo"
	StatusInProgress Status = "in_progress"
	StatusDone       Status = "done"
	StatusArchived   Status = "archived"
)

// Statuses lists every card status.
var Statuses = []Status{StatusTodo, StatusInProgress, StatusDone, StatusArchived}

// Values lists the valid statuses (the OpenAPI document's enum).
func (Status) Values() []Status { return Statuses }

// Valid says whether s is one of Statuses.
func (s Status) Valid() bool { return slices.Contains(Statuses, s) }
