// Work kept across 2026-07-28 input rounds (lib/peer/server/round-state.ts): a handler that calls
// ctx.elicit runs again from the top on each round (shown here, as documented), and ctx.once
// keeps what it did before, in a sealed requestState, so a side effect before ctx.elicit()
// runs once, in either era. A state altered, expired, or replayed on other arguments is
// refused with -32602 before the handler runs.

import { test } from "node:test";
import assert from "node:assert/strict";
import { ErrorCode, MODERN_VERSIONS, SESSION_VERSIONS, type CallToolResult, type ProtocolVersion } from "../../lib/index.js";
import { Client, Server, sealedRounds, type HandlerContext, type PeerHost, type ServerSession } from "../../lib/peer/index.js";
import { RoundState, SEALED_ROUNDS, openRounds } from "../../lib/peer/server/round-state.js";
import { roundBinding } from "../../lib/peer/server/round-sealing.js";
import { InputRequiredSignal } from "../../lib/peer/server/input-rounds.js";
import { stateBody } from "../../lib/peer/server/request-state.js";
import { base64urlEncode } from "../../lib/codec/pagination.js";
import { hmacSha256 } from "../../lib/codec/sha256.js";
import { Pair, SERVER_INFO, type PairOptions } from "../support/peer-harness.js";
import { mcpError, rejection } from "../support/helpers.js";

const ALL: ProtocolVersion[] = [...SESSION_VERSIONS, ...MODERN_VERSIONS];
const ROUNDS_SECRET = new Uint8Array(32).fill(9);
const decoder = new TextDecoder();
const encoder = new TextEncoder();
type Message = Record<string, unknown>;

async function connected(era: "modern" | "session", options: PairOptions = {}): Promise<Pair> {
  const pair = new Pair({
    ...options,
    server: { versions: era === "modern" ? ALL : SESSION_VERSIONS, ...options.server },
    client: { versions: era === "modern" ? ALL : SESSION_VERSIONS, capabilities: { elicitation: {} }, ...options.client },
  });
  const result = await pair.connect();
  assert.equal(result.era, era);
  return pair;
}

function text(result: CallToolResult): string {
  const first = result.content[0];
  assert.ok(first !== undefined && first.type === "text", `a text content block: ${JSON.stringify(result)}`);
  return first.text;
}

const ask = (ctx: HandlerContext, message: string) =>
  ctx.elicit({ message, requestedSchema: { type: "object", properties: { ok: { type: "boolean" } } } });

/** An order tool: charges (through once, or not), then asks twice; counts runs and charges. */
function orderTool(useOnce: boolean) {
  const counts = { runs: 0, charges: 0 };
  const setup = (s: Server): void => {
    s.tool(
      "order",
      { inputSchema: { type: "object", properties: { item: { type: "string" } }, required: ["item"] } },
      async (args, ctx) => {
        counts.runs++;
        const charge = () => {
          counts.charges++;
          return { receipt: `r-${args.item}-${counts.charges}` };
        };
        const { receipt } = useOnce ? await ctx.once("charge", charge) : charge();
        const first = await ask(ctx, "Ship now?");
        const second = await ask(ctx, "Gift wrap?");
        return { content: [{ type: "text", text: `${receipt} ${String(first.content?.ok)} ${String(second.content?.ok)}` }] };
      },
    );
  };
  return { counts, setup };
}

/**
 * A client linked to a new session of `server` by hand (not the test Pair: the bytes to the
 * server pass through `rewrite`, which may change the requestState of each tools/call retry);
 * `clock.now` is the time both sides read. No timers: nothing here times out.
 */
