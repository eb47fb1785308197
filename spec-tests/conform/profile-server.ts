// A minimal stdio server for spec-tests/conform/passes.test.ts: its capabilities follow
// MCP_CONFORM_PROFILE (fixtures/FORMAT.md, "Target profiles"): `tools` declares tools alone,
// any other name (or none) tools and logging. It speaks the session versions given by
// --versions (comma-separated); an initialize at another one gets the newest of them. With
// --announce it says on stderr that it runs the profile it was given (whatever the name: it
// stands for a target that claims a profile); without, it announces nothing.
//
//   node dist/spec-tests/conform/profile-server.js --serve --versions 2024-11-05,2025-06-18 [--announce]
//
// Without --serve the program exits at once (the test runner may load every file).

const argv = process.argv.slice(2);
if (!argv.includes("--serve")) process.exit(0);
const at = argv.indexOf("--versions");
const versions = (at >= 0 ? (argv[at + 1] ?? "") : "2025-06-18").split(",");
const profile = process.env.MCP_CONFORM_PROFILE;
const capabilities = profile === "tools" ? { tools: {} } : { tools: {}, logging: {} };
if (argv.includes("--announce") && profile !== undefined) process.stderr.write(`mcp-conform-profile: ${profile}\n`);

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const send = (message: unknown): void => {
  process.stdout.write(JSON.stringify(message) + "\n");
};

function answer(message: Record<string, unknown>): void {
  const id = message.id;
  const params = isRecord(message.params) ? message.params : {};
  switch (message.method) {
    case "initialize": {
      const asked = typeof params.protocolVersion === "string" ? params.protocolVersion : "";
      const protocolVersion = versions.includes(asked) ? asked : versions[versions.length - 1];
      send({
        jsonrpc: "2.0",
        id,
        result: { protocolVersion, capabilities, serverInfo: { name: "profile-server", version: profile ?? "default" } },
      });
      return;
    }
    case "ping":
      send({ jsonrpc: "2.0", id, result: {} });
      return;
    case "tools/list":
      send({ jsonrpc: "2.0", id, result: { tools: [] } });
      return;
    default:
      send({ jsonrpc: "2.0", id, error: { code: -32601, message: "Method not found" } });
  }
}

let pending = "";
const decoder = new TextDecoder();
process.stdin.on("data", (chunk: Uint8Array) => {
  const lines = (pending + decoder.decode(chunk, { stream: true })).split("\n");
  pending = lines.pop() ?? "";
  for (const line of lines) {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      continue;
    }
    if (isRecord(value) && typeof value.method === "string" && Object.hasOwn(value, "id")) answer(value);
  }
});
process.stdin.on("end", () => process.exit(0));
