package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// OpenAIConfig configures the OpenAI-compatible client. Zero values take the defaults.
type OpenAIConfig struct {
	// BaseURL is the server's API root. A URL with no path gets "/v1" appended, so both
	// "http://localhost:11434" and "http://localhost:11434/v1" work; a URL with a path is used as
	// given. Default DefaultBaseURL.
	BaseURL string
	// APIKey is sent as "Authorization: Bearer <key>".
	APIKey string
	// Model is the model name (default DefaultModel).
	Model string
	// Timeout bounds one Chat call, retries and waits included (default DefaultTimeout).
	Timeout time.Duration
	// MaxRetries is how many times an answer of 429 or 5xx is retried, so a call makes at most
	// MaxRetries+1 attempts (default DefaultMaxRetries; negative disables retries).
	MaxRetries int
	// RetryBackoff is the wait before the first retry; it doubles on each further retry
	// (default DefaultRetryBackoff). A Retry-After header in seconds or as a date replaces it.
	RetryBackoff time.Duration
	// MaxRetryWait caps every wait between attempts, Retry-After included
	// (default DefaultMaxRetryWait).
	MaxRetryWait time.Duration
	// HTTPClient sends the requests (default a new http.Client). Its own Timeout, if any, also
	// applies.
	HTTPClient *http.Client
}

// OpenAI is a Provider backed by any OpenAI-compatible chat completions server (OpenAI, vLLM,
// Ollama, llama.cpp), through go-openai. It always streams, so content tokens reach
// Request.OnToken as they arrive.
type OpenAI struct {
	client       *openai.Client
	model        string
	timeout      time.Duration
	maxRetries   int
	retryBackoff time.Duration
	maxRetryWait time.Duration
}

var _ Provider = (*OpenAI)(nil)

// NewOpenAI returns an OpenAI-compatible client. It does not contact the server.
func NewOpenAI(cfg OpenAIConfig) *OpenAI {
	oc := openai.DefaultConfig(cfg.APIKey)
	oc.BaseURL = normalizeBaseURL(cfg.BaseURL)
	var hc *http.Client
	if cfg.HTTPClient != nil {
		hc = cfg.HTTPClient
	} else {
		hc = &http.Client{}
	}
	oc.HTTPClient = retryAfterDoer{client: hc}

	c := &OpenAI{
		client:       openai.NewClientWithConfig(oc),
		model:        cfg.Model,
		timeout:      cfg.Timeout,
		maxRetries:   cfg.MaxRetries,
		retryBackoff: cfg.RetryBackoff,
		maxRetryWait: cfg.MaxRetryWait,
	}
	if c.model == "" {
		c.model = DefaultModel
	}
	if c.timeout <= 0 {
		c.timeout = DefaultTimeout
	}
	switch {
	case c.maxRetries == 0:
		c.maxRetries = DefaultMaxRetries
	case c.maxRetries < 0:
		c.maxRetries = 0
	}
	if c.retryBackoff <= 0 {
		c.retryBackoff = DefaultRetryBackoff
	}
	if c.maxRetryWait <= 0 {
		c.maxRetryWait = DefaultMaxRetryWait
	}
	return c
}

// normalizeBaseURL applies the default and appends "/v1" to a URL that has no path.
func normalizeBaseURL(base string) string {
	base = strings.TrimRight(strings.TrimSpace(base), "/")
	if base == "" {
		return DefaultBaseURL
	}
	if u, err := url.Parse(base); err == nil && u.Path == "" && u.RawQuery == "" {
		return base + "/v1"
	}
	return base
}

// Name reports "openai:" followed by the model.
func (c *OpenAI) Name() string { return "openai:" + c.model }

