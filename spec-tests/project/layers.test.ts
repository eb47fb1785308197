// The layer order of lib/, checked on the sources: the folders bottom-up, each importing only
// from the folders below it (its own files aside), siblings of one layer never from each
// other, and no import cycle that runs at load time (value imports) anywhere. A cycle through
// type imports is allowed between the files of one folder, never across folders. Every folder
// under lib/ must be placed here, so a new folder is a decision about where it sits.

import assert from "node:assert/strict";
import { readFileSync, readdirSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../../../", import.meta.url));

/** The folders of lib/, bottom-up; folders on one row are siblings that may not import each other. */
export const LAYERS: readonly (readonly string[])[] = [
  ["lib/wire"], // JSON-RPC envelopes, error codes, line framing, the outbound encoders
  ["lib/types"], // the MCP data model (types only)
  ["lib/codec"], // SHA-256/HMAC, pagination cursors, code points
  ["lib/rules"], // the protocol as data and pure functions: methods, versions, capabilities, lifecycle, params, features
  ["lib/engine"], // the sans-I/O Engine and its sibling modules
  ["lib"], // the core's entry points: index.ts, internal.ts
  ["lib/uri-template"], // RFC 6570 templates, RFC 3986 references (a general library)
  ["lib/json-schema"], // the JSON Schema 2020-12 validator (a general library)
  ["lib/http"], // Streamable HTTP as pure rules: status table, headers, CORS, SSE encoder and parser
  ["lib/auth"], // OAuth 2.1 as a state machine, the resource server half, JWT
  ["lib/skills"], // the skills extension as data: frontmatter reader, catalog, entries, digests, verification
  ["lib/peer/shared"], // the Promise layer's parts both roles use: driver, errors, handler pool, signals
  ["lib/peer/server", "lib/peer/client"], // the Promise layer by role
  ["lib/http-client"], // the HTTP client transport (with OAuth)
  ["lib/peer"], // the peer layer's entry point and the in-memory link of both roles
  ["lib/hosts/web"], // the clock and timers of any web-standard runtime
  ["lib/http-server"], // the web-standard Streamable HTTP handler
  ["lib/stores"], // Redis stores of sessions, events, the bus and tasks
  ["lib/hosts"], // Node: stdio, node:http, the RESP reader
  ["lib/cli/conform"], // the corpus runner of `mcp-engine conform`
  ["lib/cli"], // the mcp-engine command: reference server and client, demo
];

interface Import {
  readonly from: string;
  readonly to: string;
  readonly typeOnly: boolean;
}

function sourcesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourcesUnder(path);
    return name.endsWith(".ts") && !name.endsWith(".d.ts") ? [path] : [];
  });
}

const posix = (path: string): string => path.replace(/\\/g, "/");

/** The relative imports and re-exports of a file; `import type`, `export type` and all-`type` lists are type-only. */
export function importsOf(file: string, text: string): Import[] {
  const found: Import[] = [];
  const statement = /^\s*(?:import|export)\s+(type\s+)?([^;]*?)\s*from\s*["'](\.{1,2}\/[^"']+)["']/gms;
  for (const match of text.matchAll(statement)) {
    const clause = (match[2] ?? "").trim();
    const names = /^\{([\s\S]*)\}$/
      .exec(clause)?.[1]
      ?.split(",")
      .map((s) => s.trim())
      .filter((s) => s !== "");
    const typeOnly = match[1] !== undefined || (names !== undefined && names.length > 0 && names.every((n) => n.startsWith("type ")));
    found.push({
      from: file,
      to: posix(relative(root, resolve(dirname(join(root, file)), (match[3] as string).replace(/\.js$/, ".ts")))),
      typeOnly,
    });
  }
  for (const match of text.matchAll(/^\s*import\s*["'](\.{1,2}\/[^"']+)["']/gm)) {
    found.push({
      from: file,
      to: posix(relative(root, resolve(dirname(join(root, file)), (match[1] as string).replace(/\.js$/, ".ts")))),
      typeOnly: false,
    });
  }
  return found;
}

const folderOf = (file: string): string => file.slice(0, file.lastIndexOf("/"));

/** The row of `folder` in LAYERS, or -1. */
function layerOf(folder: string): number {
  return LAYERS.findIndex((row) => row.includes(folder));
}

