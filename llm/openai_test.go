package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/internal/agenttool"
)

const (
	testKey   = "test-key"
	testModel = "test-model"
)

// wireRequest is a chat completions request as it appears on the wire.
type wireRequest struct {
	Model         string `json:"model"`
	Stream        bool   `json:"stream"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	Messages []struct {
		Role       string `json:"role"`
		Content    string `json:"content"`
		ToolCallID string `json:"tool_call_id"`
		ToolCalls  []struct {
			ID       string `json:"id"`
			Type     string `json:"type"`
			Function struct {
				Name      string `json:"name"`
				Arguments string `json:"arguments"`
			} `json:"function"`
		} `json:"tool_calls"`
	} `json:"messages"`
	ResponseFormat *struct {
		Type       string `json:"type"`
		JSONSchema struct {
			Name   string          `json:"name"`
			Schema json.RawMessage `json:"schema"`
			Strict bool            `json:"strict"`
		} `json:"json_schema"`
	} `json:"response_format"`
	Tools []struct {
		Type     string `json:"type"`
		Function struct {
			Name       string          `json:"name"`
			Parameters json.RawMessage `json:"parameters"`
		} `json:"function"`
	} `json:"tools"`
}

// fakeServer is an in-process OpenAI-compatible server. handle answers request n (1-based).
type fakeServer struct {
	*httptest.Server

	mu       sync.Mutex
	requests []wireRequest
	auth     []string
}

func newFakeServer(t *testing.T, handle func(w http.ResponseWriter, r *http.Request, n int,
	req wireRequest)) *fakeServer {
	t.Helper()
	fs := &fakeServer{}
	fs.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
			t.Errorf("unexpected request %s %s", r.Method, r.URL.Path)
			http.NotFound(w, r)
			return
		}
		var req wireRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			t.Errorf("decode request: %v", err)
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		fs.mu.Lock()
		fs.requests = append(fs.requests, req)
		fs.auth = append(fs.auth, r.Header.Get("Authorization"))
		n := len(fs.requests)
		fs.mu.Unlock()
		handle(w, r, n, req)
	}))
	t.Cleanup(fs.Close)
	return fs
}

// seen returns the requests received so far and their Authorization headers.
func (fs *fakeServer) seen() ([]wireRequest, []string) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	return append([]wireRequest(nil), fs.requests...), append([]string(nil), fs.auth...)
}

// sseStart writes the headers of an event stream.
func sseStart(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	w.(http.Flusher).Flush()
}

// sseData writes one "data:" event and flushes it.
func sseData(w http.ResponseWriter, data string) {
	fmt.Fprintf(w, "data: %s\n\n", data)
	w.(http.Flusher).Flush()
}

// sseStream writes a whole stream: the chunks, then [DONE].
func sseStream(w http.ResponseWriter, chunks ...string) {
	sseStart(w)
	for _, c := range chunks {
		sseData(w, c)
	}
	sseData(w, "[DONE]")
}

// chunk encodes a chat.completion.chunk with one choice carrying delta and finish reason.
func chunk(delta map[string]any, finish string) string {
	choice := map[string]any{"index": 0, "delta": delta, "finish_reason": nil}
	if finish != "" {
		choice["finish_reason"] = finish
	}
	b, err := json.Marshal(map[string]any{
		"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": testModel,
		"choices": []any{choice},
	})
	if err != nil {
		panic(err)
	}
	return string(b)
}

func contentChunk(s string) string {
	return chunk(map[string]any{"content": s}, "")
}

func finishChunk(reason string) string { return chunk(map[string]any{}, reason) }

// toolDelta encodes a streamed tool-call delta; id and name are sent only when not empty.
func toolDelta(index int, id, name, args string) string {
	fn := map[string]any{"arguments": args}
	tc := map[string]any{"index": index, "function": fn}
	if id != "" {
		tc["id"] = id
		tc["type"] = "function"
	}
	if name != "" {
		fn["name"] = name
	}
	return chunk(map[string]any{"tool_calls": []any{tc}}, "")
}

// writeError answers with an OpenAI-style error body.
func writeError(w http.ResponseWriter, status int, retryAfter string) {
	if retryAfter != "" {
		w.Header().Set("Retry-After", retryAfter)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	fmt.Fprintf(w, `{"error":{"message":"status %d","type":"test_error"}}`, status)
}

// newTestClient returns a client for fs with tiny waits.
func newTestClient(fs *fakeServer, mod func(*OpenAIConfig)) *OpenAI {
	cfg := OpenAIConfig{
		BaseURL:      fs.URL,
		APIKey:       testKey,
		Model:        testModel,
		Timeout:      5 * time.Second,
		RetryBackoff: time.Millisecond,
		MaxRetryWait: 20 * time.Millisecond,
	}
	if mod != nil {
		mod(&cfg)
	}
	return NewOpenAI(cfg)
}

func testCard() *CardContext {
	return &CardContext{
		ID:          "card-1",
		Title:       "Ship the billing page",
		Description: "- Design the layout\n- Wire the checkout",
		Priority:    "medium",
		Column:      "Doing",
		Checklist:   []ChecklistItem{{Title: "Design the layout", Done: true}},
		Comments:    []string{"Finance wants it by Friday"},
	}
}

func TestOpenAIStreamsContentTokens(t *testing.T) {
	t.Parallel()

	tokens := []string{"Hel", "lo", ", ", "wor", "ld", "!"}
	gotFirst := make(chan struct{})
	fs := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, n int, req wireRequest) {
		sseStart(w)
		sseData(w, chunk(map[string]any{"role": "assistant", "content": ""}, ""))
		sseData(w, contentChunk(tokens[0]))
		// The rest is sent only once the client has seen the first token: it really streams.
		select {
		case <-gotFirst:
		case <-time.After(3 * time.Second):
			t.Errorf("first token not delivered while the stream was open")
		}
		for _, tok := range tokens[1:] {
			sseData(w, contentChunk(tok))
		}
		sseData(w, finishChunk("stop"))
		sseData(w, "[DONE]")
	})
	client := newTestClient(fs, nil)

	var got []string
	resp, err := client.Chat(context.Background(), Request{
		Messages: []Message{
			{Role: RoleSystem, Content: "You are Pilot's agent."},
			{Role: RoleUser, Content: "Say hello."},
		},
		Tools:   ToolCatalog(),
		Mission: &MissionContext{Objective: "Greet", Card: testCard()},
		OnToken: func(tok string) {
			if len(got) == 0 {
				close(gotFirst)
			}
			got = append(got, tok)
		},
	})
	require.NoError(t, err)
	require.Equal(t, tokens, got)
	require.Equal(t, strings.Join(tokens, ""), resp.Content)
	require.Equal(t, FinishStop, resp.FinishReason)
	require.Empty(t, resp.ToolCalls)

	reqs, auth := fs.seen()
	require.Len(t, reqs, 1)
	require.Equal(t, "Bearer "+testKey, auth[0])
	req := reqs[0]
	require.Equal(t, testModel, req.Model)
	require.True(t, req.Stream)
	var toolNames []string
	for _, tool := range req.Tools {
		require.Equal(t, "function", tool.Type)
		require.True(t, json.Valid(tool.Function.Parameters))
		toolNames = append(toolNames, tool.Function.Name)
	}
	require.Equal(t, []string{"update_card", "add_checklist_items", "add_comment", "move_card", "create_card",
		"propose_pilotage_action", "ask_user"}, toolNames)

	// The mission is a user message right after the system message.
	require.Len(t, req.Messages, 3)
	require.Equal(t, "system", req.Messages[0].Role)
	require.Equal(t, "user", req.Messages[1].Role)
	for _, want := range []string{"Mission objective: Greet", `"Ship the billing page"`, "Column: Doing",
		"Priority: medium", "- Design the layout", "Checklist (1 of 1 done):", "- [x] Design the layout",
		"- Finance wants it by Friday"} {
		require.Contains(t, req.Messages[1].Content, want)
	}
	require.Equal(t, "Say hello.", req.Messages[2].Content)
}

func TestOpenAIToolCallLoop(t *testing.T) {
	t.Parallel()

	fs := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, n int, req wireRequest) {
		switch n {
		case 1:
			// Two tool calls whose arguments arrive split and interleaved.
			sseStream(w,
				chunk(map[string]any{"role": "assistant"}, ""),
				toolDelta(0, "call_a", "add_checklist_items", ""),
				toolDelta(1, "call_b", "add_comment", `{"con`),
				toolDelta(0, "", "", `{"items":`),
				toolDelta(1, "", "", `tent":"Plan: `),
				toolDelta(0, "", "", `["Wire the checkout",`),
				toolDelta(1, "", "", `two steps"}`),
				toolDelta(0, "", "", `"Test it"]}`),
				finishChunk("tool_calls"),
			)
		default:
			sseStream(w, contentChunk("Added 2 items "), contentChunk("and a plan."), finishChunk("stop"))
		}
	})
	client := newTestClient(fs, nil)

	req := Request{
		Messages: []Message{{Role: RoleUser, Content: "Plan the card."}},
		Tools:    SelectTools([]string{agenttool.AddChecklistItems, agenttool.AddComment}),
		Mission:  &MissionContext{Card: testCard()},
	}
	resp, err := client.Chat(context.Background(), req)
	require.NoError(t, err)
	require.Equal(t, FinishToolCalls, resp.FinishReason)
	require.Empty(t, resp.Content)
	require.Len(t, resp.ToolCalls, 2)
	require.Equal(t, "call_a", resp.ToolCalls[0].ID)
	require.Equal(t, agenttool.AddChecklistItems, resp.ToolCalls[0].Name)
	require.JSONEq(t, `{"items":["Wire the checkout","Test it"]}`, string(resp.ToolCalls[0].Arguments))
	require.Equal(t, "call_b", resp.ToolCalls[1].ID)
	require.Equal(t, agenttool.AddComment, resp.ToolCalls[1].Name)
	require.JSONEq(t, `{"content":"Plan: two steps"}`, string(resp.ToolCalls[1].Arguments))

	// Second turn: send the tool results back.
	req.Messages = append(req.Messages, Message{Role: RoleAssistant, ToolCalls: resp.ToolCalls})
	req.Messages = append(req.Messages,
		Message{Role: RoleTool, ToolCallID: "call_a", Content: "added 2 items"},
		Message{Role: RoleTool, ToolCallID: "call_b", Content: "comment posted"},
	)
	var tokens []string
	req.OnToken = func(tok string) { tokens = append(tokens, tok) }
	resp, err = client.Chat(context.Background(), req)
	require.NoError(t, err)
	require.Equal(t, "Added 2 items and a plan.", resp.Content)
	require.Equal(t, []string{"Added 2 items ", "and a plan."}, tokens)
	require.Equal(t, FinishStop, resp.FinishReason)
	require.Empty(t, resp.ToolCalls)

	reqs, _ := fs.seen()
	require.Len(t, reqs, 2)
	msgs := reqs[1].Messages
	require.Len(t, msgs, 5) // mission, user, assistant, tool, tool
	require.Equal(t, "user", msgs[0].Role)
	require.Contains(t, msgs[0].Content, "Ship the billing page")
	require.Equal(t, "assistant", msgs[2].Role)
	require.Len(t, msgs[2].ToolCalls, 2)
	require.Equal(t, "call_a", msgs[2].ToolCalls[0].ID)
	require.Equal(t, "function", msgs[2].ToolCalls[0].Type)
	require.Equal(t, "add_checklist_items", msgs[2].ToolCalls[0].Function.Name)
	require.JSONEq(t, `{"items":["Wire the checkout","Test it"]}`, msgs[2].ToolCalls[0].Function.Arguments)
	require.Equal(t, "tool", msgs[3].Role)
	require.Equal(t, "call_a", msgs[3].ToolCallID)
	require.Equal(t, "added 2 items", msgs[3].Content)
	require.Equal(t, "tool", msgs[4].Role)
	require.Equal(t, "call_b", msgs[4].ToolCallID)
}

