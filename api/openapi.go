package api

// This file finishes the OpenAPI document once every operation is registered, so that clients and
// linters (make lint runs redocly on it) can rely on it: its server, its described tags, and no keyword
// that OpenAPI 3.1 does not know.

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/danielgtaylor/huma/v2"
)

// tagDescriptions describe every tag an operation uses: the document lists them in this order.
var tagDescriptions = []struct{ name, description string }{
	{"Identity", "Sign-up, login and logout, the current user, sessions, password reset and e-mail verification."},
	{"Two-factor authentication", "TOTP second factor: enrolment, confirmation, recovery codes and turning it off."},
	{"Personal access tokens", "Scoped tokens for scripts and integrations, sent as `Authorization: Bearer`."},
	{"Calendar feeds", "Secret iCalendar URLs of the cards you are assigned or of a project, for calendar applications."},
	{"Notifications", "The caller's notifications and their read state."},
	{"Organizations", "Organizations, their members, roles and invitations."},
	{"Audit log", "Security and administration events, append-only: an organization's, and an account's own."},
	{"Workspaces", "Workspaces of an organization, their members and invitations."},
	{"Projects", "A workspace's projects, their templates, export and import."},
	{"Columns", "A project's board columns and their order."},
	{"Cards", "Cards of a project: create, list, move, update, archive."},
	{"Checklist", "A card's checklist items."},
	{"Labels", "A project's labels and the labels put on cards."},
	{"Custom fields", "A project's custom field definitions and the values cards carry."},
	{"Recurring cards", "A card that repeats: its series (an RFC 5545 rule in an IANA time zone, on schedule or " +
		"after completion) and the occurrences created from it."},
	{"Relations", "Links between cards."},
	{"Comments", "Comments on cards."},
	{"Attachments", "Files attached to cards: upload, download, delete."},
	{"Scopes", "A project's scopes, their settings and views."},
	{"Pilotage", "The strategic cockpit: its consolidated view, decisions, and the actions agents propose."},
	{"Automations", "Rules that act on card events, and their executions."},
	{"Pipelines", "Multi-step pipelines of jobs, their runs and steps."},
	{"Webhooks", "A workspace's outbound webhooks: signed deliveries of its activities, their attempts and redelivery."},
	{"Plugins", "The plugin catalog, and the plugins a workspace installs with their settings."},
	{"Agents", "AI agents, their skills, missions and proposals."},
	{"Project drafts", "Drafting a project with an agent: refine a brief, generate a roadmap, apply it."},
	{"Documents", "The workspace's knowledge base: documents, their versions and links."},
	{"Search", "Full-text search over a workspace's cards and documents."},
	{"MCP", "The Model Context Protocol endpoint for AI clients (streamable HTTP): the same data and rights as " +
		"the REST API, as tools and resources the protocol lists."},
	{"Events", "The workspace's live event feed (server-sent events): every change the caller may read, in order, " +
		"resumable."},
}

// retryAfterOperations answer every 429 with Retry-After: the rate limits' refusals (limited) and the
// login lockout's. The document says so on their 429 answers (huma writes an operation's error answers
// itself, without headers).
var retryAfterOperations = []string{"auth-register", "auth-login", "auth-2fa-enable", "auth-2fa-disable",
	"auth-2fa-recovery-codes", "auth-2fa-verify", "auth-forgot-password", "auth-verify-email-send"}

// finishOpenAPI sets the document's server (Options.PublicURL, "/" when empty), declares Retry-After on
// the 429 answers of retryAfterOperations and on every 503 answer (a database out of reach, errors.go),
// and lists every tag the operations use with its description, panicking on a tag tagDescriptions lacks
// (as register panics on an undeclared access).
func finishOpenAPI(doc *huma.OpenAPI, publicURL string) {
	if publicURL == "" {
		publicURL = "/"
	}
	doc.Servers = []*huma.Server{{URL: publicURL}}

	used := map[string]bool{}
	retryAfter := map[string]bool{}
	for _, item := range doc.Paths {
		for _, op := range []*huma.Operation{item.Get, item.Put, item.Post, item.Delete, item.Options, item.Head, item.Patch,
			item.Trace} {
			if op == nil {
				continue
			}
			for _, t := range op.Tags {
				used[t] = true
			}
			if slices.Contains(retryAfterOperations, op.OperationID) {
				declareRetryAfter(op, "429")
				retryAfter[op.OperationID] = true
			}
			if op.Responses["503"] != nil {
				declareRetryAfter(op, "503")
			}
		}
	}
	if len(retryAfter) != len(retryAfterOperations) {
		panic(fmt.Sprintf("retryAfterOperations names operations that are not registered: %v", retryAfterOperations))
	}
	doc.Tags = nil
	for _, t := range tagDescriptions {
		if used[t.name] {
			doc.Tags = append(doc.Tags, &huma.Tag{Name: t.name, Description: t.description})
			delete(used, t.name)
		}
	}
	if len(used) > 0 {
		missing := slices.Sorted(maps.Keys(used))
		panic(fmt.Sprintf("tags without a description in tagDescriptions: %s", strings.Join(missing, ", ")))
	}
}