/** Why an import breaks the order, or undefined. */
export function orderProblem(edge: Import): string | undefined {
  const from = folderOf(edge.from);
  const to = folderOf(edge.to);
  if (from === to) return undefined;
  const a = layerOf(from);
  const b = layerOf(to);
  if (a < 0) return `${edge.from}: its folder ${from} has no place in LAYERS`;
  if (b < 0) return `${edge.from} imports ${edge.to}, whose folder ${to} has no place in LAYERS`;
  if (b > a) return `${edge.from} imports ${edge.to}: ${from} (layer ${a}) may not import upward from ${to} (layer ${b})`;
  if (b === a) return `${edge.from} imports ${edge.to}: ${from} and ${to} are siblings of layer ${a}`;
  return undefined;
}

/** The strongly connected components of more than one file (Tarjan), over the edges given. */
export function cycles(edges: readonly Import[]): string[][] {
  const next = new Map<string, string[]>();
  for (const e of edges) next.set(e.from, [...(next.get(e.from) ?? []), e.to]);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let counter = 0;
  const visit = (v: string): void => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) as number, index.get(w) as number));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop() as string;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const v of next.keys()) if (!index.has(v)) visit(v);
  return found;
}

function libImports(): Import[] {
  const files = sourcesUnder(join(root, "lib")).map((f) => posix(relative(root, f)));
  return files.flatMap((f) => importsOf(f, readFileSync(join(root, f), "utf8")));
}

test("every folder under lib/ has its place in the layer order", () => {
  const folders = new Set(sourcesUnder(join(root, "lib")).map((f) => folderOf(posix(relative(root, f)))));
  const unplaced = [...folders].filter((f) => layerOf(f) < 0);
  assert.deepEqual(unplaced, []);
  assert.ok(folders.size >= 15, `expected the folders of lib/, found ${folders.size}`);
});

test("no import under lib/ points up or across the layer order (value and type imports alike)", () => {
  const edges = libImports();
  assert.ok(edges.length > 300, `expected the imports of lib/, found ${edges.length}`);
  const problems = edges.map(orderProblem).filter((p) => p !== undefined);
  assert.deepEqual(problems, []);
});

test("no import cycle under lib/ runs at load time, and no type-only cycle crosses a folder", () => {
  const edges = libImports();
  assert.deepEqual(cycles(edges.filter((e) => !e.typeOnly)), [], "cycles through value imports");
  const crossing = cycles(edges).filter((component) => new Set(component.map(folderOf)).size > 1);
  assert.deepEqual(crossing, [], "type cycles across folders");
});

test("import { Engine } loads only files of the core's folders", () => {
  const edges = libImports().filter((e) => !e.typeOnly);
  const seen = new Set<string>(["lib/index.ts"]);
  const queue = ["lib/index.ts"];
  for (let file = queue.pop(); file !== undefined; file = queue.pop()) {
    for (const e of edges) if (e.from === file && !seen.has(e.to)) seen.add(e.to), queue.push(e.to);
  }
  const outside = [...seen].filter((f) => !/^lib\/((wire|types|codec|rules|engine)\/)?[\w-]+\.ts$/.test(f));
  assert.deepEqual(outside, []);
  assert.ok(seen.has("lib/engine/engine.ts"));
});

test("the order check refuses an upward import, a sibling import and an unplaced folder, and finds a value cycle", () => {
  assert.match(orderProblem({ from: "lib/wire/framing.ts", to: "lib/engine/engine.ts", typeOnly: true }) ?? "", /may not import upward/);
  assert.match(orderProblem({ from: "lib/peer/server/server.ts", to: "lib/peer/client/client.ts", typeOnly: true }) ?? "", /siblings/);
  assert.match(orderProblem({ from: "lib/elsewhere/x.ts", to: "lib/wire/framing.ts", typeOnly: false }) ?? "", /no place in LAYERS/);
  assert.equal(orderProblem({ from: "lib/engine/engine.ts", to: "lib/wire/framing.ts", typeOnly: false }), undefined);
  const loop = importsOf(
    "lib/rules/a.ts",
    'import { b } from "./b.js";\nimport type { C } from "../wire/c.js";\nexport { type D } from "./d.js";',
  );
  assert.deepEqual(
    loop.map((e) => [e.to, e.typeOnly]),
    [
      ["lib/rules/b.ts", false],
      ["lib/wire/c.ts", true],
      ["lib/rules/d.ts", true],
    ],
  );
  assert.deepEqual(cycles([...loop, { from: "lib/rules/b.ts", to: "lib/rules/a.ts", typeOnly: false }]), [
    ["lib/rules/a.ts", "lib/rules/b.ts"],
  ]);
});
