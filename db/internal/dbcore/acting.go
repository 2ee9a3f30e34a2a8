package dbcore

import "context"

// Acting is an agent acting for a person: the mission's agent and the member who started the mission
// (or approved the proposal being applied). The mission executor puts it in the context of the store
// calls that apply an agent's action, so the activities they record and the comments they write say who
// acted for whom without every engine's signature carrying it.
type Acting struct {
	AgentID, OnBehalfOf string
}

type actingKey struct{}

// WithActing is ctx carrying a.
func WithActing(ctx context.Context, a Acting) context.Context {
	return context.WithValue(ctx, actingKey{}, a)
}

// ActingFrom is the Acting ctx carries, ok false when none.
func ActingFrom(ctx context.Context) (Acting, bool) {
	a, ok := ctx.Value(actingKey{}).(Acting)
	return a, ok
}