// declareRetryAfter documents the Retry-After header of op's answer of status code, which op must list.
func declareRetryAfter(op *huma.Operation, code string) {
	r := op.Responses[code]
	if r == nil {
		panic(fmt.Sprintf("operation %s lists no %s answer for its Retry-After", op.OperationID, code))
	}
	if r.Headers == nil {
		r.Headers = map[string]*huma.Header{}
	}
	one := 1.0
	r.Headers["Retry-After"] = &huma.Header{Description: "Seconds to wait before trying again",
		Schema: &huma.Schema{Type: huma.TypeInteger, Minimum: &one}}
}

// The published document (GET /api/openapi.json, `pilot openapi`) is huma's, rewritten where huma cannot
// say what the API does: JSON values it only knows as json.RawMessage or map[string]any get their
// schema (propertySchemas), event streams are strings, the nulls encoding/json writes are values of
// their schemas (nullableObjects, nullInEnums), and huma's patternDescription (no OpenAPI keyword) moves
// into the description. Requests are still validated against huma's own schemas, so the store keeps
// refusing a malformed JSON value with its own message.

// jsonValueRef is any JSON value (components/schemas/JSONValue).
var jsonValueRef = map[string]any{"$ref": "#/components/schemas/JSONValue"}

// jsonSchemas are components/schemas/JSONValue and the object and array it may be. A JSONArray's items
// are any JSON value but say so without a $ref to JSONValue: generated TypeScript puts schemas in an
// interface, where an array of JSONValue inside JSONValue is a circular type to tsc (objects are fine).
// TestOpenAPIDocumentIsTyped allows this one schema without a type.
var jsonSchemas = map[string]any{
	"JSONValue": map[string]any{
		"description": "Any JSON value",
		"anyOf": []any{
			map[string]any{"type": "string"}, map[string]any{"type": "number"}, map[string]any{"type": "boolean"},
			map[string]any{"type": "null"},
			map[string]any{"$ref": "#/components/schemas/JSONObject"}, map[string]any{"$ref": "#/components/schemas/JSONArray"},
		},
	},
	"JSONObject": map[string]any{"description": "A JSON object", "type": "object", "additionalProperties": jsonValueRef},
	"JSONArray": map[string]any{"description": "A JSON array", "type": "array",
		"items": map[string]any{"description": "Any JSON value (see JSONValue)"}},
}

// object is a JSON object of any members; nullable adds null.
func object(nullable bool) map[string]any {
	s := map[string]any{"type": "object", "additionalProperties": jsonValueRef}
	if nullable {
		s["type"] = []any{"object", "null"}
	}
	return s
}

func arrayOf(ref string) map[string]any {
	return map[string]any{"type": "array", "items": map[string]any{"$ref": "#/components/schemas/" + ref}}
}

// ruleAction is an automation rule's action: its type and that type's parameters.
func ruleAction() map[string]any {
	return map[string]any{"type": "object", "required": []any{"type"},
		"properties": map[string]any{"type": map[string]any{"type": "string"}}, "additionalProperties": jsonValueRef}
}

