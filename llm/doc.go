// Package llm talks to language models for agent missions.
//
// A Provider runs one model turn per Chat call. The mission runner offers tools (see ToolCatalog
// and SelectTools, which pick the tools an agent is allowed from package agenttool's catalog), sends
// the conversation and a MissionContext describing the card, and gets back either tool calls or a
// final answer:
//
//	req := llm.Request{
//		Messages: []llm.Message{{Role: llm.RoleSystem, Content: "You are Pilot's agent."}},
//		Tools:    llm.SelectTools(agent.Tools),
//		Mission:  &llm.MissionContext{Objective: "Plan this card", Card: card},
//		OnToken:  func(tok string) { /* relay as a "token" mission event */ },
//	}
//	for step := 0; step < maxSteps; step++ {
//		resp, err := provider.Chat(ctx, req)
//		if err != nil { ... }
//		if len(resp.ToolCalls) == 0 {
//			break // resp.Content is the final answer
//		}
//		req.Messages = append(req.Messages, llm.Message{Role: llm.RoleAssistant, Content: resp.Content,
//			ToolCalls: resp.ToolCalls})
//		for _, tc := range resp.ToolCalls {
//			result := run(tc) // apply or propose; start the text with "error" on failure
//			req.Messages = append(req.Messages, llm.Message{Role: llm.RoleTool, ToolCallID: tc.ID, Content: result})
//		}
//	}
//
// Tool calls in a Response are already validated: each names a tool of Request.Tools and its
// Arguments are a JSON object. Arguments are not checked against the tool's schema; the store
// decodes them (agenttool.Decode, next to the schemas) and reports bad values back as a tool result.
//
// # Providers
//
// New picks the implementation from Config, which the process fills from LLM_BASE_URL,
// LLM_API_KEY and LLM_MODEL:
//
//   - With an API key, OpenAI: any OpenAI-compatible chat completions server (OpenAI, vLLM,
//     Ollama, llama.cpp) through github.com/sashabaranov/go-openai. It always streams, passing
//     content tokens to Request.OnToken and reassembling tool-call argument deltas per index. It
//     retries 429 and 5xx answers with exponential backoff, honouring Retry-After, and bounds
//     every call with a timeout. The MissionContext is rendered (MissionContext.Render) into a user
//     message after the system messages, so the model sees the card.
//   - Without a key, Offline: a deterministic planner with no network that derives checklist
//     items, a priority change and a plan comment from the card itself, then summarizes what was
//     done. The product stays useful with no model configured, and tests get stable answers.
//
// # Errors
//
// Chat errors wrap ErrMalformedOutput when the model's turn is unusable (unknown tool, arguments
// that are not a JSON object, an undecodable stream, an empty turn) and ErrRateLimited when the
// server kept answering 429. When the caller's context ends or the call times out, the error
// matches context.Canceled or context.DeadlineExceeded.
package llm
