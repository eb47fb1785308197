// The page of spec-tests/e2e/browser-cors.test.ts, run by headless Chromium from another origin
// than the MCP servers it calls. It imports the package's portable client as a user's page
// would (`mcp-engine/peer`, mapped by the page's import map onto the built dist/lib/), and
// for each era it is asked for: connects, lists the tools, calls the progress tool, and keeps
// what happened. Then it posts everything to /result on its own origin and is done.
//
// Its query: `allowed` (a server started with --cors naming this page's origin), `denied` (one
// started without --cors) and `eras` (comma-separated: modern, session, legacy). A failure is
// a result too ({ ok: false, error }): the test judges, the page only reports.

import { connectHttp } from "mcp-engine/peer";

const query = new URLSearchParams(location.search);
const timers = { now: () => performance.now(), setTimeout: (fn, ms) => setTimeout(fn, ms), clearTimeout: (handle) => clearTimeout(handle) };

/** How each era is reached: the endpoint's path and the versions offered. */
const ERAS = {
  modern: { path: "/mcp", versions: ["2026-07-28"] },
  session: { path: "/mcp", versions: ["2025-11-25"] },
  // HTTP+SSE (2024-11-05): the POST to /sse is refused, and the client falls back to GET /sse.
  legacy: { path: "/sse", versions: ["2024-11-05"] },
};

async function exercise(base, era) {
  const { path, versions } = ERAS[era];
  const started = performance.now();
  let connection;
  try {
    connection = await connectHttp({
      url: base + path,
      versions,
      info: { name: "browser-cors-page", version: "1" },
      fetch: (url, init) => fetch(url, init),
      timers,
      createAbortController: () => new AbortController(),
      connectTimeoutMs: 10_000,
      defaultTimeoutMs: 10_000,
    });
    const tools = await connection.client.listTools();
    const progress = [];
    const result = await connection.client.callTool("test_tool_with_progress", {}, { onProgress: (p) => progress.push(p.progress) });
    return {
      era,
      ok: true,
      version: connection.server.version,
      transport: connection.transport.transportMode,
      tools: tools.map((tool) => tool.name),
      progress,
      text: result.content[0]?.text,
      ms: Math.round(performance.now() - started),
    };
  } catch (error) {
    return { era, ok: false, error: `${error?.name}: ${error?.message}` };
  } finally {
    await connection?.close().catch(() => undefined);
  }
}

async function main() {
  const eras = (query.get("eras") ?? "").split(",").filter((era) => era in ERAS);
  const allowed = [];
  for (const era of eras) allowed.push(await exercise(query.get("allowed"), era));
  const denied = await exercise(query.get("denied"), "modern");
  return { origin: location.origin, allowed, denied };
}

main()
  .catch((error) => ({ pageError: String(error?.stack ?? error) }))
  .then((report) => fetch("/result", { method: "POST", body: JSON.stringify(report) }));