// propertySchemas are the schemas of the properties huma leaves untyped, by component and property;
// each keeps its description. publishOpenAPI fails on an entry whose property is gone.
var propertySchemas = map[string]map[string]func() map[string]any{
	"ActivityOut":     {"meta": func() map[string]any { return object(false) }},
	"AuditEntryOut":   {"changes": func() map[string]any { return object(false) }},
	"CardActivityOut": {"meta": func() map[string]any { return object(false) }},
	"CardOut": {
		"checklist": func() map[string]any {
			return map[string]any{"type": "array", "items": map[string]any{"type": "object",
				"required": []any{"_id", "title", "done", "order"},
				"properties": map[string]any{"_id": map[string]any{"type": "string"}, "title": map[string]any{"type": "string"},
					"done": map[string]any{"type": "boolean"}, "order": map[string]any{"type": "number"}}}}
		},
		"labels": func() map[string]any {
			return map[string]any{"type": "array", "items": map[string]any{"type": "object",
				"required": []any{"id", "name", "color"},
				"properties": map[string]any{"id": map[string]any{"type": "string"}, "name": map[string]any{"type": "string"},
					"color": map[string]any{"type": "string"}}}}
		},
		"customFields": func() map[string]any { return object(false) },
	},
	"CreateDocumentInputBody":        {"metadata": func() map[string]any { return object(false) }},
	"UpdateDocumentInputBody":        {"metadata": func() map[string]any { return object(true) }},
	"DocumentNodeOut":                {"metadata": func() map[string]any { return object(false) }},
	"DocumentOut":                    {"metadata": func() map[string]any { return object(false) }},
	"DocumentSummaryOut":             {"metadata": func() map[string]any { return object(false) }},
	"CreateRuleInputBody":            {"action": ruleAction, "conditions": func() map[string]any { return object(false) }},
	"UpdateRuleInputBody":            {"action": ruleAction, "conditions": func() map[string]any { return object(false) }},
	"RuleOut":                        {"action": ruleAction, "conditions": func() map[string]any { return object(false) }},
	"CreateScopeInputBody":           {"settings": func() map[string]any { return object(false) }},
	"UpdateScopeInputBody":           {"settings": func() map[string]any { return object(true) }},
	"ScopeOut":                       {"settings": func() map[string]any { return object(false) }},
	"TransferScope":                  {"settings": func() map[string]any { return object(false) }},
	"TransferCard":                   {"customFields": func() map[string]any { return object(false) }},
	"HistoryEntryOut":                {"data": func() map[string]any { return jsonValueRef }},
	"InstalledPluginOut":             {"settings": func() map[string]any { return object(false) }},
	"PluginSettingsInputBody":        {"settings": func() map[string]any { return object(false) }},
	"SettingProperty":                {"default": func() map[string]any { return jsonValueRef }},
	"PilotageActionOut":              {"payload": func() map[string]any { return object(false) }},
	"ProposePilotageActionInputBody": {"payload": func() map[string]any { return object(false) }},
	"ProposalOut":                    {"args": func() map[string]any { return object(false) }},
	"SetCardCustomValuesInputBody":   {"values": func() map[string]any { return object(false) }},
	"StepIn":                         {"params": func() map[string]any { return object(false) }},
	"PipelineOut":                    {"steps": func() map[string]any { return arrayOf("StepIn") }},
	"RunStepOut":                     {"output": func() map[string]any { return object(true) }},
	"JSONRPCMessage": {
		"id": func() map[string]any {
			return map[string]any{"type": []any{"string", "integer", "null"}}
		},
		"params": func() map[string]any { return object(false) },
		"result": func() map[string]any { return jsonValueRef },
	},
	"JSONRPCError": {"data": func() map[string]any { return jsonValueRef }},
	"PilotageStateOut": {
		"missions":         func() map[string]any { return arrayOf(stateRecordSchema("PilotageMissionOut")) },
		"activePriorities": func() map[string]any { return arrayOf(stateRecordSchema("PilotagePriorityOut")) },
		"todos":            func() map[string]any { return arrayOf(stateRecordSchema("PilotageTodoOut")) },
		"decisions":        func() map[string]any { return arrayOf(stateRecordSchema("PilotageDecisionOut")) },
		"activeDocs":       func() map[string]any { return arrayOf(stateRecordSchema("PilotageDocOut")) },
	},
}

// stateRecords are the record kinds of the pilotage state (minimalFields' keys) by their output type.
var stateRecords = map[string]string{"PilotageMissionOut": "mission", "PilotagePriorityOut": "priority",
	"PilotageTodoOut": "todo", "PilotageDecisionOut": "decision", "PilotageDocOut": "doc"}

// stateRecordSchema names the schema of a record of the pilotage state whose output type is out
// (stateRecordSchemas).
func stateRecordSchema(out string) string { return strings.TrimSuffix(out, "Out") + "AtDetail" }

// stateRecordSchemas adds to schemas the records of the pilotage state: each its output type's schema
// with only the fields every detailLevel keeps required (minimalFields), as minimal keeps only those and
// standard drops the audit fields.
func stateRecordSchemas(schemas map[string]any) error {
	for out, kind := range stateRecords {
		full, ok := schemas[out].(map[string]any)
		if !ok {
			return fmt.Errorf("openapi: no %s for the pilotage state", out)
		}
		s := maps.Clone(full)
		required := make([]any, len(minimalFields[kind]))
		for i, f := range minimalFields[kind] {
			required[i] = f
		}
		s["required"] = required
		s["description"] = fmt.Sprintf("A %s as the pilotage state answers it, with the fields of its detailLevel: "+
			"minimal keeps %s; standard all but %s; detailed all", out, strings.Join(minimalFields[kind], ", "),
			strings.Join(auditFields, ", "))
		schemas[stateRecordSchema(out)] = s
	}
	return nil
}

