// The core's boundary, checked on the sources: lib/*.ts and lib/peer/ import no Node module,
// read no clock, start no timer and draw no randomness (time and ids are inputs; the peer
// layer gets its timers from the host), the core also makes no Promise, and the core's
// public entry point pulls in neither the peer layer nor the hosts.

import assert from "node:assert/strict";
import { readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { test } from "node:test";
import { MODERN_VERSIONS, SESSION_VERSIONS } from "../../lib/versions.js";

const lib = fileURLToPath(new URL("../../../lib/", import.meta.url));

/** Source without comments, so that prose about what is forbidden does not count. */
function code(path: string): string {
  return readFileSync(path, "utf8")
    .replace(/\/\*[\s\S]*?\*\//g, "")
    .replace(/(^|[^:"'`\\])\/\/.*$/gm, "$1");
}

function sources(dir: string): string[] {
  return readdirSync(dir)
    .filter((name) => name.endsWith(".ts") && !name.endsWith(".d.ts"))
    .map((name) => join(dir, name));
}

const core = sources(lib);
const peer = sources(join(lib, "peer"));
/** The pure HTTP layer: under the core's rules. */
const http = sources(join(lib, "http"));
/** The portable HTTP endpoint: under the peer layer's rules (Promises, but no Node, clock, timer or randomness of its own). */
const httpHandler = sources(join(lib, "http-handler"));
const auth = sources(join(lib, "auth"));
/** The Redis stores: portable too (the client is the user's; the wall clock comes from lib/hosts/web.ts). */
const stores = sources(join(lib, "stores"));

test("the core and the peer layer import no Node module and touch no clock, timer or randomness", () => {
  assert.ok(core.length > 10 && peer.length > 5 && http.length >= 5 && httpHandler.length >= 8 && stores.length >= 3);
  for (const file of [...core, ...peer, ...auth, ...http, ...httpHandler, ...stores]) {
    const text = code(file);
    assert.doesNotMatch(text, /from\s+["'](node:|fs|net|http|https|child_process|process|stream|buffer)/, `${file} imports a Node module`);
    assert.doesNotMatch(text, /\brequire\(/, `${file} uses require()`);
    assert.doesNotMatch(text, /\bDate\.now\(|\bnew Date\(|\bperformance\.now\(|\bMath\.random\(/, `${file} reads a clock or draws randomness`);
    // A call, not a method signature of an injected timer facility (`setTimeout(fn: () => void, …)`).
    assert.doesNotMatch(text, /(^|[^.\w])(setTimeout|setInterval|setImmediate|queueMicrotask)\((?!\s*\w+\s*:)/m, `${file} starts a timer of its own`);
  }
});

test("the core makes no Promise and is not async", () => {
  for (const file of [...core, ...http]) {
    const text = code(file);
    assert.doesNotMatch(text, /\bPromise\b|\basync\b|\bawait\b/, `${file} uses Promises`);
  }
});

test("the core's entry point does not pull in the peer layer or the hosts", () => {
  const index = code(join(lib, "index.ts"));
  assert.doesNotMatch(index, /from\s+["']\.\/(peer|hosts|cli)\//);
  for (const file of core) assert.doesNotMatch(code(file), /from\s+["']\.\/(peer|hosts|cli)\//, `${file} reaches out of the core`);
});

test("lib/auth is asynchronous only where Web Crypto is (jwt.ts) or what awaits it (resource-server.ts); types.ts only names Promise in interfaces", () => {
  assert.ok(auth.length >= 8);
  for (const file of auth) {
    if (/[/\\](jwt|resource-server)\.ts$/.test(file)) continue;
    if (/[/\\]types\.ts$/.test(file)) {
      assert.doesNotMatch(code(file), /\basync\b|\bawait\b|new Promise|Promise\.(resolve|reject|all)/, `${file} runs Promises`);
      continue;
    }
    assert.doesNotMatch(code(file), /\bPromise\b|\basync\b|\bawait\b/, `${file} uses Promises`);
  }
  for (const file of auth) assert.doesNotMatch(code(file), /(^|[^.\w])fetch\(|globalThis/m, `${file} reaches for a global (fetch, crypto): they are injected`);
});

test("lib/http/ stays pure and reaches only into the core (and the SSE parser beside the peer layer)", () => {
  for (const file of http) {
    for (const match of code(file).matchAll(/from\s+["']([^"']+)["']/g)) {
      const target = match[1] as string;
      assert.ok(/^\.\/[\w-]+\.js$/.test(target) || /^\.\.\/[\w-]+\.js$/.test(target) || target === "../peer/sse.js", `${file} imports ${target}`);
    }
  }
});

test("the Node adapter is the only HTTP server file that imports node:, and the HTTP files hold no protocol version literal", () => {
  const hosts = sources(join(lib, "hosts")).filter((f) => /[\\/]http[^\\/]*\.ts$/.test(f));
  const importingNode = hosts.filter((f) => /from\s+["']node:/.test(code(f))).map((f) => f.slice(f.lastIndexOf("/") + 1));
  assert.deepEqual(importingNode.sort(), ["http-client-node.ts", "http-server.ts"]);
  const httpClient = sources(join(lib, "peer")).filter((f) => /[\\/]http-client[^\\/]*\.ts$/.test(f));
  assert.ok(httpClient.length >= 2, "the HTTP client transport files are found");
  for (const file of [...http, ...httpHandler, ...hosts, ...httpClient]) {
    assert.doesNotMatch(code(file), /["'`]20(24|25|26)-\d\d-\d\d/, `${file} names a protocol version (use lib/versions.ts)`);
  }
});

/** Every .ts under `dir`, subfolders included. */
function allSources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return allSources(path);
    return name.endsWith(".ts") && !name.endsWith(".d.ts") ? [path] : [];
  });
}

test("no string under lib/ opens with a protocol version outside the tables (versions.ts, methods.ts) and lib/types/", () => {
  const opening = new RegExp(`["'\`](?:${[...SESSION_VERSIONS, ...MODERN_VERSIONS].join("|")})`);
  const tables = new Set([join(lib, "versions.ts"), join(lib, "methods.ts")]);
  const files = allSources(lib).filter((f) => !tables.has(f) && !f.startsWith(join(lib, "types", "/")));
  assert.ok(files.length > 100, `only ${files.length} files under lib/`);
  const offenders = files.filter((f) => opening.test(code(f))).map((f) => f.slice(lib.length));
  assert.deepEqual(offenders, [], "name the version through lib/versions.ts (SESSION_VERSIONS, MODERN_VERSIONS, SCHEMA_RELEASES, VERSION_PROFILES)");
});
