// Helpers shared by the test suites: bounded waits, running the CLI to completion, reading a
// text result, and catching rejections. Not a test file itself.

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { McpError } from "../../lib/peer/shared/errors.js";
import type { CallToolResult } from "../../lib/types/index.js";

/** `promise`, or a rejection naming `label` after `ms`: no e2e wait is unbounded. */
export function withTimeout<T>(promise: Promise<T>, ms: number, label: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${label}: no outcome within ${ms} ms`)), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

export function sleep(ms: number): Promise<void> {
  return new Promise<void>((resolve) => setTimeout(resolve, ms));
}

/** The text of a tool result's first block (asserting it is text). */
export function firstText(result: CallToolResult): string {
  const block = result.content[0];
  assert.ok(block !== undefined && block.type === "text", `expected a text block, got ${JSON.stringify(result.content)}`);
  return block.text;
}

export interface Run {
  code: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
}

/** Runs `node <args>` to completion (killed after `ms`). */
export function runNode(args: readonly string[], ms = 20_000): Promise<Run> {
  return new Promise<Run>((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    const out = new TextDecoder();
    const err = new TextDecoder();
    child.stdout.on("data", (chunk) => (stdout += out.decode(chunk, { stream: true })));
    child.stderr.on("data", (chunk) => (stderr += err.decode(chunk, { stream: true })));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`node ${args.join(" ")} did not finish within ${ms} ms; stdout: ${stdout}; stderr: ${stderr}`));
    }, ms);
    child.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** What `promise` rejects with; fails the test if it resolves. */
export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  assert.fail("expected a rejection");
}

/** The McpError `promise` rejects with, asserting its code. */
export async function mcpError(promise: Promise<unknown>, code: number): Promise<McpError> {
  const error = await rejection(promise);
  assert.ok(error instanceof McpError, `expected McpError, got ${String(error)}`);
  assert.equal(error.code, code, error.message);
  return error;
}

/** A seeded uniform generator in [0, 1) (mulberry32), so randomised tests reproduce from their seed. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The parts of the platform's fetch Response the HTTP tests read (typed here: the project has no DOM type package). */
export interface StreamReader {
  read(): Promise<{ done: boolean; value?: Uint8Array }>;
  cancel(reason?: unknown): Promise<void>;
}
export interface FetchResponse {
  readonly status: number;
  readonly headers: { get(name: string): string | null };
  readonly body: { getReader(): StreamReader } | null;
  text(): Promise<string>;
}

/** The byte arrays one after another, in one array (the hosts' own helper). */
export { concatBytes as concat } from "../../lib/hosts/bytes.js";
