// The Streamable HTTP side of bad-client.ts: a minimal client written against the transport
// itself (fetch and an SSE reader), so that each fault breaks exactly one rule the client role
// over HTTP judges. It POSTs initialize at MCP_CONFORM_VERSION, answers the pings that come on any
// stream, sends notifications/initialized once the result is in, opens the GET stream and ends
// when that stream ends.

type Message = { id?: unknown; method?: unknown; result?: unknown };
type Answer = Awaited<ReturnType<typeof fetch>>;

/** The events of an SSE body, their data parsed as JSON (what is not JSON is passed over). */
async function readEvents(res: Answer, onMessage: (message: Message) => void): Promise<void> {
  if (res.body === null) return;
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const chunk = await reader.read().catch(() => undefined);
    if (chunk === undefined || chunk.done) return;
    buffer += decoder.decode(chunk.value, { stream: true });
    let end: number;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const event = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = event
        .split("\n")
        .filter((line) => line.startsWith("data:"))
        .map((line) => line.slice(5).trimStart())
        .join("\n");
      try {
        onMessage(JSON.parse(data) as Message);
      } catch {
        // a priming event or a comment
      }
    }
  }
}

export async function httpClient(url: string, fault: string | undefined): Promise<number> {
  let session: string | undefined;
  let negotiated: string | undefined;
  const headers = (accept: string): Record<string, string> => {
    const out: Record<string, string> = { Accept: accept, "Content-Type": "application/json" };
    if (session !== undefined && fault !== "no-session") out["Mcp-Session-Id"] = session;
    if (negotiated !== undefined && fault !== "no-version") out["MCP-Protocol-Version"] = negotiated;
    return out;
  };
  const post = (message: unknown): Promise<Answer> =>
    fetch(url, { method: "POST", headers: headers("application/json, text/event-stream"), body: JSON.stringify(message) });
  const answered = (res: Answer): void =>
    void res.body
      ?.getReader()
      .cancel()
      .catch(() => undefined);
  let opened: Promise<void> | undefined;
  const onMessage = (message: Message): void => {
    if (message.method === "ping" && fault === "mute") return;
    if (message.method === "ping") {
      const id = fault === "wrong-id" ? (typeof message.id === "number" ? message.id + 1000 : `${String(message.id)}-wrong`) : message.id;
      void post({ jsonrpc: "2.0", id, result: fault === "wrong-pong" ? { pong: true } : {} }).then(answered, () => undefined);
    } else if (message.id === "init" && typeof message.result === "object" && message.result !== null) {
      const version = (message.result as { protocolVersion?: unknown }).protocolVersion;
      negotiated = typeof version === "string" ? version : undefined;
      opened = post({ jsonrpc: "2.0", method: "notifications/initialized" }).then(async (res) => {
        answered(res);
        const stream = await fetch(url, { method: "GET", headers: headers("text/event-stream") });
        await readEvents(stream, onMessage);
      });
    }
  };
  try {
    const init = await post({
      jsonrpc: "2.0",
      id: "init",
      method: "initialize",
      params: {
        protocolVersion: process.env.MCP_CONFORM_VERSION ?? "2025-11-25",
        capabilities: {},
        clientInfo: { name: "bad", version: "1" },
      },
    });
    session = init.headers.get("mcp-session-id") ?? undefined;
    await readEvents(init, onMessage);
    await opened;
    return 0;
  } catch {
    return 1;
  }
}
