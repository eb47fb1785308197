// HTTP-13 in a real browser: `mcp-engine serve --http --cors ORIGIN` lets a page of ORIGIN call
// it cross-origin, in every era a page can speak (2026-07-28, the session era, HTTP+SSE), and a
// server started without --cors refuses the page's preflight, so the browser never sends the call.
//
// How the browser is driven, with no npm browser package: Debian's `chromium` (installed by
// .ci/run) is started headless on a page served here from one loopback port; the page
// (browser-cors-page.mjs) imports `mcp-engine/peer` through an import map onto the built
// dist/lib/, does its work and POSTs what happened to /result on its own origin, which is all
// this test waits for. No DevTools protocol, so no WebSocket client is needed (Node 20 has none).
//
// Invariants: Chromium is a hard requirement: without it this test fails, naming the package to
// install, never skips; it reaches nothing but 127.0.0.1 (background networking off, every
// other host name unresolvable); its whole process group is killed at the end and its profile
// removed; every wait is bounded.

import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { createServer, type Server as HttpServer } from "node:http";
import { tmpdir } from "node:os";
import { delimiter, join, resolve, sep } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { withTimeout } from "../support/helpers.js";

const here = fileURLToPath(new URL("..", import.meta.url)); // dist/spec-tests
const ROOT = join(here, "..", "..");
const LIB = join(ROOT, "dist", "lib");
const MAIN = join(LIB, "cli", "main.js");
const PAGE_SCRIPT = join(ROOT, "spec-tests", "e2e", "browser-cors-page.mjs");

/** The `chromium` of PATH (Debian's package), or a failure that says how to get it. */
function chromium(): string {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    const candidate = join(dir, "chromium");
    if (dir !== "" && existsSync(candidate)) return candidate;
  }
  assert.fail("chromium is not on PATH: this test needs Debian's chromium (apt-get install -y chromium; .ci/run installs it)");
}

interface PageReport {
  origin: string;
  allowed: EraResult[];
  denied: EraResult;
  pageError?: string;
}

interface EraResult {
  era: string;
  ok: boolean;
  error?: string;
  version?: string;
  transport?: string;
  tools?: string[];
  progress?: number[];
  text?: string;
  ms?: number;
}

const PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><title>mcp-engine cross-origin</title>
<script type="importmap">{ "imports": { "mcp-engine/peer": "/lib/peer/index.js" } }</script>
<script>
  // A page that fails to load its module still reports.
  const fail = (what) => fetch("/result", { method: "POST", body: JSON.stringify({ pageError: String(what) }) });
  addEventListener("error", (event) => fail(event.message ?? event));
</script>
<script type="module" src="/page.mjs" onerror="fail('page.mjs or an import of it did not load')"></script>
</head><body></body></html>`;

/** The page's origin: the page, its script, dist/lib/ as ESM, and /result, which settles `report`. */
async function pageServer(): Promise<{ origin: string; report: Promise<PageReport>; server: HttpServer }> {
  let settle: (report: PageReport) => void = () => undefined;
  const report = new Promise<PageReport>((resolve) => (settle = resolve));
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://page").pathname;
    const send = (status: number, type: string, body: string | Uint8Array): void => {
      res.writeHead(status, { "content-type": type, "cache-control": "no-store" });
      res.end(body);
    };
    if (req.method === "POST" && path === "/result") {
      let body = "";
      req.on("data", (chunk: Uint8Array) => (body += new TextDecoder().decode(chunk)));
      req.on("end", () => {
        send(200, "text/plain", "ok");
        settle(JSON.parse(body) as PageReport);
      });
      return;
    }
    if (path === "/") return send(200, "text/html; charset=utf-8", PAGE);
    if (path === "/page.mjs") return send(200, "text/javascript", readFileSync(PAGE_SCRIPT));
    if (path.startsWith("/lib/") && path.endsWith(".js")) {
      // Only files under dist/lib/: a path that climbs out of it is not found.
      const file = resolve(LIB, `.${path.slice("/lib".length)}`);
      if (file.startsWith(LIB + sep) && existsSync(file) && statSync(file).isFile())
        return send(200, "text/javascript", readFileSync(file));
    }
    send(404, "text/plain", "not found");
  });
  const port = await new Promise<number>((resolve) =>
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      resolve(typeof address === "object" && address !== null ? address.port : 0);
    }),
  );
  return { origin: `http://127.0.0.1:${port}`, report, server };
}

