// Lists the tools of the stdio server given as the first argument with the
// official TypeScript SDK client, calls add_note, and prints what it saw as
// one JSON object. Copied beside the SDK's node_modules by the test.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const transport = new StdioClientTransport({ command: process.argv[2], args: [] });
const client = new Client({ name: "mcpwire-ts-list", version: "1.0.0" });
await client.connect(transport);
const { tools } = await client.listTools();
const result = await client.callTool({
  name: "add_note",
  arguments: { title: "from", body: "typescript" },
});
console.log(JSON.stringify({ tools, result }));
await client.close();