func TestOpenAIMalformedOutput(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name   string
		chunks []string
		want   string
	}{
		{
			name:   "ArgumentsNotJSON",
			chunks: []string{toolDelta(0, "call_1", "add_comment", `{"content": "unterminated`), finishChunk("tool_calls")},
			want:   "not a JSON object",
		},
		{
			name:   "ArgumentsNotObject",
			chunks: []string{toolDelta(0, "call_1", "add_comment", `["a"]`), finishChunk("tool_calls")},
			want:   "not a JSON object",
		},
		{
			name:   "UnknownTool",
			chunks: []string{toolDelta(0, "call_1", "delete_everything", `{}`), finishChunk("tool_calls")},
			want:   `unknown tool "delete_everything"`,
		},
		{
			name:   "EmptyResponse",
			chunks: []string{chunk(map[string]any{"role": "assistant"}, ""), finishChunk("stop")},
			want:   "empty response",
		},
		{
			name:   "UndecodableChunk",
			chunks: []string{contentChunk("Hi"), `{"choices": [`},
			want:   "undecodable stream chunk",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			fs := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, n int, req wireRequest) {
				sseStream(w, tt.chunks...)
			})
			_, err := newTestClient(fs, nil).Chat(context.Background(), Request{
				Messages: []Message{{Role: RoleUser, Content: "Plan."}},
				Tools:    SelectTools([]string{agenttool.AddComment}),
			})
			require.ErrorIs(t, err, ErrMalformedOutput)
			require.Contains(t, err.Error(), tt.want)
			reqs, _ := fs.seen()
			require.Len(t, reqs, 1, "malformed output is not retried")
		})
	}
}