/** `mcp-engine serve --http 127.0.0.1:0 --legacy-sse [--cors ...]`: resolves with its base URL once it listens. */
async function serve(cors: readonly string[]): Promise<{ base: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [MAIN, "serve", "--http", "127.0.0.1:0", "--legacy-sse", ...cors.flatMap((o) => ["--cors", o])], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  const url = await withTimeout(
    new Promise<string>((resolve, reject) => {
      child.stderr.on("data", (chunk: Uint8Array) => {
        stderr += new TextDecoder().decode(chunk);
        const found = /listening on (http:\/\/\S+)\/mcp/.exec(stderr);
        if (found !== null) resolve(found[1] as string);
      });
      child.on("exit", (code) => reject(new Error(`serve exited with ${code} before listening: ${stderr}`)));
    }),
    15_000,
    "mcp-engine serve --http",
  );
  return { base: url, child };
}

/** Headless Chromium on `url`, in a process group of its own, with a throwaway profile; stop() kills the group. */
function browse(url: string): { stop(): void; output(): string } {
  const command = chromium();
  const profile = mkdtempSync(join(tmpdir(), "mcp-engine-chromium-"));
  const child = spawn(
    command,
    [
      "--headless=new",
      "--no-sandbox", // CI runs as root
      "--disable-gpu",
      "--no-first-run",
      "--no-default-browser-check",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--disable-default-apps",
      "--disable-extensions",
      "--metrics-recording-only",
      // Only loopback: any other host name resolves to nothing.
      "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
      `--user-data-dir=${profile}`,
      url,
    ],
    { stdio: ["ignore", "ignore", "pipe"], detached: true },
  );
  let output = "";
  child.stderr.on("data", (chunk: Uint8Array) => (output = (output + new TextDecoder().decode(chunk)).slice(-4000)));
  child.on("error", (error) => (output += `\nspawn failed: ${error.message}`));
  return {
    stop() {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
      } catch {
        // already gone
      }
      rmSync(profile, { recursive: true, force: true });
    },
    output: () => output,
  };
}

/** A preflight as a browser of `origin` sends it before a JSON POST with the MCP headers. */
async function preflight(base: string, origin: string): Promise<{ status: number; allowOrigin: string | null }> {
  const res = await fetch(`${base}/mcp`, {
    method: "OPTIONS",
    headers: {
      Origin: origin,
      "Access-Control-Request-Method": "POST",
      "Access-Control-Request-Headers": "content-type, mcp-protocol-version",
    },
  });
  await res.text();
  return { status: res.status, allowOrigin: res.headers.get("access-control-allow-origin") };
}

test("HTTP-13: a page on another origin in headless Chromium reaches `serve --http --cors ORIGIN` in every era; without --cors its preflight is refused", async () => {
  const page = await pageServer();
  const allowed = await serve([page.origin]);
  const denied = await serve([]);
  let browser: ReturnType<typeof browse> | undefined;
  try {
    // What the browser will be told, asked directly first.
    assert.deepEqual(await preflight(allowed.base, page.origin), { status: 204, allowOrigin: page.origin });
    assert.equal((await preflight(allowed.base, "http://127.0.0.1:1")).allowOrigin, null, "another origin is not allowed");
    const refused = await preflight(denied.base, page.origin);
    assert.ok(refused.status >= 400 && refused.allowOrigin === null, `without --cors: ${JSON.stringify(refused)}`);

    const query = `allowed=${encodeURIComponent(allowed.base)}&denied=${encodeURIComponent(denied.base)}&eras=modern,session,legacy`;
    browser = browse(`${page.origin}/?${query}`);
    const current = browser;
    const report = await withTimeout(page.report, 90_000, "the page's report").catch((error: Error) => {
      throw new Error(`${error.message}; chromium said: ${current.output()}`);
    });
    assert.equal(report.pageError, undefined, `the page failed: ${report.pageError}`);
    assert.equal(report.origin, page.origin);
    const expected: Record<string, { version: string; transport: string }> = {
      modern: { version: "2026-07-28", transport: "streamable" },
      session: { version: "2025-11-25", transport: "streamable" },
      legacy: { version: "2024-11-05", transport: "legacy" },
    };
    assert.deepEqual(
      report.allowed.map((r) => r.era),
      Object.keys(expected),
    );
    for (const result of report.allowed) {
      assert.ok(result.ok, `${result.era}: ${result.error}`);
      assert.equal(result.version, expected[result.era]?.version, result.era);
      assert.equal(result.transport, expected[result.era]?.transport, result.era);
      assert.ok(result.tools?.includes("test_tool_with_progress"), `${result.era}: tools/list: ${result.tools?.join(", ")}`);
      assert.deepEqual(result.progress, [0, 50, 100], `${result.era}: the progress notifications reach the page`);
      assert.equal(result.text, "Tool with progress executed successfully", result.era);
    }
    // The browser refuses to send the call at all: fetch rejects with a TypeError, no HTTP status reaches the page.
    assert.equal(report.denied.ok, false, "without --cors the page cannot connect");
    assert.match(report.denied.error ?? "", /TypeError|Failed to fetch/, report.denied.error);
  } finally {
    browser?.stop();
    allowed.child.kill("SIGKILL");
    denied.child.kill("SIGKILL");
    page.server.close();
  }
});
