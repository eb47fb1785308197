// What an application that uses the peer layer ships: each entry below bundled the way an
// app bundles it (esbuild, ESM, minified, tree-shaken through the package's exports and its
// `sideEffects: false`), measured gzipped. Baselines built in the same run from the SDK
// packages (dev dependencies): v1 (@modelcontextprotocol/sdk) and v2 (@modelcontextprotocol/server).
// `npm run bench:size` (after `npm run build`); `-- --modules` also lists each bundle's
// largest modules (esbuild's metafile, bytes of minified output per input file), which is
// where a cut starts. Prints figures and ratios; the ceilings CI holds them to live in
// spec-tests/embed/bundle-budget.test.ts, which calls measureBundle.

import { buildSync, type BuildOptions, type Metafile } from "esbuild";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

/** The repository's root (this file runs from dist/bench/). */
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

/** The package's peer entry as an application imports it ("mcp-engine/peer"). */
const PEER = resolve(ROOT, "dist/package/peer/index.js");

export interface BundleEntry {
  readonly name: string;
  /** An ES module, bundled from the repository's root. */
  readonly source: string;
}

/** A peer Server with one plain tool, connected to a host the app supplies. */
export const SERVER_ONE_TOOL: BundleEntry = {
  name: "Server + one tool",
  source: `import { Server } from ${JSON.stringify(PEER)};
const server = new Server({ info: { name: "s", version: "1.0.0" } });
server.tool("echo", { description: "Echoes", inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] } },
  (args) => ({ content: [{ type: "text", text: args.text }] }));
export const open = (host) => server.connect(host);`,
};

/** A peer Client that connects and calls a tool. */
export const CLIENT: BundleEntry = {
  name: "Client",
  source: `import { Client } from ${JSON.stringify(PEER)};
export async function call(host) {
  const client = new Client(host, { info: { name: "c", version: "1.0.0" } });
  await client.connect();
  return client.callTool("echo", { text: "hi" });
}`,
};

/** A Client over Streamable HTTP without auth (OAuth must stay out). */
export const CONNECT_HTTP: BundleEntry = {
  name: "connectHttp without auth",
  source: `import { connectHttp } from ${JSON.stringify(PEER)};
export async function call(url) {
  const { client } = await connectHttp({ url, info: { name: "c", version: "1.0.0" } });
  return client.callTool("echo", { text: "hi" });
}`,
};

const SDK_V1_SERVER: BundleEntry = {
  name: "SDK v1 McpServer + one tool",
  source: `import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
const server = new McpServer({ name: "s", version: "1.0.0" });
server.registerTool("echo", { description: "Echoes", inputSchema: { text: z.string() } }, (args) => ({ content: [{ type: "text", text: args.text }] }));
export const open = (transport) => server.connect(transport);`,
};

const SDK_V2_SERVER: BundleEntry = {
  name: "SDK v2 McpServer + one tool",
  source: `import { McpServer } from "@modelcontextprotocol/server";
import { z } from "zod";
const server = new McpServer({ name: "s", version: "1.0.0" });
server.registerTool("echo", { description: "Echoes", inputSchema: z.object({ text: z.string() }) }, (args) => ({ content: [{ type: "text", text: args.text }] }));
export const open = (transport) => server.connect(transport);`,
};

const SDK_V1_CLIENT: BundleEntry = {
  name: "SDK v1 Client",
  source: `import { Client } from "@modelcontextprotocol/sdk/client/index.js";
export async function call(transport) {
  const client = new Client({ name: "c", version: "1.0.0" });
  await client.connect(transport);
  return client.callTool({ name: "echo", arguments: { text: "hi" } });
}`,
};

export interface BundleSize {
  readonly minified: number;
  readonly gzip: number;
  readonly metafile: Metafile;
}

/** Modules (under dist/lib/) that only the 2026-07-28 revision needs: its rules, its server side, the input rounds of both peers. */
export const ERA_ONLY_MODULES: readonly string[] = [
  "engine/modern-server.js",
  "rules/modern.js",
  "rules/negotiated-extensions.js",
  "peer/server/round-state.js",
  "peer/server/input-rounds.js",
  "peer/client/input-client.js",
];