func TestOpenAITimeoutAndCancel(t *testing.T) {
	t.Parallel()

	// stallingServer holds each request until the client goes away or the test ends.
	stallingServer := func(t *testing.T, afterFirstToken bool) *fakeServer {
		stop := make(chan struct{})
		fs := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, n int, req wireRequest) {
			if afterFirstToken {
				sseStart(w)
				sseData(w, contentChunk("Thinking"))
			}
			select {
			case <-r.Context().Done():
			case <-stop:
			}
		})
		t.Cleanup(func() { close(stop) }) // runs before fs.Close
		return fs
	}

	for _, mid := range []bool{false, true} {
		t.Run(fmt.Sprintf("TimeoutMidStream=%t", mid), func(t *testing.T) {
			t.Parallel()

			fs := stallingServer(t, mid)
			client := newTestClient(fs, func(c *OpenAIConfig) { c.Timeout = 200 * time.Millisecond })
			start := time.Now()
			_, err := client.Chat(context.Background(), Request{Messages: []Message{{Role: RoleUser, Content: "Hi"}}})
			elapsed := time.Since(start)
			require.ErrorIs(t, err, context.DeadlineExceeded)
			require.Contains(t, err.Error(), "timed out after 200ms")
			require.GreaterOrEqual(t, elapsed, 200*time.Millisecond)
			require.Less(t, elapsed, 2*time.Second)
		})
	}

	t.Run("ContextCancelled", func(t *testing.T) {
		t.Parallel()

		fs := stallingServer(t, true)
		client := newTestClient(fs, func(c *OpenAIConfig) { c.Timeout = time.Minute })
		ctx, cancel := context.WithCancel(context.Background())
		var tokens []string
		start := time.Now()
		_, err := client.Chat(ctx, Request{
			Messages: []Message{{Role: RoleUser, Content: "Hi"}},
			OnToken: func(tok string) {
				tokens = append(tokens, tok)
				time.AfterFunc(50*time.Millisecond, cancel)
			},
		})
		require.ErrorIs(t, err, context.Canceled)
		require.NotErrorIs(t, err, context.DeadlineExceeded)
		require.Less(t, time.Since(start), 2*time.Second)
		require.Equal(t, []string{"Thinking"}, tokens)
	})

	t.Run("CallerDeadline", func(t *testing.T) {
		t.Parallel()

		fs := stallingServer(t, false)
		client := newTestClient(fs, func(c *OpenAIConfig) { c.Timeout = time.Minute })
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		_, err := client.Chat(ctx, Request{Messages: []Message{{Role: RoleUser, Content: "Hi"}}})
		require.ErrorIs(t, err, context.DeadlineExceeded)
		require.NotContains(t, err.Error(), "timed out after")
	})
}

