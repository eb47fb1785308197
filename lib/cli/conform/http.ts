// The HTTP replay of the conformance corpus: every case under fixtures/http/ (format:
// fixtures/FORMAT.md, "HTTP cases") replayed against one Streamable HTTP endpoint, once per version
// it lists, with one CaseResult each. `mcp-engine conform <url>` reports these results; the
// replay itself (replay.ts) needs nothing but fetch, so it runs against any server.
//
// Invariants: cases run one after another in a fixed order (file path, then version), so
// two runs against the same target report the same list; a malformed fixture is our defect
// and throws, naming the file; nothing the target does throws.

import { readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import type { CaseResult } from "./types.js";
import { parseHttpFixture, type HttpFixture } from "./http-format.js";
import { replayCase, type FetchLike } from "./http-replay.js";

export { parseHttpFixture, HTTP_VERSIONS } from "./http-format.js";
export type { HttpFixture } from "./http-format.js";
export { replayCase, DEFAULT_EXCHANGE_MS } from "./http-replay.js";

/**
 * Replays the HTTP fixtures against `url` (the MCP endpoint). `fixturesDir` is the corpus
 * (fixtures/, whose http/ folder is read) or its http/ folder itself; `versions` keeps only
 * those versions; `fetch` defaults to the global fetch.
 */
export async function runHttpConformance(
  url: string,
  options: { fixturesDir: string; versions?: readonly string[]; fetch?: typeof fetch },
): Promise<readonly CaseResult[]> {
  const fetchFn: FetchLike = options.fetch ?? fetch;
  const results: CaseResult[] = [];
  for (const fixture of loadHttpFixtures(options.fixturesDir)) {
    for (const version of fixture.versions) {
      if (options.versions !== undefined && !options.versions.includes(version)) continue;
      results.push(await replayCase(fixture, version, url, fetchFn));
    }
  }
  return results;
}

/** Every HTTP fixture file, in path order: its id (`http/<era>/<name>`) and its path. */
export function listHttpFixtureFiles(fixturesDir: string): { id: string; path: string }[] {
  const nested = join(fixturesDir, "http");
  const dir = isDirectory(nested) ? nested : fixturesDir;
  return listJson(dir, "").map((relative) => ({ id: `http/${relative.slice(0, -".json".length)}`, path: join(dir, relative) }));
}

/** Every HTTP fixture, by path; throws on a malformed one. */
export function loadHttpFixtures(fixturesDir: string): HttpFixture[] {
  const fixtures: HttpFixture[] = [];
  for (const { id, path } of listHttpFixtureFiles(fixturesDir)) {
    const parsed = parseHttpFixture(readFileSync(path, "utf8"), id);
    if (typeof parsed === "string") throw new Error(`malformed HTTP fixture: ${parsed}`);
    fixtures.push(parsed);
  }
  return fixtures;
}

function listJson(root: string, prefix: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(join(root, prefix)).sort()) {
    const relative = prefix === "" ? name : `${prefix}/${name}`;
    if (isDirectory(join(root, relative))) out.push(...listJson(root, relative));
    else if (name.endsWith(".json")) out.push(relative);
  }
  return out;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