// Chat sends one streamed chat completion with the request's tools and returns the assembled
// turn. It retries 429 and 5xx answers with exponential backoff, honouring Retry-After, and fails
// with ErrRateLimited when the server is still rate limiting after the last retry. Tool calls are
// validated: each must name an offered tool and carry a JSON object (empty arguments count as {}),
// else the error wraps ErrMalformedOutput.
func (c *OpenAI) Chat(ctx context.Context, req Request) (Response, error) {
	callCtx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()

	model := c.model
	if req.Model != "" {
		model = req.Model
	}
	creq := openai.ChatCompletionRequest{
		Model:    model,
		Messages: toOpenAIMessages(req),
		Tools:    toOpenAITools(req.Tools),
		Stream:   true,
		// The last chunk of the stream then reports the turn's token usage (and no choice).
		StreamOptions: &openai.StreamOptions{IncludeUsage: true},
	}
	if rs := req.ResponseSchema; rs != nil {
		creq.ResponseFormat = &openai.ChatCompletionResponseFormat{Type: openai.ChatCompletionResponseFormatTypeJSONSchema,
			JSONSchema: &openai.ChatCompletionResponseFormatJSONSchema{Name: rs.Name, Schema: rs.Schema, Strict: true}}
	}

	var lastErr error
	for attempt := 0; ; attempt++ {
		var retryAfter string
		attemptCtx := context.WithValue(callCtx, retryAfterKey{}, &retryAfter)
		stream, err := c.client.CreateChatCompletionStream(attemptCtx, creq)
		if err == nil {
			resp, err := readStream(stream, req)
			_ = stream.Close() // the whole body was read or the call failed; nothing to report
			if err != nil {
				return Response{}, c.callError(ctx, callCtx, err)
			}
			return resp, nil
		}
		if callCtx.Err() != nil {
			return Response{}, c.callError(ctx, callCtx, err)
		}
		status := httpStatus(err)
		if status != http.StatusTooManyRequests && status < 500 {
			return Response{}, fmt.Errorf("openai chat completion: %w", err)
		}
		lastErr = err
		if attempt >= c.maxRetries {
			break
		}
		wait := c.retryDelay(attempt, retryAfter)
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-callCtx.Done():
			t.Stop()
			return Response{}, c.callError(ctx, callCtx, fmt.Errorf("waiting %s to retry after %w", wait, err))
		}
	}
	attempts := c.maxRetries + 1
	if httpStatus(lastErr) == http.StatusTooManyRequests {
		return Response{}, fmt.Errorf("openai chat completion: %d attempts: %w: %w", attempts, ErrRateLimited, lastErr)
	}
	return Response{}, fmt.Errorf("openai chat completion: %d attempts: %w", attempts, lastErr)
}

// callError describes an error of a call whose context may have ended: the caller's cancellation
// or deadline, the call's own Timeout, or neither. The result matches context.Canceled or
// context.DeadlineExceeded with errors.Is when the context ended.
func (c *OpenAI) callError(parent, callCtx context.Context, err error) error {
	switch {
	case parent.Err() != nil:
		return fmt.Errorf("openai chat completion: %w", withCause(err, parent.Err()))
	case callCtx.Err() != nil:
		return fmt.Errorf("openai chat completion: timed out after %s: %w", c.timeout, withCause(err,
			context.DeadlineExceeded))
	default:
		return fmt.Errorf("openai chat completion: %w", err)
	}
}

// withCause makes err match cause with errors.Is, adding cause only when err does not already.
func withCause(err, cause error) error {
	if errors.Is(err, cause) {
		return err
	}
	return fmt.Errorf("%w: %w", cause, err)
}

// retryDelay is the wait before retry number attempt+1: Retry-After when the server sent one,
// else RetryBackoff doubled per attempt, capped at MaxRetryWait.
func (c *OpenAI) retryDelay(attempt int, retryAfter string) time.Duration {
	wait := c.retryBackoff << min(attempt, 20)
	if d, ok := parseRetryAfter(retryAfter); ok {
		wait = d
	}
	return min(max(wait, 0), c.maxRetryWait)
}

// parseRetryAfter reads a Retry-After header: delay seconds or an HTTP date.
func parseRetryAfter(v string) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if s, err := strconv.Atoi(v); err == nil {
		if s < 0 {
			return 0, false
		}
		return time.Duration(s) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return time.Until(t), true
	}
	return 0, false
}

// httpStatus extracts the HTTP status from a go-openai error, or 0.
func httpStatus(err error) int {
	var apiErr *openai.APIError
	if errors.As(err, &apiErr) {
		return apiErr.HTTPStatusCode
	}
	var reqErr *openai.RequestError
	if errors.As(err, &reqErr) {
		return reqErr.HTTPStatusCode
	}
	return 0
}

