// Small helpers of the peer tests (peer/peer-*.test.ts): a connected Pair, the text of a tool
// result, a check that an error message carries no stack trace, and a plain "ok" tool result.
// Not a test file itself.

import assert from "node:assert/strict";
import type { CallToolResult } from "../../lib/index.js";
import { Pair, type PairOptions } from "./peer-harness.js";

export async function connected(options: PairOptions = {}): Promise<Pair> {
  const pair = new Pair(options);
  await pair.connect();
  return pair;
}

export function text(result: CallToolResult): string {
  const first = result.content[0];
  assert.ok(first !== undefined && first.type === "text", "a text content block");
  return first.text;
}

export function assertNoStack(message: string): void {
  assert.equal(/\n\s+at /.test(message), false, `no stack trace in ${JSON.stringify(message)}`);
  assert.equal(message.includes(".js:"), false, `no source locations in ${JSON.stringify(message)}`);
}

export const OK: CallToolResult = { content: [{ type: "text", text: "ok" }] };
