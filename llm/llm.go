package llm

import (
	"context"
	"encoding/json"
	"errors"
	"time"
)

// Message roles understood by every Provider.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleTool      = "tool"
)

// Finish reasons a Provider reports in Response.FinishReason. Servers may report others (for
// example "length" or "content_filter"); they are passed through unchanged.
const (
	FinishStop      = "stop"
	FinishToolCalls = "tool_calls"
)

// ErrMalformedOutput is returned, wrapped with detail, when a model turn cannot be used: a tool call
// whose arguments are not a JSON object, a tool call naming a tool that was not offered in
// Request.Tools, a stream that cannot be decoded, or a turn with neither content nor tool calls.
var ErrMalformedOutput = errors.New("llm: malformed model output")

// ErrRateLimited is returned, wrapped with the last server error, when the server still answers
// 429 Too Many Requests after every retry.
var ErrRateLimited = errors.New("llm: rate limited")

// Message is one entry of a conversation.
//
// A tool result is a Message with Role "tool", the result text in Content and the ToolCallID of
// the call it answers. An assistant turn that called tools is sent back as a Message with Role
// "assistant" and its ToolCalls.
type Message struct {
	// Role is one of "system", "user", "assistant" or "tool".
	Role string
	// Content is the text of the message; for a tool result, the result.
	Content string
	// ToolCalls are the tool calls an assistant message made.
	ToolCalls []ToolCall
	// ToolCallID links a tool result to the ToolCall it answers.
	ToolCallID string
}

// Tool describes a function the model may call.
type Tool struct {
	// Name is the function name, e.g. "add_comment".
	Name string
	// Description tells the model what the tool does and when to use it.
	Description string
	// Parameters is a JSON Schema object describing the arguments.
	Parameters json.RawMessage
}

// ToolCall is a model's request to run a tool.
type ToolCall struct {
	// ID identifies the call; the tool result message carries it as ToolCallID.
	ID string
	// Name is the name of a Tool offered in the Request.
	Name string
	// Arguments is a JSON object matching the tool's Parameters schema.
	Arguments json.RawMessage
}

// Request is the input of one model turn.
type Request struct {
	// Messages is the conversation so far, oldest first.
	Messages []Message
	// Tools are the tools the model may call this turn. A call to any other tool is
	// ErrMalformedOutput.
	Tools []Tool
	// Mission, when set, describes the mission and its card. Remote models see it as an extra user
	// message; the offline planner derives its answers from it.
	Mission *MissionContext
	// Draft, when set, says the turn is a step of a project draft (questions or roadmap); the offline
	// planner answers it from the draft itself. Remote models read the draft from Messages.
	Draft *DraftTask
	// Model, when set, is the model name sent to the server for this turn instead of the client's own
	// (an agent's model). The offline planner has no models and ignores it.
	Model string
	// ResponseSchema, when set, asks for a final answer that is one JSON value matching the schema
	// (OpenAI structured output); its text streams through OnToken like any content.
	ResponseSchema *ResponseSchema
	// OnToken, when not nil, is called synchronously, in order, with each streamed piece of
	// content. The concatenation of the tokens equals Response.Content, or for the offline
	// planner's first turn, the comment it posts.
	OnToken func(token string)
}

// ResponseSchema names a JSON Schema the answer must match.
type ResponseSchema struct {
	// Name identifies the schema to the server, e.g. "draft_roadmap".
	Name string
	// Schema is a JSON Schema object.
	Schema json.RawMessage
}

// Response is the output of one model turn: either tool calls to run, or a final answer.
type Response struct {
	// Content is the text the model produced (possibly empty when it called tools).
	Content string
	// ToolCalls are validated calls to tools offered in the Request. When empty, the turn is the
	// final answer.
	ToolCalls []ToolCall
	// FinishReason is why the turn ended: "stop", "tool_calls", or a server-specific reason.
	FinishReason string
	// Usage is what the turn cost in tokens: the server's count, or the offline planner's estimate.
	Usage Usage
}

// Usage counts a model turn's tokens. A server that reports no usage leaves it zero.
type Usage struct {
	// PromptTokens is the size of what the model read (the conversation, the tools).
	PromptTokens int64
	// CompletionTokens is the size of what it wrote (content and tool calls).
	CompletionTokens int64
}

// MissionContext is what a mission is about, as given to a Provider.
type MissionContext struct {
	// Objective is the instruction for the mission, e.g. "Break this card down into steps".
	Objective string
	// Card is the card the mission works on, or nil.
	Card *CardContext
}

// CardContext is a read-only snapshot of a card given to a Provider.
type CardContext struct {
	// ID is the card's id.
	ID string
	// Title is the card's title.
	Title string
	// Description is the card's description, possibly empty.
	Description string
	// Priority is "low", "medium", "high" or empty.
	Priority string
	// Column is the name of the column the card is in.
	Column string
	// DueDate is the card's due date, or nil.
	DueDate *time.Time
	// Checklist is the card's checklist in order.
	Checklist []ChecklistItem
	// Comments are the card's comment texts, oldest first.
	Comments []string
	// Labels are the names of the card's labels.
	Labels []string
}

// ChecklistItem is one entry of a card's checklist.
type ChecklistItem struct {
	// Title is the item's text.
	Title string
	// Done reports whether the item is checked.
	Done bool
}

// Provider produces one model turn at a time.
//
// One Chat call is one turn: the Response carries either tool calls or a final answer. The caller
// runs the tool calls, appends the assistant message (with its ToolCalls) and one Role "tool"
// message per call (with its ToolCallID) to Request.Messages, and calls Chat again until a Response
// has no tool calls. Chat returns promptly when ctx is cancelled or its deadline passes.
type Provider interface {
	// Name identifies the provider in logs and mission events, e.g. "offline" or
	// "openai:gpt-4o-mini".
	Name() string
	// Chat runs one model turn.
	Chat(ctx context.Context, req Request) (Response, error)
}

// Defaults used by New and NewOpenAI.
const (
	DefaultBaseURL      = "https://api.openai.com/v1"
	DefaultModel        = "gpt-4o-mini"
	DefaultTimeout      = 60 * time.Second
	DefaultMaxRetries   = 3
	DefaultRetryBackoff = 500 * time.Millisecond
	DefaultMaxRetryWait = 10 * time.Second
)

// Config chooses and configures a Provider. The process configuration fills it from LLM_BASE_URL,
// LLM_API_KEY and LLM_MODEL.
type Config struct {
	// BaseURL is the OpenAI-compatible server, with or without the trailing "/v1"
	// (default DefaultBaseURL).
	BaseURL string
	// APIKey selects the OpenAI-compatible client when set; when empty, New returns the offline
	// planner. Servers that need no key (a local Ollama or llama.cpp) take any non-empty value.
	APIKey string
	// Model is the model name sent to the server (default DefaultModel).
	Model string
	// Timeout bounds one Chat call, retries included (default DefaultTimeout).
	Timeout time.Duration
	// MaxRetries is how many times a 429 or 5xx answer is retried (default DefaultMaxRetries;
	// negative disables retries).
	MaxRetries int
}

// New returns the OpenAI-compatible client when cfg.APIKey is set, else the offline planner.
func New(cfg Config) Provider {
	if cfg.APIKey == "" {
		return NewOffline()
	}
	return NewOpenAI(OpenAIConfig{
		BaseURL:    cfg.BaseURL,
		APIKey:     cfg.APIKey,
		Model:      cfg.Model,
		Timeout:    cfg.Timeout,
		MaxRetries: cfg.MaxRetries,
	})
}
