package api

// MCP tool arguments are validated here, with huma's rules and messages, before the SDK sees them. The
// SDK's generic mcp.AddTool validates arguments against the input schema itself, with
// github.com/google/jsonschema-go, whose errors read like the validator's internals (`validating
// "arguments": validating root: validating /properties/title: minLength: …`), and offers no hook to
// replace them. A receiving middleware on tools/call (validateToolArgs) runs first: it validates the
// arguments against the very schema the tool publishes, with huma.Validate as REST does, and answers a
// refusal as a tool error `bad request: <field path>: <message>` (`title: expected length >= 1`,
// `priority: expected value to be one of "low, medium, high"`). Arguments it lets through also satisfy
// the SDK's check of the same schema, which stays as a backstop.

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"

	"github.com/danielgtaylor/huma/v2"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// argsSchema is a tool's input schema as huma holds it (the registry resolves its $refs).
type argsSchema struct {
	reg    huma.Registry
	schema *huma.Schema
}

// inputSchema is T's JSON Schema as a tool publishes it (toolSchema) and the same schema as huma
// validates with.
func inputSchema[T any]() (map[string]any, *argsSchema) {
	reg := toolRegistry()
	top := reg.Schema(reflect.TypeFor[T](), false, "")
	top.PrecomputeMessages()
	for _, s := range reg.Map() {
		s.PrecomputeMessages()
	}
	return schemaJSON(reg, top, reflect.TypeFor[T]()), &argsSchema{reg: reg, schema: top}
}

// check validates a tool call's arguments; the error names each failing field as `<path>: <message>`
// (`items[0].title: expected length <= 500`), one per failure, in path order.
func (a *argsSchema) check(raw json.RawMessage) error {
	var v any = map[string]any{}
	if len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &v); err != nil {
			return errBadRequest("arguments: expected a JSON object")
		}
	}
	res := &huma.ValidateResult{}
	huma.Validate(a.reg, a.schema, huma.NewPathBuffer(make([]byte, 0, 64), 0), huma.ModeWriteToServer, v, res)
	if len(res.Errors) == 0 {
		return nil
	}
	msgs := make([]string, 0, len(res.Errors))
	for _, err := range res.Errors {
		var d *huma.ErrorDetail
		if !errors.As(err, &d) {
			msgs = append(msgs, "arguments: "+err.Error())
			continue
		}
		msgs = append(msgs, fieldMessage(d.Location, d.Message))
	}
	slices.Sort(msgs)
	return errBadRequest(strings.Join(slices.Compact(msgs), "; "))
}

// fieldMessage is one failure as `<path>: <message>`. huma reports a missing property at its parent
// object; the path names the property itself. The root is "arguments".
func fieldMessage(path, msg string) string {
	if rest, ok := strings.CutPrefix(msg, "expected required property "); ok {
		if name, ok := strings.CutSuffix(rest, " to be present"); ok {
			if path != "" {
				name = path + "." + name
			}
			path = name
		}
	}
	if path == "" {
		path = "arguments"
	}
	return path + ": " + msg
}

// validateToolArgs is the receiving middleware that validates a tools/call's arguments against the
// tool's schema before the SDK does (see the file's comment); a refusal is a tool error, as every
// refusal of a tool is. Calls of unknown tools go on to the SDK, which answers them.
func (s *Server) validateToolArgs(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		call, ok := req.(*mcp.CallToolRequest)
		if method != "tools/call" || !ok || call.Params == nil {
			return next(ctx, method, req)
		}
		args := s.mcp.args[call.Params.Name]
		if args == nil {
			return next(ctx, method, req)
		}
		if err := args.check(call.Params.Arguments); err != nil {
			res := &mcp.CallToolResult{}
			res.SetError(s.toolError(ctx, call.Params.Name, err))
			return res, nil
		}
		return next(ctx, method, req)
	}
}
