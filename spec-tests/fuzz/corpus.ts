// The fuzzer's seed material, mined from the fixture transcripts (fixtures/FORMAT.md):
// what peers send to each role, what each role sends (the other role's inputs), the host
// commands the fixtures perform, the endpoint configurations, and results by method.
//
// Invariants: loaded once per process and never mutated afterwards (mutators copy first);
// "$version" is substituted with every version a fixture lists, so each message exists
// in the versions it was written for.

import { readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { JsonObject } from "../../lib/index.js";
import { substitute } from "../support/replayer.js";

export type Role = "client" | "server";

export interface Corpus {
  /** JSON values a peer sends to an endpoint of this role. */
  readonly peerMessages: Record<Role, unknown[]>;
  /** Raw text inputs (in_bytes) for this role. */
  readonly peerText: Record<Role, string[]>;
  /** Host commands performed on an endpoint of this role ({op, ...args}). */
  readonly calls: Record<Role, JsonObject[]>;
  /** Fixture endpoint configurations for this role. */
  readonly configs: Record<Role, JsonObject[]>;
  /** Results seen for each method, either direction. */
  readonly results: Map<string, JsonObject[]>;
  /** Every method name seen in any message. */
  readonly methods: string[];
  /** Every string value seen (ids, names, URIs, task ids...), for plausible mutations. */
  readonly strings: string[];
}

const repoRoot = fileURLToPath(new URL("../../../", import.meta.url));

function listFiles(dir: string, into: string[]): string[] {
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) listFiles(path, into);
    else if (name.endsWith(".jsonl")) into.push(path);
  }
  return into;
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function collectStrings(value: unknown, into: Set<string>, depth = 0): void {
  if (depth > 8) return;
  if (typeof value === "string") {
    if (value.length < 80) into.add(value);
  } else if (Array.isArray(value)) {
    for (const v of value) collectStrings(v, into, depth + 1);
  } else if (isObject(value)) {
    for (const [k, v] of Object.entries(value)) {
      if (k.length < 80) into.add(k);
      collectStrings(v, into, depth + 1);
    }
  }
}

let cached: Corpus | undefined;

export function loadCorpus(): Corpus {
  if (cached !== undefined) return cached;
  const sets = {
    peerMessages: { client: new Map<string, unknown>(), server: new Map<string, unknown>() },
    peerText: { client: new Set<string>(), server: new Set<string>() },
    calls: { client: new Map<string, JsonObject>(), server: new Map<string, JsonObject>() },
    configs: { client: new Map<string, JsonObject>(), server: new Map<string, JsonObject>() },
  };
  const results = new Map<string, Map<string, JsonObject>>();
  const methods = new Set<string>();
  const strings = new Set<string>();
  const addResult = (method: string, result: unknown): void => {
    if (!isObject(result)) return;
    let bucket = results.get(method);
    if (bucket === undefined) results.set(method, (bucket = new Map()));
    bucket.set(JSON.stringify(result), result);
  };
  for (const file of listFiles(join(repoRoot, "fixtures"), [])) {
    const lines = readFileSync(file, "utf8")
      .split("\n")
      .filter((l) => l !== "");
    const header = JSON.parse(lines[0] as string) as JsonObject;
    const role = header.role as Role;
    const other: Role = role === "client" ? "server" : "client";
    for (const version of header.versions as string[]) {
      const config = substitute(header.config ?? {}, version) as JsonObject;
      sets.configs[role].set(JSON.stringify(config), config);
      // Request ids in flight per direction, to pair results with their methods.
      const sentByEndpoint = new Map<string, string>();
      const sentByPeer = new Map<string, string>();
      for (const line of lines.slice(1)) {
        const step = substitute(JSON.parse(line), version) as JsonObject;
        if ("in" in step) {
          const values = Array.isArray(step.in) ? step.in : [step.in];
          sets.peerMessages[role].set(JSON.stringify(step.in), step.in);
          for (const m of values) {
            if (!isObject(m)) continue;
            collectStrings(m, strings);
            if (typeof m.method === "string") {
              methods.add(m.method);
              if (m.id !== undefined) sentByPeer.set(JSON.stringify(m.id), m.method);
            } else if (m.id !== undefined && m.result !== undefined) {
              const method = sentByEndpoint.get(JSON.stringify(m.id));
              if (method !== undefined) addResult(method, m.result);
            }
          }
        } else if ("in_bytes" in step && typeof step.in_bytes === "string") {
          sets.peerText[role].add(step.in_bytes);
        } else if ("out" in step) {
          const values = Array.isArray(step.out) ? step.out : [step.out];
          sets.peerMessages[other].set(JSON.stringify(step.out), step.out);
          for (const m of values) {
            if (!isObject(m)) continue;
            collectStrings(m, strings);
            if (typeof m.method === "string") {
              methods.add(m.method);
              if (m.id !== undefined) sentByEndpoint.set(JSON.stringify(m.id), m.method);
            } else if (m.id !== undefined && m.result !== undefined) {
              const method = sentByPeer.get(JSON.stringify(m.id));
              if (method !== undefined) addResult(method, m.result);
            }
          }
        } else if ("call" in step && isObject(step.call)) {
          sets.calls[role].set(JSON.stringify(step.call), step.call);
          if (typeof step.call.method === "string") methods.add(step.call.method);
          if (step.call.op === "respond" && isObject(step.call.result)) {
            const method = sentByPeer.get(JSON.stringify(step.call.id));
            if (method !== undefined) addResult(method, step.call.result);
          }
          collectStrings(step.call, strings);
        }
      }
    }
  }
  const values = <T>(m: Map<string, T>): T[] => [...m.values()];
  cached = {
    peerMessages: { client: values(sets.peerMessages.client), server: values(sets.peerMessages.server) },
    peerText: { client: [...sets.peerText.client], server: [...sets.peerText.server] },
    calls: { client: values(sets.calls.client), server: values(sets.calls.server) },
    configs: { client: values(sets.configs.client), server: values(sets.configs.server) },
    results: new Map([...results].map(([k, v]) => [k, values(v)])),
    methods: [...methods].sort(),
    strings: [...strings].sort(),
  };
  return cached;
}
