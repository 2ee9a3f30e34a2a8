package api

// This file documents /mcp in the OpenAPI document. The endpoint is the MCP SDK's streamable HTTP
// transport mounted on the router beside huma (mcp.go), so huma knows nothing of it: its three operations
// are written here, with the statuses the transport (the SDK, mcpAuth, mcpSessions and mcpErrorShape)
// can answer them with. What the messages carry (tools, resources) is the protocol's own (tools/list,
// resources/list; docs/mcp.md).

import (
	"encoding/json"
	"reflect"

	"github.com/danielgtaylor/huma/v2"
)

// JSONRPCMessage is a JSON-RPC 2.0 message of the Model Context Protocol: a request (method, params and
// an id), a notification (no id), or the response to the request of its id (result or error).
type JSONRPCMessage struct {
	JSONRPC string          `json:"jsonrpc" enum:"2.0"`
	ID      json.RawMessage `json:"id,omitempty" doc:"The request's id; its response carries it back"`
	Method  string          `json:"method,omitempty" doc:"The method of a request or notification (initialize, tools/call, …)"`
	Params  json.RawMessage `json:"params,omitempty" doc:"The method's parameters"`
	Result  json.RawMessage `json:"result,omitempty" doc:"A response's result"`
	Error   *JSONRPCError   `json:"error,omitempty" doc:"A response's error"`
}

// JSONRPCError is the error of a JSON-RPC response.
type JSONRPCError struct {
	Code    int             `json:"code" doc:"The JSON-RPC error code (-32601: no such method, -32602: invalid params, …)"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty" doc:"More about the error"`
}

// The headers of the transport.
const (
	mcpProtocolVersionHeader = "Mcp-Protocol-Version"
	wwwAuthenticateHeader    = "WWW-Authenticate"
)

// documentMCP adds /mcp's operations (POST, GET, DELETE) to doc; other methods answer 405 with Allow.
func documentMCP(doc *huma.OpenAPI) {
	reg := doc.Components.Schemas
	message := reg.Schema(reflect.TypeFor[JSONRPCMessage](), true, "")
	// A batch (an array of messages) is answered with an array of responses.
	messages := &huma.Schema{AnyOf: []*huma.Schema{message, {Type: huma.TypeArray, Items: message}}}
	errorBody := reg.Schema(reflect.TypeFor[ErrorBody](), true, "")
	str := func(description string) *huma.Schema {
		return &huma.Schema{Type: huma.TypeString, Description: description}
	}
	sessionParam := func(required bool, description string) *huma.Param {
		return &huma.Param{Name: mcpSessionHeader, In: "header", Required: required, Description: description,
			Schema: str("")}
	}
	versionParam := &huma.Param{Name: mcpProtocolVersionHeader, In: "header", Schema: str(""),
		Description: "The protocol version agreed at initialize (2025-06-18, …); one the server does not support is a 400"}
	errorContent := func(alt *huma.Schema) map[string]*huma.MediaType {
		s := errorBody
		if alt != nil {
			s = &huma.Schema{AnyOf: []*huma.Schema{errorBody, alt}}
		}
		return map[string]*huma.MediaType{"application/json": {Schema: s}}
	}
	errorResponse := func(description string) *huma.Response {
		return &huma.Response{Description: description, Content: errorContent(nil)}
	}
	// Every operation: authentication (mcpAuth), the session it names (the SDK), a database out of reach.
	common := func() map[string]*huma.Response {
		return map[string]*huma.Response{
			"401": {Description: "No valid bearer token (JWT or personal access token)", Content: errorContent(nil),
				Headers: map[string]*huma.Header{wwwAuthenticateHeader: {Required: true, Schema: str(`Bearer ` +
					`realm="pilot", and the token's error when one was sent`)}}},
			"403": errorResponse("The session is another user's"),
			"404": errorResponse("The session is unknown: it was closed or it expired; start " +
				"a new one with initialize"),
			"500": errorResponse("Internal Server Error"),
			"503": errorResponse("The database is out of reach, or (POST opening a session) this server holds as " +
				"many sessions as it may"), // with Retry-After (finishOpenAPI)
		}
	}
	security := []map[string][]string{{"bearer": {}}}
	tags := []string{"MCP"}

	post := common()
	post["200"] = &huma.Response{Description: "The response to the request the message was: JSON, or an event " +
		"stream of the messages up to it", Content: map[string]*huma.MediaType{
		"application/json":  {Schema: messages},
		"text/event-stream": {Schema: str("")},
	}, Headers: map[string]*huma.Header{mcpSessionHeader: {Schema: str("On the answer to initialize: the new " +
		"session's id, to send with every later request")}}}
	post["202"] = &huma.Response{Description: "The notification or response was accepted (no body)"}
	post["400"] = &huma.Response{Description: "A malformed or refused message, a missing Accept of both media types, " +
		"an unsupported protocol version: in the error shape, or a JSON-RPC error for a message the protocol " +
		"refuses", Content: errorContent(message)}
	post["404"].Content = errorContent(message) // a JSON-RPC error for an unknown method (protocol 2026-07-28)
	post["413"] = errorResponse("The message is too large")
	post["415"] = errorResponse("The body is not application/json")
	post["429"] = errorResponse("Opening a session: every session the user may hold is " +
		"serving a request; end one (DELETE /mcp) first")

	get := common()
	get["200"] = &huma.Response{Description: "The session's stream of messages from the server",
		Content: map[string]*huma.MediaType{"text/event-stream": {Schema: str("")}}}
	get["400"] = errorResponse("No Mcp-Session-Id, an Accept without text/event-stream, a " +
		"Last-Event-ID (replay is not supported) or an unsupported protocol version")

	del := common()
	del["204"] = &huma.Response{Description: "The session ended"}
	del["400"] = errorResponse("No Mcp-Session-Id or an unsupported protocol version")

	const methods = " Methods other than POST, GET and DELETE answer 405 with Allow: GET, POST, DELETE."
	doc.Paths[mcpPath] = &huma.PathItem{
		Post: &huma.Operation{OperationID: "mcp-post", Summary: "Send an MCP message", Tags: tags, Security: security,
			Description: "Model Context Protocol over streamable HTTP: sends one JSON-RPC message (a batch, an " +
				"array of them, only before protocol 2025-06-18) with `Accept: application/json, " +
				"text/event-stream`. A POST without Mcp-Session-Id must be an initialize: it opens a session whose id " +
				"the answer carries. Personal access tokens work with the scopes each tool names." + methods,
			Parameters: []*huma.Param{sessionParam(false, "The session, from the answer to initialize; absent on "+
				"initialize"), versionParam},
			RequestBody: &huma.RequestBody{Required: true,
				Content: map[string]*huma.MediaType{"application/json": {Schema: messages}}},
			Responses: post},
		Get: &huma.Operation{OperationID: "mcp-get", Summary: "Listen to an MCP session", Tags: tags,
			Security: security, Description: "Opens the session's event stream (`Accept: text/event-stream`): " +
				"the requests and notifications the server sends outside a response." + methods,
			Parameters: []*huma.Param{sessionParam(true, "The session"), versionParam}, Responses: get},
		Delete: &huma.Operation{OperationID: "mcp-delete", Summary: "End an MCP session", Tags: tags,
			Security: security, Description: "Ends the session: its id answers 404 from then on." + methods,
			Parameters: []*huma.Param{sessionParam(true, "The session"), versionParam}, Responses: del},
	}
}
