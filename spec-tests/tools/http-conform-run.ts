// The HTTP replay of the conformance corpus on its own (the replay `mcp-engine conform <url>`
// runs, lib/cli/conform/http.ts, without the rest of the CLI's report):
// `node dist/spec-tests/tools/http-conform-run.js URL [--json]` prints one line per case
// (outcome, level, version, fixture, rules, reason) and a per-rule tally, and exits 1 when a
// case of level MUST, SHOULD or MAY failed (a policy case never fails the run). With no URL it
// serves the reference server in process and replays against that. http/conform-http.test.ts
// uses its fixtures folder, in-process fetch and tally.

import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createReferenceServer } from "../../lib/cli/reference-server.js";
import { runHttpConformance } from "../../lib/cli/conform/http.js";
import type { CaseResult } from "../../lib/cli/conform/types.js";
import { createHttpHandler } from "../../lib/http-server/index.js";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
export const FIXTURES = join(ROOT, "fixtures");

/** A fetch that hands each request to a fetch handler in this process. */
export function inProcessFetch(handle: (request: Request) => Promise<Response>): typeof fetch {
  return ((url: string, init: { method: string; headers: Record<string, string>; body?: string }) =>
    // Over a socket fetch sends Host itself; a Request made here has none.
    handle(
      new Request(url, {
        method: init.method,
        headers: { host: /^[a-z]+:\/\/([^/]+)/i.exec(url)?.[1] ?? "localhost", ...init.headers },
        ...(init.body !== undefined ? { body: init.body } : {}),
      }),
    )) as unknown as typeof fetch;
}

/** Per rule: how many cases passed, failed and were not applicable. */
export function tally(results: readonly CaseResult[]): Map<string, { passed: number; failed: number; na: number; level: string }> {
  const out = new Map<string, { passed: number; failed: number; na: number; level: string }>();
  for (const r of results) {
    for (const rule of r.rules) {
      const row = out.get(rule) ?? { passed: 0, failed: 0, na: 0, level: r.level };
      if (r.outcome === "passed") row.passed++;
      else if (r.outcome === "failed") row.failed++;
      else row.na++;
      out.set(rule, row);
    }
  }
  return new Map([...out].sort(([a], [b]) => (a < b ? -1 : 1)));
}

async function main(argv: readonly string[]): Promise<number> {
  const json = argv.includes("--json");
  let url = argv.find((a) => !a.startsWith("--"));
  let fetchFn: typeof fetch | undefined;
  let close = (): void => undefined;
  if (url === undefined) {
    const server = createReferenceServer({ paginationSecret: randomBytes(32), sleep: async () => undefined });
    const handler = createHttpHandler(server);
    url = "http://127.0.0.1/mcp";
    fetchFn = inProcessFetch((r) => handler.fetch(r));
    close = () => handler.close();
  }
  const results = await runHttpConformance(url, { fixturesDir: FIXTURES, ...(fetchFn !== undefined ? { fetch: fetchFn } : {}) });
  close();
  if (json) process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
  else {
    for (const r of results)
      process.stdout.write(
        `${r.outcome.padEnd(14)} ${r.level.padEnd(6)} ${r.version} ${r.fixture} [${r.rules.join(", ")}]${r.reason === undefined ? "" : ` ${r.reason}`}\n`,
      );
    for (const [rule, row] of tally(results))
      process.stdout.write(`${rule.padEnd(8)} passed ${row.passed} failed ${row.failed} n/a ${row.na}\n`);
  }
  return results.some((r) => r.outcome === "failed" && r.level !== "policy") ? 1 : 0;
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  main(process.argv.slice(2)).then((code) => process.exit(code));
}