async function interceptedLink(
  server: Server,
  rewrite: (state: string, params: Message) => void,
): Promise<{ client: Client; clock: { now: number } }> {
  const clock = { now: 0 };
  let session: ServerSession | undefined;
  let client: Client | undefined;
  const host = (deliver: (bytes: Uint8Array) => void): PeerHost => ({
    write: (bytes) => void Promise.resolve().then(() => deliver(bytes)),
    now: () => clock.now,
    armTimer: () => undefined,
  });
  const toServer = (bytes: Uint8Array): void => {
    const out = decoder
      .decode(bytes)
      .split("\n")
      .filter((line) => line !== "")
      .map((line) => {
        const message = JSON.parse(line) as Message;
        const params = message.params as Message | undefined;
        if (message.method === "tools/call" && typeof params?.requestState === "string") rewrite(params.requestState, params);
        return `${JSON.stringify(message)}\n`;
      });
    session?.receiveBytes(encoder.encode(out.join("")));
  };
  session = server.connect(host((bytes) => client?.driver.receiveBytes(bytes)));
  client = new Client(host(toServer), { info: { name: "c", version: "1" }, versions: ALL, capabilities: { elicitation: {} } });
  const connected = await client.connect();
  assert.equal(connected.era, "modern");
  return { client, clock };
}

test("MOD-10: 2026-07-28 re-runs the handler on each input round: a side effect before ctx.elicit() without once repeats", async () => {
  const { counts, setup } = orderTool(false);
  const pair = await connected("modern", { setup });
  pair.client.setRequestHandler("elicitation/create", () => ({ action: "accept", content: { ok: true } }));
  assert.equal(text(await pair.client.callTool("order", { item: "tea" })), "r-tea-3 true true");
  assert.deepEqual(counts, { runs: 3, charges: 3 });
});

test("MOD-10: 2026-07-28 with inputRounds: a side effect through ctx.once before ctx.elicit() runs once over three rounds, its value carried sealed", async () => {
  const { counts, setup } = orderTool(true);
  const pair = await connected("modern", { setup, server: { inputRounds: sealedRounds({ secret: ROUNDS_SECRET }) } });
  pair.client.setRequestHandler("elicitation/create", (p) => ({ action: "accept", content: { ok: p.message === "Ship now?" } }));
  assert.equal(text(await pair.client.callTool("order", { item: "tea" })), "r-tea-1 true false");
  assert.deepEqual(counts, { runs: 3, charges: 1 });
  const states = pair.clientHost.messages("tools/call").map((m) => (m.params as Message).requestState);
  assert.equal(states[0], undefined);
  for (const state of states.slice(1)) assert.ok(typeof state === "string" && state.startsWith(SEALED_ROUNDS), String(state));
  // "true false": the first answer reached the third run too, carried inside the seal with the receipt.
  assert.equal(states.length, 3);
});

test("the session era: a side effect through ctx.once before ctx.elicit() runs once, without any secret", async () => {
  const { counts, setup } = orderTool(true);
  const pair = await connected("session", { setup });
  pair.client.setRequestHandler("elicitation/create", () => ({ action: "accept", content: { ok: true } }));
  assert.equal(text(await pair.client.callTool("order", { item: "tea" })), "r-tea-1 true true");
  assert.deepEqual(counts, { runs: 1, charges: 1 });
});

test("ctx.once under 2026-07-28 without ServerOptions.inputRounds fails the tool, saying what to configure", async () => {
  const { counts, setup } = orderTool(true);
  const pair = await connected("modern", { setup });
  const result = await pair.client.callTool("order", { item: "tea" });
  assert.equal(result.isError, true);
  assert.match(text(result), /ctx\.once under 2026-07-28 .*expected ServerOptions\.inputRounds/);
  assert.deepEqual(counts, { runs: 1, charges: 0 });
});

test("a sealed state that was altered, or replayed with other arguments, or has expired, is refused with -32602 before the handler runs", async () => {
  for (const attack of ["tampered", "other-request", "expired"] as const) {
    const { counts, setup } = orderTool(true);
    const server = new Server({ info: SERVER_INFO, versions: ALL, inputRounds: sealedRounds({ secret: ROUNDS_SECRET, ttlMs: 1000 }) });
    setup(server);
    const { client, clock } = await interceptedLink(server, (state, params) => {
      if (attack === "tampered") params.requestState = `${state.slice(0, -6)}${state.slice(-6) === "AAAAAA" ? "BBBBBB" : "AAAAAA"}`;
      if (attack === "other-request") params.arguments = { item: "gold" };
    });
    // "expired": the client answers after the state's ttl has passed.
    client.setRequestHandler("elicitation/create", () => {
      if (attack === "expired") clock.now += 1000;
      return { action: "accept", content: { ok: true } };
    });
    const error = await mcpError(client.callTool("order", { item: "tea" }), ErrorCode.InvalidParams);
    assert.match(error.message, new RegExp(`requestState refused \\(${attack}\\)`));
    assert.deepEqual(error.data, { reason: attack });
    assert.deepEqual(counts, { runs: 1, charges: 1 }, `${attack}: the handler did not run again`);
  }
});

