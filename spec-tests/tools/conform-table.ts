// The cross-implementation table (docs/conformance-table.md): the stdio corpus replayed, black
// box and one case per fixture (`--newest`), against this project's `serve`, the servers the
// tests write with the official SDKs, and published servers, each with its version; the date,
// the corpus version and the runner's settings are written with the table.
//
//   node dist/spec-tests/tools/conform-table.js [--write]   print the table, or write it to docs/
//
// Published servers are looked up by package name in this project's node_modules, then in each
// node_modules directory of MCP_CONFORM_TABLE_MODULES (separated by the path delimiter), so a
// server can be installed anywhere outside the project (npm install --prefix /tmp/x <package>).
// One that is found nowhere gets a row saying so; nothing is fetched. The tmcp and FastMCP rows
// run small scripts of spec-tests/conform/ written with those packages, which import them from the
// node_modules directory they were found in (spec-tests/conform/outside-modules.mjs): neither is a
// dependency of this project, and nothing under lib/ imports them.

import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import { fileURLToPath } from "node:url";
import { probeTarget, runStdioConformance } from "../../lib/cli/conform/index.js";
import { judgedShare } from "../../lib/cli/conform/report.js";
import type { CaseResult } from "../../lib/cli/conform/types.js";
import { CORPUS_VERSION } from "./corpus-annotate.js";

interface Target {
  readonly name: string;
  /** The package whose version the row names. */
  readonly versionOf: string;
  /**
   * The program to run: a package's bin (resolved in the module directories) or a file of this
   * project; with `modulesOf`, the file is given the node_modules directory that package was found
   * in as its first argument (a server script written with a package installed outside the project).
   */
  readonly program: { readonly bin: string; readonly package: string } | { readonly file: string; readonly modulesOf?: string };
  readonly args: readonly string[];
  readonly note: string;
}

const TARGETS: readonly Target[] = [
  {
    name: "mcp-engine `serve`",
    versionOf: "mcp-engine",
    program: { file: "dist/lib/cli/main.js" },
    args: ["serve"],
    note: "this project's reference server",
  },
  {
    name: "SDK v1 `McpServer`",
    versionOf: "@modelcontextprotocol/sdk",
    program: { file: "spec-tests/conform/sdk-v1-server.mjs" },
    args: [],
    note: "written for the tests: every feature, and the conformance profile's tools",
  },
  {
    name: "SDK v2 `McpServer`",
    versionOf: "@modelcontextprotocol/server",
    program: { file: "spec-tests/conform/sdk-v2-server.mjs" },
    args: [],
    note: "written for the tests: every feature, and the conformance profile's tools",
  },
  {
    name: "server-everything",
    versionOf: "@modelcontextprotocol/server-everything",
    program: { bin: "dist/index.js", package: "@modelcontextprotocol/server-everything" },
    args: ["stdio"],
    note: "published, knows nothing of the corpus",
  },
  {
    name: "tmcp",
    versionOf: "tmcp",
    program: { file: "spec-tests/conform/tmcp-server.mjs", modulesOf: "tmcp" },
    args: [],
    note: 'a small server written with tmcp (spec-tests/conform/tmcp-server.mjs: two tools, a resource, two prompts), nothing for the corpus; its initialize result carries an extra member `adapter: {}`, which the schema admits and the corpus accepts (`"$open": true` in the wire form of initialize results)',
  },
  {
    name: "FastMCP",
    versionOf: "fastmcp",
    program: { file: "spec-tests/conform/fastmcp-server.mjs", modulesOf: "fastmcp" },
    args: [],
    note: "a small server written with FastMCP (spec-tests/conform/fastmcp-server.mjs: two tools, a resource, two prompts), nothing for the corpus",
  },
  {
    name: "server-memory",
    versionOf: "@modelcontextprotocol/server-memory",
    program: { bin: "dist/index.js", package: "@modelcontextprotocol/server-memory" },
    args: [],
    note: "published, knows nothing of the corpus",
  },
  {
    name: "server-sequential-thinking",
    versionOf: "@modelcontextprotocol/server-sequential-thinking",
    program: { bin: "dist/index.js", package: "@modelcontextprotocol/server-sequential-thinking" },
    args: [],
    note: "published, knows nothing of the corpus",
  },
  {
    name: "server-filesystem",
    versionOf: "@modelcontextprotocol/server-filesystem",
    program: { bin: "dist/index.js", package: "@modelcontextprotocol/server-filesystem" },
    args: ["/tmp"],
    note: "published, knows nothing of the corpus (allowed directory /tmp)",
  },
];

function moduleDirs(root: string): string[] {
  const extra = (process.env.MCP_CONFORM_TABLE_MODULES ?? "").split(delimiter).filter((d) => d !== "");
  return [join(root, "node_modules"), ...extra];
}

