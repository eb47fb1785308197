// The published verdicts (fixtures/verdicts/, fixtures/FORMAT.md "Checking a replayer"): what
// `mcp-engine conform` concludes against known targets, so that a replayer written elsewhere
// can check itself against the corpus rather than against our code.
//
//   node dist/spec-tests/tools/corpus-verdicts.js           check: exit 1 when a verdict differs
//   node dist/spec-tests/tools/corpus-verdicts.js --write   rewrite them (a few minutes)
//
// Invariant: a verdict holds only what a replayer must agree on (fixture, version, transport,
// outcome, and the rule of a failure), never reasons, deviations or timings, which differ
// between correct replayers and between runs.

import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { probeTarget, runStdioConformance } from "../../lib/cli/conform/index.js";
import { judgedShare } from "../../lib/cli/conform/report.js";
import type { CaseResult } from "../../lib/cli/conform/types.js";
import { KNOWN_BAD_FAULTS } from "../conform/known-bad-faults.js";
import { CORPUS_VERSION } from "./corpus-annotate.js";

export interface Verdict {
  readonly fixture: string;
  readonly version: string;
  readonly transport: "stdio" | "http";
  readonly outcome: CaseResult["outcome"];
  readonly failedRule?: string;
}

const verdictOf = (c: CaseResult): Verdict => ({
  fixture: c.fixture,
  version: c.version,
  transport: c.transport,
  outcome: c.outcome,
  ...(c.outcome === "failed" ? { failedRule: c.failedRule ?? "?" } : {}),
});

async function replay(root: string, args: readonly string[], adapter: boolean, newestOnly: boolean): Promise<CaseResult[]> {
  const probed = await probeTarget(process.execPath, args, 5000, {}, undefined, undefined, { adapter });
  if (typeof probed === "string") throw new Error(`${args.join(" ")}: ${probed}`);
  if (adapter && probed.profile.adapter === undefined) throw new Error(`${args.join(" ")}: no adapter answered`);
  return runStdioConformance(process.execPath, args, {
    fixturesDir: join(root, "fixtures"),
    role: "server",
    timeoutMs: 5000,
    profile: probed.profile,
    newestOnly,
  });
}

function serveFile(cases: readonly CaseResult[], adapter: boolean): unknown {
  return {
    corpus: CORPUS_VERSION,
    target: "mcp-engine serve",
    command: `mcp-engine conform${adapter ? " --adapter" : ""} --format json -- mcp-engine serve`,
    mode: adapter ? "adapter" : "black-box",
    judged: judgedShare(cases),
    cases: cases.map(verdictOf),
  };
}

async function knownBadFile(root: string): Promise<unknown> {
  const server = join(root, "dist", "spec-tests", "conform", "bad-server.js");
  const faults = [];
  for (const [fault, rule] of [[undefined, undefined] as const, ...KNOWN_BAD_FAULTS]) {
    const cases = await replay(root, [server, "--serve", ...(fault !== undefined ? ["--fault", fault] : [])], false, true);
    faults.push({
      fault: fault ?? "none",
      mustBreak: rule ?? null,
      judged: judgedShare(cases),
      failed: cases.filter((c) => c.outcome === "failed").map(verdictOf),
    });
  }
  return {
    corpus: CORPUS_VERSION,
    target: "spec-tests/conform/bad-server.ts (the correct server, then one fault each)",
    command: "mcp-engine conform --newest --format json -- node dist/spec-tests/conform/bad-server.js --serve [--fault F]",
    mode: "black-box",
    faults,
  };
}

/** The verdict files, by name under fixtures/verdicts/, as they should read now. */
export async function buildVerdicts(root: string, only?: (name: string) => boolean): Promise<Map<string, string>> {
  const main = join(root, "dist", "lib", "cli", "main.js");
  const files = new Map<string, string>();
  const text = (value: unknown): string => JSON.stringify(value, null, 1) + "\n";
  const want = only ?? (() => true);
  if (want("serve.black-box.json"))
    files.set("serve.black-box.json", text(serveFile(await replay(root, [main, "serve"], false, false), false)));
  if (want("serve.adapter.json")) files.set("serve.adapter.json", text(serveFile(await replay(root, [main, "serve"], true, false), true)));
  if (want("known-bad.json")) files.set("known-bad.json", text(await knownBadFile(root)));
  return files;
}

/** The lines of `published` that `built` does not have, and those it adds (a short diff). */
export function verdictDifferences(published: string, built: string): string[] {
  const before = new Set(published.split("\n"));
  const after = new Set(built.split("\n"));
  return [
    ...[...before].filter((l) => !after.has(l)).map((l) => `- ${l}`),
    ...[...after].filter((l) => !before.has(l)).map((l) => `+ ${l}`),
  ];
}

async function main(): Promise<number> {
  const root = fileURLToPath(new URL("../../../", import.meta.url));
  const write = process.argv.includes("--write");
  const stale: string[] = [];
  for (const [name, built] of await buildVerdicts(root)) {
    const path = join(root, "fixtures", "verdicts", name);
    let published = "";
    try {
      published = readFileSync(path, "utf8");
    } catch {
      published = "";
    }
    if (published === built) continue;
    stale.push(`${name}\n${verdictDifferences(published, built).slice(0, 20).join("\n")}`);
    if (write) writeFileSync(path, built);
  }
  process.stdout.write(stale.length === 0 ? "verdicts are up to date\n" : `${write ? "rewrote" : "differ"}:\n${stale.join("\n")}\n`);
  return stale.length > 0 && !write ? 1 : 0;
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) process.exitCode = await main();
