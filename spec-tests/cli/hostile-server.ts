// A hostile stdio MCP server for hostile-server.test.ts (RULES.md CLI-01): every string it
// controls carries terminal attacks (a window title set with OSC 0, a screen clear, an OSC 8
// hyperlink, a carriage return followed by a forged PASS line, bidi overrides and isolates, a
// C1 CSI, DEL) and a run of 5000 characters, so that a quote the CLI prints raw or uncut shows
// in its output. Raw JSON lines on stdin and stdout, no library: it says exactly what a test
// wants it to say, whether or not the protocol allows it.
//
//   node dist/spec-tests/cli/hostile-server.js --serve
//
// Fields it poisons: serverInfo (name, version, title), instructions, tool names, titles and
// descriptions, tool results, resource names and URIs, template URIs, prompt names and their
// argument names, completion values, every error message, log and progress messages, a
// response to an id never sent (a violation quoting it), and its stderr (lines, a line never
// ended). Under `mcp-engine conform` (MCP_CONFORM=1) it refuses ping with a poisoned message.
// Without --serve the program only exports HOSTILE.

/** The attacks, in one string. */
export const HOSTILE =
  "\u001b]0;pwned-title\u0007" +
  "\u001b[2J\u001b[H" +
  "\u001b]8;;https://evil.example/\u001b\\click\u001b]8;;\u001b\\" +
  "\rPASS  forged: everything is fine\n" +
  "\u202eevil\u202c\u2066iso\u2069\u200f" +
  "\u009b31m\u007f";

/** A field: its label, the attacks, and a long run that the CLI must cut. */
export const poisoned = (label: string): string => `${label}${HOSTILE}${"L".repeat(5000)}`;

const SESSION_VERSIONS = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];

function send(message: unknown): void {
  process.stdout.write(`${JSON.stringify(message)}\n`);
}

function answer(id: unknown, method: string, params: Record<string, unknown>): void {
  switch (method) {
    case "initialize": {
      const asked = params.protocolVersion;
      send({
        jsonrpc: "2.0",
        id,
        result: {
          protocolVersion: typeof asked === "string" && SESSION_VERSIONS.includes(asked) ? asked : "2025-11-25",
          capabilities: { tools: {}, resources: {}, prompts: {}, logging: {}, completions: {} },
          serverInfo: { name: poisoned("name:"), version: poisoned("version:"), title: poisoned("title:") },
          instructions: poisoned("instructions:"),
        },
      });
      return;
    }
    case "ping":
      // Under `mcp-engine conform` (MCP_CONFORM=1) ping is refused, so that the failures quote the message.
      if (process.env.MCP_CONFORM === "1") {
        // What JSON leaves raw first: the runner quotes only the start of a message.
        send({ jsonrpc: "2.0", id, error: { code: -32000, message: poisoned("ping:\u202eevil\u2066\u009b31m\u007f") } });
        return;
      }
      send({ jsonrpc: "2.0", id, result: {} });
      return;
    case "logging/setLevel":
      send({ jsonrpc: "2.0", id, result: {} });
      return;
    case "tools/list":
      send({
        jsonrpc: "2.0",
        id,
        result: {
          tools: [
            {
              name: poisoned("tool-error:"),
              title: poisoned("tool-title:"),
              description: poisoned("tool-description:"),
              inputSchema: { type: "object" },
              annotations: { readOnlyHint: true },
            },
            { name: poisoned("tool-result:"), inputSchema: { type: "object" }, annotations: { readOnlyHint: true } },
          ],
        },
      });
      return;
    case "tools/call": {
      const name = typeof params.name === "string" ? params.name : "";
      const token = (params._meta as { progressToken?: unknown } | undefined)?.progressToken;
      if (token !== undefined)
        send({
          jsonrpc: "2.0",
          method: "notifications/progress",
          params: { progressToken: token, progress: 1, message: poisoned("progress:") },
        });
      if (name.startsWith("tool-result:")) {
        send({ jsonrpc: "2.0", id, result: { content: [{ type: "text", text: poisoned("result:") }] } });
        return;
      }
      send({ jsonrpc: "2.0", id, error: { code: -32000, message: poisoned("tool-error-message:") } });
      return;
    }
    case "resources/list":
      send({ jsonrpc: "2.0", id, result: { resources: [{ uri: poisoned("test://resource/"), name: poisoned("resource-name:") }] } });
      return;
    case "resources/templates/list":
      send({
        jsonrpc: "2.0",
        id,
        result: {
          resourceTemplates: [
            { uriTemplate: `test://template/{id}/${poisoned("template:")}`, name: poisoned("template-name:") },
            { uriTemplate: `test://broken/{${poisoned("bad-template:")}`, name: "broken" },
          ],
        },
      });
      return;
    case "prompts/list":
      send({
        jsonrpc: "2.0",
        id,
        result: { prompts: [{ name: poisoned("prompt:"), arguments: [{ name: poisoned("argument:"), required: true }] }] },
      });
      return;
    case "completion/complete":
      send({ jsonrpc: "2.0", id, result: { completion: { values: [poisoned("completion:"), poisoned("completion-2:")] } } });
      return;
    default:
      send({ jsonrpc: "2.0", id, error: { code: -32601, message: poisoned(`error ${method}:`) } });
  }
}

function serve(): void {
  process.stderr.write(`stderr-line:${HOSTILE}${"S".repeat(5000)}\n`);
  process.stderr.write("stderr-unended:\u001b]0;stderr-title\u0007");
  let buffered = "";
  const decoder = new TextDecoder();
  process.stdin.on("data", (chunk: Uint8Array) => {
    buffered += decoder.decode(chunk, { stream: true });
    const lines = buffered.split("\n");
    buffered = lines.pop() ?? "";
    for (const line of lines) {
      if (line.trim() === "") continue;
      let message: Record<string, unknown>;
      try {
        message = JSON.parse(line) as Record<string, unknown>;
      } catch {
        continue;
      }
      const method = typeof message.method === "string" ? message.method : undefined;
      const params = typeof message.params === "object" && message.params !== null ? (message.params as Record<string, unknown>) : {};
      if (method === "notifications/initialized") {
        send({
          jsonrpc: "2.0",
          method: "notifications/message",
          params: { level: "error", logger: poisoned("logger:"), data: poisoned("log:") },
        });
        // An answer to a request never sent: the engine reports it (ID-04), quoting what arrived.
        send({ jsonrpc: "2.0", id: poisoned("id:"), result: {} });
        process.stderr.write(`stderr-after-initialized:${HOSTILE}\n`);
        continue;
      }
      if (method === undefined || !Object.hasOwn(message, "id")) continue;
      answer(message.id, method, params);
    }
  });
  process.stdin.on("end", () => process.exit(0));
}

if (process.argv.includes("--serve")) serve();