func TestOpenAIRetries(t *testing.T) {
	t.Parallel()

	okStream := func(w http.ResponseWriter) {
		sseStream(w, contentChunk("ok"), finishChunk("stop"))
	}
	req := Request{Messages: []Message{{Role: RoleUser, Content: "Hi"}}}

	t.Run("TooManyRequestsThenOK", func(t *testing.T) {
		t.Parallel()

		fs := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, n int, _ wireRequest) {
			if n == 1 {
				writeError(w, http.StatusTooManyRequests, "")
				return
			}
			okStream(w)
		})
		resp, err := newTestClient(fs, nil).Chat(context.Background(), req)
		require.NoError(t, err)
		require.Equal(t, "ok", resp.Content)
		reqs, _ := fs.seen()
		require.Len(t, reqs, 2)
	})

	t.Run("TooManyRequestsForever", func(t *testing.T) {
		t.Parallel()

		fs := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, n int, _ wireRequest) {
			writeError(w, http.StatusTooManyRequests, "")
		})
		_, err := newTestClient(fs, func(c *OpenAIConfig) { c.MaxRetries = 2 }).Chat(context.Background(), req)
		require.ErrorIs(t, err, ErrRateLimited)
		require.Contains(t, err.Error(), "3 attempts")
		reqs, _ := fs.seen()
		require.Len(t, reqs, 3)
	})

	t.Run("DefaultMaxRetries", func(t *testing.T) {
		t.Parallel()

		fs := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, n int, _ wireRequest) {
			writeError(w, http.StatusTooManyRequests, "")
		})
		_, err := newTestClient(fs, nil).Chat(context.Background(), req)
		require.ErrorIs(t, err, ErrRateLimited)
		reqs, _ := fs.seen()
		require.Len(t, reqs, DefaultMaxRetries+1)
	})

	t.Run("RetriesDisabled", func(t *testing.T) {
		t.Parallel()

		fs := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, n int, _ wireRequest) {
			writeError(w, http.StatusTooManyRequests, "")
		})
		_, err := newTestClient(fs, func(c *OpenAIConfig) { c.MaxRetries = -1 }).Chat(context.Background(), req)
		require.ErrorIs(t, err, ErrRateLimited)
		reqs, _ := fs.seen()
		require.Len(t, reqs, 1)
	})

	t.Run("ServerErrorThenOK", func(t *testing.T) {
		t.Parallel()

		fs := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, n int, _ wireRequest) {
			if n == 1 {
				writeError(w, http.StatusInternalServerError, "")
				return
			}
			okStream(w)
		})
		resp, err := newTestClient(fs, nil).Chat(context.Background(), req)
		require.NoError(t, err)
		require.Equal(t, "ok", resp.Content)
		reqs, _ := fs.seen()
		require.Len(t, reqs, 2)
	})

	t.Run("ServerErrorForever", func(t *testing.T) {
		t.Parallel()

		fs := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, n int, _ wireRequest) {
			http.Error(w, "bad gateway", http.StatusBadGateway) // not a JSON error body
		})
		_, err := newTestClient(fs, func(c *OpenAIConfig) { c.MaxRetries = 1 }).Chat(context.Background(), req)
		require.Error(t, err)
		require.NotErrorIs(t, err, ErrRateLimited)
		require.Contains(t, err.Error(), "502")
		reqs, _ := fs.seen()
		require.Len(t, reqs, 2)
	})

	t.Run("BadRequestNotRetried", func(t *testing.T) {
		t.Parallel()

		fs := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, n int, _ wireRequest) {
			writeError(w, http.StatusBadRequest, "")
		})
		_, err := newTestClient(fs, nil).Chat(context.Background(), req)
		require.Error(t, err)
		require.NotErrorIs(t, err, ErrRateLimited)
		require.Contains(t, err.Error(), "400")
		reqs, _ := fs.seen()
		require.Len(t, reqs, 1)
	})

	t.Run("HonoursRetryAfter", func(t *testing.T) {
		t.Parallel()

		// Retry-After: 1 replaces the 1ms backoff; MaxRetryWait caps it at 150ms.
		fs := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, n int, _ wireRequest) {
			if n == 1 {
				writeError(w, http.StatusTooManyRequests, "1")
				return
			}
			okStream(w)
		})
		client := newTestClient(fs, func(c *OpenAIConfig) { c.MaxRetryWait = 150 * time.Millisecond })
		start := time.Now()
		_, err := client.Chat(context.Background(), req)
		require.NoError(t, err)
		require.GreaterOrEqual(t, time.Since(start), 150*time.Millisecond)
	})

	t.Run("WaitStopsOnCancel", func(t *testing.T) {
		t.Parallel()

		fs := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, n int, _ wireRequest) {
			writeError(w, http.StatusTooManyRequests, "30")
		})
		client := newTestClient(fs, func(c *OpenAIConfig) { c.MaxRetryWait = time.Minute })
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		start := time.Now()
		_, err := client.Chat(ctx, req)
		require.ErrorIs(t, err, context.DeadlineExceeded)
		require.Less(t, time.Since(start), 2*time.Second)
	})
}

