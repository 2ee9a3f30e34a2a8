package llm

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The client asks a streamed answer for its usage (stream_options.include_usage) and reads the final
// chunk that reports it, which carries no choice.
func TestOpenAIReadsTheUsageChunk(t *testing.T) {
	t.Parallel()
	fs := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, n int, req wireRequest) {
		sseStart(w)
		sseData(w, contentChunk("Done."))
		sseData(w, finishChunk("stop"))
		sseData(w, `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"`+testModel+
			`","choices":[],"usage":{"prompt_tokens":123,"completion_tokens":45,"total_tokens":168}}`)
		sseData(w, "[DONE]")
	})
	resp, err := newTestClient(fs, nil).Chat(context.Background(), Request{
		Messages: []Message{{Role: RoleUser, Content: "Finish."}}})
	require.NoError(t, err)
	require.Equal(t, "Done.", resp.Content)
	require.Equal(t, Usage{PromptTokens: 123, CompletionTokens: 45}, resp.Usage)
	reqs, _ := fs.seen()
	require.Len(t, reqs, 1)
	require.NotNil(t, reqs[0].StreamOptions)
	require.True(t, reqs[0].StreamOptions.IncludeUsage)
}

// A server that reports no usage leaves it zero.
func TestOpenAIWithoutUsage(t *testing.T) {
	t.Parallel()
	fs := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, n int, req wireRequest) {
		sseStream(w, contentChunk("Hi"), finishChunk("stop"))
	})
	resp, err := newTestClient(fs, nil).Chat(context.Background(), Request{
		Messages: []Message{{Role: RoleUser, Content: "Hi"}}})
	require.NoError(t, err)
	require.Equal(t, Usage{}, resp.Usage)
}

// The offline planner counts about four characters a token, rounded up, of what it reads and writes.
func TestOfflineEstimatesUsage(t *testing.T) {
	t.Parallel()
	req := Request{Messages: []Message{{Role: RoleSystem, Content: strings.Repeat("a", 40)}},
		Mission: &MissionContext{Objective: "Plan", Card: testCard()}, Tools: ToolCatalog()}
	resp, err := NewOffline().Chat(context.Background(), req)
	require.NoError(t, err)
	want := EstimateUsage(req, resp)
	require.Equal(t, want, resp.Usage)
	require.Positive(t, resp.Usage.PromptTokens)
	require.Positive(t, resp.Usage.CompletionTokens)

	got := EstimateUsage(Request{Messages: []Message{{Role: RoleUser, Content: "abcdefghi"}}},
		Response{Content: "été!"})
	require.Equal(t, Usage{PromptTokens: 3, CompletionTokens: 1}, got, "9 characters are 3 tokens, 4 runes 1")

	longer := req
	longer.Messages = append([]Message{}, req.Messages...)
	longer.Messages = append(longer.Messages, Message{Role: RoleUser, Content: strings.Repeat("b", 400)})
	require.Equal(t, want.PromptTokens+100, EstimateUsage(longer, resp).PromptTokens)
}
