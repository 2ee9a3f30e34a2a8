package api

import (
	"reflect"

	"github.com/danielgtaylor/huma/v2"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/audit"
	"github.com/pilot-dev/pilot/db/board"
	"github.com/pilot-dev/pilot/db/mission"
	"github.com/pilot-dev/pilot/db/recurrence"
	"github.com/pilot-dev/pilot/db/tenancy"
	"github.com/pilot-dev/pilot/db/webhook"
)

// domainValue is a domain value type of the store's engines (board.Priority, a role, a status): a string
// type whose Values method lists its valid values.
type domainValue[T any] interface {
	~string
	Values() []T
}

// valueSchema is the OpenAPI schema of domain value type T: a string, one of T's Values. The operations'
// validation checks a value against it before any handler runs, so a value is checked once, at the edge.
type valueSchema[T domainValue[T]] struct{}

// Schema implements huma.SchemaProvider.
func (valueSchema[T]) Schema(huma.Registry) *huma.Schema {
	var zero T
	values := zero.Values()
	enum := make([]any, len(values))
	for i, v := range values {
		enum[i] = string(v)
	}
	return &huma.Schema{Type: huma.TypeString, Enum: enum}
}

// registerValue makes every field, parameter and answer of type T (or *T, or []T) take T's enum.
func registerValue[T domainValue[T]](r huma.Registry) {
	r.RegisterTypeAlias(reflect.TypeFor[T](), reflect.TypeFor[valueSchema[T]]())
}

// registerValues registers the domain value types the operations use; huma.NewError's override and
// this come before any operation is registered.
func registerValues(r huma.Registry) {
	registerValue[board.Priority](r)
	registerValue[board.Status](r)
	registerValue[tenancy.OrgRole](r)
	registerValue[tenancy.WorkspaceRole](r)
	registerValue[tenancy.PilotageRole](r)
	registerValue[db.MissionStatus](r)
	registerValue[db.Trigger](r)
	registerValue[mission.ProposalStatus](r)
	registerValue[webhook.EventType](r)
	registerValue[db.AuditKind](r)
	registerValue[audit.Format](r)
	registerValue[recurrence.Mode](r)
}

// toolRegistry is a schema registry for the schemas MCP tools publish and validate with (their types
// under $defs), with the domain value types' enums as in the API's document.
func toolRegistry() huma.Registry {
	reg := huma.NewMapRegistry("#/$defs/", huma.DefaultSchemaNamer)
	registerValues(reg)
	return reg
}