func TestOpenAIRetryDelay(t *testing.T) {
	t.Parallel()

	c := NewOpenAI(OpenAIConfig{APIKey: testKey, RetryBackoff: 100 * time.Millisecond, MaxRetryWait: time.Second})
	require.Equal(t, 100*time.Millisecond, c.retryDelay(0, ""))
	require.Equal(t, 200*time.Millisecond, c.retryDelay(1, ""))
	require.Equal(t, 400*time.Millisecond, c.retryDelay(2, ""))
	require.Equal(t, time.Second, c.retryDelay(10, ""), "capped")
	require.Equal(t, 0*time.Second, c.retryDelay(0, "0"))
	require.Equal(t, time.Second, c.retryDelay(0, "1"))
	require.Equal(t, time.Second, c.retryDelay(0, "120"), "Retry-After is capped too")
	require.Equal(t, 100*time.Millisecond, c.retryDelay(0, "soon"), "unreadable Retry-After is ignored")

	d := NewOpenAI(OpenAIConfig{APIKey: testKey})
	require.Equal(t, DefaultRetryBackoff, d.retryDelay(0, ""))
	require.Equal(t, DefaultMaxRetryWait, d.retryDelay(0, "3600"))
}

func TestOpenAIBaseURL(t *testing.T) {
	t.Parallel()

	require.Equal(t, DefaultBaseURL, normalizeBaseURL(""))
	require.Equal(t, "http://localhost:11434/v1", normalizeBaseURL("http://localhost:11434"))
	require.Equal(t, "http://localhost:11434/v1", normalizeBaseURL("http://localhost:11434/"))
	require.Equal(t, "http://localhost:11434/v1", normalizeBaseURL("http://localhost:11434/v1/"))
	require.Equal(t, "https://example.com/api/v1", normalizeBaseURL("https://example.com/api/v1"))

	// Both spellings reach the same endpoint of a real server.
	fs := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, n int, _ wireRequest) {
		sseStream(w, contentChunk("ok"), finishChunk("stop"))
	})
	for _, base := range []string{fs.URL, fs.URL + "/v1", fs.URL + "/v1/"} {
		client := newTestClient(fs, func(c *OpenAIConfig) { c.BaseURL = base })
		resp, err := client.Chat(context.Background(), Request{Messages: []Message{{Role: RoleUser, Content: "Hi"}}})
		require.NoError(t, err, base)
		require.Equal(t, "ok", resp.Content)
	}
}

