// Helpers of the 2026-07-28 peer tests (peer/peer-modern*.test.ts): every version, the
// `_meta` keys of the modern envelope, a dual-era Pair (connected in the modern era), the text
// of a tool result, a text result, a message's params and `_meta`, and what a dual-era server
// answers to server/discover. Not a test file itself.

import assert from "node:assert/strict";
import { MODERN_VERSIONS, SESSION_VERSIONS, type CallToolResult, type ProtocolVersion } from "../../lib/index.js";
import { Pair, SERVER_INFO, type PairOptions } from "./peer-harness.js";

export const ALL: ProtocolVersion[] = [...SESSION_VERSIONS, ...MODERN_VERSIONS];
export const META_VERSION = "io.modelcontextprotocol/protocolVersion";
export const META_CAPS = "io.modelcontextprotocol/clientCapabilities";
export const META_LOG_LEVEL = "io.modelcontextprotocol/logLevel";
export const META_SERVER_INFO = "io.modelcontextprotocol/serverInfo";
export const META_SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId";

export type Message = Record<string, unknown>;

/** A dual-era server and a client that speaks both eras (connect() probes: era "auto"). */
export function modernPair(options: PairOptions = {}): Pair {
  return new Pair({
    ...options,
    server: { versions: ALL, ...options.server },
    client: { versions: ALL, ...options.client },
  });
}

export async function connectedModern(options: PairOptions = {}): Promise<Pair> {
  const pair = modernPair(options);
  const result = await pair.connect();
  assert.equal(result.era, "modern");
  return pair;
}

export function text(result: CallToolResult): string {
  const first = result.content[0];
  assert.ok(first !== undefined && first.type === "text", `a text content block: ${JSON.stringify(result)}`);
  return first.text;
}

export const ok = (value: string): CallToolResult => ({ content: [{ type: "text", text: value }] });

export function params(message: Message | undefined): Message {
  assert.ok(message !== undefined, "a message");
  return (message.params ?? {}) as Message;
}

export function meta(message: Message | undefined): Message {
  return (params(message)._meta ?? {}) as Message;
}

/** What a dual-era server answers to server/discover (for scripted servers). */
export function discoverAnswer(): Message {
  return {
    result: {
      resultType: "complete",
      supportedVersions: ["2026-07-28", "2025-11-25"],
      capabilities: { tools: {} },
      ttlMs: 0,
      cacheScope: "public",
      _meta: { [META_SERVER_INFO]: SERVER_INFO },
    },
  };
}
