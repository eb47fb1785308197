// Helpers of the Engine unit tests (core/engine*.test.ts): engines of either role with test
// identities and capabilities, an initialize message, engines already in operating (drained),
// and draining their outbound messages and events. Not a test file itself.

import assert from "node:assert/strict";
import { Engine, LocalProtocolError, newestVersion, type EngineEvent, type EngineOptions, type JsonObject } from "../../lib/internal.js";

export const CLIENT_INFO = { name: "test-client", version: "1.0.0" };
export const SERVER_INFO = { name: "test-server", version: "2.0.0" };
export const SERVER_CAPS: JsonObject = { tools: {}, prompts: {}, resources: { subscribe: true }, logging: {} };
export const CLIENT_CAPS: JsonObject = { roots: { listChanged: true }, sampling: {} };

export function drainOut(e: Engine): JsonObject[] {
  const out: JsonObject[] = [];
  for (let o = e.pollOutbound(); o !== undefined; o = e.pollOutbound()) out.push(o.message as unknown as JsonObject);
  return out;
}

export function events(e: Engine): EngineEvent[] {
  const into: EngineEvent[] = [];
  e.takeEvents(into);
  return into;
}

export function isRule(rule: string): (e: unknown) => boolean {
  return (e: unknown) => e instanceof LocalProtocolError && e.rule === rule;
}

export function newServer(options: Partial<EngineOptions> = {}): Engine {
  return new Engine({ role: "server", info: SERVER_INFO, capabilities: SERVER_CAPS, ...options });
}

export function newClient(options: Partial<EngineOptions> = {}): Engine {
  return new Engine({ role: "client", info: CLIENT_INFO, capabilities: CLIENT_CAPS, ...options });
}

export function initializeMessage(version: string = "2025-11-25", id: string | number = 0): JsonObject {
  return {
    jsonrpc: "2.0",
    id,
    method: "initialize",
    params: { protocolVersion: version, capabilities: CLIENT_CAPS, clientInfo: CLIENT_INFO },
  };
}

/** A server in operating, drained. */
export function operatingServer(options: Partial<EngineOptions> = {}, version: string = "2025-11-25"): Engine {
  const s = newServer(options);
  s.receiveMessage(initializeMessage(version));
  s.receiveMessage({ jsonrpc: "2.0", method: "notifications/initialized" });
  drainOut(s);
  events(s);
  assert.equal(s.phase, "operating");
  return s;
}

/** A client in operating, drained. */
export function operatingClient(options: Partial<EngineOptions> = {}, serverCaps: JsonObject = SERVER_CAPS): Engine {
  const c = newClient(options);
  const id = c.initialize();
  const version = newestVersion(c.versions);
  c.receiveMessage({
    jsonrpc: "2.0",
    id,
    result: { protocolVersion: version, capabilities: serverCaps, serverInfo: SERVER_INFO, instructions: "be nice" },
  });
  drainOut(c);
  events(c);
  assert.equal(c.phase, "operating");
  return c;
}