// toolCallBuilder accumulates one streamed tool call.
type toolCallBuilder struct {
	id, name string
	args     strings.Builder
}

// readStream consumes a chat completion stream: content deltas go to OnToken and into Content,
// tool-call deltas are concatenated per Index, then the tool calls are validated.
func readStream(stream *openai.ChatCompletionStream, req Request) (Response, error) {
	acc := streamAccumulator{calls: map[int]*toolCallBuilder{}, last: -1}
	for {
		chunk, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return Response{}, streamRecvError(err)
		}
		acc.addChunk(chunk, req.OnToken)
	}
	return acc.response(req.Tools)
}

// streamRecvError tells an undecodable chunk (malformed output) from a failure to read the stream.
func streamRecvError(err error) error {
	var syntaxErr *json.SyntaxError
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &syntaxErr) || errors.As(err, &typeErr) {
		return fmt.Errorf("%w: undecodable stream chunk: %w", ErrMalformedOutput, err)
	}
	return fmt.Errorf("read stream: %w", err)
}

// streamAccumulator is a response being streamed: its content, finish reason and tool calls by index
// (order: the indexes in the order first seen; last: the index of the latest tool-call delta).
type streamAccumulator struct {
	content strings.Builder
	finish  string
	usage   Usage
	calls   map[int]*toolCallBuilder
	order   []int
	last    int
}

// addChunk adds a chunk's deltas of the first choice, sending content tokens to onToken, and keeps the
// usage a chunk reports (the final one, asked for by stream_options.include_usage).
func (a *streamAccumulator) addChunk(chunk openai.ChatCompletionStreamResponse, onToken func(string)) {
	if u := chunk.Usage; u != nil {
		a.usage = Usage{PromptTokens: int64(u.PromptTokens), CompletionTokens: int64(u.CompletionTokens)}
	}
	for _, choice := range chunk.Choices {
		if choice.Index != 0 {
			continue // only one choice is requested
		}
		if tok := choice.Delta.Content; tok != "" {
			a.content.WriteString(tok)
			if onToken != nil {
				onToken(tok)
			}
		}
		for _, d := range choice.Delta.ToolCalls {
			a.addToolCall(d)
		}
		if choice.FinishReason != "" {
			a.finish = string(choice.FinishReason)
		}
	}
}

// addToolCall adds a tool-call delta to its call: by its index, else the latest call's, else (no call
// yet, or a new id) a new one.
func (a *streamAccumulator) addToolCall(d openai.ToolCall) {
	idx := a.last
	switch {
	case d.Index != nil:
		idx = *d.Index
	case idx < 0 || (d.ID != "" && a.calls[idx].id != "" && d.ID != a.calls[idx].id):
		// Servers that omit the index: a new id starts a new call.
		idx = len(a.order)
	}
	b, ok := a.calls[idx]
	if !ok {
		b = &toolCallBuilder{}
		a.calls[idx] = b
		a.order = append(a.order, idx)
	}
	if d.ID != "" {
		b.id = d.ID
	}
	if n := d.Function.Name; n != "" && n != b.name {
		b.name += n // some servers split the name, some repeat it
	}
	b.args.WriteString(d.Function.Arguments)
	a.last = idx
}

// response validates the tool calls, in index order (a call without an id is named call_<i>), and
// answers the response; an empty one is malformed output. Without a finish reason, it is tool_calls
// when there are some, else stop.
func (a *streamAccumulator) response(tools []Tool) (Response, error) {
	slices.Sort(a.order)
	resp := Response{Content: a.content.String(), FinishReason: a.finish, Usage: a.usage}
	for i, idx := range a.order {
		b := a.calls[idx]
		id := b.id
		if id == "" {
			id = "call_" + strconv.Itoa(i)
		}
		tc, err := validateToolCall(tools, id, b.name, b.args.String())
		if err != nil {
			return Response{}, err
		}
		resp.ToolCalls = append(resp.ToolCalls, tc)
	}
	if resp.Content == "" && len(resp.ToolCalls) == 0 {
		return Response{}, fmt.Errorf("%w: empty response (finish reason %q)", ErrMalformedOutput, a.finish)
	}
	if resp.FinishReason == "" {
		if len(resp.ToolCalls) > 0 {
			resp.FinishReason = FinishToolCalls
		} else {
			resp.FinishReason = FinishStop
		}
	}
	return resp, nil
}

