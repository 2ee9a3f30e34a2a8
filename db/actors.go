package db

import (
	"context"
	"slices"

	"github.com/pilot-dev/pilot/db/internal/dbcore"
)

// ActorType says who made a change: a person, an agent (through its service user, for a person) or
// nobody (the system: a due date passing).
type ActorType string

// The actor types.
const (
	ActorPerson ActorType = "person"
	ActorAgent  ActorType = "agent"
	ActorSystem ActorType = "system"
)

// ActorTypes lists every actor type.
var ActorTypes = []ActorType{ActorPerson, ActorAgent, ActorSystem}

// Values lists the actor types (the OpenAPI document's enum).
func (ActorType) Values() []ActorType { return ActorTypes }

// Valid says whether t is one of ActorTypes.
func (t ActorType) Valid() bool { return slices.Contains(ActorTypes, t) }

// AgentRef names the agent that acted. ID is null for an activity recorded before agents were recorded
// on activities (its actor's service user still says an agent acted).
type AgentRef struct {
	ID   *string `json:"id" nullable:"true"`
	Name string  `json:"name"`
}

// PersonRef names a person: who an agent acted for.
type PersonRef struct {
	ID   string `json:"id"`
	Name string `json:"name" doc:"Their name now; empty when the account is gone"`
}

// ActorColumns are the columns every read of activities adds about who acted (migration 00041): the actor
// type the query worked out, the agent and its name, the person it acted for and their name.
type ActorColumns struct {
	ActorType      string
	AgentID        *string
	AgentName      string
	OnBehalfOf     *string
	OnBehalfOfName string
}

// Type is the actor type (person when the query said nothing else).
func (c ActorColumns) Type() ActorType {
	if t := ActorType(c.ActorType); t.Valid() {
		return t
	}
	return ActorPerson
}

// AgentRef is the agent that acted, or nil when no agent did.
func (c ActorColumns) AgentRef() *AgentRef {
	if c.Type() != ActorAgent {
		return nil
	}
	return &AgentRef{ID: c.AgentID, Name: c.AgentName}
}

// PersonRef is the person an agent acted for, or nil.
func (c ActorColumns) PersonRef() *PersonRef {
	if c.OnBehalfOf == nil {
		return nil
	}
	return &PersonRef{ID: *c.OnBehalfOf, Name: c.OnBehalfOfName}
}

// Acting says that what follows in ctx is done by an agent for a person (dbcore.Acting): every activity
// recorded and comment written under it names them.
func Acting(ctx context.Context, agentID, onBehalfOf string) context.Context {
	return dbcore.WithActing(ctx, dbcore.Acting{AgentID: agentID, OnBehalfOf: onBehalfOf})
}
