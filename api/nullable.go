package api

import (
	"encoding/json"
	"reflect"

	"github.com/danielgtaylor/huma/v2"

	"github.com/pilot-dev/pilot/db"
)

// Nullable is a PATCH field that tells "absent" (leave alone) from null (clear) from a value.
type Nullable[T any] struct {
	Set   bool
	Null  bool
	Value T
}

// UnmarshalJSON implements json.Unmarshaler; it is only called when the field is present.
func (n *Nullable[T]) UnmarshalJSON(b []byte) error {
	n.Set = true
	if string(b) == "null" {
		n.Null = true
		return nil
	}
	return json.Unmarshal(b, &n.Value)
}

// Schema documents the field as its value type, nullable.
func (n Nullable[T]) Schema(r huma.Registry) *huma.Schema {
	var zero T
	s := huma.SchemaFromType(r, reflect.TypeOf(zero))
	cp := *s
	cp.Nullable = true
	return &cp
}

// opt converts to the store's optional value.
func (n Nullable[T]) opt() db.Opt[T] {
	if !n.Set {
		return db.Opt[T]{}
	}
	if n.Null {
		return db.Opt[T]{Set: true}
	}
	v := n.Value
	return db.Opt[T]{Set: true, Value: &v}
}
