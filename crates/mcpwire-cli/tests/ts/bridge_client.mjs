// Reaches an MCP server over Streamable HTTP with the TypeScript SDK's
// client (as `mcpwire bridge --listen` serves it), lists its tools, calls
// one, and prints what it saw as one JSON line.
//
// usage: node bridge_client.mjs URL TOOL ARGUMENTS_JSON
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [url, tool, args] = process.argv.slice(2);
const client = new Client({ name: "mcpwire-bridge-check", version: "1.0.0" });
const transport = new StreamableHTTPClientTransport(new URL(url));
await client.connect(transport);
const listed = await client.listTools();
const result = await client.callTool({ name: tool, arguments: JSON.parse(args) });
console.log(JSON.stringify({
  server: client.getServerVersion(),
  sessionId: transport.sessionId ?? null,
  tools: listed.tools.map((t) => t.name),
  result,
}));
await transport.terminateSession().catch(() => {});
await client.close();