func TestNew(t *testing.T) {
	t.Parallel()

	p := New(Config{})
	require.IsType(t, &Offline{}, p)
	require.Equal(t, "offline", p.Name())

	p = New(Config{APIKey: "k", BaseURL: "http://localhost:11434", Model: "llama3.2"})
	require.IsType(t, &OpenAI{}, p)
	require.Equal(t, "openai:llama3.2", p.Name())

	p = New(Config{APIKey: "k"})
	require.Equal(t, "openai:"+DefaultModel, p.Name())

}

func TestToolCatalog(t *testing.T) {
	t.Parallel()

	tools := ToolCatalog()
	require.Len(t, tools, len(agenttool.Names))
	for _, tool := range tools {
		require.NotEmpty(t, tool.Description, tool.Name)
		var schema struct {
			Type       string                     `json:"type"`
			Properties map[string]json.RawMessage `json:"properties"`
		}
		require.NoError(t, json.Unmarshal(tool.Parameters, &schema), tool.Name)
		require.Equal(t, "object", schema.Type)
		require.NotEmpty(t, schema.Properties)
	}
	tools[0].Name = "changed"
	require.Equal(t, agenttool.UpdateCard, ToolCatalog()[0].Name, "each call returns a fresh catalog")

	selected := SelectTools([]string{agenttool.MoveCard, "nope", agenttool.AddComment})
	require.Len(t, selected, 2)
	require.Equal(t, agenttool.AddComment, selected[0].Name)
	require.Equal(t, agenttool.MoveCard, selected[1].Name)
}

