// Reads resources from an MCP server over Streamable HTTP with the
// TypeScript SDK's client and prints, as one JSON line, each URI's
// contents exactly as the SDK received them.
//
// usage: node read_skill_files.mjs URL URI...
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [url, ...uris] = process.argv.slice(2);
const client = new Client({ name: "mcpwire-skills-check", version: "1.0.0" });
const transport = new StreamableHTTPClientTransport(new URL(url));
await client.connect(transport);
const listed = await client.listResources();
const read = {};
for (const uri of uris) {
  const result = await client.readResource({ uri });
  read[uri] = result.contents;
}
console.log(JSON.stringify({
  listed: listed.resources.map((r) => ({ uri: r.uri, name: r.name, mimeType: r.mimeType })),
  read,
}));
await transport.terminateSession().catch(() => {});
await client.close();