test("RoundState.once: one run per key, JSON copies, concurrent calls share the run, failures are not kept", async () => {
  const state = RoundState.session();
  const once = <T>(key: string, fn: () => T | Promise<T>): Promise<T> => state.once(key, fn, false);
  let calls = 0;
  const [a, b] = await Promise.all([once("k", () => ++calls), once("k", () => ++calls)]);
  assert.deepEqual([a, b, calls], [1, 1, 1]);
  assert.equal(await once("k", () => ++calls), 1);
  const when = await once("date", () => new Date(0));
  assert.equal(when as unknown, "1970-01-01T00:00:00.000Z", "a JSON copy, as later rounds would see it");
  assert.equal(await once("nothing", () => undefined), undefined);
  assert.equal(await once("nothing", () => "not run again"), undefined);
  const big = await rejection(once("big", () => 1n));
  assert.ok(big instanceof TypeError && /ctx\.once\("big"\): the value must be JSON/.test(big.message));
  await rejection(once("fails", () => Promise.reject(new Error("boom"))));
  assert.equal(await once("fails", () => "second try"), "second try");
  const badKey = await rejection(once(7 as unknown as string, () => 1));
  assert.ok(badKey instanceof TypeError);
  assert.equal(await once("__proto__", () => "a key like any other"), "a key like any other");
  assert.equal(await once("__proto__", () => "not run again"), "a key like any other");
});

test("the binding separates method, target, arguments and principal, and ignores the order of argument keys", () => {
  const base = roundBinding("tools/call", { name: "t", arguments: { a: 1, b: [1, { c: 2, d: null }] } }, "alice");
  assert.equal(roundBinding("tools/call", { name: "t", arguments: { b: [1, { d: null, c: 2 }], a: 1 } }, "alice"), base);
  assert.notEqual(roundBinding("tools/call", { name: "t", arguments: { a: 2, b: [1, { c: 2, d: null }] } }, "alice"), base);
  assert.notEqual(roundBinding("tools/call", { name: "u", arguments: { a: 1, b: [1, { c: 2, d: null }] } }, "alice"), base);
  assert.notEqual(roundBinding("tools/call", { name: "t", arguments: { a: 1, b: [1, { c: 2, d: null }] } }, "bob"), base);
  assert.notEqual(roundBinding("prompts/get", { name: "t", arguments: { a: 1, b: [1, { c: 2, d: null }] } }, "alice"), base);
  assert.notEqual(
    roundBinding("resources/read", { uri: "file:///a" }, undefined),
    roundBinding("resources/read", { uri: "file:///b" }, undefined),
  );
});

test("sealedRounds checks its options where it is called, and a Server takes nothing else as inputRounds", () => {
  assert.throws(
    () => sealedRounds({ secret: new Uint8Array(16) }),
    /sealedRounds: expected a secret of at least 32 bytes \(a Uint8Array\), got 16 bytes/,
  );
  assert.throws(() => sealedRounds({ secret: "x" as unknown as Uint8Array }), /got string/);
  assert.throws(() => sealedRounds({ secret: ROUNDS_SECRET, ttlMs: 0 }), /sealedRounds: expected a positive ttlMs, got 0/);
  assert.equal(sealedRounds({ secret: ROUNDS_SECRET }).ttlMs, 600_000);
  // The shape of the option before sealedRounds: refused at the constructor, naming the maker.
  assert.throws(
    () => new Server({ info: SERVER_INFO, inputRounds: { secret: ROUNDS_SECRET } as never }),
    /expected inputRounds to be what sealedRounds\(\{ secret, ttlMs\? \}\) returns; got an object with keys secret/,
  );
});