func TestErrorsMatch(t *testing.T) {
	t.Parallel()

	_, err := validateToolCall(ToolCatalog(), "c", agenttool.AddComment, "nope")
	require.True(t, errors.Is(err, ErrMalformedOutput))
	tc, err := validateToolCall(ToolCatalog(), "c", agenttool.MoveCard, "  ")
	require.NoError(t, err)
	require.JSONEq(t, `{}`, string(tc.Arguments), "empty arguments count as {}")
	_, err = validateToolCall(ToolCatalog(), "c", agenttool.MoveCard, "null")
	require.ErrorIs(t, err, ErrMalformedOutput)
}

// A request naming a model (an agent's) sends it instead of the client's own; the next request without one
// sends the client's again.
func TestOpenAIRequestModelOverridesTheClients(t *testing.T) {
	t.Parallel()
	fs := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, n int, req wireRequest) {
		sseStart(w)
		sseData(w, contentChunk("ok"))
		sseData(w, finishChunk("stop"))
		sseData(w, "[DONE]")
	})
	client := newTestClient(fs, nil)
	msgs := []Message{{Role: RoleUser, Content: "Say ok."}}
	_, err := client.Chat(context.Background(), Request{Messages: msgs, Model: "llama3.1:8b"})
	require.NoError(t, err)
	_, err = client.Chat(context.Background(), Request{Messages: msgs})
	require.NoError(t, err)
	reqs, _ := fs.seen()
	require.Len(t, reqs, 2)
	require.Equal(t, "llama3.1:8b", reqs[0].Model)
	require.Equal(t, testModel, reqs[1].Model)
}