/** The entry's source importing the compiled modules (dist/lib/) the package's files are bundled from. */
export const modulesSource = (entry: BundleEntry): string => entry.source.replaceAll(`${ROOT}/dist/package/`, `${ROOT}/dist/lib/`);

/** How every entry is bundled: as an app bundles it for a browser (ESM, minified, tree-shaken). */
export const BUNDLE_OPTIONS = {
  bundle: true,
  format: "esm",
  platform: "browser",
  target: "es2022",
  minify: true,
  write: false,
  metafile: true,
  logLevel: "silent",
  outfile: "out.js",
} as const satisfies BuildOptions;

/**
 * The entry bundled (ESM, minified, browser platform: no Node built-in may be pulled) and gzipped.
 * `from: "modules"` bundles the compiled modules (dist/lib/) the package's files are bundled from
 * (spec-tests/tools/package-bundle.ts) instead of the package's files, so that the metafile names
 * the modules that went in (a shipped chunk holds several).
 */
export function measureBundle(entry: BundleEntry, from: "package" | "modules" = "package"): BundleSize {
  const source = from === "package" ? entry.source : modulesSource(entry);
  const result = buildSync({
    stdin: { contents: source, resolveDir: ROOT, loader: "js", sourcefile: "entry.js" },
    ...BUNDLE_OPTIONS,
  });
  const bytes = result.outputFiles[0]!.contents;
  return { minified: bytes.byteLength, gzip: gzipSync(bytes, { level: 9 }).byteLength, metafile: result.metafile };
}

/** The largest inputs of a bundle, by their bytes in the minified output. */
export function largestModules(size: BundleSize, count: number): { path: string; bytes: number }[] {
  const inputs = Object.values(size.metafile.outputs)[0]!.inputs;
  return Object.entries(inputs)
    .map(([path, { bytesInOutput }]) => ({
      path: path.replace(/^.*?dist\/(package|lib)\//, "").replace(/^.*?node_modules\//, "~"),
      bytes: bytesInOutput,
    }))
    .sort((a, b) => b.bytes - a.bytes)
    .slice(0, count);
}

const kb = (bytes: number): string => `${(bytes / 1024).toFixed(1)} KB`;

function main(): void {
  const listModules = process.argv.includes("--modules");
  const rows: [BundleEntry, BundleEntry | undefined][] = [
    [SERVER_ONE_TOOL, SDK_V1_SERVER],
    [SERVER_ONE_TOOL, SDK_V2_SERVER],
    [CLIENT, SDK_V1_CLIENT],
    [CONNECT_HTTP, undefined],
  ];
  const measured = new Map<BundleEntry, BundleSize>();
  const sizeOf = (entry: BundleEntry): BundleSize => {
    let size = measured.get(entry);
    if (size === undefined) measured.set(entry, (size = measureBundle(entry)));
    return size;
  };
  console.log("bundle sizes (esbuild --bundle --minify, ESM, gzip -9)");
  for (const [entry, baseline] of rows) {
    const size = sizeOf(entry);
    let line = `  ${entry.name.padEnd(26)} ${kb(size.gzip).padStart(9)} gzip (${kb(size.minified)} minified)`;
    if (baseline !== undefined) {
      const base = sizeOf(baseline);
      line += `   ${baseline.name}: ${kb(base.gzip)} gzip, ratio ${(size.gzip / base.gzip).toFixed(2)}`;
    }
    console.log(line);
  }
  if (listModules)
    for (const entry of [SERVER_ONE_TOOL, CLIENT, CONNECT_HTTP]) {
      console.log(`\n${entry.name}: largest modules (minified bytes)`);
      for (const { path, bytes } of largestModules(measureBundle(entry, "modules"), 40))
        console.log(`  ${String(bytes).padStart(7)}  ${path}`);
    }
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