test("openRounds: a malformed token, values nested too deep, and a payload of the wrong shape are handled without a throw", () => {
  const options = sealedRounds({ secret: ROUNDS_SECRET });
  const binding = roundBinding("tools/call", { name: "t" }, undefined);
  const bindingOf = (): string => binding;
  const seal = (payload: unknown): string => {
    const body = stateBody(payload, binding, 1000);
    return `${SEALED_ROUNDS}${base64urlEncode(body)}.${base64urlEncode(hmacSha256(ROUNDS_SECRET, body))}`;
  };
  const malformed = openRounds({ name: "t", requestState: `${SEALED_ROUNDS}not-a-token` }, 8, options, bindingOf, 0);
  assert.ok(!malformed.ok && malformed.code === ErrorCode.InvalidParams && /refused \(malformed\)/.test(malformed.message));

  let deep: unknown = 1;
  for (let i = 0; i < 10; i++) deep = { d: deep };
  const deepSealed = openRounds(
    { name: "t", requestState: seal({ a: {}, o: {} }), inputResponses: { k: deep } as never },
    4,
    options,
    bindingOf,
    0,
  );
  assert.ok(
    !deepSealed.ok && deepSealed.code === ErrorCode.InvalidParams && /inputResponses nested deeper than 4/.test(deepSealed.message),
  );
  const deepPlain = openRounds({ name: "t", inputResponses: { k: deep } as never }, 4, options, bindingOf, 0);
  assert.ok(!deepPlain.ok && /inputResponses nested deeper than 4/.test(deepPlain.message));

  const unsealed = openRounds(
    { name: "t", inputResponses: { k: 1 } },
    8,
    undefined,
    () => assert.fail("no binding is computed (no hashing) without inputRounds"),
    0,
  );
  assert.ok(unsealed.ok && unsealed.rounds.answers?.k === 1);

  const odd = openRounds({ name: "t", requestState: seal("not an object") }, 8, options, bindingOf, 0);
  assert.ok(odd.ok);
  assert.equal(odd.rounds.answers, undefined);

  const fresh = openRounds(
    {
      name: "t",
      requestState: seal({ a: { "elicitation/create#0": { action: "accept" } }, o: { k: { v: 1 }, bad: 2 } }),
      inputResponses: { "elicitation/create#1": { action: "decline" } },
    },
    8,
    options,
    bindingOf,
    0,
  );
  assert.ok(fresh.ok);
  assert.deepEqual(fresh.rounds.answers, { "elicitation/create#0": { action: "accept" }, "elicitation/create#1": { action: "decline" } });
  assert.deepEqual(
    (JSON.parse(roundBinding("tools/call", {}, undefined)) as string[]).slice(0, 3),
    ["tools/call", "", ""],
    "no name or uri: an empty target",
  );
});

test("RoundState.inputRequired: sealed when configured, carried plainly when not, an Error when the state cannot be encoded", async () => {
  const requests = { "elicitation/create#0": { method: "elicitation/create" } };
  const plain = new RoundState(undefined, "b", 0, { x: 1 }, undefined).inputRequired(requests, 8);
  assert.ok(plain instanceof InputRequiredSignal && plain.state === undefined && plain.answered?.x === 1);
  const sealed = new RoundState(sealedRounds({ secret: ROUNDS_SECRET }), "b", 0, undefined, { k: { v: 1 } }).inputRequired(requests, 8);
  assert.ok(sealed instanceof InputRequiredSignal && typeof sealed.state === "string" && sealed.state.startsWith(SEALED_ROUNDS));
  let deep: unknown = 1;
  for (let i = 0; i < 10; i++) deep = { d: deep };
  const tooDeep = new RoundState(sealedRounds({ secret: ROUNDS_SECRET }), "b", 0, { k: deep } as never, undefined).inputRequired(
    requests,
    2,
  );
  assert.ok(tooDeep instanceof Error && !(tooDeep instanceof InputRequiredSignal) && /cannot be sealed/.test(tooDeep.message));
});
