// Drives Pilot's /mcp with the official MCP TypeScript SDK's client: list the tools, then call five of
// them with a personal access token. Prints one JSON object with what it saw (e2e/mcp_test.go reads it).
// Usage: node ts-client.mjs <mcp url> <token> <org> <workspace> <projectId> <cardId>
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [url, token, org, workspace, projectId, cardId] = process.argv.slice(2);
const transport = new StreamableHTTPClientTransport(new URL(url), {
  requestInit: { headers: { Authorization: `Bearer ${token}` } },
});
const client = new Client({ name: "pilot-ts-test", version: "1.0.0" });
await client.connect(transport);

const out = {};
out.tools = (await client.listTools()).tools.map((t) => t.name);
const orgs = await client.callTool({ name: "list_organizations", arguments: {} });
out.organizations = orgs.structuredContent;
const card = await client.callTool({ name: "get_card", arguments: { org, workspace, projectId, cardId } });
out.card = card.structuredContent;
const comment = await client.callTool({
  name: "add_comment",
  arguments: { org, workspace, projectId, cardId, content: "from the TypeScript SDK" },
});
out.comment = comment.structuredContent;
out.commentIsError = comment.isError ?? false;
// The client checks structuredContent against each tool's output schema: a search result, and a proposed
// action whose `result` is null until applied.
const search = await client.callTool({ name: "search", arguments: { org, workspace, q: "release" } });
out.search = search.structuredContent;
const action = await client.callTool({
  name: "propose_pilotage_action",
  arguments: { org, workspace, actionType: "create_todo", explanation: "from the TypeScript SDK", payload: { label: "Review" } },
});
out.action = action.structuredContent;
out.actionIsError = action.isError ?? false;
const bad = await client.callTool({ name: "get_card", arguments: { org, workspace, projectId } });
out.badIsError = bad.isError ?? false;
out.badText = bad.content?.[0]?.text ?? "";
await client.close();
console.log(JSON.stringify(out));
