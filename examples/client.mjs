// Starts server.mjs, lists its tools and calls one, over stdio.
import { StdioClient } from "mcp-engine/hosts/stdio";

const connection = await StdioClient.spawn({ command: "node", args: ["server.mjs"], info: { name: "my-client", version: "1.0.0" } });
const { client, server } = connection;
console.log(server.serverInfo.name, server.version); // demo 2025-11-25
console.log((await client.listTools()).map((tool) => tool.name)); // [ 'add' ]
const result = await client.callTool("add", { a: 1, b: 2 });
console.log(result.content); // [ { type: 'text', text: '3' } ]
await connection.close(); // closes stdin, then SIGTERM, then SIGKILL
