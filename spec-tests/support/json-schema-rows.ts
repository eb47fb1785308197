// Table-driven cases for the JSON Schema validator tests (spec-tests/json-schema/*.test.ts): a row
// is a schema, values it must accept, and values it must refuse, each refusal with the JSON pointer
// path and a pattern of its first error.

import { test } from "node:test";
import assert from "node:assert/strict";
import { checkSchema, validateJsonSchema } from "../../lib/json-schema/validator.js";

export interface Row {
  name: string;
  schema: unknown;
  valid: unknown[];
  invalid: Array<[value: unknown, path: string, message: RegExp]>;
}

/** One test per row: the schema compiles, each valid value passes, each invalid one fails first at its path. */
export function testRows(prefix: string, rows: Row[]): void {
  for (const row of rows) {
    test(`${prefix}: ${row.name}`, () => {
      assert.equal(checkSchema(row.schema), undefined, row.name);
      for (const value of row.valid) {
        const result = validateJsonSchema(row.schema, value);
        assert.deepEqual(result, { valid: true }, `${row.name}: ${JSON.stringify(value)} should be valid: ${JSON.stringify(result)}`);
      }
      for (const [value, path, message] of row.invalid) {
        const result = validateJsonSchema(row.schema, value);
        assert.equal(result.valid, false, `${row.name}: ${JSON.stringify(value)} should be invalid`);
        if (result.valid) continue;
        const first = result.errors[0];
        assert.ok(first !== undefined);
        assert.equal(first.path, path, `${row.name}: ${JSON.stringify(value)}: ${JSON.stringify(result.errors)}`);
        assert.match(first.message, message);
      }
    });
  }
}
