// Error identity through the two transformations that break it: minification renames classes
// (so `name` must be a literal, never new.target.name), and an ES5 down-level calls Error as a
// function, which returns a new object with Error's prototype (so a class must restore its own).
// Every error class of the core and the peer layer keeps instanceof (its class, PeerError, Error)
// and its name: in Node from a minified esbuild bundle, and in Hermes from the ES5 down-level
// (spec-tests/tools/lower-es5.ts, TypeScript's ES5 emit). The control shows the down-level does
// lose the prototype of a class that does not restore it.

import assert from "node:assert/strict";
import { test } from "node:test";
import { runInNewContext } from "node:vm";
import { lowerToEs5 } from "../tools/lower-es5.js";
import { runHermes, scenarioScript } from "./engines.js";

test("minified (esbuild): every error class keeps its name and instanceof, though the classes were renamed", () => {
  // A fresh context; the script's completion value is the bundle's McpEmbed.
  const embed = runInNewContext(`${scenarioScript({ minify: true })}\nMcpEmbed;`) as { errorIdentity(): string[]; classNames(): string[] };
  // Arrays of the other realm are compared through JSON.
  const identity = JSON.parse(JSON.stringify(embed.errorIdentity())) as string[];
  assert.equal(identity.length, 14);
  assert.deepEqual(
    identity.filter((line) => !line.endsWith(": ok")),
    [],
  );
  const names = JSON.parse(JSON.stringify(embed.classNames())) as string[];
  assert.ok(names.filter((name) => !name.endsWith("Error")).length >= 5, `the minifier renamed the classes: ${names.join(", ")}`);
});

test("ES5 down-level in Hermes: every error class keeps its name and instanceof", () => {
  const out = runHermes(`"use strict";\n${scenarioScript({ es5: true })}\nprint(JSON.stringify(McpEmbed.errorIdentity()));`);
  const lines = JSON.parse(out) as string[];
  assert.equal(lines.length, 14);
  assert.deepEqual(
    lines.filter((line) => !line.endsWith(": ok")),
    [],
  );
});

test("the control: the ES5 down-level loses the prototype of an Error subclass that does not restore it", () => {
  const source = `"use strict";
class Plain extends Error { constructor(m) { super(m); this.name = "Plain"; } }
class Restored extends Error { constructor(m) { super(m); Object.setPrototypeOf(this, new.target.prototype); this.name = "Restored"; } }
class Child extends Restored { constructor() { super("child"); this.name = "Child"; } }
print(JSON.stringify([new Plain("p") instanceof Plain, new Restored("r") instanceof Restored, new Child() instanceof Child, new Child() instanceof Restored, new Child().name]));`;
  assert.deepEqual(JSON.parse(runHermes(lowerToEs5(source))), [false, true, true, true, "Child"]);
});