function packageDir(root: string, name: string): string | undefined {
  return moduleDirs(root)
    .map((dir) => join(dir, ...name.split("/")))
    .find((dir) => existsSync(join(dir, "package.json")));
}

function versionOf(root: string, name: string): string | undefined {
  const dir = name === "mcp-engine" ? root : packageDir(root, name);
  if (dir === undefined) return undefined;
  const parsed = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { version?: unknown };
  return typeof parsed.version === "string" ? parsed.version : undefined;
}

interface Row {
  readonly target: Target;
  readonly version: string | undefined;
  readonly cases?: readonly CaseResult[];
  readonly problem?: string;
}

async function measure(root: string, target: Target): Promise<Row> {
  const version = versionOf(root, target.versionOf);
  let script: string | undefined;
  const before: string[] = [];
  if ("file" in target.program) {
    script = join(root, target.program.file);
    const uses = target.program.modulesOf;
    if (uses !== undefined) {
      const dir = packageDir(root, uses);
      if (dir === undefined) return { target, version, problem: "not installed here" };
      // The node_modules directory holding the package (a scoped name sits one level deeper).
      before.push(join(dir, ...uses.split("/").map(() => "..")));
    }
  } else {
    const dir = packageDir(root, target.program.package);
    script = dir === undefined ? undefined : join(dir, target.program.bin);
  }
  if (script === undefined || !existsSync(script)) return { target, version, problem: "not installed here" };
  const args = [script, ...before, ...target.args];
  const probed = await probeTarget(process.execPath, args, 10_000, {}, undefined);
  if (typeof probed === "string") return { target, version, problem: probed };
  const cases = await runStdioConformance(process.execPath, args, {
    fixturesDir: join(root, "fixtures"),
    role: "server",
    timeoutMs: 3000,
    profile: probed.profile,
    newestOnly: true,
  });
  return { target, version, cases };
}

const ruleLink = (rule: string): string => `[${rule}](../RULES.md)`;

/** The table as Markdown. */
export function renderTable(rows: readonly Row[], date: string): string {
  const lines = [
    "# Cross-implementation conformance",
    "",
    `Generated ${date} by \`node dist/spec-tests/tools/conform-table.js --write\` (corpus ${CORPUS_VERSION},`,
    `Node.js ${process.versions.node}): each server replayed over stdio as a black box (no host`,
    "adapter, no target profiles), one case per fixture at the newest of its versions the server",
    "speaks (`mcp-engine conform --newest -- <command>`). A fixture is judged when its case passed",
    "or failed; the others need what the server does not offer (a host command, a trigger tool, a",
    'version, a setting): fixtures/FORMAT.md, "Applicability". Failures are by rule (RULES.md);',
    "policy and MAY findings are never failures.",
    "",
    "| server | version | judged | passed | failed | rules failed (fixtures) |",
    "| --- | --- | --- | --- | --- | --- |",
  ];
  for (const row of rows) {
    const version = row.version ?? "?";
    if (row.cases === undefined) {
      lines.push(`| ${row.target.name} | ${version} | ${row.problem ?? "?"} | | | |`);
      continue;
    }
    const share = judgedShare(row.cases);
    const percent = share.total === 0 ? 0 : Math.round((share.judged / share.total) * 100);
    const passed = row.cases.filter((c) => c.outcome === "passed").length;
    const failed = row.cases.filter((c) => c.outcome === "failed");
    const byRule = new Map<string, number>();
    for (const c of failed) byRule.set(c.failedRule ?? "?", (byRule.get(c.failedRule ?? "?") ?? 0) + 1);
    const rules = [...byRule]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([rule, n]) => `${ruleLink(rule)} (${n})`)
      .join(", ");
    lines.push(
      `| ${row.target.name} | ${version} | ${share.judged} of ${share.total} (${percent} %) | ${passed} | ${failed.length} | ${rules || "none"} |`,
    );
  }
  lines.push("", "What each server is:", "");
  for (const row of rows) lines.push(`- ${row.target.name}: ${row.target.note}.`);
  return lines.join("\n") + "\n";
}

async function main(): Promise<void> {
  const root = fileURLToPath(new URL("../../../", import.meta.url));
  const rows: Row[] = [];
  for (const target of TARGETS) {
    process.stderr.write(`${target.name}...\n`);
    rows.push(await measure(root, target));
  }
  const table = renderTable(rows, new Date().toISOString().slice(0, 10));
  if (process.argv.includes("--write")) writeFileSync(join(root, "docs", "conformance-table.md"), table);
  else process.stdout.write(table);
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) await main();
