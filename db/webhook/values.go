package webhook

import (
	"slices"

	"github.com/pilot-dev/pilot/db"
)

// EventType is what a webhook listens to: an activity type (every activity of a workspace reaches its
// webhooks, db.ActivityTypes), or EventAll for every one.
type EventType string

// EventAll in a webhook's events subscribes it to every activity type.
const EventAll EventType = "*"

// EventTypes lists every event type a webhook may list: each activity type, then EventAll.
var EventTypes = append(valuesOf[EventType](db.ActivityTypes), EventAll)

// Values lists the valid event types (the OpenAPI document's enum).
func (EventType) Values() []EventType { return EventTypes }

// Valid says whether t is one of EventTypes.
func (t EventType) Valid() bool { return slices.Contains(EventTypes, t) }

// valuesOf converts a list of strings (or of a string type) to a list of another string type.
func valuesOf[T, S ~string](s []S) []T {
	out := make([]T, len(s))
	for i, v := range s {
		out[i] = T(v)
	}
	return out
}
