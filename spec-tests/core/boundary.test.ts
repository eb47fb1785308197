// The core's boundary, checked on the sources: every portable folder of lib/ (all but lib/hosts/
// and lib/cli/) imports no Node module, reads no clock, starts no timer and draws no randomness
// (time and ids are inputs; the peer layer gets its timers from the host), the core also makes
// no Promise, and the core's public entry point pulls in neither the peer layer nor the hosts.
// Which folder may import which is spec-tests/project/layers.test.ts.

import assert from "node:assert/strict";
import { readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { test } from "node:test";
import { MODERN_VERSIONS, SESSION_VERSIONS } from "../../lib/rules/versions.js";

const lib = fileURLToPath(new URL("../../../lib/", import.meta.url));

/** Source without comments, so that prose about what is forbidden does not count. */
function code(path: string): string {
  return readFileSync(path, "utf8")
    .replace(/\/\*[\s\S]*?\*\//g, "")
    .replace(/(^|[^:"'`\\])\/\/.*$/gm, "$1");
}

/** Every .ts under `dir`, subfolders included (declarations left out). */
function allSources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return allSources(path);
    return name.endsWith(".ts") && !name.endsWith(".d.ts") ? [path] : [];
  });
}

/** The files directly in `dir`. */
function sources(dir: string): string[] {
  return readdirSync(dir)
    .filter((name) => name.endsWith(".ts") && !name.endsWith(".d.ts"))
    .map((name) => join(dir, name));
}

/** The core: the entry points and the wire, types, codec, rules and engine folders. */
const core = [...sources(lib), ...["wire", "types", "codec", "rules", "engine"].flatMap((d) => allSources(join(lib, d)))];
/** The pure HTTP layer: under the core's rules. */
const http = allSources(join(lib, "http"));
const auth = allSources(join(lib, "auth"));
/** Everything that must run on any runtime: all of lib/ but the hosts and the CLI (the stores' wall clock comes from lib/hosts/web/runtime.ts). */
const portable = allSources(lib).filter((f) => !f.startsWith(join(lib, "hosts", "/")) && !f.startsWith(join(lib, "cli", "/")));

test("the portable layers import no Node module and touch no clock, timer or randomness", () => {
  assert.ok(
    core.length > 30 && http.length >= 5 && portable.length > 100,
    `found ${core.length} core, ${http.length} HTTP and ${portable.length} portable files`,
  );
  for (const file of portable) {
    const text = code(file);
    assert.doesNotMatch(text, /from\s+["'](node:|fs|net|http|https|child_process|process|stream|buffer)/, `${file} imports a Node module`);
    assert.doesNotMatch(text, /\brequire\(/, `${file} uses require()`);
    assert.doesNotMatch(
      text,
      /\bDate\.now\(|\bnew Date\(|\bperformance\.now\(|\bMath\.random\(/,
      `${file} reads a clock or draws randomness`,
    );
    // A call, not a method signature of an injected timer facility (`setTimeout(fn: () => void, …)`).
    assert.doesNotMatch(
      text,
      /(^|[^.\w])(setTimeout|setInterval|setImmediate|queueMicrotask)\((?!\s*\w+\s*:)/m,
      `${file} starts a timer of its own`,
    );
  }
});

test("the core makes no Promise and is not async", () => {
  for (const file of [...core, ...http]) {
    const text = code(file);
    assert.doesNotMatch(text, /\bPromise\b|\basync\b|\bawait\b/, `${file} uses Promises`);
  }
});

test("the core's files import only from the core's folders", () => {
  for (const file of core) {
    for (const match of code(file).matchAll(/from\s+["']([^"']+)["']/g)) {
      const target = match[1] as string;
      assert.match(target, /^\.{1,2}\/((wire|types|codec|rules|engine)\/)?[\w-]+\.js$/, `${file} reaches out of the core: ${target}`);
    }
  }
});

test("lib/auth is asynchronous only where Web Crypto is (jwt.ts, dpop-verify.ts) or what awaits it (resource-server.ts); types.ts only names Promise in interfaces", () => {
  assert.ok(auth.length >= 8);
  for (const file of auth) {
    if (/[/\\](jwt|dpop-verify|resource-server)\.ts$/.test(file)) continue;
    if (/[/\\]types\.ts$/.test(file)) {
      assert.doesNotMatch(code(file), /\basync\b|\bawait\b|new Promise|Promise\.(resolve|reject|all)/, `${file} runs Promises`);
      continue;
    }
    assert.doesNotMatch(code(file), /\bPromise\b|\basync\b|\bawait\b/, `${file} uses Promises`);
  }
  for (const file of auth)
    assert.doesNotMatch(code(file), /(^|[^.\w])fetch\(|globalThis/m, `${file} reaches for a global (fetch, crypto): they are injected`);
});

test("lib/http/ stays pure and reaches only into the core", () => {
  for (const file of http) {
    for (const match of code(file).matchAll(/from\s+["']([^"']+)["']/g)) {
      const target = match[1] as string;
      assert.match(target, /^(\.\/|\.\.\/(wire|types|codec|rules)\/)[\w-]+\.js$/, `${file} imports ${target}`);
    }
  }
});

test("the Node adapter is the only HTTP server file that imports node:, and the HTTP files hold no protocol version literal", () => {
  const hosts = sources(join(lib, "hosts")).filter((f) => /[\\/]http[^\\/]*\.ts$/.test(f));
  const importingNode = hosts.filter((f) => /from\s+["']node:/.test(code(f))).map((f) => f.slice(f.lastIndexOf("/") + 1));
  assert.deepEqual(importingNode.sort(), ["http-client-node.ts", "http-server.ts"]);
  const httpClient = allSources(join(lib, "http-client"));
  assert.ok(httpClient.length >= 2, "the HTTP client transport files are found");
  for (const file of [...http, ...allSources(join(lib, "http-server")), ...hosts, ...httpClient]) {
    assert.doesNotMatch(code(file), /["'`]20(24|25|26)-\d\d-\d\d/, `${file} names a protocol version (use lib/rules/versions.ts)`);
  }
});

test("no string under lib/ opens with a protocol version outside the tables (versions.ts, methods.ts) and lib/types/", () => {
  const opening = new RegExp(`["'\`](?:${[...SESSION_VERSIONS, ...MODERN_VERSIONS].join("|")})`);
  const tables = new Set([join(lib, "rules", "versions.ts"), join(lib, "rules", "methods.ts")]);
  const files = allSources(lib).filter((f) => !tables.has(f) && !f.startsWith(join(lib, "types", "/")));
  assert.ok(files.length > 100, `only ${files.length} files under lib/`);
  const offenders = files.filter((f) => opening.test(code(f))).map((f) => f.slice(lib.length));
  assert.deepEqual(
    offenders,
    [],
    "name the version through lib/rules/versions.ts (SESSION_VERSIONS, MODERN_VERSIONS, SCHEMA_RELEASES, VERSION_PROFILES)",
  );
});