// publishOpenAPI renders the published document from huma's.
func publishOpenAPI(doc *huma.OpenAPI) ([]byte, error) {
	b, err := json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	components, _ := m["components"].(map[string]any)
	schemas, _ := components["schemas"].(map[string]any)
	if schemas == nil {
		return nil, errors.New("openapi: no components.schemas")
	}
	for name, props := range propertySchemas {
		sch, _ := schemas[name].(map[string]any)
		properties, _ := sch["properties"].(map[string]any)
		for prop, schema := range props {
			old, ok := properties[prop].(map[string]any)
			if !ok {
				return nil, fmt.Errorf("openapi: propertySchemas names %s.%s, which the document lacks", name, prop)
			}
			s := schema()
			if d, ok := old["description"]; ok {
				if _, isRef := s["$ref"]; isRef {
					s = map[string]any{"allOf": []any{s}}
				}
				s = maps.Clone(s)
				s["description"] = d
			}
			properties[prop] = s
		}
	}
	nullableObjects(schemas, doc.Components.Schemas)
	if err := stateRecordSchemas(schemas); err != nil {
		return nil, err
	}
	maps.Copy(schemas, jsonSchemas)
	paths, _ := m["paths"].(map[string]any)
	for _, item := range paths {
		for _, op := range item.(map[string]any) {
			responses, _ := op.(map[string]any)["responses"].(map[string]any)
			for _, r := range responses {
				content, _ := r.(map[string]any)["content"].(map[string]any)
				if mt, ok := content["text/event-stream"].(map[string]any); ok {
					mt["schema"] = map[string]any{"type": "string", "description": "Server-sent events, one `event:` and `data:` " +
						"(JSON) per message"}
				}
			}
		}
	}
	// huma types a nullable enum [T, "null"] but leaves null out of its values (UsageContextOut.intent).
	nullInEnums(m)
	walkJSON(m, func(s map[string]any) {
		if pd, ok := s["patternDescription"].(string); ok {
			delete(s, "patternDescription")
			if d, _ := s["description"].(string); !strings.Contains(d, pd) {
				s["description"] = strings.TrimSpace(d + " (" + pd + ")")
			}
		}
	})
	return json.Marshal(m)
}

// nullableObjects makes null a value of every property that encoding/json writes as null: a pointer to a
// struct without omitempty (DraftOut.roadmap before the roadmap exists, PilotageActionOut.result until
// applied), which huma documents as its object alone (it cannot mark an object nullable). Such a
// property becomes anyOf [the object, null], keeping its description. schemas are the published
// components, reg huma's registry of their Go types.
func nullableObjects(schemas map[string]any, reg huma.Registry) {
	for name, sch := range schemas {
		t := reg.TypeFromRef(schemaRefPrefix + name)
		properties, _ := sch.(map[string]any)["properties"].(map[string]any)
		if t == nil || properties == nil {
			continue
		}
		for _, prop := range nullablePointerFields(t) {
			ps, _ := properties[prop].(map[string]any)
			ref, ok := ps["$ref"]
			if !ok {
				continue
			}
			s := map[string]any{"anyOf": []any{map[string]any{"$ref": ref}, map[string]any{"type": "null"}}}
			if d, ok := ps["description"]; ok {
				s["description"] = d
			}
			properties[prop] = s
		}
	}
}

// schemaRefPrefix is how huma's registry names the components it holds.
const schemaRefPrefix = "#/components/schemas/"

// writesNullObject says whether encoding/json may write field f as null where its schema is an object: a
// pointer to a struct without omitempty, unless its nullable:"false" tag says it is never nil.
func writesNullObject(f reflect.StructField) bool {
	_, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
	return f.Type.Kind() == reflect.Pointer && f.Type.Elem().Kind() == reflect.Struct &&
		!slices.Contains(strings.Split(opts, ","), "omitempty") && f.Tag.Get("nullable") != "false"
}

// nullablePointerFields are the JSON names of t's fields (embedded structs' included) that writesNullObject.
func nullablePointerFields(t reflect.Type) []string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil
	}
	var out []string
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if f.Anonymous && name == "" {
			out = append(out, nullablePointerFields(f.Type)...)
			continue
		}
		if name == "" {
			name = f.Name
		}
		if name != "-" && f.IsExported() && writesNullObject(f) {
			out = append(out, name)
		}
	}
	return out
}

// walkJSON calls f on every object inside v.
func walkJSON(v any, f func(map[string]any)) {
	switch v := v.(type) {
	case map[string]any:
		f(v)
		for _, e := range v {
			walkJSON(e, f)
		}
	case []any:
		for _, e := range v {
			walkJSON(e, f)
		}
	}
}
