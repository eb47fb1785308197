// fixtures/schema/fixture.schema.json against the corpus: every line of every stdio fixture
// (line 1 a header, the others steps) and every HTTP case validates, with the engine's own JSON
// Schema validator (lib/json-schema, draft 2020-12); and the schema is strict enough to refuse
// what FORMAT.md forbids (a misspelt step key, a level that is no level, an HTTP member the
// format does not know), so that a passing corpus says something.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { test } from "node:test";
import { listFixtureFiles } from "../../lib/cli/conform/fixtures.js";
import { listHttpFixtureFiles } from "../../lib/cli/conform/http.js";
import { checkSchema, validateJsonSchema } from "../../lib/json-schema/validator.js";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const schema = JSON.parse(readFileSync(join(root, "fixtures", "schema", "fixture.schema.json"), "utf8")) as Record<string, unknown>;

/** The schema with its root replaced by one of its definitions (references stay inside the document). */
const part = (name: string): Record<string, unknown> => {
  const { anyOf: _root, ...rest } = schema;
  return { ...rest, $ref: `#/$defs/${name}` };
};
const header = part("stdioHeader");
const step = part("stdioStep");
const httpCase = part("httpCase");

function problems(which: Record<string, unknown>, value: unknown): string | undefined {
  const result = validateJsonSchema(which, value);
  return result.valid ? undefined : result.errors.map((e) => `${e.path || "/"}: ${e.message}`).join("; ");
}

test("the schema is a usable draft 2020-12 schema, each part too", () => {
  for (const s of [schema, header, step, httpCase]) assert.equal(checkSchema(s), undefined);
});

test("every line of every stdio fixture validates: line 1 as a header, the others as steps", () => {
  const failures: string[] = [];
  let lines = 0;
  for (const path of listFixtureFiles(join(root, "fixtures"))) {
    const values = readFileSync(path, "utf8")
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line) as unknown);
    values.forEach((value, at) => {
      lines++;
      const problem = problems(at === 0 ? header : step, value);
      if (problem !== undefined) failures.push(`${path.slice(root.length)}:${at + 1}: ${problem}`);
      if (problems(schema, value) !== undefined) failures.push(`${path.slice(root.length)}:${at + 1}: refused by the whole schema`);
    });
  }
  assert.deepEqual(failures.slice(0, 10), []);
  assert.ok(lines > 5000, `${lines} lines`);
});

test("every HTTP case validates", () => {
  const files = listHttpFixtureFiles(join(root, "fixtures"));
  assert.ok(files.length > 30);
  const failures = files
    .map(({ id, path }) => [id, problems(httpCase, JSON.parse(readFileSync(path, "utf8")))] as const)
    .filter(([, problem]) => problem !== undefined);
  assert.deepEqual(failures, []);
});

test("what FORMAT.md forbids, the schema refuses", () => {
  const out = { out: { jsonrpc: "2.0", id: 1, result: {} }, rule: "M-01", level: "MUST" };
  assert.equal(problems(step, out), undefined);
  assert.notEqual(problems(step, { ...out, level: "MUSTNT" }), undefined, "a level that is no level");
  assert.notEqual(problems(step, { ...out, rule: "m1" }), undefined, "a rule id out of form");
  assert.notEqual(problems(step, { ou: { jsonrpc: "2.0" } }), undefined, "a misspelt step key");
  assert.notEqual(problems(step, { in: {}, out: {} }), undefined, "two steps on one line");
  assert.notEqual(problems(step, { in_hex: "7g" }), undefined, "hex that is not hex");
  assert.notEqual(problems(step, { call: { op: "teleport" } }), undefined, "an op that does not exist");
  assert.notEqual(problems(step, { quiet: true }), undefined, "a quiet step without its rule and level");
  const ok = JSON.parse(readFileSync(listHttpFixtureFiles(join(root, "fixtures"))[0]?.path as string, "utf8")) as Record<string, unknown>;
  assert.notEqual(problems(httpCase, { ...ok, levels: "MUST" }), undefined, "an HTTP member the format does not know");
  assert.notEqual(problems(httpCase, { ...ok, exchanges: [] }), undefined, "an HTTP case without exchanges");
  const exchange = (ok.exchanges as Record<string, unknown>[])[0] as Record<string, unknown>;
  assert.notEqual(
    problems(httpCase, { ...ok, exchanges: [{ ...exchange, expect: { status: 700 } }] }),
    undefined,
    "a status that is no HTTP status",
  );
  assert.notEqual(
    problems(header, { fixture: "server/x/y", role: "peer" }),
    undefined,
    "a header without its keys, with a role that is neither side",
  );
});