// validateToolCall checks that name is an offered tool and args a JSON object.
func validateToolCall(tools []Tool, id, name, args string) (ToolCall, error) {
	if !slices.ContainsFunc(tools, func(t Tool) bool { return t.Name == name }) {
		return ToolCall{}, fmt.Errorf("%w: call %s to unknown tool %q", ErrMalformedOutput, id, name)
	}
	args = strings.TrimSpace(args)
	if args == "" {
		args = "{}"
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal([]byte(args), &obj); err != nil || obj == nil {
		if err == nil {
			err = errors.New("null")
		}
		return ToolCall{}, fmt.Errorf("%w: arguments of %s call %s are not a JSON object: %w", ErrMalformedOutput, name, id,
			err)
	}
	return ToolCall{ID: id, Name: name, Arguments: json.RawMessage(args)}, nil
}

// toOpenAIMessages converts the conversation, inserting the rendered mission as a user message
// after the leading system messages.
func toOpenAIMessages(req Request) []openai.ChatCompletionMessage {
	out := make([]openai.ChatCompletionMessage, 0, len(req.Messages)+1)
	mission := req.Mission.Render()
	for _, m := range req.Messages {
		if mission != "" && m.Role != RoleSystem {
			out = append(out, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: mission})
			mission = ""
		}
		om := openai.ChatCompletionMessage{Role: m.Role, Content: m.Content, ToolCallID: m.ToolCallID}
		for _, tc := range m.ToolCalls {
			om.ToolCalls = append(om.ToolCalls, openai.ToolCall{
				ID:       tc.ID,
				Type:     openai.ToolTypeFunction,
				Function: openai.FunctionCall{Name: tc.Name, Arguments: string(tc.Arguments)},
			})
		}
		out = append(out, om)
	}
	if mission != "" {
		out = append(out, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: mission})
	}
	return out
}

// emptyParameters is sent for a tool without a schema; some servers require one.
var emptyParameters = json.RawMessage(`{"type":"object","properties":{}}`)

// toOpenAITools converts the offered tools to function tools.
func toOpenAITools(tools []Tool) []openai.Tool {
	if len(tools) == 0 {
		return nil
	}
	out := make([]openai.Tool, 0, len(tools))
	for _, t := range tools {
		params := t.Parameters
		if len(params) == 0 {
			params = emptyParameters
		}
		out = append(out, openai.Tool{
			Type: openai.ToolTypeFunction,
			Function: &openai.FunctionDefinition{
				Name:        t.Name,
				Description: t.Description,
				Parameters:  params,
			},
		})
	}
	return out
}

// retryAfterKey is the context key of the *string an attempt's Retry-After header is written to.
type retryAfterKey struct{}

// maxErrorBody bounds how much of an error answer is kept.
const maxErrorBody = 1 << 20

// retryAfterDoer sends go-openai's requests, records the Retry-After header of each answer for
// the retry loop, and buffers error bodies so their connections are always released.
type retryAfterDoer struct {
	client *http.Client
}

// Do implements openai.HTTPDoer.
func (d retryAfterDoer) Do(req *http.Request) (*http.Response, error) {
	// G704: go-openai builds req for the operator's LLM_BASE_URL; no user input names the host.
	resp, err := d.client.Do(req) //nolint:gosec // see above
	if err != nil {
		return resp, err
	}
	if p, ok := req.Context().Value(retryAfterKey{}).(*string); ok {
		*p = resp.Header.Get("Retry-After")
	}
	if resp.StatusCode >= http.StatusBadRequest {
		body, readErr := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		closeErr := resp.Body.Close()
		if readErr != nil {
			return nil, fmt.Errorf("read error answer %s: %w", resp.Status, readErr)
		}
		if closeErr != nil {
			return nil, fmt.Errorf("close error answer %s: %w", resp.Status, closeErr)
		}
		resp.Body = io.NopCloser(bytes.NewReader(body))
	}
	return resp, nil
}
